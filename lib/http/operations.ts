import type { routes } from '../routes';
import type { RouteSpec } from './chain';
import {
  banPathSchema,
  createBanRequestSchema,
  devicePathSchema,
  enforcementBatchRequestSchema,
  listAllBansQuerySchema,
  listBansQuerySchema,
  policyPatchSchema,
  revokeBanRequestSchema,
} from './schemas';

/**
 * One operation per route of lib/routes.ts: what the chain validates (game header, path, query,
 * body) and whether the route sits behind the authorizer. Handlers pass their operation to
 * `httpRoute`; the OpenAPI generator (lib/http/openapi.ts) reads all of them.
 *
 * Only what a handler needs at runtime is here: each operation is a plain object literal, so
 * esbuild drops every operation but its own from a function's bundle. The documentation half
 * (tag, description, responses) is in lib/http/operation-docs.ts and the examples in
 * lib/http/openapi-examples.ts, which only the generator imports. `auth` is written here rather
 * than looked up, so that no bundle carries the route table; its type is the route table's, so a
 * mismatch does not compile.
 */

type RouteRow = (typeof routes)[number];
export type RouteId = RouteRow['id'];

export type Operation<Id extends RouteId = RouteId> = Omit<RouteSpec, 'auth'> & {
  readonly id: Id;
  readonly auth: Extract<RouteRow, { id: Id }>['auth'];
};

export const healthOperation = { id: 'health', auth: false } as const satisfies Operation<'health'>;

export const getPolicyOperation = { id: 'getPolicy', auth: true } as const satisfies Operation<'getPolicy'>;

export const updatePolicyOperation = {
  id: 'updatePolicy',
  auth: true,
  body: policyPatchSchema,
} as const satisfies Operation<'updatePolicy'>;

export const createBanOperation = {
  id: 'createBan',
  auth: true,
  game: true,
  body: createBanRequestSchema,
} as const satisfies Operation<'createBan'>;

export const listSocialBansOperation = {
  id: 'listSocialBans',
  auth: true,
  game: true,
  path: devicePathSchema,
  query: listBansQuerySchema,
} as const satisfies Operation<'listSocialBans'>;

export const listCheatBansOperation = {
  id: 'listCheatBans',
  auth: true,
  game: true,
  path: devicePathSchema,
  query: listBansQuerySchema,
} as const satisfies Operation<'listCheatBans'>;

export const listBansOperation = {
  id: 'listBans',
  auth: true,
  game: true,
  path: devicePathSchema,
  query: listAllBansQuerySchema,
} as const satisfies Operation<'listBans'>;

export const revokeBanOperation = {
  id: 'revokeBan',
  auth: true,
  game: true,
  path: banPathSchema,
  body: revokeBanRequestSchema,
} as const satisfies Operation<'revokeBan'>;

export const getEnforcementOperation = {
  id: 'getEnforcement',
  auth: true,
  game: true,
  path: devicePathSchema,
} as const satisfies Operation<'getEnforcement'>;

export const getEnforcementBatchOperation = {
  id: 'getEnforcementBatch',
  auth: true,
  game: true,
  body: enforcementBatchRequestSchema,
} as const satisfies Operation<'getEnforcementBatch'>;

export const openApiOperation = { id: 'openapi', auth: false } as const satisfies Operation<'openapi'>;
