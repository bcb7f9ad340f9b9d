import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Grantor } from '../../lib/domain/api-keys';
import { createBanRequestSchema, createKeyRequestSchema } from '../../lib/model/requests';
import type { Actor } from '../../lib/model/responses';
import {
  auditActorPrefix,
  auditDevicePrefix,
  auditPartition,
  erasureKey,
  PUBLISHER_KEY_PREFIX,
  policyKey,
  publisherPartition,
} from '../../lib/storage/keys';
import { storedEvents } from '../support/audit';
import { faultAtEveryCall, type WriteCase, writeCase } from '../support/fault-cases';
import { type FaultInjector, injectFaults } from '../support/faults';
import {
  banBody,
  createBan,
  postBan,
  revokeBan,
  startWithPublishers,
  storedBans,
  storedRecord,
  type TestApi,
  unique,
} from '../support/fixtures';

/**
 * The audit property under faults: every change that took effect has exactly one event, a request
 * that failed leaves no event claiming a change that did not happen, and its retry completes both.
 *
 * For each writing operation, a clean run lists its storage calls; then, for every one of them, a
 * new case fails that call (two ways: before it reaches the store, and after it landed with its
 * answer lost, for writes), checks the state the 503 left, retries the same request and checks that
 * the change and its one event are both there. In-process, on the embedded store and on DynamoDB
 * Local (test/ddb-local/run.ts).
 */

const OWNER = 'audit-fault';
const OTHER = 'audit-fault-other';
const GAME = 'g-af';
let api: TestApi;
let faults: FaultInjector;
let key: string;
let keyId: string;
let otherKey: string;
const totals = { cases: 0, injected: 0, events: 0 };
/** The moderation key as the handlers see their caller. */
let moderation: Grantor & { actor: Actor };
let domain: {
  createBan: typeof import('../../lib/domain/bans').createBan;
  issueApiKey: typeof import('../../lib/domain/api-keys').issueApiKey;
};

beforeAll(async () => {
  // No change log nor dispatcher: the trail and the items a request leaves are its own writes
  // (the dispatcher under faults is dispatch-faults.test.ts's).
  const started = await startWithPublishers([OWNER, OTHER], { events: false });
  api = started.api;
  otherKey = started.keys[OTHER];
  const made = await api.request('POST', '/v1/keys', {
    key: started.keys[OWNER],
    body: { name: 'moderation', scopes: ['bans:read', 'bans:write', 'policy:write', 'keys:manage'] },
  });
  key = made.body.api_key;
  keyId = made.body.key_id;
  moderation = {
    scopes: made.body.scopes,
    games: null,
    expiresAt: made.body.expires_at ?? null,
    actor: { type: 'key', key_id: keyId, name: 'moderation' },
  };
  const [{ dynamo }, { createBan }, { issueApiKey }] = await Promise.all([
    import('../../lib/storage/client'),
    import('../../lib/domain/bans'),
    import('../../lib/domain/api-keys'),
  ]);
  domain = { createBan, issueApiKey };
  faults = injectFaults(dynamo);
});
afterAll(async () => {
  faults?.remove();
  await api?.close();
  console.info(
    `audit under faults: ${totals.cases} cases, ${totals.injected} faults injected, ${totals.events} events in the trail`,
  );
});

const storage = () => import('../../lib/storage/client');
/**
 * The owner's events of `type` about what `about` picks; with `since` (a case's start), read from
 * there: a case's device, key or ban is its own, so no event about it is older than the case.
 */
const eventsOf = async (type: string, about: (e: Record<string, any>) => boolean, since?: string) =>
  (await storedEvents(OWNER, since)).filter((e) => e.type === type && about(e));
/*
 * What a case starts from (the bans a revoke or an erasure meets, the key a revoke revokes) is made
 * through the domain functions the handlers call, each body parsed by its route's schema, as the
 * moderation key: only the request under the fault, and its retry, go over HTTP.
 */
const setUpBan = async (game: string, ban: Record<string, unknown>) => {
  const body = createBanRequestSchema.parse({ allow_duplicate: true, ...ban });
  const made = await domain.createBan(OWNER, game, body, moderation.actor);
  expect(made.status).toBe('created');
  return made.ban_id;
};

/** A moment before a case's set-up, its events' lower bound. */
const caseStart = () => new Date(Date.now() - 1_000).toISOString();
const ownerBans = async (device: string) =>
  (await storedBans(device)).filter(
    (item) => item.publisher_id === OWNER && String(item.sk).startsWith('BAN#'),
  );
const storedKeys = async () => {
  const { dynamo, tableName: boundTable } = await storage();
  const tableName = boundTable();
  const { Items } = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :key)',
      ExpressionAttributeValues: { ':pk': publisherPartition(OWNER), ':key': PUBLISHER_KEY_PREFIX },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
};

/** The events of the owner's index copies under the device and under the moderation key (lib/domain/audit.ts). */
const indexCopiesOf = async (device: string) => {
  const { dynamo, tableName } = await storage();
  const under = async (prefix: string) =>
    (
      await dynamo.send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': auditPartition(OWNER), ':prefix': prefix },
          ConsistentRead: true,
        }),
      )
    ).Items ?? [];
  const byDevice = await under(auditDevicePrefix(device));
  const byKey = (await under(auditActorPrefix(keyId))).filter((item) => item.device_id === device);
  return [...byDevice, ...byKey].map((item) => item.event as Record<string, any>);
};

let flip = false;

const operations = {
  'creating a ban with an idempotency key': writeCase({
    setup: async () => ({
      since: caseStart(),
      body: banBody({ device_id: unique('af'), idempotency_key: unique('k') }),
    }),
    send: ({ body }) => postBan(api, key, GAME, body),
    afterFailure: async ({ since, body }) => {
      const bans = (await ownerBans(String(body.device_id))).map((b) => b.ban_id);
      for (const event of await eventsOf('ban.created', (e) => e.device_id === body.device_id, since))
        expect(bans).toContain(event.ban_id);
    },
    afterRetry: async ({ since, body }, res) => {
      expect([200, 201]).toContain(res.status);
      const bans = await ownerBans(String(body.device_id));
      const events = await eventsOf('ban.created', (e) => e.device_id === body.device_id, since);
      expect(bans.map((b) => b.ban_id)).toEqual([res.body.ban_id]);
      expect(events.map((e) => e.ban_id)).toEqual([res.body.ban_id]);
    },
  }),

  'creating a ban without an idempotency key': writeCase({
    faultIndexCopies: true,
    setup: async () => ({ since: caseStart(), body: banBody({ device_id: unique('af') }) }),
    send: ({ body }) => postBan(api, key, GAME, body),
    afterFailure: async ({ since, body }) => {
      // No retry can reach this ban: a 503 means it was not made, and nothing claims it was.
      expect(await ownerBans(String(body.device_id))).toEqual([]);
      expect(await eventsOf('ban.created', (e) => e.device_id === body.device_id, since)).toEqual([]);
      expect(await indexCopiesOf(String(body.device_id))).toEqual([]);
    },
    afterRetry: async ({ since, body }, res) => {
      expect(res.status).toBe(201);
      expect((await ownerBans(String(body.device_id))).map((b) => b.ban_id)).toEqual([res.body.ban_id]);
      const events = await eventsOf('ban.created', (e) => e.device_id === body.device_id, since);
      expect(events.map((e) => e.ban_id)).toEqual([res.body.ban_id]);
      expect(await indexCopiesOf(String(body.device_id))).toEqual([events[0], events[0]]);
    },
  }),

  'revoking a ban': writeCase({
    faultIndexCopies: true,
    setup: async () => {
      const since = caseStart();
      const device = unique('af');
      return { since, device, banId: await setUpBan(GAME, banBody({ device_id: device })) };
    },
    send: ({ device, banId }) => revokeBan(api, key, GAME, device, banId, { reason_code: 'appeal' }),
    afterFailure: async ({ since, device, banId }) => {
      // A fault in the policy read (beside the revoke) answers 503 while the revoke may still go
      // on: each is read before what is written ahead of it (the ban, then its event, then the
      // copies), so whatever a read finds, the later reads find what came before it.
      const copies = (await indexCopiesOf(device)).filter((e) => e.type === 'ban.revoked');
      const events = await eventsOf('ban.revoked', (e) => e.ban_id === banId, since);
      const [ban] = await ownerBans(device);
      if (events.length > 0) expect(ban?.revoked_at).toBe(events[0]?.occurred_at);
      expect(events.length).toBeLessThanOrEqual(1);
      // A copy only of an event that is there (the retry puts the ones missing).
      for (const copy of copies) expect(copy).toEqual(events[0]);
    },
    afterRetry: async ({ since, device, banId }, res) => {
      expect(res.status).toBe(200);
      const [ban] = await ownerBans(device);
      const events = await eventsOf('ban.revoked', (e) => e.ban_id === banId, since);
      expect(events).toHaveLength(1);
      expect(events[0]?.occurred_at).toBe(ban?.revoked_at);
      const copies = (await indexCopiesOf(device)).filter((e) => e.type === 'ban.revoked');
      expect(copies).toEqual([events[0], events[0]]);
    },
  }),

  'updating the policy': writeCase({
    setup: async () => {
      flip = !flip;
      return { body: { enforce_game: flip } };
    },
    send: ({ body }) => api.request('PUT', '/v1/policy', { key, body }),
    afterFailure: async () => {
      // Every recorded change is one that happened: the events chain, each starting where the last
      // ended; the stored policy may be one change ahead (its event comes with the next update).
      const events = (await eventsOf('policy.updated', () => true)).reverse();
      for (let i = 1; i < events.length; i += 1) expect(events[i]?.before).toEqual(events[i - 1]?.after);
    },
    afterRetry: async (_ctx, res) => {
      expect(res.status).toBe(200);
      const events = (await eventsOf('policy.updated', () => true)).reverse();
      for (let i = 1; i < events.length; i += 1) expect(events[i]?.before).toEqual(events[i - 1]?.after);
      const { dynamo, tableName: boundTable } = await storage();
      const tableName = boundTable();
      const { Item } = await dynamo.send(
        new GetCommand({ TableName: tableName, Key: policyKey(OWNER), ConsistentRead: true }),
      );
      // One event per change that took effect: as many as the policy's version counts.
      expect(events).toHaveLength(Item?.version);
      const { publisher_id: _p, updated_at: _u, ...flags } = res.body;
      expect(events.at(-1)?.after).toEqual(flags);
    },
  }),

  'making a key': writeCase({
    setup: async () => ({ since: caseStart(), name: unique('key') }),
    send: ({ name }) => api.request('POST', '/v1/keys', { key, body: { name, scopes: ['bans:read'] } }),
    afterFailure: async ({ since, name }) => {
      // The secret was never shown, so no retry can finish this key: it is withdrawn whole.
      expect((await storedKeys()).filter((k) => k.name === name)).toEqual([]);
      expect(await eventsOf('key.created', (e) => e.key.name === name, since)).toEqual([]);
    },
    afterRetry: async ({ since, name }, res) => {
      expect(res.status).toBe(201);
      expect((await storedKeys()).filter((k) => k.name === name).map((k) => k.key_id)).toEqual([
        res.body.key_id,
      ]);
      const events = await eventsOf('key.created', (e) => e.key.name === name, since);
      expect(events.map((e) => e.key.key_id)).toEqual([res.body.key_id]);
    },
  }),

  'revoking a key': writeCase({
    setup: async () => {
      const since = caseStart();
      const body = createKeyRequestSchema.parse({ name: unique('doomed'), scopes: ['bans:read'] });
      const made = await domain.issueApiKey(OWNER, moderation, body, moderation.actor);
      return { since, keyId: made.key_id };
    },
    send: ({ keyId }) => api.request('POST', `/v1/keys/${keyId}/revoke`, { key }),
    afterFailure: async ({ since, keyId }) => {
      const events = await eventsOf('key.revoked', (e) => e.key.key_id === keyId, since);
      const stored = (await storedKeys()).find((k) => k.key_id === keyId);
      if (events.length > 0) expect(stored?.revoked_at).toBe(events[0]?.occurred_at);
      expect(events.length).toBeLessThanOrEqual(1);
    },
    afterRetry: async ({ since, keyId }, res) => {
      expect(res.status).toBe(200);
      const events = await eventsOf('key.revoked', (e) => e.key.key_id === keyId, since);
      expect(events).toHaveLength(1);
      expect(events[0]?.occurred_at).toBe(res.body.revoked_at);
    },
  }),

  'erasing a device': writeCase({
    setup: async () => {
      const since = caseStart();
      const device = unique('af-erase');
      const idem = [unique('k'), unique('k')];
      await setUpBan(GAME, banBody({ device_id: device, idempotency_key: idem[0] }));
      await setUpBan('g-af-2', banBody({ device_id: device, scope: 'publisher', idempotency_key: idem[1] }));
      await setUpBan(GAME, banBody({ device_id: device, scope: 'global' }));
      const theirs = await createBan(api, otherKey, GAME, banBody({ device_id: device, scope: 'global' }));
      return { since, device, idem, theirs, finished: false };
    },
    send: ({ device }) => api.request('POST', `/v1/device/${device}/erase`, { key }),
    afterFailure: async (ctx) => {
      const events = await eventsOf('device.erased', (e) => e.device_id === ctx.device, ctx.since);
      expect(events.length).toBeLessThanOrEqual(1);
      if (events.length > 0) expect(await ownerBans(ctx.device)).toEqual([]);
      // Only the marker's delete was lost: the erasure had finished, and its event says so.
      ctx.finished =
        events.length > 0 &&
        !(await storedBans(ctx.device)).some((i) => i.sk === erasureKey(ctx.device, OWNER).sk);
    },
    afterRetry: async ({ since, device, idem, theirs, finished }, res) => {
      expect(res.status).toBe(200);
      // The whole count, however much the failed attempt had done, unless it had done it all.
      expect(res.body).toEqual({ device_id: device, erased_bans: finished ? 0 : 3 });
      expect((await storedBans(device)).map((b) => b.ban_id)).toEqual([theirs]);
      expect(await storedRecord(OWNER, GAME, idem[0] as string)).toBeUndefined();
      expect(await storedRecord(OWNER, 'g-af-2', idem[1] as string)).toBeUndefined();
      const events = await eventsOf('device.erased', (e) => e.device_id === device, since);
      expect(events.map((e) => e.erased_bans)).toEqual([3]);
      expect((await storedBans(device)).some((item) => item.sk === erasureKey(device, OWNER).sk)).toBe(false);
    },
  }),
} as const;

/** The partition kind of a key, by its prefix (lib/storage/keys.ts). */
describe.each(Object.entries(operations))('%s', (_name, op: WriteCase<any>) => {
  it('keeps exactly one event per change with a fault at each of its storage calls, then the retry', async () => {
    const { cases, injected } = await faultAtEveryCall(faults, op);
    totals.cases += cases;
    totals.injected += injected;
    totals.events = (await storedEvents(OWNER)).length;
  });
});

describe('a policy update whose first attempt landed and lost its answer', () => {
  it("is made once: the SDK's second attempt finds it, one version and one event, and the 200 names the change", async () => {
    const { dynamo, tableName: boundTable } = await storage();
    const stored = async () =>
      (
        await dynamo.send(
          new GetCommand({ TableName: boundTable(), Key: policyKey(OWNER), ConsistentRead: true }),
        )
      ).Item ?? {};
    const version = async () => ((await stored()).version as number | undefined) ?? 0;
    const before = await version();
    const eventsBefore = (await eventsOf('policy.updated', () => true)).length;
    const was = (await stored()).enforce_game as boolean;
    faults.reset();
    faults.fail({
      operation: 'UpdateItem',
      keyPrefix: policyKey(OWNER).pk,
      error: 'timeout',
      attempts: 'each',
      failAttempts: 1,
      landedAttempts: 1,
    });
    const res = await api.request('PUT', '/v1/policy', { key, body: { enforce_game: !was } });
    expect(faults.injected).toHaveLength(1);
    faults.reset();
    expect(res.status).toBe(200);
    expect(res.body.enforce_game).toBe(!was);
    expect(await version()).toBe(before + 1);
    const events = (await eventsOf('policy.updated', () => true)).reverse();
    expect(events).toHaveLength(eventsBefore + 1);
    expect(events.at(-1)).toMatchObject({ before: { enforce_game: was }, after: { enforce_game: !was } });
    // Another publisher's policy and trail are untouched.
    expect((await api.request('GET', '/v1/policy', { key: otherKey })).body.enforce_game).toBe(true);
  });
});
