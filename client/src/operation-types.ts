import type { components, operations } from './api-types.js';

/**
 * What each operation of docs/openapi.json takes and answers, read off the generated types
 * (./api-types.ts), never written by hand: when the document changes and the types are regenerated,
 * every method's parameters and results follow.
 */

export type { components, operations, paths } from './api-types.js';

/** An operation's id (the route id of lib/routes.ts, the OpenAPI operationId). */
export type OperationId = keyof operations;

/**
 * The operations a key calls. `/health` and `/openapi.json` take no key, and the player's page's
 * routes take the player's link (the page calls them), so they are left out.
 */
export type KeyedOperationId = Exclude<
  OperationId,
  'health' | 'openapi' | 'getPlayerPage' | 'filePlayerAppeal'
>;

type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
type SuccessStatus = 200 | 201 | 202 | 204;

/** What a call answers on success: the JSON of its 2xx answers (undefined for a 204). */
export type Result<K extends OperationId> = {
  [S in keyof operations[K]['responses'] & SuccessStatus]: JsonContent<operations[K]['responses'][S]>;
}[keyof operations[K]['responses'] & SuccessStatus];

/** The JSON body an operation takes. */
export type Body<K extends OperationId> = operations[K] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** An operation's query parameters, as an object (every one optional where the document says so). */
export type Query<K extends OperationId> = operations[K] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;

/** An operation's path parameters. */
export type PathParams<K extends OperationId> = operations[K] extends { parameters: { path: infer P } }
  ? P
  : never;

export type Schemas = components['schemas'];

/** The documented error envelope (docs/api.md, Errors). */
export type ErrorEnvelope = Schemas['Error'];
/** A `code` the API documents. */
export type DocumentedErrorCode = ErrorEnvelope['error']['code'];
/** One entry of `details`: the field and what is wrong with it. */
export type FieldIssue = Schemas['FieldIssue'];

export type Policy = Schemas['Policy'];
export type PolicyPatch = Body<'updatePolicy'>;
export type CreateBanRequest = Body<'createBan'>;
export type BanCreationResult = Result<'createBan'>;
export type BanList = Result<'listBans'>;
export type Ban = BanList['items'][number];
export type RevokeBanRequest = Body<'revokeBan'>;
export type Enforcement = Result<'getEnforcement'>;
export type EnforcementBatch = Result<'getEnforcementBatch'>;
export type FeedPage = Result<'listEvents'>;
export type FeedEvent = FeedPage['items'][number];
export type CreateAppealRequest = Body<'createAppeal'>;
export type Appeal = Result<'getAppeal'>;
