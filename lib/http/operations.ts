import * as z from 'zod/mini';
import { routes } from '../routes';
import type { RouteSpec } from './chain';
import {
  banCreationResultSchema,
  banListSchema,
  banPathSchema,
  createBanRequestSchema,
  devicePathSchema,
  enforcementBatchRequestSchema,
  enforcementBatchSchema,
  enforcementSchema,
  healthSchema,
  listAllBansQuerySchema,
  listBansQuerySchema,
  policyPatchSchema,
  policySchema,
  revokeBanRequestSchema,
  revokedBanSchema,
} from './schemas';

/**
 * One operation per route of lib/routes.ts: what the chain validates (game header, path, query,
 * body) and what the route answers on success. Handlers pass their operation to `httpRoute`; the
 * OpenAPI generator (lib/http/openapi.ts) reads all of them.
 *
 * One exported const per route, each call marked pure, so that esbuild drops every operation but its
 * own from a function's bundle (their arguments must stay literals: a call or a `${}` inside keeps
 * the whole operation); for the same reason the examples live in lib/http/openapi-examples.ts,
 * which only the generator imports. `auth` comes from the route table, never written here.
 */

type RouteRow = (typeof routes)[number];
export type RouteId = RouteRow['id'];

export type Tag = 'Health' | 'Policy' | 'Bans' | 'Enforcement' | 'Documentation';

export interface ResponseDoc {
  readonly description: string;
  readonly schema: z.ZodMiniType;
}

export interface OperationDoc extends Omit<RouteSpec, 'auth'> {
  readonly tag: Tag;
  readonly description: string;
  /** Success responses by status code. Error responses are derived from the inputs. */
  readonly responses: Readonly<Record<number, ResponseDoc>>;
  /** Whether the operation answers 404 not_found for a resource that does not exist. */
  readonly notFound?: true;
}

export type Operation<Id extends RouteId = RouteId, D extends OperationDoc = OperationDoc> = D & {
  readonly id: Id;
  readonly auth: Extract<RouteRow, { id: Id }>['auth'];
};

export const operation = <const Id extends RouteId, const D extends OperationDoc>(
  id: Id,
  doc: D,
): Operation<Id, D> => {
  // Every Id names a row: the type says so, and the route table is plain data.
  const route = routes.find((r) => r.id === id) as RouteRow;
  return { ...doc, id, auth: route.auth } as Operation<Id, D>;
};

export const healthOperation = /* @__PURE__ */ operation('health', {
  tag: 'Health',
  description: 'For load balancer checks: no authentication and no database call.',
  responses: {
    200: { description: 'The service is running.', schema: healthSchema },
  },
});

export const getPolicyOperation = /* @__PURE__ */ operation('getPolicy', {
  tag: 'Policy',
  description:
    "The caller's policy: which ban scopes it enforces and which count toward reputation. A " +
    'new publisher starts with every flag true except `enforce_social_global`.',
  responses: {
    200: { description: 'The full policy.', schema: policySchema },
  },
});

export const updatePolicyOperation = /* @__PURE__ */ operation('updatePolicy', {
  tag: 'Policy',
  description:
    'Send any subset of the eight flags: only those change, atomically, so concurrent updates of ' +
    'different flags all take effect. `{}` changes nothing but `updated_at`. Unknown fields are a 400.',
  body: policyPatchSchema,
  responses: {
    200: {
      description: 'The full policy after the update, with a new `updated_at`.',
      schema: policySchema,
    },
  },
});

export const createBanOperation = /* @__PURE__ */ operation('createBan', {
  tag: 'Bans',
  description:
    'Records a ban for the game named by `X-Game-Id`. With an `idempotency_key`, a repeat (same ' +
    'publisher, game and key) returns the original ban exactly as first created, whatever the new ' +
    'body says, and any number of concurrent requests with one key make exactly one ban. The body ' +
    'is strict: an unknown field (such as a misspelt `expire_at`) is a 400.',
  game: true,
  body: createBanRequestSchema,
  responses: {
    201: { description: 'A new ban was recorded.', schema: banCreationResultSchema },
    200: {
      description: 'The idempotency key was used before: the original ban, unchanged.',
      schema: banCreationResultSchema,
    },
  },
});

export const listSocialBansOperation = /* @__PURE__ */ operation('listSocialBans', {
  tag: 'Bans',
  description:
    'The social bans of the device that the caller can see, newest first. Visibility, paging and `counts` are described under the Bans tag.',
  game: true,
  path: devicePathSchema,
  query: listBansQuerySchema,
  responses: {
    200: {
      description: 'One page of social bans.',
      schema: banListSchema,
    },
  },
});

export const listCheatBansOperation = /* @__PURE__ */ operation('listCheatBans', {
  tag: 'Bans',
  description:
    'The cheat bans of the device that the caller can see, newest first. Visibility, paging and `counts` are described under the Bans tag.',
  game: true,
  path: devicePathSchema,
  query: listBansQuerySchema,
  responses: {
    200: {
      description: 'One page of cheat bans.',
      schema: banListSchema,
    },
  },
});

export const listBansOperation = /* @__PURE__ */ operation('listBans', {
  tag: 'Bans',
  description:
    'The bans of every type (or of one, with `type`) of the device that the caller can see, newest first. Visibility, paging and `counts` are described under the Bans tag.',
  game: true,
  path: devicePathSchema,
  query: listAllBansQuerySchema,
  responses: {
    200: {
      description: 'One page of bans.',
      schema: banListSchema,
    },
  },
});

export const revokeBanOperation = /* @__PURE__ */ operation('revokeBan', {
  tag: 'Bans',
  description:
    'Undoes a wrong ban: sets `revoked_at` and `revoke_reason_code` and makes it inactive for ' +
    'everyone at once; it stays in history. Only the publisher that made the ban may revoke it; ' +
    'for anyone else it is a 404, as for a ban that does not exist. Revoking again returns the ' +
    'ban unchanged.',
  game: true,
  path: banPathSchema,
  body: revokeBanRequestSchema,
  notFound: true,
  responses: {
    200: {
      description: 'The revoked ban.',
      schema: revokedBanSchema,
    },
  },
});

export const getEnforcementOperation = /* @__PURE__ */ operation('getEnforcement', {
  tag: 'Enforcement',
  description:
    'One call at login or matchmaking. `bans` holds the active bans that apply under your policy, ' +
    'each with `rule`: the policy flags that make it apply. A `game` ban applies when ' +
    '`enforce_game`; a `publisher` ban when `enforce_publisher`; a `global` ban of type T when ' +
    '`enforce_global` and `enforce_T_global`. `reputation.score` is ' +
    'max(0, 100 - sum of count x weight) over the scopes your `rep_include_*` flags include.',
  game: true,
  path: devicePathSchema,
  responses: {
    200: {
      description: 'Whether the device is restricted, why, and its reputation.',
      schema: enforcementSchema,
    },
  },
});

export const getEnforcementBatchOperation = /* @__PURE__ */ operation('getEnforcementBatch', {
  tag: 'Enforcement',
  description:
    'The enforcement answer for 1 to 100 devices (a lobby), in request order. An invalid id gets ' +
    'an error entry of its own without failing the others.',
  game: true,
  body: enforcementBatchRequestSchema,
  responses: {
    200: {
      description: 'One result per requested id, in request order.',
      schema: enforcementBatchSchema,
    },
  },
});

/**
 * Just enough of an OpenAPI document to check what is served; the rest is open. (Kept by every
 * bundle, like the schemas module: zod calls cannot be proven pure. About 150 bytes.)
 */
export const openApiDocumentSchema = z.looseObject({
  openapi: z.string().check(z.regex(/^3\.1\.\d+$/)),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

export const openApiOperation = /* @__PURE__ */ operation('openapi', {
  tag: 'Documentation',
  description: 'This document: OpenAPI 3.1, generated from the same schemas the handlers validate with.',
  responses: {
    200: {
      description: 'The OpenAPI document.',
      schema: openApiDocumentSchema,
    },
  },
});
