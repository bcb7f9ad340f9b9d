/**
 * The route table: the only list of the API's routes. The CDK stack, the local server and the
 * API description are all built from it. Plain data, so that infrastructure code can read it
 * without loading any handler.
 */

export type StorageAccess = 'none' | 'read' | 'read-write';

export interface Route {
  /** Stable name: the Lambda's construct id and the OpenAPI operationId. */
  readonly id: string;
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** API Gateway path syntax: `{name}` for a path parameter. */
  readonly path: string;
  /** Module under `functions/` (without `.ts`) that exports `handler`. */
  readonly handler: string;
  /** Whether the route sits behind the token authorizer. */
  readonly auth: boolean;
  /** What the function may do to the table; the stack grants exactly this. */
  readonly storage: StorageAccess;
  readonly summary: string;
}

export const routes = [
  {
    id: 'health',
    method: 'GET',
    path: '/health',
    handler: 'health',
    auth: false,
    storage: 'none',
    summary: 'Liveness check for load balancers',
  },
  {
    id: 'getPolicy',
    method: 'GET',
    path: '/v1/policy',
    handler: 'get-policy',
    auth: true,
    storage: 'read',
    summary: "Read the caller's policy",
  },
  {
    id: 'updatePolicy',
    method: 'PUT',
    path: '/v1/policy',
    handler: 'put-policy',
    auth: true,
    storage: 'read-write',
    summary: "Change some of the caller's policy flags",
  },
  {
    id: 'createBan',
    method: 'POST',
    path: '/v1/bans',
    handler: 'create-ban',
    auth: true,
    storage: 'read-write',
    summary: 'Record a ban against a device',
  },
  {
    id: 'listSocialBans',
    method: 'GET',
    path: '/v1/device/{device_id}/bans/social',
    handler: 'list-social-bans',
    auth: true,
    storage: 'read',
    summary: 'List the social bans of a device that the caller can see',
  },
  {
    id: 'listCheatBans',
    method: 'GET',
    path: '/v1/device/{device_id}/bans/cheat',
    handler: 'list-cheat-bans',
    auth: true,
    storage: 'read',
    summary: 'List the cheat bans of a device that the caller can see',
  },
  {
    id: 'listBans',
    method: 'GET',
    path: '/v1/device/{device_id}/bans',
    handler: 'list-bans',
    auth: true,
    storage: 'read',
    summary: 'List the bans of every type (or of one, with ?type=) of a device that the caller can see',
  },
  {
    id: 'revokeBan',
    method: 'POST',
    path: '/v1/device/{device_id}/bans/{ban_id}/revoke',
    handler: 'revoke-ban',
    auth: true,
    storage: 'read-write',
    summary: 'Revoke one of your own bans',
  },
  {
    id: 'getEnforcement',
    method: 'GET',
    path: '/v1/device/{device_id}/enforcement',
    handler: 'get-enforcement',
    auth: true,
    storage: 'read',
    summary: 'Whether a device is restricted in this game under your policy, why, and its reputation',
  },
  {
    id: 'getEnforcementBatch',
    method: 'POST',
    path: '/v1/enforcement/batch',
    handler: 'enforcement-batch',
    auth: true,
    storage: 'read',
    summary: 'The enforcement answer for up to 100 devices (a lobby) at once',
  },
  {
    id: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    handler: 'openapi',
    auth: false,
    storage: 'none',
    summary: 'This API described in OpenAPI 3.1',
  },
] as const satisfies readonly Route[];

/** The token authorizer: a function of its own, not a route. */
export const authorizerFunction = { id: 'authorizer', handler: 'authorizer', storage: 'read' } as const;

/** Source file of a handler module, relative to the project root. */
export const handlerEntry = (handler: string) => `functions/${handler}.ts`;
