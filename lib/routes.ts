import { type ScopeNeed, scopes } from '@kernel/scopes';
import type * as z from 'zod/mini';
import { type BundledFile, CONFUSABLES } from './model/bundled-files';
import {
  exportJobPathSchema,
  exportJobRequestSchema,
  exportPathSchema,
  exportQuerySchema,
} from './model/exports';
import { IMPORT_MAX_BODY_BYTES, IMPORT_TIMEOUT_SECONDS, importRequestSchema } from './model/imports';
import {
  appealClaimRequestSchema,
  appealDecisionRequestSchema,
  appealPathSchema,
  appealsQuerySchema,
  auditQuerySchema,
  banPathSchema,
  createAppealRequestSchema,
  createBanRequestSchema,
  createKeyRequestSchema,
  createPlayerLinkRequestSchema,
  createWebhookRequestSchema,
  deliveriesQuerySchema,
  devicePathSchema,
  devicesQuerySchema,
  dsaStatementsQuerySchema,
  enforcementBatchRequestSchema,
  eventsQuerySchema,
  expiringBansQuerySchema,
  invitePersonRequestSchema,
  keyPathSchema,
  listAllBansQuerySchema,
  listBansQuerySchema,
  listKeysQuerySchema,
  listPublishersQuerySchema,
  localeQuerySchema,
  personPathSchema,
  playerAppealRequestSchema,
  policyPatchSchema,
  putDeviceFormatsRequestSchema,
  putPublisherRequestSchema,
  putReasonsRequestSchema,
  revokeBanRequestSchema,
  snapshotQuerySchema,
  transparencyReportQuerySchema,
  updatePersonRequestSchema,
  webhookPathSchema,
} from './model/requests';
import type { Partition } from './storage/keys';

/**
 * The route table: the only list of the API's routes. The CDK stack (functions, methods, IAM),
 * the local gateway, the handlers' validation and the OpenAPI document are all built from it.
 *
 * Each row is its own export, and the table lists them: a handler imports only its own row, so
 * esbuild leaves every other row (and the schemas only they use) out of that function's bundle.
 * Adding a route touches three places: a row here (with its `retry` rule), its
 * `functions/<handler>.ts`, and its entry in lib/openapi/operations.ts (docs and examples); each of
 * the other two is checked at compile time against the route ids. The OpenAPI document, and from it
 * the client's method table (client/src/operations.ts), follow the row.
 */

/** The DynamoDB actions a function may be granted. */
export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:Query'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:BatchWriteItem';

/**
 * What a function does to the table, exactly: each action its lib/ code sends, with the partitions
 * (lib/storage/keys.ts) it sends it to. The stack grants this and nothing more, each action under a
 * dynamodb:LeadingKeys condition on its own partitions: a function that writes audit events but
 * deletes only bans cannot delete an audit event.
 */
export type TableAccess = { readonly [A in TableAction]?: readonly Partition[] };

/** The Cognito actions a function may be granted, on the stack's user pool only. */
export type UserPoolAction =
  | 'cognito-idp:ListUsers'
  | 'cognito-idp:AdminGetUser'
  | 'cognito-idp:AdminCreateUser'
  | 'cognito-idp:AdminDeleteUser'
  | 'cognito-idp:AdminUpdateUserAttributes'
  | 'cognito-idp:AdminDisableUser'
  | 'cognito-idp:AdminEnableUser'
  | 'cognito-idp:AdminUserGlobalSignOut';

/** Requests per second (steady state) and burst (requests at once), as API Gateway takes them. */
export interface RateLimits {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/**
 * Each route's request-rate class, with two limits per method of the class: `rateLimit` /
 * `burstLimit`, the deployed stage's for all publishers together, and `publisher`, each
 * publisher's own (the usage plan's; null exactly for the public class: no key, no one to count).
 * Invariants: `read` and `write` share one per-publisher bucket, so the plan's per-method entries
 * (at most 20) do not grow with the routes (infra/stack/route-classes.ts); a publisher's limits
 * never exceed its class's stage limits (test/infra/stack.test.ts). Values and reasons:
 * docs/deploy.md#throttling and docs/deploy.md#quotas.
 */
export const throttleClasses = {
  /** One or two reads (a GetItem and a Query): login and matchmaking checks, listings. */
  read: { rateLimit: 200, burstLimit: 400, publisher: { rateLimit: 50, burstLimit: 100 } },
  /**
   * Two or three writes (id counter, ban, idempotency record) or one conditional update. Each
   * publisher: the plan-wide bucket it shares with its reads.
   */
  write: { rateLimit: 100, burstLimit: 200, publisher: { rateLimit: 50, burstLimit: 100 } },
  /** Up to 100 Queries in one request: 20 requests/s is 2,000 device reads/s (500 per publisher). */
  batch: { rateLimit: 20, burstLimit: 40, publisher: { rateLimit: 5, burstLimit: 10 } },
  /**
   * The change feed, which every game server polls about once a second: most polls are
   * answered from the per-container feed cache (docs/scale.md, Polling the change feed), so the
   * table is not what limits them. Stage: 10,000/s, burst 5,000, API Gateway's default for the
   * whole account and region: the most the method can take without a quota increase, and then all
   * of it, so a fleet of 10,000 servers polling at 1 s needs the account's throttle quota raised
   * (every other request of the account shares those 10,000/s). Each publisher: a quarter of the
   * rate, 2,500/s (2,500 servers at 1 s, 25,000 at 10 s), so one publisher's fleet leaves three
   * quarters to the others; its burst is one second's polls, 2,500, since servers on a 1 s timer
   * line up after a deploy or an outage (half the stage's burst, which is only half its rate).
   */
  feed: { rateLimit: 10_000, burstLimit: 5_000, publisher: { rateLimit: 2_500, burstLimit: 2_500 } },
  /**
   * Imports (POST /v1/imports): up to 500 rows a request, each some 5 writes (its record, its
   * ban, its index entries) and a read, so 20 requests/s is up to 10,000 rows/s for the stage.
   * A class of its own so that a studio's migration, which sends as fast as it is let, never
   * takes the write bucket that bans and revocations share with enforcement; each publisher a
   * quarter of it (5/s: 2,500 rows/s, a million rows in under 7 minutes).
   */
  import: { rateLimit: 20, burstLimit: 40, publisher: { rateLimit: 5, burstLimit: 10 } },
  /** No key and no database: health checks and the API description. */
  public: { rateLimit: 50, burstLimit: 100, publisher: null },
  /**
   * The player's page: no key (a link stands for one device), so no publisher to count; the stage's
   * limit for all players together, and the firewall's per-address rule for each one
   * (infra/stack/firewall.ts). A page load is one request; an appeal one more.
   */
  player: { rateLimit: 100, burstLimit: 200, publisher: null },
} as const satisfies Record<string, RateLimits & { readonly publisher: RateLimits | null }>;
export type ThrottleClass = keyof typeof throttleClasses;

/**
 * Whether a client may send a request again when no answer came, or the answer was 429 or 503
 * (the OpenAPI document's `x-retry` on each operation; the client package's method table is
 * generated from it, client/src/operations.ts): `read` (only reads, or stores again what it
 * caches), `idempotency_key` (a create repeated with the same key makes none), `repeatable` (a
 * repeat answers what the first did and changes nothing more: lib/domain/bans.ts, api-keys.ts,
 * appeals.ts) or `never`. Which routes are which, and why: docs/api.md#conventions.
 */
export type RetryRule = 'read' | 'idempotency_key' | 'repeatable' | 'never';

/** What the shared middy chain validates before the handler runs. */
export interface RequestSpec {
  /** Whether the X-Game-Id header is required. */
  readonly game?: boolean;
  /** The route acts on every game of the publisher: a key bound to games is refused (403). */
  readonly everyGame?: boolean;
  readonly body?: z.ZodMiniType;
  /** The most bytes its body may have, when not the API's MAX_BODY_BYTES (lib/http/chain.ts). */
  readonly maxBodyBytes?: number;
  readonly query?: z.ZodMiniType;
  /** The path parameters. */
  readonly path?: z.ZodMiniType;
  /**
   * A public route of the player's page: the X-Player-Link header is required (absent or not a
   * link's shape: 401, as an unknown link), and the handler opens the link it carries.
   */
  readonly playerLink?: boolean;
}

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
  /** The scope a key needs to call it, or any one of several (kernel/scopes.ts); null exactly for the public routes. */
  readonly scope: ScopeNeed | null;
  readonly request: RequestSpec;
  /** Absent: the function never touches the table (and is not told its name). */
  readonly table?: TableAccess;
  /**
   * The people routes: the Cognito actions its lib/storage/user-pool.ts calls send, which the
   * stack grants on its user pool's ARN and nothing else (and names the pool in
   * PEOPLE_DIRECTORY). With a publisher's own provider there is no pool: nothing is granted.
   */
  readonly userPool?: readonly UserPoolAction[];
  /** Its rate limits in the deployed stage, overall and per publisher (throttleClasses). */
  readonly throttle: ThrottleClass;
  /** Whether a repeat is safe (RetryRule): required, so that no route is left without one. */
  readonly retry: RetryRule;
  /** It hands deliveries to the deliveries queue: the stack grants it SendMessage there and names the queue. */
  readonly sendsDeliveries?: boolean;
  /** It hands export jobs to their queue: the stack grants it SendMessage there and names the queue. */
  readonly queuesExportJobs?: boolean;
  /** It signs download URLs of export files: the stack grants it GetObject on the export bucket (only to sign) and names the bucket. */
  readonly signsExportFiles?: boolean;
  /** Data files its function reads at run time: the stack puts each beside its bundle. */
  readonly files?: readonly BundledFile[];
  /**
   * Its function's time limit when not the default 10 s (infra/stack/service-function.ts), locally
   * and deployed alike: at most 28 s, inside API Gateway's 29 s integration limit.
   */
  readonly timeoutSeconds?: number;
}

export const healthRoute = {
  id: 'health',
  method: 'GET',
  path: '/health',
  handler: 'health',
  auth: false,
  scope: null,
  request: {},
  throttle: 'public',
  retry: 'read',
} as const satisfies Route;

export const getPolicyRoute = {
  id: 'getPolicy',
  method: 'GET',
  path: '/v1/policy',
  handler: 'get-policy',
  auth: true,
  scope: 'policy:read',
  request: {},
  table: { 'dynamodb:GetItem': ['publisher'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

export const updatePolicyRoute = {
  id: 'updatePolicy',
  method: 'PUT',
  path: '/v1/policy',
  handler: 'put-policy',
  auth: true,
  scope: 'policy:write',
  // The policy (flags and trust) applies in every game: no key bound to games sets it.
  request: { body: policyPatchSchema, everyGame: true },
  // One conditional UpdateItem returning ALL_OLD, then its event (and the previous one's, if missing).
  table: { 'dynamodb:UpdateItem': ['publisher'], 'dynamodb:PutItem': ['audit'] },
  throttle: 'write',
  retry: 'never',
} as const satisfies Route;

/**
 * How many devices a policy draft would restrict or free in the caller's game (`policy:read`: it
 * writes nothing): the policy, and the live sets of the publisher's, the game's and the global feed
 * partitions: copies kept by the process, caught up on those feed partitions before each use, or
 * read whole in pages (lib/domain/live-set-copy.ts).
 */
export const previewPolicyRoute = {
  id: 'previewPolicy',
  method: 'POST',
  path: '/v1/policy/preview',
  handler: 'preview-policy',
  auth: true,
  scope: 'policy:read',
  request: { game: true, body: policyPatchSchema },
  table: { 'dynamodb:GetItem': ['publisher'], 'dynamodb:Query': ['feed'] },
  // Writes nothing, but reads every live ban of the game: the POST default, below the reads' limits.
  throttle: 'write',
  retry: 'read',
} as const satisfies Route;

/** The reason catalogue: read by whoever sets the policy or makes bans (the create form offers it). */
export const getReasonsRoute = {
  id: 'getReasons',
  method: 'GET',
  path: '/v1/reasons',
  handler: 'get-reasons',
  auth: true,
  scope: ['policy:read', 'bans:write'],
  request: {},
  table: { 'dynamodb:GetItem': ['publisher'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

export const putReasonsRoute = {
  id: 'putReasons',
  method: 'PUT',
  path: '/v1/reasons',
  handler: 'put-reasons',
  auth: true,
  scope: 'policy:write',
  // Strict reasons hold every game's bans to the catalogue: no key bound to games sets it.
  request: { body: putReasonsRequestSchema, everyGame: true },
  // One PutItem returning the item it replaced, then its event (and the replaced one's, if missing).
  table: { 'dynamodb:PutItem': ['publisher', 'audit'] },
  throttle: 'write',
  retry: 'never',
} as const satisfies Route;

/** The device id formats the publisher declares: read by whoever searches devices or sets the policy. */
export const getDeviceFormatsRoute = {
  id: 'getDeviceFormats',
  method: 'GET',
  path: '/v1/device-formats',
  handler: 'get-device-formats',
  auth: true,
  scope: ['policy:read', 'bans:read'],
  request: {},
  table: { 'dynamodb:GetItem': ['publisher'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

export const putDeviceFormatsRoute = {
  id: 'putDeviceFormats',
  method: 'PUT',
  path: '/v1/device-formats',
  handler: 'put-device-formats',
  auth: true,
  scope: 'policy:write',
  // The formats are the publisher's, read in every game's search: no key bound to games sets them.
  request: { body: putDeviceFormatsRequestSchema, everyGame: true },
  // One PutItem returning the item it replaced, then its event (and the replaced one's, if missing).
  table: { 'dynamodb:PutItem': ['publisher', 'audit'] },
  throttle: 'write',
  retry: 'never',
} as const satisfies Route;

/**
 * The caller's name in the directory of publishers (`policy:write`, as the policy: it is how others
 * decide to trust its global bans): its profile, its event, and the name on its directory entry.
 */
export const putPublisherRoute = {
  id: 'putPublisher',
  method: 'PUT',
  path: '/v1/publisher',
  handler: 'put-publisher',
  auth: true,
  scope: 'policy:write',
  // The name stands for the publisher in every game and to others: no key bound to games sets it.
  request: { body: putPublisherRequestSchema, everyGame: true },
  // The name's confusable skeleton taken (a conditional PutItem; on a conflict, its holder and
  // the holder's name read, and a stale claim taken over), one UpdateItem of the profile
  // returning what it replaced, then its event (and the replaced one's, if missing), the name on
  // the directory entry, if there is one, and the skeleton of the name before let go.
  table: {
    // Read only when the name looks taken: who holds it, and whether that name is still theirs.
    'dynamodb:GetItem': ['displayName', 'publisher'],
    'dynamodb:UpdateItem': ['publisher', 'directory'],
    'dynamodb:PutItem': ['audit', 'displayName'],
    'dynamodb:DeleteItem': ['displayName'],
  },
  files: [CONFUSABLES],
  throttle: 'write',
  retry: 'never',
} as const satisfies Route;

/**
 * Who makes global bans, with their counts (lib/domain/publishers.ts): any key may read it (every
 * scope is listed, and a key holds at least one), as any key's global bans may restrict devices.
 */
export const listPublishersRoute = {
  id: 'listPublishers',
  method: 'GET',
  path: '/v1/publishers',
  handler: 'list-publishers',
  auth: true,
  scope: scopes,
  request: { query: listPublishersQuerySchema },
  table: { 'dynamodb:Query': ['directory'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

export const createBanRoute = {
  id: 'createBan',
  method: 'POST',
  path: '/v1/bans',
  handler: 'create-ban',
  auth: true,
  scope: 'bans:write',
  request: { game: true, body: createBanRequestSchema },
  // The id counter (ADD), the conditional puts (the ban's entry in the index of banned devices
  // beside it), the idempotency record read, the reason catalogue read (`publisher`: strict
  // reasons), the event, and the deletes that withdraw a ban (made without a key) whose event
  // could not be written; the device's bans queried for the same ban in force (already_active).
  table: {
    'dynamodb:UpdateItem': ['counter'],
    'dynamodb:PutItem': ['device', 'bannedDevices', 'expiringBans', 'idempotency', 'audit'],
    'dynamodb:GetItem': ['idempotency', 'publisher'],
    'dynamodb:DeleteItem': ['device', 'bannedDevices', 'expiringBans', 'audit'],
    'dynamodb:Query': ['device'],
  },
  throttle: 'write',
  retry: 'idempotency_key',
} as const satisfies Route;

export const importBansRoute = {
  id: 'importBans',
  method: 'POST',
  path: '/v1/imports',
  handler: 'import-bans',
  auth: true,
  scope: 'bans:import',
  // 500 rows of a few hundred bytes each are more than the API's 64 KiB: 1 MiB, well within
  // API Gateway's 10 MB and Lambda's 6 MB.
  request: { game: true, body: importRequestSchema, maxBodyBytes: IMPORT_MAX_BODY_BYTES },
  // The rows' records read in batches, then each new one claimed (a conditional put) and a lost
  // claim read; the ban id slots (ADD); the bans put (conditional, never over one that changed
  // since); their index entries written in batches; the batch record claimed, read and
  // completed; the catalogue read (strict reasons, statements); the batch's audit event. The
  // rows' appeals (lib/domain/appeal-imports.ts): each put once (a lost put read), its queue
  // entry put, then read again and deleted if it was decided meanwhile, and a rolled-up day of
  // decisions updated. The publisher's backlog read first (lib/domain/import-backlog.ts), and
  // counted once the bans are stored.
  table: {
    'dynamodb:BatchGetItem': ['importedRow'],
    'dynamodb:GetItem': ['importedRow', 'importBatch', 'importBacklog', 'publisher', 'appeal'],
    'dynamodb:PutItem': ['importedRow', 'importBatch', 'device', 'audit', 'appeal', 'appealQueue'],
    'dynamodb:UpdateItem': ['importSlot', 'importBatch', 'importBacklog', 'appealQueue'],
    'dynamodb:DeleteItem': ['appealQueue'],
    'dynamodb:BatchWriteItem': ['bannedDevices', 'expiringBans'],
  },
  throttle: 'import',
  // A batch of 500 rows writes a few thousand items: more than the 10 s the single-ban routes
  // get, on a busy local store above all; 28 s stays inside API Gateway's 29 s.
  timeoutSeconds: IMPORT_TIMEOUT_SECONDS,
  // A repeat of the same batch_id answers what the first did (its rows `created`, same ban ids).
  retry: 'repeatable',
} as const satisfies Route;

/** A listing reads the policy (for `enforced`) and the device's bans. */
const listingAccess = {
  'dynamodb:GetItem': ['publisher'],
  'dynamodb:Query': ['device'],
} as const satisfies TableAccess;

export const listSocialBansRoute = {
  id: 'listSocialBans',
  method: 'GET',
  path: '/v1/device/{device_id}/bans/social',
  handler: 'list-social-bans',
  auth: true,
  scope: 'bans:read',
  request: { game: true, path: devicePathSchema, query: listBansQuerySchema },
  table: listingAccess,
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

export const listCheatBansRoute = {
  id: 'listCheatBans',
  method: 'GET',
  path: '/v1/device/{device_id}/bans/cheat',
  handler: 'list-cheat-bans',
  auth: true,
  scope: 'bans:read',
  request: { game: true, path: devicePathSchema, query: listBansQuerySchema },
  table: listingAccess,
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

export const listBansRoute = {
  id: 'listBans',
  method: 'GET',
  path: '/v1/device/{device_id}/bans',
  handler: 'list-bans',
  auth: true,
  scope: 'bans:read',
  request: { game: true, path: devicePathSchema, query: listAllBansQuerySchema },
  table: listingAccess,
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

export const revokeBanRoute = {
  id: 'revokeBan',
  method: 'POST',
  path: '/v1/device/{device_id}/bans/{ban_id}/revoke',
  handler: 'revoke-ban',
  auth: true,
  scope: 'bans:write',
  request: { game: true, path: banPathSchema, body: revokeBanRequestSchema },
  // A conditional UpdateItem, the ban read when it fails, its event, and the policy read.
  table: {
    'dynamodb:UpdateItem': ['device'],
    'dynamodb:GetItem': ['device', 'publisher'],
    'dynamodb:PutItem': ['audit'],
  },
  throttle: 'write',
  retry: 'repeatable',
} as const satisfies Route;

/** Enforcement reads the policy and each device's bans. */
const enforcementAccess = listingAccess;

export const getEnforcementRoute = {
  id: 'getEnforcement',
  method: 'GET',
  path: '/v1/device/{device_id}/enforcement',
  handler: 'get-enforcement',
  auth: true,
  scope: 'bans:read',
  request: { game: true, path: devicePathSchema, query: localeQuerySchema },
  table: enforcementAccess,
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

export const getEnforcementBatchRoute = {
  id: 'getEnforcementBatch',
  method: 'POST',
  path: '/v1/enforcement/batch',
  handler: 'enforcement-batch',
  auth: true,
  scope: 'bans:read',
  request: { game: true, body: enforcementBatchRequestSchema, query: localeQuerySchema },
  table: enforcementAccess,
  throttle: 'batch',
  retry: 'read',
} as const satisfies Route;

export const openApiRoute = {
  id: 'openapi',
  method: 'GET',
  path: '/openapi.json',
  handler: 'openapi',
  auth: false,
  scope: null,
  request: {},
  throttle: 'public',
  retry: 'read',
} as const satisfies Route;

/** Key management for the caller's own publisher (`keys:manage`). */
export const createKeyRoute = {
  id: 'createKey',
  method: 'POST',
  path: '/v1/keys',
  handler: 'create-key',
  auth: true,
  scope: 'keys:manage',
  request: { body: createKeyRequestSchema },
  // The policy (if missing), the taken slots (the cap on live keys), a slot, the key's three
  // items and its event, each a conditional put; the deletes that withdraw them if the event
  // cannot be written.
  table: {
    'dynamodb:Query': ['publisher'],
    'dynamodb:PutItem': ['publisher', 'keyId', 'apiKey', 'audit'],
    'dynamodb:DeleteItem': ['publisher', 'keyId', 'apiKey', 'audit'],
  },
  throttle: 'write',
  retry: 'never',
} as const satisfies Route;

export const listKeysRoute = {
  id: 'listKeys',
  method: 'GET',
  path: '/v1/keys',
  handler: 'list-keys',
  auth: true,
  scope: 'keys:manage',
  request: { query: listKeysQuerySchema },
  // The listing, then each listed key's last use, on its lookup item.
  table: { 'dynamodb:Query': ['publisher'], 'dynamodb:GetItem': ['apiKey'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

export const revokeKeyRoute = {
  id: 'revokeKey',
  method: 'POST',
  path: '/v1/keys/{key_id}/revoke',
  handler: 'revoke-key',
  auth: true,
  scope: 'keys:manage',
  request: { path: keyPathSchema },
  // What the key holds (the listing item), the key id item (whose is it?), then the lookup, id
  // and listing items, the event, and the key's slot freed.
  table: {
    'dynamodb:GetItem': ['keyId', 'publisher'],
    'dynamodb:UpdateItem': ['keyId', 'apiKey', 'publisher'],
    'dynamodb:PutItem': ['audit'],
    'dynamodb:DeleteItem': ['publisher'],
  },
  throttle: 'write',
  retry: 'repeatable',
} as const satisfies Route;

/**
 * The publisher's people (`people:manage`: admins), at its identity provider (the stack's
 * Cognito pool, or npm start's local provider): lib/domain/people-admin.ts. Each change is audited.
 */
export const listPeopleRoute = {
  id: 'listPeople',
  method: 'GET',
  path: '/v1/people',
  handler: 'list-people',
  auth: true,
  scope: 'people:manage',
  request: { everyGame: true },
  userPool: ['cognito-idp:ListUsers'],
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

export const invitePersonRoute = {
  id: 'invitePerson',
  method: 'POST',
  path: '/v1/people',
  handler: 'invite-person',
  auth: true,
  scope: 'people:manage',
  request: { body: invitePersonRequestSchema, everyGame: true },
  // The invitation's event; the invitation withdrawn if that fails.
  table: { 'dynamodb:PutItem': ['audit'] },
  userPool: ['cognito-idp:AdminCreateUser', 'cognito-idp:AdminDeleteUser'],
  throttle: 'write',
  // A repeat is a 409 (the email has an account), never a second invitation.
  retry: 'never',
} as const satisfies Route;

export const updatePersonRoute = {
  id: 'updatePerson',
  method: 'PUT',
  path: '/v1/people/{person_id}',
  handler: 'update-person',
  auth: true,
  scope: 'people:manage',
  request: { path: personPathSchema, body: updatePersonRequestSchema, everyGame: true },
  // The change's event.
  table: { 'dynamodb:PutItem': ['audit'] },
  // Whose is the person (AdminGetUser), is another admin left (ListUsers), then the change; a
  // disable also signs them out everywhere (their refresh tokens revoked).
  userPool: [
    'cognito-idp:AdminGetUser',
    'cognito-idp:ListUsers',
    'cognito-idp:AdminUpdateUserAttributes',
    'cognito-idp:AdminDisableUser',
    'cognito-idp:AdminEnableUser',
    'cognito-idp:AdminUserGlobalSignOut',
  ],
  throttle: 'write',
  // A repeat finds the change made and answers the person, recording nothing more.
  retry: 'repeatable',
} as const satisfies Route;

/** The caller's audit trail (`audit:read`), newest first. */
export const listAuditRoute = {
  id: 'listAudit',
  method: 'GET',
  path: '/v1/audit',
  handler: 'list-audit',
  auth: true,
  scope: 'audit:read',
  // The trail spans every game (keys, policy, publisher and global bans): no bound key reads it.
  request: { query: auditQuerySchema, everyGame: true },
  table: { 'dynamodb:Query': ['audit'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

/**
 * The statements of reasons of the publisher's bans made in a period, in the DSA Transparency
 * Database's format (what a submitter sends): the audit trail's `ban.created` events, then each ban.
 */
export const listDsaStatementsRoute = {
  id: 'listDsaStatements',
  method: 'GET',
  path: '/v1/statements',
  handler: 'list-dsa-statements',
  auth: true,
  scope: 'audit:read',
  // Every game's bans, as the audit trail they are found through: no bound key reads them.
  request: { query: dsaStatementsQuerySchema, everyGame: true },
  table: { 'dynamodb:Query': ['audit'], 'dynamodb:GetItem': ['device'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

/** Deletes the caller's bans on a device, and the idempotency and import records holding copies of them. */
export const eraseDeviceRoute = {
  id: 'eraseDevice',
  method: 'POST',
  path: '/v1/device/{device_id}/erase',
  handler: 'erase-device',
  auth: true,
  scope: 'bans:write',
  request: { path: devicePathSchema, everyGame: true },
  // The device Query, the erasure marker (put, read back by the Query, deleted when done), the
  // ban and record deletes, and the event.
  // It never deletes an audit event.
  // The appeals of the erased bans, and those the publisher filed on others' bans there, lose
  // their player's texts (the record and its queue entry).
  table: {
    'dynamodb:Query': ['device'],
    'dynamodb:GetItem': ['appeal'],
    'dynamodb:PutItem': ['device', 'audit'],
    'dynamodb:UpdateItem': ['appeal', 'appealQueue'],
    'dynamodb:DeleteItem': ['device', 'idempotency', 'importedRow', 'bannedDevices', 'expiringBans'],
  },
  throttle: 'write',
  retry: 'repeatable',
} as const satisfies Route;

/** The change feed (`bans:read`, per game like the ban listings): three Queries and the policy. */
export const listEventsRoute = {
  id: 'listEvents',
  method: 'GET',
  path: '/v1/events',
  handler: 'list-events',
  auth: true,
  scope: 'bans:read',
  request: { game: true, query: eventsQuerySchema },
  // The device's global bans too, only under a global_quorum above 1 (the quorum of `enforced`).
  // `deployment`: the table's id item, read, or created by the first reader (a conditional put).
  table: {
    'dynamodb:GetItem': ['publisher', 'deployment'],
    'dynamodb:Query': ['feed', 'device'],
    'dynamodb:PutItem': ['deployment'],
  },
  // Polled by every game server each second: its own class, far above the reads'.
  throttle: 'feed',
  retry: 'read',
} as const satisfies Route;

/**
 * Every ban that may restrict a device for the caller and game now, in pages, and the feed's
 * cursor from before it (`bans:read`, per game like the feed): the feed's head (three Queries),
 * the policy, and the live sets of the three feed partitions (lib/domain/enforcement-snapshot.ts).
 */
export const getEnforcementSnapshotRoute = {
  id: 'getEnforcementSnapshot',
  method: 'GET',
  path: '/v1/enforcement/snapshot',
  handler: 'get-enforcement-snapshot',
  auth: true,
  scope: 'bans:read',
  request: { game: true, query: snapshotQuerySchema },
  // The device's global bans too, only under a global_quorum above 1 (the quorum of `enforced`).
  // `deployment`: the table's id item, read, or created by the first reader (a conditional put).
  table: {
    'dynamodb:GetItem': ['publisher', 'deployment'],
    'dynamodb:Query': ['feed', 'device'],
    'dynamodb:PutItem': ['deployment'],
  },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

/** Webhooks are managed like keys (`keys:manage`): they carry the publisher's events out. */
export const createWebhookRoute = {
  id: 'createWebhook',
  method: 'POST',
  path: '/v1/webhooks',
  handler: 'create-webhook',
  auth: true,
  scope: 'keys:manage',
  request: { body: createWebhookRequestSchema },
  // The publisher's webhooks (which slots are taken); its secret, then a conditional put into a
  // free slot; the publisher counted into the index; the event; the deletes that withdraw them.
  table: {
    'dynamodb:Query': ['webhook'],
    'dynamodb:PutItem': ['webhook', 'webhookSecret', 'audit'],
    'dynamodb:UpdateItem': ['webhookIndex'],
    'dynamodb:DeleteItem': ['webhook', 'webhookSecret', 'audit'],
  },
  throttle: 'write',
  retry: 'never',
} as const satisfies Route;

export const listWebhooksRoute = {
  id: 'listWebhooks',
  method: 'GET',
  path: '/v1/webhooks',
  handler: 'list-webhooks',
  auth: true,
  scope: 'keys:manage',
  request: {},
  table: { 'dynamodb:Query': ['webhook'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

export const deleteWebhookRoute = {
  id: 'deleteWebhook',
  method: 'DELETE',
  path: '/v1/webhooks/{webhook_id}',
  handler: 'delete-webhook',
  auth: true,
  scope: 'keys:manage',
  request: { path: webhookPathSchema },
  // The webhook and the index entry; the mark, the event, then the secret, the webhook and (for
  // the last one) the index entry go.
  table: {
    'dynamodb:Query': ['webhook'],
    'dynamodb:GetItem': ['webhookIndex'],
    'dynamodb:UpdateItem': ['webhook'],
    'dynamodb:PutItem': ['audit'],
    'dynamodb:DeleteItem': ['webhook', 'webhookSecret', 'webhookIndex'],
  },
  throttle: 'write',
  retry: 'never',
} as const satisfies Route;

export const listWebhookDeliveriesRoute = {
  id: 'listWebhookDeliveries',
  method: 'GET',
  path: '/v1/webhooks/{webhook_id}/deliveries',
  handler: 'list-webhook-deliveries',
  auth: true,
  scope: 'keys:manage',
  request: { path: webhookPathSchema, query: deliveriesQuerySchema },
  table: { 'dynamodb:Query': ['webhook', 'delivery'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

/**
 * A signed `webhook.test` delivery to one webhook, through the deliveries queue like any other. The
 * write class holds it to a publisher's write rate: it can only reach the publisher's own receiver.
 */
export const testWebhookRoute = {
  id: 'testWebhook',
  method: 'POST',
  path: '/v1/webhooks/{webhook_id}/test',
  handler: 'test-webhook',
  auth: true,
  scope: 'keys:manage',
  request: { path: webhookPathSchema },
  // The publisher's webhooks (is it theirs, within the key's games?), then the delivery's
  // conditional put and its audit event; both are deleted again if the queue refuses it.
  table: {
    'dynamodb:Query': ['webhook'],
    'dynamodb:PutItem': ['delivery', 'audit'],
    'dynamodb:DeleteItem': ['delivery', 'audit'],
  },
  throttle: 'write',
  retry: 'never',
  sendsDeliveries: true,
} as const satisfies Route;

/** A player's appeal, filed by a game server or support site (`appeals:write`) from the game it plays. */
export const createAppealRoute = {
  id: 'createAppeal',
  method: 'POST',
  path: '/v1/appeals',
  handler: 'create-appeal',
  auth: true,
  scope: 'appeals:write',
  request: { game: true, body: createAppealRequestSchema },
  // The policy and the device's visible bans (is it enforced here?), the appeal (put, or read when
  // it exists), the ban claimed (or read, and the appeal withdrawn, when the claim is refused), the
  // queue entry (deleted again when a decision won meanwhile, its texts dropped when an erasure
  // did) and the event.
  table: {
    'dynamodb:GetItem': ['publisher', 'appeal', 'device'],
    'dynamodb:Query': ['device'],
    'dynamodb:PutItem': ['appeal', 'appealQueue', 'audit'],
    'dynamodb:UpdateItem': ['device', 'appealQueue'],
    'dynamodb:DeleteItem': ['appeal', 'appealQueue'],
  },
  throttle: 'write',
  retry: 'idempotency_key',
} as const satisfies Route;

/** The publisher's bans in force that end soon (the console's start page): the index by expiry, then each entry's ban. */
export const listExpiringBansRoute = {
  id: 'listExpiringBans',
  method: 'GET',
  path: '/v1/bans/expiring',
  handler: 'list-expiring-bans',
  auth: true,
  scope: 'bans:read',
  request: { query: expiringBansQuerySchema },
  table: { 'dynamodb:Query': ['expiringBans'], 'dynamodb:GetItem': ['device'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

/** The devices the publisher has banned, by id prefix (the console's search); a key bound to games finds those banned in them. */
export const listDevicesRoute = {
  id: 'listDevices',
  method: 'GET',
  path: '/v1/devices',
  handler: 'list-devices',
  auth: true,
  scope: 'bans:read',
  request: { query: devicesQuerySchema },
  // `feed`: the global feed's live set, for the devices only other publishers' global bans name;
  // `publisher`: the declared device id formats, read for a prefix search.
  table: { 'dynamodb:Query': ['bannedDevices', 'feed'], 'dynamodb:GetItem': ['publisher'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

/** The games the publisher has made bans in (the console flags a Game ID never used): one item. */
export const listGamesRoute = {
  id: 'listGames',
  method: 'GET',
  path: '/v1/games',
  handler: 'list-games',
  auth: true,
  scope: 'bans:read',
  request: {},
  table: { 'dynamodb:GetItem': ['gamesUsed'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

/** The owner's queue (`appeals:decide`): every game's appeals, so no key bound to games reads it. */
export const listAppealsRoute = {
  id: 'listAppeals',
  method: 'GET',
  path: '/v1/appeals',
  handler: 'list-appeals',
  auth: true,
  scope: 'appeals:decide',
  request: { query: appealsQuerySchema, everyGame: true },
  table: { 'dynamodb:Query': ['appealQueue'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

/** A team lead's numbers: the open count and oldest, the window's rollups (written once a day). */
export const appealStatsRoute = {
  id: 'appealStats',
  method: 'GET',
  path: '/v1/appeals/stats',
  handler: 'appeal-stats',
  auth: true,
  scope: 'appeals:decide',
  request: { everyGame: true },
  table: { 'dynamodb:Query': ['appealQueue'], 'dynamodb:PutItem': ['appealQueue'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

/** One appeal: its owner's moderators see all of it, its filer the filer's view. */
export const getAppealRoute = {
  id: 'getAppeal',
  method: 'GET',
  path: '/v1/appeals/{appeal_id}',
  handler: 'get-appeal',
  auth: true,
  scope: ['appeals:decide', 'appeals:write'],
  request: { path: appealPathSchema },
  table: { 'dynamodb:GetItem': ['appeal'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

export const decideAppealRoute = {
  id: 'decideAppeal',
  method: 'POST',
  path: '/v1/appeals/{appeal_id}/decision',
  handler: 'decide-appeal',
  auth: true,
  scope: 'appeals:decide',
  request: { path: appealPathSchema, body: appealDecisionRequestSchema },
  // The appeal and (to shorten) the ban read; the appeal decided; the ban's update (or its read
  // when the update's condition fails); the decided entry (its player's texts dropped when an
  // erasure came in meanwhile), the open one deleted; the ban's entry at its new end in the index
  // by expiry (shortened); the events (`ban.revoked` / `ban.updated`, `appeal.decided`).
  table: {
    'dynamodb:GetItem': ['appeal', 'device'],
    'dynamodb:UpdateItem': ['appeal', 'device', 'appealQueue'],
    'dynamodb:PutItem': ['appealQueue', 'audit', 'expiringBans'],
    'dynamodb:DeleteItem': ['appealQueue'],
  },
  throttle: 'write',
  retry: 'repeatable',
} as const satisfies Route;

/**
 * A moderator holds an open appeal for a while (lib/domain/appeal-claims.ts): the appeal read
 * (again when a concurrent claim won), its claim written on condition of the version read, the
 * copy on its open queue entry, the `appeal.claimed` event.
 */
export const claimAppealRoute = {
  id: 'claimAppeal',
  method: 'POST',
  path: '/v1/appeals/{appeal_id}/claim',
  handler: 'claim-appeal',
  auth: true,
  scope: 'appeals:decide',
  request: { path: appealPathSchema, body: appealClaimRequestSchema },
  table: {
    'dynamodb:GetItem': ['appeal'],
    'dynamodb:UpdateItem': ['appeal', 'appealQueue'],
    'dynamodb:PutItem': ['audit'],
  },
  throttle: 'write',
  retry: 'repeatable',
} as const satisfies Route;

/** Ends a claim: the same reads and writes as a claim, its event `appeal.released`. */
export const releaseAppealClaimRoute = {
  id: 'releaseAppealClaim',
  method: 'DELETE',
  path: '/v1/appeals/{appeal_id}/claim',
  handler: 'release-appeal-claim',
  auth: true,
  scope: 'appeals:decide',
  request: { path: appealPathSchema },
  table: {
    'dynamodb:GetItem': ['appeal'],
    'dynamodb:UpdateItem': ['appeal', 'appealQueue'],
    'dynamodb:PutItem': ['audit'],
  },
  throttle: 'write',
  retry: 'repeatable',
} as const satisfies Route;

/**
 * A link to the player's page for one device in the caller's game (lib/domain/player-links.ts): a
 * game server mints it for the player in front of it. One conditional put of the link's item.
 */
export const createPlayerLinkRoute = {
  id: 'createPlayerLink',
  method: 'POST',
  path: '/v1/player-links',
  handler: 'create-player-link',
  auth: true,
  scope: 'bans:read',
  request: { game: true, body: createPlayerLinkRequestSchema },
  table: { 'dynamodb:PutItem': ['playerLink'] },
  throttle: 'write',
  // A repeat mints a second link: harmless, but not the first one's answer.
  retry: 'never',
} as const satisfies Route;

/** The player's page: the link's item and its minting key's, then its publisher's policy, the device's bans and their appeals. */
export const getPlayerPageRoute = {
  id: 'getPlayerPage',
  method: 'GET',
  path: '/v1/player/restrictions',
  handler: 'get-player-page',
  auth: false,
  scope: null,
  request: { playerLink: true, query: localeQuerySchema },
  // `keyId`: the minting key, still in force? (a revoked key's links end with it)
  table: {
    'dynamodb:GetItem': ['playerLink', 'keyId', 'publisher', 'appeal'],
    'dynamodb:Query': ['device'],
  },
  throttle: 'player',
  retry: 'read',
} as const satisfies Route;

/** The player's own appeal, through a link that allows it: the link's item, then a filing as createAppeal's. */
export const filePlayerAppealRoute = {
  id: 'filePlayerAppeal',
  method: 'POST',
  path: '/v1/player/appeals',
  handler: 'file-player-appeal',
  auth: false,
  scope: null,
  request: { playerLink: true, body: playerAppealRequestSchema },
  table: {
    'dynamodb:GetItem': ['playerLink', 'keyId', 'publisher', 'appeal', 'device'],
    'dynamodb:Query': ['device'],
    'dynamodb:PutItem': ['appeal', 'appealQueue', 'audit'],
    'dynamodb:UpdateItem': ['device', 'appealQueue'],
    'dynamodb:DeleteItem': ['appeal', 'appealQueue'],
  },
  throttle: 'player',
  // The same link filing again answers its first appeal and files nothing.
  retry: 'repeatable',
} as const satisfies Route;

/**
 * The transparency report (DSA Art. 15 and 24) of a period of days: restrictions by each dimension,
 * revocations and appeals, as JSON or CSV, from the dispatcher's daily rollups (one Query).
 */
export const transparencyReportRoute = {
  id: 'transparencyReport',
  method: 'GET',
  path: '/v1/transparency-report',
  handler: 'transparency-report',
  auth: true,
  scope: 'audit:read',
  // Every game's bans and appeals in one count: no bound key reads them.
  request: { query: transparencyReportQuerySchema, everyGame: true },
  table: { 'dynamodb:Query': ['report'] },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

/**
 * One page of everything the publisher holds of one kind (lib/domain/exports.ts): `data:export`,
 * a scope of its own (it reads every other scope's data), and every game's, so no bound key reads
 * it. The first page records `data.exported`.
 */
export const exportDataRoute = {
  id: 'exportData',
  method: 'GET',
  path: '/v1/exports/{kind}',
  handler: 'export-data',
  auth: true,
  scope: 'data:export',
  request: { path: exportPathSchema, query: exportQuerySchema, everyGame: true },
  // `bannedDevices`: the index that lists every ban of the publisher (bans, appeals); `device`:
  // each ban; `appeal`: each appeal; `audit`: the trail (and the filer's appeal.created events)
  // and the export's event; `publisher`: the policy, the reasons and the keys' listing items
  // (never a key's lookup item, which is keyed by its hash); `webhook`: the webhooks, never
  // their secrets (`webhookSecret` is not granted).
  table: {
    'dynamodb:Query': ['bannedDevices', 'audit', 'publisher', 'webhook'],
    'dynamodb:GetItem': ['device', 'appeal', 'publisher'],
    'dynamodb:PutItem': ['audit'],
  },
  // A page reads up to 1,000 bans one by one: the batch class's limits, never the reads' own.
  throttle: 'batch',
  // A repeated first page is a new export (a new as_of, a second event); later pages only read.
  retry: 'read',
} as const satisfies Route;

/**
 * Everything the publisher holds on one device (a data subject's request, GDPR Art. 15): its bans
 * there with their appeals, the appeals it filed on others' bans there, its trail's events about
 * the device. Recorded as `data.exported` of kind `device`.
 */
export const deviceDataRoute = {
  id: 'deviceData',
  method: 'GET',
  path: '/v1/device/{device_id}/data',
  handler: 'device-data',
  auth: true,
  scope: 'data:export',
  request: { path: devicePathSchema, everyGame: true },
  table: {
    'dynamodb:Query': ['device', 'audit'],
    'dynamodb:GetItem': ['appeal'],
    'dynamodb:PutItem': ['audit'],
  },
  throttle: 'read',
  retry: 'read',
} as const satisfies Route;

/**
 * Starts an export job (lib/domain/export-jobs.ts): the service writes every kind asked for into
 * files to download, as of now. The same scope and reach as the paged export.
 */
export const startExportJobRoute = {
  id: 'startExportJob',
  method: 'POST',
  path: '/v1/export-jobs',
  handler: 'start-export-job',
  auth: true,
  scope: 'data:export',
  request: { body: exportJobRequestSchema, everyGame: true },
  // The job's item and its data.exported event; both deleted again if the queue refuses the job.
  table: {
    'dynamodb:PutItem': ['exportJob', 'audit'],
    'dynamodb:DeleteItem': ['exportJob', 'audit'],
  },
  // One write and a message: the writes' class. The job's reads run behind the queue, at most
  // EXPORT_MAX_CONCURRENCY jobs at once (infra/stack/export-jobs.ts), never on the API's limits.
  throttle: 'write',
  // A repeat starts a second job.
  retry: 'never',
  queuesExportJobs: true,
} as const satisfies Route;

/** An export job's state and, once it is done, a download URL per file (lib/domain/export-job-status.ts). */
export const getExportJobRoute = {
  id: 'getExportJob',
  method: 'GET',
  path: '/v1/export-jobs/{export_id}',
  handler: 'get-export-job',
  auth: true,
  scope: 'data:export',
  request: { path: exportJobPathSchema, everyGame: true },
  table: { 'dynamodb:GetItem': ['exportJob'] },
  throttle: 'read',
  retry: 'read',
  signsExportFiles: true,
} as const satisfies Route;

export const routes = [
  healthRoute,
  getPolicyRoute,
  previewPolicyRoute,
  updatePolicyRoute,
  getReasonsRoute,
  putReasonsRoute,
  getDeviceFormatsRoute,
  putDeviceFormatsRoute,
  listDsaStatementsRoute,
  putPublisherRoute,
  listPublishersRoute,
  createBanRoute,
  importBansRoute,
  listSocialBansRoute,
  listCheatBansRoute,
  listBansRoute,
  revokeBanRoute,
  getEnforcementRoute,
  getEnforcementBatchRoute,
  createKeyRoute,
  listKeysRoute,
  revokeKeyRoute,
  listPeopleRoute,
  invitePersonRoute,
  updatePersonRoute,
  listAuditRoute,
  eraseDeviceRoute,
  listDevicesRoute,
  listGamesRoute,
  listExpiringBansRoute,
  listEventsRoute,
  getEnforcementSnapshotRoute,
  createWebhookRoute,
  listWebhooksRoute,
  deleteWebhookRoute,
  listWebhookDeliveriesRoute,
  testWebhookRoute,
  createAppealRoute,
  listAppealsRoute,
  appealStatsRoute,
  getAppealRoute,
  decideAppealRoute,
  claimAppealRoute,
  releaseAppealClaimRoute,
  createPlayerLinkRoute,
  getPlayerPageRoute,
  filePlayerAppealRoute,
  openApiRoute,
  transparencyReportRoute,
  exportDataRoute,
  deviceDataRoute,
  startExportJobRoute,
  getExportJobRoute,
] as const satisfies readonly Route[];

export type RouteId = (typeof routes)[number]['id'];

/**
 * The token authorizer: a function of its own, not a route. It reads key lookup items only, and
 * notes a key's last use on its own lookup item (at most once per 5 minutes per key).
 */
export const authorizerFunction = {
  id: 'authorizer',
  handler: 'authorizer',
  table: { 'dynamodb:GetItem': ['apiKey'], 'dynamodb:UpdateItem': ['apiKey'] },
} as const satisfies Pick<Route, 'id' | 'handler' | 'table'>;

/**
 * The dispatcher: the table's stream (ban and policy items, lib/domain/change-events.ts) in, the
 * feed and the deliveries out, each delivery handed to the queue. A function of its own, not a route.
 */
export const eventsDispatcherFunction = {
  id: 'eventsDispatcher',
  handler: 'events-dispatcher',
  table: {
    // The webhooks of the publishers a batch concerns, and the index of them for a global ban:
    // never a webhook's secret.
    'dynamodb:Query': ['feed', 'webhook', 'webhookIndex'],
    // `publisher`: also the profile, whose name the directory copies.
    // `report`: how many times a day's marks moved off it, read before its markers are.
    'dynamodb:GetItem': ['feed', 'publisher', 'delivery', 'report'],
    // Were a batch's events counted in the directory (`directoryMarker`, lib/domain/publishers.ts)
    // and in the transparency rollups (`reportMarker`, lib/domain/transparency-rollups.ts)?
    'dynamodb:BatchGetItem': ['directoryMarker', 'reportMarker'],
    // `feed`: the feed's entries and markers, and the live sets beside them (lib/domain/live-set.ts).
    'dynamodb:PutItem': ['feed', 'delivery', 'directoryMarker', 'reportMarker'],
    // `delivery`: an erasure redacts the erased ban's pending deliveries (redactErasedDeliveries).
    // `directory`: each publisher's counts of global bans, marked per event counted.
    // `gamesUsed`: the games each publisher has made bans in (lib/domain/games-used.ts).
    // `report`: each publisher's daily transparency counts, marked per event counted.
    // `importBacklog`: each publisher's imported bans whose events are through (lib/domain/import-backlog.ts).
    'dynamodb:UpdateItem': ['feed', 'delivery', 'directory', 'gamesUsed', 'report', 'importBacklog'],
  },
} as const satisfies Pick<Route, 'id' | 'handler' | 'table'>;

/** The sender: one queue message, one attempt of one delivery (and the message for the next). */
export const webhookSenderFunction = {
  id: 'webhookSender',
  handler: 'webhook-sender',
  table: {
    // The only role that reads a webhook's signing secret.
    'dynamodb:GetItem': ['delivery', 'webhook', 'webhookSecret'],
    // `webhook`: each attempt's outcome on its webhook's item (the listing's health).
    'dynamodb:UpdateItem': ['delivery', 'webhook'],
  },
} as const satisfies Pick<Route, 'id' | 'handler' | 'table'>;

/**
 * The deployed user pool's pre-token-generation trigger (lib/domain/people.ts cognitoTokenClaims):
 * it reads only the event Cognito hands it, never the table.
 */
export const tokenClaimsFunction = {
  id: 'tokenClaims',
  handler: 'token-claims',
} as const satisfies Pick<Route, 'id' | 'handler'>;

/**
 * The export job runner (lib/domain/export-job-run.ts): one queue message, one job carried on from
 * its checkpoint. It reads what the paged export reads (exportDataRoute's reads, never a write of
 * its own there: the job's event was recorded at its start) and checkpoints its job item; its
 * files go to the export bucket (PutObject only, the stack grants it on the bucket's objects).
 */
export const exportJobFunction = {
  id: 'exportJob',
  handler: 'export-job',
  table: {
    'dynamodb:Query': ['bannedDevices', 'audit', 'publisher', 'webhook'],
    'dynamodb:GetItem': ['device', 'appeal', 'publisher', 'exportJob'],
    'dynamodb:UpdateItem': ['exportJob'],
  },
} as const satisfies Pick<Route, 'id' | 'handler' | 'table'>;

/** The export jobs' queue and bucket (lib/storage/export-queue.ts, export-files.ts), in these variables. */
export const EXPORT_QUEUE_ENV = 'EXPORT_QUEUE_URL';
export const EXPORT_BUCKET_ENV = 'EXPORT_BUCKET';

/** The queue the dispatcher and the sender hand deliveries on through (SQS; its URL in this variable). */
export const DELIVERY_QUEUE_ENV = 'DELIVERY_QUEUE_URL';

/** Source file of a handler module, relative to the project root. */
export const handlerEntry = (handler: string) => `functions/${handler}.ts`;
