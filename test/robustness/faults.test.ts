import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { partitions } from '../../lib/storage/keys';
import {
  expectFired,
  expectUnavailable,
  type FaultInjector,
  type FaultKind,
  type FaultRule,
  failThenRetry,
  faultKinds,
  injectFaults,
  type Operation,
} from '../support/faults';
import {
  socialBanBody as ban,
  listAll,
  postBan,
  revokeBan,
  startWithPublishers,
  storedBans,
  storedRecord,
  type TestApi,
  unique,
} from '../support/fixtures';

/**
 * Every storage call of every operation, failing with each kind of DynamoDB trouble. The fault is
 * raised as the SDK raises it once its retries are spent (lib/storage/client.ts: 3 attempts, 1 s
 * connect and 2 s request timeouts), so what is tested here is our handling of the final failure:
 * the client gets 503 with Retry-After, nothing half-written shows, and a retry ends with one ban.
 * The SDK's retries themselves are exercised on the wire in wire-faults.test.ts.
 */

const OWNER = 'pub-owner';
const OTHER = 'pub-other';
const GAME = 'game-f';

let api: TestApi;
let faults: FaultInjector;
let ownerKey: string;
let otherKey: string;
let listedDevice: string;
let listedBanId: number;
let injectedTotal = 0;
let cases = 0;

beforeAll(async () => {
  // No change log nor dispatcher: what is checked here is what requests answer and store.
  const started = await startWithPublishers([OWNER, OTHER], { events: false });
  api = started.api;
  ownerKey = started.keys[OWNER];
  otherKey = started.keys[OTHER];
  // The same module instance the handlers use: the API runs in this process.
  const { dynamo } = await import('../../lib/storage/client');
  faults = injectFaults(dynamo);
  listedDevice = unique('listed');
  listedBanId = (await create(ban({ device_id: listedDevice }))).body.ban_id;
});
afterEach(() => {
  injectedTotal += faults.injected.length;
  if (faults.injected.length > 0) cases += 1;
  faults.reset();
});
afterAll(async () => {
  console.log(
    `faults: ${injectedTotal} faults injected in ${cases} cases, every storage call of every operation`,
  );
  faults?.remove();
  await api?.close();
});

interface Call {
  name: string;
  operation: Operation;
  keyPrefix: string;
}
const keyLookup: Call = {
  name: 'the key lookup in the authorizer',
  operation: 'GetItem',
  keyPrefix: partitions.apiKey,
};
const counter: Call = {
  name: 'the ban id counter update',
  operation: 'UpdateItem',
  keyPrefix: partitions.counter,
};
const recordWrite: Call = {
  name: 'the idempotency record write',
  operation: 'PutItem',
  keyPrefix: partitions.idempotency,
};
const banWrite: Call = { name: 'the ban item write', operation: 'PutItem', keyPrefix: partitions.device };
const recordRead: Call = {
  name: 'the idempotency record read',
  operation: 'GetItem',
  keyPrefix: partitions.idempotency,
};
const policyRead: Call = { name: 'the policy read', operation: 'GetItem', keyPrefix: partitions.publisher };
const policyUpdate: Call = {
  name: 'the policy update',
  operation: 'UpdateItem',
  keyPrefix: partitions.publisher,
};
const listQuery: Call = { name: 'the device query', operation: 'Query', keyPrefix: partitions.device };
const banUpdate: Call = {
  name: 'the revoking ban update',
  operation: 'UpdateItem',
  keyPrefix: partitions.device,
};
const banRead: Call = {
  name: 'the ban read of a repeated revoke',
  operation: 'GetItem',
  keyPrefix: partitions.device,
};

const matrix = <T extends unknown[]>(calls: Array<[Call, ...T]>) =>
  calls.flatMap(([call, ...rest]) => faultKinds.map((kind) => [call.name, kind, call, ...rest] as const));

/** The rule that fails `call` with `kind` (its `nth` time). */
const rule = (call: Call, kind: FaultKind, nth = 1): FaultRule => ({
  operation: call.operation,
  keyPrefix: call.keyPrefix,
  error: kind,
  nth,
});
const arm = (call: Call, kind: FaultKind) => faults.fail(rule(call, kind));
const expectInjected = (call: Call, kind: FaultKind, times = 1) =>
  expectFired(faults, rule(call, kind), times);

const create = (body: Record<string, unknown>) => postBan(api, ownerKey, GAME, body);

/**
 * Nothing of the failed request is visible: neither the owner's listing nor another publisher's
 * (the bans are global, so both would show them) lists anything, and no ban item exists.
 */
const expectNothingListed = async (device: string) => {
  expect(await listAll(api, ownerKey, GAME, device)).toMatchObject({
    items: [],
    counts: { active: 0, inactive: 0, total: 0 },
  });
  expect((await listAll(api, otherKey, 'game-x', device)).items).toEqual([]);
  expect(await storedBans(device)).toEqual([]);
};

/** Exactly one ban is stored for the device: the one answered. */
const expectOneBan = async (device: string, banId: number) => {
  expect((await storedBans(device)).map((i) => i.ban_id)).toEqual([banId]);
};

describe('creating a ban with an idempotency key', () => {
  it.each(
    matrix([
      [keyLookup, 201],
      [counter, 201],
      [recordWrite, 201],
      // The record holding the ban was written: the retry completes that ban.
      [banWrite, 200],
    ]),
  )(
    'answers 503 when %s fails with %s, shows nothing, and a retry with the same key makes one ban',
    async (_, kind, call, retryStatus) => {
      const device = unique('dev');
      const body = ban({ device_id: device, idempotency_key: unique('order'), details: { note: 'n' } });

      const retry = await failThenRetry(
        faults,
        rule(call, kind),
        () => create(body),
        () => expectNothingListed(device),
      );
      expect(retry.status).toBe(retryStatus);
      expect(retry.body).toEqual({
        ban_id: expect.any(Number),
        device_id: device,
        ban_type: 'social',
        scope: 'global',
        publisher_id: OWNER,
        game_id: GAME,
        status: retryStatus === 201 ? 'created' : 'idempotent_ok',
      });
      await expectOneBan(device, retry.body.ban_id);
      expect((await storedRecord(OWNER, GAME, String(body.idempotency_key)))?.ban).toMatchObject({
        ban_id: retry.body.ban_id,
      });
    },
  );
});

describe('creating a ban without an idempotency key', () => {
  it.each(matrix([[keyLookup], [counter], [banWrite]]))(
    'answers 503 when %s fails with %s, shows nothing, and a retry makes exactly one ban',
    async (_, kind, call) => {
      const device = unique('dev');
      const body = ban({ device_id: device });

      const retry = await failThenRetry(
        faults,
        rule(call, kind),
        () => create(body),
        () => expectNothingListed(device),
      );
      expect(retry.status).toBe(201);
      await expectOneBan(device, retry.body.ban_id);
    },
  );
});

describe('repeating an idempotency key', () => {
  it.each(matrix([[recordRead]]))(
    'answers 503 when %s fails with %s, keeps showing the one ban, and a retry answers it',
    async (_, kind, call) => {
      const device = unique('dev');
      const body = ban({ device_id: device, idempotency_key: unique('order') });
      const first = await create(body);
      expect(first.status).toBe(201);

      const retry = await failThenRetry(
        faults,
        rule(call, kind),
        () => create(body),
        () => expectOneBan(device, first.body.ban_id),
      );
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual({ ...first.body, status: 'idempotent_ok' });
      await expectOneBan(device, first.body.ban_id);
    },
  );

  it.each(matrix([[banWrite]]))(
    'answers 503 when %s that completes an earlier attempt fails with %s, shows nothing, and a retry completes that ban',
    async (_, kind, call) => {
      const device = unique('dev');
      const key = unique('order');
      const body = ban({ device_id: device, idempotency_key: key });
      // An earlier attempt stored the record but not the ban item.
      arm(call, kind);
      expectUnavailable(await create(body));
      faults.reset();
      const record = await storedRecord(OWNER, GAME, key);
      expect(record?.ban).toMatchObject({ device_id: device });

      const retry = await failThenRetry(
        faults,
        rule(call, kind),
        () => create(body),
        () => expectNothingListed(device),
      );
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ ban_id: record?.ban.ban_id, status: 'idempotent_ok' });
      await expectOneBan(device, retry.body.ban_id);
    },
  );
});

describe('reading the policy', () => {
  it.each(matrix([[keyLookup], [policyRead]]))(
    'answers 503 when %s fails with %s, and a retry reads the same policy',
    async (_, kind, call) => {
      const before = await api.request('GET', '/v1/policy', { key: ownerKey });
      expect(before.status).toBe(200);

      const retry = await failThenRetry(faults, rule(call, kind), () =>
        api.request('GET', '/v1/policy', { key: ownerKey }),
      );
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(before.body);
    },
  );
});

describe('updating the policy', () => {
  it.each(matrix([[keyLookup], [policyUpdate]]))(
    'answers 503 when %s fails with %s, changes nothing, and a retry applies the change',
    async (_, kind, call) => {
      const key = ownerKey;
      const before = (await api.request('GET', '/v1/policy', { key })).body;
      const change = { enforce_game: !before.enforce_game, rep_include_global: !before.rep_include_global };

      const retry = await failThenRetry(
        faults,
        rule(call, kind),
        () => api.request('PUT', '/v1/policy', { key, body: change }),
        async () => expect((await api.request('GET', '/v1/policy', { key })).body).toEqual(before),
      );
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual({ ...before, ...change, updated_at: expect.any(String) });
    },
  );
});

const listingRoutes = [
  ['social', `/bans/social?status=all`],
  ['cheat', `/bans/cheat?status=all`],
  ['every type', `/bans?status=all`],
] as const;

describe('listing a device', () => {
  it.each(
    listingRoutes.flatMap(([type, path]) =>
      matrix(type === 'social' ? [[keyLookup], [listQuery], [policyRead]] : [[listQuery], [policyRead]]).map(
        (row) => [type, ...row, path] as const,
      ),
    ),
  )(
    'lists %s bans: answers 503 when %s fails with %s, and a retry lists the same bans',
    async (type, _, kind, call, path) => {
      const url = `/v1/device/${listedDevice}${path}`;
      const retry = await failThenRetry(faults, rule(call, kind), () =>
        api.request('GET', url, { key: ownerKey, game: GAME }),
      );
      expect(retry.status).toBe(200);
      expect(retry.body.items.map((i: { ban_id: number }) => i.ban_id)).toEqual(
        type === 'cheat' ? [] : [listedBanId],
      );
    },
  );
});

describe('revoking a ban', () => {
  const revoke = (device: string, banId: number) =>
    revokeBan(api, ownerKey, GAME, device, banId, { reason_code: 'appeal' });
  const listed = async (device: string) => (await listAll(api, ownerKey, GAME, device)).items;

  it.each(matrix([[keyLookup], [banUpdate]]))(
    'answers 503 when %s fails with %s, leaves the ban active, and a retry revokes it once',
    async (_, kind, call) => {
      const device = unique('dev');
      const made = await create(ban({ device_id: device }));

      const retry = await failThenRetry(
        faults,
        rule(call, kind),
        () => revoke(device, made.body.ban_id),
        async () =>
          expect(await listed(device)).toEqual([
            expect.objectContaining({ ban_id: made.body.ban_id, revoked_at: null }),
          ]),
      );
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ ban_id: made.body.ban_id, revoke_reason_code: 'appeal' });
      expect(await listed(device)).toEqual([
        expect.objectContaining({ ban_id: made.body.ban_id, revoked_at: retry.body.revoked_at }),
      ]);
    },
  );

  // The policy is read alongside the update, so the revocation itself may have landed: the retry
  // must find it and answer it, revoked once.
  it.each(matrix([[policyRead]]))(
    'answers 503 when %s fails with %s, and a retry answers the ban revoked once',
    async (_, kind, call) => {
      const device = unique('dev');
      const made = await create(ban({ device_id: device }));

      const retry = await failThenRetry(faults, rule(call, kind), () => revoke(device, made.body.ban_id));
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ ban_id: made.body.ban_id, revoke_reason_code: 'appeal' });
      expect(retry.body.revoked_at).toEqual(expect.any(String));
      expect(await listed(device)).toEqual([
        expect.objectContaining({ ban_id: made.body.ban_id, revoked_at: retry.body.revoked_at }),
      ]);
    },
  );

  it.each(matrix([[banRead]]))(
    'answers 503 when %s fails with %s, keeps the first revocation, and a retry answers it',
    async (_, kind, call) => {
      const device = unique('dev');
      const made = await create(ban({ device_id: device }));
      const first = await revoke(device, made.body.ban_id);
      expect(first.status).toBe(200);

      const retry = await failThenRetry(
        faults,
        rule(call, kind),
        () => revoke(device, made.body.ban_id),
        async () =>
          expect(await listed(device)).toEqual([
            expect.objectContaining({ ban_id: made.body.ban_id, revoked_at: first.body.revoked_at }),
          ]),
      );
      expect(retry.status).toBe(200);
      expect(retry.body.revoked_at).toBe(first.body.revoked_at);
    },
  );
});

describe('enforcement', () => {
  it.each(matrix([[keyLookup], [policyRead], [listQuery]]))(
    'answers 503 for one device when %s fails with %s, and a retry gives the same answer',
    async (_, kind, call) => {
      const url = `/v1/device/${listedDevice}/enforcement`;
      const before = await api.request('GET', url, { key: ownerKey, game: GAME });
      expect(before.status).toBe(200);
      const retry = await failThenRetry(faults, rule(call, kind), () =>
        api.request('GET', url, { key: ownerKey, game: GAME }),
      );
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual({ ...before.body, evaluated_at: expect.any(String) });
    },
  );

  it.each(matrix([[policyRead], [listQuery]]))(
    'answers 503 for a batch when %s fails with %s (the second device), and a retry answers every device',
    async (_, kind, call) => {
      const body = { device_ids: [unique('dev'), listedDevice] };
      // For the device queries, the second one: one device's failure fails the whole batch.
      const retry = await failThenRetry(faults, rule(call, kind, call === listQuery ? 2 : 1), () =>
        api.request('POST', '/v1/enforcement/batch', { key: ownerKey, game: GAME, body }),
      );
      expect(retry.status).toBe(200);
      expect(retry.body.results.map((r: { device_id: string }) => r.device_id)).toEqual(body.device_ids);
    },
  );
});

/**
 * A write that reached DynamoDB but whose answer was lost (a reset connection, a timeout after
 * the store acted). The SDK retries it; the retry meets our own earlier write.
 */
describe('writes whose answer is lost', () => {
  const lostAnswers: FaultKind[] = ['network', 'timeout'];

  it.each(lostAnswers)(
    'answers 201 created when the idempotency record landed but the answer was lost to a %s and the SDK retried',
    async (kind) => {
      const device = unique('dev');
      const body = ban({ device_id: device, idempotency_key: unique('order') });
      faults.fail({ ...recordWrite, error: kind, attempts: 'each', failAttempts: 1, landedAttempts: 1 });

      const res = await create(body);
      expectInjected(recordWrite, kind);
      // The client sent one request: it must not be told that its key was used before.
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('created');
      await expectOneBan(device, res.body.ban_id);
    },
  );

  it.each(lostAnswers)(
    'answers 201 created with one ban when the ban item landed but the answer was lost to a %s and the SDK retried',
    async (kind) => {
      const device = unique('dev');
      faults.fail({ ...banWrite, error: kind, attempts: 'each', failAttempts: 1, landedAttempts: 1 });

      const res = await create(ban({ device_id: device, idempotency_key: unique('order') }));
      expectInjected(banWrite, kind);
      expect(res.status).toBe(201);
      await expectOneBan(device, res.body.ban_id);
    },
  );

  it.each(lostAnswers)(
    'answers 201 created with one ban when the counter update landed but the answer was lost to a %s',
    async (kind) => {
      const device = unique('dev');
      faults.fail({ ...counter, error: kind, attempts: 'each', failAttempts: 1, landedAttempts: 1 });

      const res = await create(ban({ device_id: device }));
      expectInjected(counter, kind);
      expect(res.status).toBe(201);
      await expectOneBan(device, res.body.ban_id);
    },
  );

  it.each(lostAnswers)('applies a policy change whose first answer was lost to a %s', async (kind) => {
    const key = (await api.createKey(unique('pol'))).api_key;
    faults.fail({ ...policyUpdate, error: kind, attempts: 'each', failAttempts: 1, landedAttempts: 1 });

    const res = await api.request('PUT', '/v1/policy', { key, body: { enforce_social_global: true } });
    expectInjected(policyUpdate, kind);
    expect(res.status).toBe(200);
    expect(res.body.enforce_social_global).toBe(true);
    expect((await api.request('GET', '/v1/policy', { key })).body).toEqual(res.body);
  });

  it.each(lostAnswers)(
    'answers 503 when the record landed and every later attempt failed (%s), shows nothing, and a retry makes one ban',
    async (kind) => {
      const device = unique('dev');
      const body = ban({ device_id: device, idempotency_key: unique('order') });
      faults.fail({ ...recordWrite, error: kind, attempts: 'each', landedAttempts: 1 });

      expectUnavailable(await create(body));
      expectInjected(recordWrite, kind, 3);
      faults.clear();
      await expectNothingListed(device);

      const retry = await create(body);
      expect(retry.status).toBe(200);
      await expectOneBan(device, retry.body.ban_id);
    },
  );

  it.each(lostAnswers)(
    'answers 503 when the ban item landed and every later attempt failed (%s), shows the whole ban, and a retry answers that ban',
    async (kind) => {
      const device = unique('dev');
      const key = unique('order');
      const body = ban({ device_id: device, idempotency_key: key });
      faults.fail({ ...banWrite, error: kind, attempts: 'each', landedAttempts: 1 });

      expectUnavailable(await create(body));
      expectInjected(banWrite, kind, 3);
      faults.clear();
      // Not half-written: the listed ban is the one the record holds, complete.
      const record = await storedRecord(OWNER, GAME, key);
      const [listed] = (await listAll(api, ownerKey, GAME, device)).items;
      expect(listed).toMatchObject({
        ban_id: record?.ban.ban_id,
        ban_type: 'social',
        scope: 'global',
        publisher_id: OWNER,
        reason_code: 'toxicity',
        created_at: record?.ban.created_at,
      });

      const retry = await create(body);
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ ban_id: record?.ban.ban_id, status: 'idempotent_ok' });
      await expectOneBan(device, retry.body.ban_id);
    },
  );
});
