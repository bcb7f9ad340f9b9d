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
    name: 'create ban',
    route: 'createBan',
    // The id counter, the ban, its audit event.
    floor: 3,
    event: (publisherId) =>
      proxyEvent({ method: 'POST', resource: '/v1/bans', publisherId, headers: game, body: banBody() }),
    http: { method: 'POST', path: '/v1/bans', body: banBody },
  },
  {
    name: 'create ban, new key',
    route: 'createBan',
    // The id counter, the idempotency record, the ban, its audit event.
    floor: 4,
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
    // The policy read (for `enforced`) runs in parallel with the one Query page.
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
 * A page of the change feed (issue 13): one Query per partition the reader reads (the publisher's,
 * the game's, the global one), in parallel with the policy read (for `enforced`). Kept out of
 * `operations` (handler overhead and throughput): its storage calls are counted with the round
 * trips, over a feed of FEED_PAGE_EVENTS events, which bench/in-process.ts seeds first.
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
export const WRITE_FLOORS = { 'create ban': 3, 'revoke ban': 3, 'put policy': 2 } as const;
