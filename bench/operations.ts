import { randomUUID } from 'node:crypto';
import { proxyEvent } from './events';

/**
 * The operations the benchmark drives, each with the storage round trips it may make (the floor
 * DESIGN.md and the enforcement issue set) and how to call it: as a proxy event for in-process
 * invocation, and as an HTTP request for the load test.
 */

export const BENCH_GAME = 'bench-game';
export const LIST_DEVICE = 'bench-listed-device';
/** Bans on the listed device: a realistic handful, and few enough that the in-process store keeps the run short. */
export const LIST_DEVICE_BANS = 10;
/** Events in the feed the page of 100 is read from (bench/in-process.ts, measureFeedPage): more than a page. */
export const FEED_PAGE_EVENTS = 150;

export interface BenchOperation {
  name: string;
  /** Route id in lib/routes.ts. */
  route: string;
  /** Storage calls the operation should make. */
  floor: number;
  /**
   * Called once unmeasured first: its reads made once per process (the deployment id) are then
   * cached, and the row counts what a warm Lambda does on each call (docs/data-model.md).
   */
  warm?: boolean;
  event: (publisherId: string) => ReturnType<typeof proxyEvent>;
  http: { method: string; path: string; body?: () => unknown };
}

const devices100 = Array.from({ length: 100 }, (_, i) => `bench-lobby-${i}`);
const banBody = () => ({
  device_id: `bench-device-${randomUUID()}`,
  ban_type: 'cheat',
  scope: 'global',
  reason_code: 'bench',
});
const game = { 'X-Game-Id': BENCH_GAME };

export const operations: BenchOperation[] = [
  {
    name: 'health',
    route: 'health',
    floor: 0,
    event: () => proxyEvent({ resource: '/health', publisherId: null }),
    http: { method: 'GET', path: '/health' },
  },
  {
    name: 'get policy',
    route: 'getPolicy',
    floor: 1,
    event: (publisherId) => proxyEvent({ resource: '/v1/policy', publisherId }),
    http: { method: 'GET', path: '/v1/policy' },
  },
  {
    name: 'put policy',
    route: 'updatePolicy',
    // The update, then its event: 2 calls on the bench's fresh publisher. From the second update
    // on, a third runs beside the event (re-recording the previous change's, a conditional put that
    // finds it there): still two round trips in sequence.
    floor: 2,
    event: (publisherId) =>
      proxyEvent({ method: 'PUT', resource: '/v1/policy', publisherId, body: { rep_include_game: true } }),
    http: { method: 'PUT', path: '/v1/policy', body: () => ({ rep_include_game: true }) },
  },
  {
    name: 'set the directory name',
    route: 'putPublisher',
    // The name's confusable skeleton claimed first (a conditional put, so no look-alike name is
    // taken twice), then the profile's update, then at once its event and the name on the directory
    // entry (a conditional update that finds none for the bench's publisher, or sets it): 4 calls, 3
    // in sequence. From the second rename on, a fifth beside them re-records the previous change's event.
    floor: 4,
    event: (publisherId) =>
      proxyEvent({
        method: 'PUT',
        resource: '/v1/publisher',
        publisherId,
        body: { display_name: 'Bench Games' },
      }),
    http: { method: 'PUT', path: '/v1/publisher', body: () => ({ display_name: 'Bench Games' }) },
  },
  {
    name: 'list the directory',
    route: 'listPublishers',
    // One Query of DIRECTORY#ALL: the counts are on the entries, summed as read.
    floor: 1,
    event: (publisherId) => proxyEvent({ resource: '/v1/publishers', publisherId }),
    http: { method: 'GET', path: '/v1/publishers' },
  },
  {
    name: 'create ban',
    route: 'createBan',
    // The id counter and (beside it) the reason catalogue read and the Query for the same ban in
    // force (already_active), the ban and (beside it, not after) its two entries among banned
    // devices (by id and reversed), its audit event and the event's copies under actor and device.
    floor: 9,
    event: (publisherId) =>
      proxyEvent({ method: 'POST', resource: '/v1/bans', publisherId, headers: game, body: banBody() }),
    http: { method: 'POST', path: '/v1/bans', body: banBody },
  },
  {
    name: 'create ban, new key',
    route: 'createBan',
    // The id counter and (beside it) the reason catalogue read and the Query for the same ban in
    // force, the idempotency record, the ban and its two entries among banned devices, its audit
    // event and the event's two copies.
    floor: 10,
    event: (publisherId) =>
      proxyEvent({
        method: 'POST',
        resource: '/v1/bans',
        publisherId,
        headers: game,
        body: { ...banBody(), idempotency_key: randomUUID() },
      }),
    http: { method: 'POST', path: '/v1/bans', body: () => ({ ...banBody(), idempotency_key: randomUUID() }) },
  },
  {
    name: 'read the audit trail',
    route: 'listAudit',
    // One Query page of the publisher's events.
    floor: 1,
    event: (publisherId) => proxyEvent({ resource: '/v1/audit', publisherId, query: { limit: '50' } }),
    http: { method: 'GET', path: '/v1/audit?limit=50' },
  },
  {
    name: 'list social bans',
    route: 'listSocialBans',
    // The policy read (for `enforced`) runs in parallel with the one Query page, which holds every
    // ban of the type listed: `enforced` under a quorum needs nothing more.
    floor: 2,
    event: (publisherId) =>
      proxyEvent({
        resource: '/v1/device/{device_id}/bans/social',
        publisherId,
        headers: game,
        pathParameters: { device_id: LIST_DEVICE },
      }),
    http: { method: 'GET', path: `/v1/device/${LIST_DEVICE}/bans/social` },
  },
  {
    name: 'enforcement',
    route: 'getEnforcement',
    // The policy read beside the device's Query, whatever the trust settings: the Query
    // holds every global ban of the device, which is all a quorum counts.
    floor: 2,
    event: (publisherId) =>
      proxyEvent({
        resource: '/v1/device/{device_id}/enforcement',
        publisherId,
        headers: game,
        pathParameters: { device_id: LIST_DEVICE },
      }),
    http: { method: 'GET', path: `/v1/device/${LIST_DEVICE}/enforcement` },
  },
  {
    name: 'enforcement snapshot page',
    route: 'getEnforcementSnapshot',
    // The feed's head (one Query per partition the reader reads) beside the policy read, then one
    // Query of each partition's live set in turn while the page (500) is not full: 7 calls, 4 in
    // sequence. A later page reads no head: 4 calls (more when a partition's live set passes 1 MB).
    // Under a global_quorum above 1 (never under the default policy measured here), one Query of the
    // device's global bans for each device the page holds only part of (at most two) whose
    // `enforced` the quorum decides.
    floor: 7,
    warm: true,
    event: (publisherId) => proxyEvent({ resource: '/v1/enforcement/snapshot', publisherId, headers: game }),
    http: { method: 'GET', path: '/v1/enforcement/snapshot' },
  },
  {
    name: 'enforcement batch of 100',
    route: 'getEnforcementBatch',
    floor: 101,
    event: (publisherId) =>
      proxyEvent({
        method: 'POST',
        resource: '/v1/enforcement/batch',
        publisherId,
        headers: game,
        body: { device_ids: devices100 },
      }),
    http: { method: 'POST', path: '/v1/enforcement/batch', body: () => ({ device_ids: devices100 }) },
  },
];

/**
 * A page of the change feed: one Query per partition the reader reads (the publisher's,
 * the game's, the global one), in parallel with the policy read (for `enforced`). Kept out of
 * `operations` (handler overhead and throughput): its storage calls are counted with the round
 * trips, over a feed of FEED_PAGE_EVENTS events, which bench/in-process.ts seeds first. Under a
 * global_quorum above 1 (not the default policy measured here), one more Query per device on the
 * page with a trusted, active global ban of another publisher whose `enforced` the quorum decides
 * (its global bans, read once per page, in parallel).
 */
export const feedPage: BenchOperation = {
  name: 'feed page of 100',
  route: 'listEvents',
  floor: 4,
  event: (publisherId) =>
    proxyEvent({ resource: '/v1/events', publisherId, headers: game, query: { limit: '100' } }),
  http: { method: 'GET', path: '/v1/events?limit=100' },
};

/**
 * The storage calls the API makes for each write that has an event (the same on AWS, where the
 * table's stream is the outbox, and locally): create ban and put policy as above, and revoke ban,
 * a conditional UpdateItem, its audit event and the policy read. Locally the change log's recorder
 * adds its own behind them (bench/delivery.ts reports both).
 */
export const WRITE_FLOORS = { 'create ban': 6, 'revoke ban': 3, 'put policy': 2 } as const;

/**
 * Webhooks, measured by bench/in-process.ts (measureWebhookRoundTrips) on one webhook of
 * the bench publisher's, to a receiver on the loopback answering 204:
 * - listing: the one Query of the publisher's webhooks partition, whose items hold their health;
 * - a test event: that Query (is the webhook the caller's?), the delivery's conditional put (the
 *   queue message is SQS, not the table) and its audit event;
 * - the test delivery's attempt (the sender): the delivery read, the claim, the webhook and its
 *   secret read in parallel, the attempt recorded on the webhook's item (its health), the delivery
 *   settled: 6 calls, 5 in sequence.
 */
export const WEBHOOK_FLOORS = { 'list webhooks': 1, 'test webhook': 3, 'delivery attempt': 6 } as const;

/** What an appeal's operation is called on: a ban of the bench publisher's, and its appeal once filed. */
export interface AppealTarget {
  device_id: string;
  ban_id: number;
  appeal_id: string;
}

export interface AppealOperation {
  name: string;
  /** Route id in lib/routes.ts. */
  route: string;
  /** Storage calls the operation should make. */
  floor: number;
  /**
   * What it is called on: a new ban (the filing, which then is "the appeal"), the appeal the filing
   * made, or an appeal of its own (each decision: an appeal is decided once), filed uncounted.
   */
  on: 'new ban' | 'the appeal' | 'own appeal';
  /** The new ban's fields over a game ban's (a shortening needs an expiry to move). */
  ban?: () => Record<string, unknown>;
  /** Called once uncounted first: the stats' first call of a publisher rolls up the window's past days. */
  warmUp?: boolean;
  event: (publisherId: string, target: AppealTarget) => ReturnType<typeof proxyEvent>;
}

const appealPath = (target: AppealTarget) => ({ appeal_id: target.appeal_id });
const decision = (body: Record<string, unknown>) => (publisherId: string, target: AppealTarget) =>
  proxyEvent({
    method: 'POST',
    resource: '/v1/appeals/{appeal_id}/decision',
    publisherId,
    pathParameters: appealPath(target),
    body,
  });

/**
 * Appeals, measured in this order by bench/in-process.ts (measureAppealRoundTrips). Kept
 * out of `operations`, whose handler overhead and throughput call each operation a thousand times:
 * an appeal is filed once and decided once. The floors are calls; where some run in parallel, the
 * comment says how many are in sequence.
 */
export const appealOperations: AppealOperation[] = [
  {
    name: 'file an appeal',
    route: 'createAppeal',
    // The policy and the device's bans (in parallel: is the ban enforced here?), the appeal put on
    // attribute_not_exists, the ban claimed (appeal_id, conditional), the open queue entry, the
    // appeal read back (a decision that came between deletes the entry put back after its own
    // delete), and appeal.created in the filer's audit trail: 7 calls, 6 in sequence.
    floor: 7,
    on: 'new ban',
    event: (publisherId, target) =>
      proxyEvent({
        method: 'POST',
        resource: '/v1/appeals',
        publisherId,
        headers: game,
        body: { device_id: target.device_id, ban_id: target.ban_id, message: 'It was not me.' },
      }),
  },
  {
    name: 'get an appeal',
    route: 'getAppeal',
    // One GetItem of the appeal by its id.
    floor: 1,
    on: 'the appeal',
    event: (publisherId, target) =>
      proxyEvent({ resource: '/v1/appeals/{appeal_id}', publisherId, pathParameters: appealPath(target) }),
  },
  {
    name: 'list appeals (open queue)',
    route: 'listAppeals',
    // One Query of the open entries, oldest first: each entry holds a copy of its appeal.
    floor: 1,
    on: 'the appeal',
    event: (publisherId) => proxyEvent({ resource: '/v1/appeals', publisherId }),
  },
  {
    name: 'appeal stats',
    route: 'appealStats',
    // In parallel: the open entries counted (Query, Select COUNT), the oldest (Query, Limit 1) and
    // the window's stored day rollups (Query); then today's decided entries (Query): 4 calls, 2 in
    // sequence. The warm-up is a publisher's first call, which rolls up the 29 complete days (a
    // Query and a conditional PutItem each); the first call of a day rolls up the day before (2
    // more). In the 10 minutes after midnight UTC the day before is still read live: 5 calls.
    floor: 4,
    on: 'the appeal',
    warmUp: true,
    event: (publisherId) => proxyEvent({ resource: '/v1/appeals/stats', publisherId }),
  },
  {
    name: 'decide an appeal: upheld',
    route: 'decideAppeal',
    // The appeal read; its decision (UpdateItem on status = open); the ban's appeal_status and
    // appeal_outcome (UpdateItem); the decided entry put, the open one deleted; appeal.decided;
    // applied_at (UpdateItem), last: 7 calls, all in sequence.
    floor: 7,
    on: 'own appeal',
    event: decision({ outcome: 'upheld', note: 'Replay checked.' }),
  },
  {
    name: 'decide an appeal: overturned',
    route: 'decideAppeal',
    // As upheld, the ban's update revoking it too, and its ban.revoked event: 8.
    floor: 8,
    on: 'own appeal',
    event: decision({ outcome: 'overturned', note: 'Shared console.' }),
  },
  {
    name: 'decide an appeal: overturned, new player message',
    route: 'decideAppeal',
    // As overturned, and the ban.updated event of the new message: 9.
    floor: 9,
    on: 'own appeal',
    event: decision({ outcome: 'overturned', player_message: 'Your ban was lifted on appeal.' }),
  },
  {
    name: 'decide an appeal: shortened',
    route: 'decideAppeal',
    // As upheld, with the ban read first (its expiry, which the new one must precede), the new
    // expiry in the ban's update, the ban's entry at its new end in the index by expiry, and its
    // ban.updated event: 10.
    floor: 10,
    on: 'own appeal',
    ban: () => ({ expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString() }),
    event: decision({
      outcome: 'shortened',
      expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    }),
  },
];
