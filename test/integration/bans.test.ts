import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { banKey, idempotencyKey, partitions } from '../../lib/storage/keys';
import {
  banBody as ban,
  postBan,
  revokeBan,
  startTwoPublishers,
  storedBans,
  type TestApi,
} from '../support/fixtures';

let api: TestApi;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  ({ api, keyA, keyB } = await startTwoPublishers());
});
afterAll(() => api?.close());

const future = () => new Date(Date.now() + 86_400_000).toISOString();
const banItems = async () =>
  (await api.items()).filter((item) => String(item.pk).startsWith(partitions.device));
const idempotencyItems = async () =>
  (await api.items()).filter((item) => String(item.pk).startsWith(partitions.idempotency));

describe('POST /v1/bans', () => {
  it('answers 201 created and stores the ban as sent', async () => {
    const expiresAt = '2099-05-01T12:00:00+02:00';
    const res = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'game-1',
      body: ban({ device_id: 'dev-created', expires_at: expiresAt, details: { match_id: 'm-1', score: 3 } }),
    });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      ban_id: expect.any(Number),
      device_id: 'dev-created',
      ban_type: 'cheat',
      scope: 'game',
      publisher_id: 'pub-a',
      game_id: 'game-1',
      status: 'created',
    });
    const stored = (await banItems()).filter((item) => item.device_id === 'dev-created');
    expect(stored).toEqual([
      expect.objectContaining({
        sk: banKey('dev-created', res.body.ban_id).sk,
        ban_id: res.body.ban_id,
        expires_at: '2099-05-01T10:00:00.000Z',
        details_json: '{"match_id":"m-1","score":3}',
        revoked_at: null,
      }),
    ]);
  });

  it('gives increasing ids', async () => {
    const first = await api.request('POST', '/v1/bans', { key: keyA, game: 'game-1', body: ban() });
    const second = await api.request('POST', '/v1/bans', { key: keyB, game: 'game-9', body: ban() });
    expect(second.body.ban_id).toBeGreaterThan(first.body.ban_id);
  });

  it('accepts explicit nulls for the optional expiry and details', async () => {
    const res = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'g',
      body: ban({ expires_at: null, details: null }),
    });
    expect(res.status).toBe(201);
  });

  const invalid: Array<[string, Record<string, unknown>, string, string]> = [
    ['device_id missing', { device_id: undefined }, 'device_id', 'required'],
    ['device_id empty', { device_id: '' }, 'device_id', 'invalid_format'],
    ['device_id with #', { device_id: 'a#b' }, 'device_id', 'invalid_format'],
    ['device_id with /', { device_id: 'a/b' }, 'device_id', 'invalid_format'],
    ['device_id too long', { device_id: 'd'.repeat(129) }, 'device_id', 'invalid_format'],
    ['device_id a number', { device_id: 42 }, 'device_id', 'invalid_type'],
    ['ban_type unknown', { ban_type: 'toxic' }, 'ban_type', 'invalid_value'],
    ['ban_type upper case', { ban_type: 'CHEAT' }, 'ban_type', 'invalid_value'],
    ['scope unknown', { scope: 'world' }, 'scope', 'invalid_value'],
    ['reason_code missing', { reason_code: undefined }, 'reason_code', 'required'],
    ['reason_code with space', { reason_code: 'bad words' }, 'reason_code', 'invalid_format'],
    ['reason_code too long', { reason_code: 'r'.repeat(65) }, 'reason_code', 'invalid_format'],
    ['expires_at without offset', { expires_at: '2099-01-01T00:00:00' }, 'expires_at', 'invalid_format'],
    ['expires_at a date only', { expires_at: '2099-01-01' }, 'expires_at', 'invalid_format'],
    ['expires_at impossible', { expires_at: '2099-02-30T00:00:00Z' }, 'expires_at', 'invalid_format'],
    ['expires_at in the past', { expires_at: '2020-01-01T00:00:00Z' }, 'expires_at', 'in_past'],
    ['expires_at a number', { expires_at: 1_900_000_000 }, 'expires_at', 'invalid_type'],
    ['details an array', { details: [1, 2] }, 'details', 'invalid_type'],
    ['details a string', { details: 'x' }, 'details', 'invalid_type'],
    ['details over 16 KiB', { details: { blob: 'x'.repeat(17_000) } }, 'details', 'too_big'],
    ['idempotency_key empty', { idempotency_key: '' }, 'idempotency_key', 'invalid_format'],
    ['idempotency_key too long', { idempotency_key: 'k'.repeat(256) }, 'idempotency_key', 'invalid_format'],
    ['idempotency_key with a newline', { idempotency_key: 'a\nb' }, 'idempotency_key', 'invalid_format'],
    ['a misspelt field', { expire_at: '2099-01-01T00:00:00Z' }, 'expire_at', 'unknown_field'],
    ['allow_duplicate a string', { allow_duplicate: 'true' }, 'allow_duplicate', 'invalid_type'],
    ['allow_duplicate null', { allow_duplicate: null }, 'allow_duplicate', 'invalid_type'],
  ];

  it.each(invalid)(
    'refuses %s with 400 naming the field, and stores nothing',
    async (_, overrides, field, issue) => {
      const before = (await api.items()).length;
      const res = await api.request('POST', '/v1/bans', { key: keyA, game: 'game-1', body: ban(overrides) });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details).toContainEqual({ field, issue });
      expect(res.body.error.message).toContain(field);
      expect((await api.items()).length).toBe(before);
    },
  );

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['with #', 'game#1'],
    ['too long', 'g'.repeat(65)],
  ])('refuses an X-Game-Id %s with 400 naming X-Game-Id', async (_, game) => {
    const before = (await api.items()).length;
    const res = await api.request('POST', '/v1/bans', { key: keyA, game, body: ban() });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field: 'X-Game-Id', issue: expect.any(String) });
    expect((await api.items()).length).toBe(before);
  });

  it('refuses details nested deeper than 32 levels', async () => {
    let details: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) details = { d: details };
    const res = await api.request('POST', '/v1/bans', { key: keyA, game: 'g', body: ban({ details }) });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field: 'details', issue: 'too_big' });
  });
});

describe('idempotency', () => {
  it('returns idempotent_ok with the original ban when the key repeats, whatever the new body says', async () => {
    const first = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'game-1',
      body: ban({ device_id: 'dev-idem', idempotency_key: 'order-1' }),
    });
    const again = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'game-1',
      body: ban({ device_id: 'dev-other', ban_type: 'social', scope: 'global', idempotency_key: 'order-1' }),
    });

    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, status: 'idempotent_ok' });
    expect(
      (await banItems()).filter((i) => i.device_id === 'dev-idem' || i.device_id === 'dev-other'),
    ).toHaveLength(1);
  });

  it('scopes the key to the publisher and the game', async () => {
    const body = ban({ device_id: 'dev-scope', idempotency_key: 'shared-key' });
    const a1 = await api.request('POST', '/v1/bans', { key: keyA, game: 'game-1', body });
    const a2 = await api.request('POST', '/v1/bans', { key: keyA, game: 'game-2', body });
    const b1 = await api.request('POST', '/v1/bans', { key: keyB, game: 'game-1', body });
    expect([a1.status, a2.status, b1.status]).toEqual([201, 201, 201]);
    expect(new Set([a1.body.ban_id, a2.body.ban_id, b1.body.ban_id]).size).toBe(3);
  });

  it('makes exactly one ban from 20 concurrent creates with one key', async () => {
    const body = ban({ device_id: 'dev-race', idempotency_key: 'race-1' });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => api.request('POST', '/v1/bans', { key: keyA, game: 'game-1', body })),
    );

    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(results.map((r) => r.body.ban_id)).size).toBe(1);
    expect((await banItems()).filter((i) => i.device_id === 'dev-race')).toHaveLength(1);
    expect(
      (await idempotencyItems()).filter((i) => i.pk === idempotencyKey('pub-a', 'game-1', 'race-1').pk),
    ).toHaveLength(1);
  });

  it('treats keys as exact strings (case and spaces matter)', async () => {
    const one = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'g',
      body: ban({ idempotency_key: 'Key 1', allow_duplicate: true }),
    });
    const two = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'g',
      body: ban({ idempotency_key: 'key 1', allow_duplicate: true }),
    });
    expect([one.status, two.status]).toEqual([201, 201]);
  });
});

describe('expiry input', () => {
  it('stores an expiry with an offset as UTC', async () => {
    const res = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'g',
      body: ban({ device_id: 'dev-utc', expires_at: future().replace('Z', '+00:00') }),
    });
    expect(res.status).toBe(201);
    const [item] = (await banItems()).filter((i) => i.device_id === 'dev-utc');
    expect(item?.expires_at).toMatch(/Z$/);
  });
});

describe('the same ban in force already', () => {
  const storedCount = async () => (await api.items()).length;

  it('answers 200 already_active with the ban in force, writes nothing, and a listing still shows one ban', async () => {
    const expiresAt = future();
    const first = await postBan(api, keyA, 'game-1', ban({ device_id: 'dup-1', expires_at: expiresAt }));
    expect(first.status).toBe(201);
    await api.settle();
    // Every item the API writes (bans, records, indexes, audit events), before and after.
    const before = await storedCount();

    // A second moderator's identical ban, with its own idempotency key and a longer expiry.
    const again = await postBan(
      api,
      keyA,
      'game-1',
      ban({ device_id: 'dup-1', expires_at: null, idempotency_key: 'moderator-b-1' }),
    );

    expect(again.status).toBe(200);
    expect(again.body).toEqual({
      ...first.body,
      status: 'already_active',
      reason_code: 'aimbot',
      created_at: expect.any(String),
      expires_at: new Date(expiresAt).toISOString(),
    });
    await api.settle();
    expect(await storedCount()).toBe(before);
    expect(await storedBans('dup-1')).toHaveLength(1);
    const listed = await api.request('GET', '/v1/device/dup-1/bans/cheat', { key: keyA, game: 'game-1' });
    expect(listed.body.counts).toEqual({ active: 1, inactive: 0, total: 1 });
    // The unclaimed key stays free: a repeat of it asks the same question again.
    const repeat = await postBan(
      api,
      keyA,
      'game-1',
      ban({ device_id: 'dup-1', idempotency_key: 'moderator-b-1' }),
    );
    expect(repeat.body.status).toBe('already_active');
  });

  it('still answers idempotent_ok to a repeated idempotency key, and makes a second ban with allow_duplicate', async () => {
    const body = ban({ device_id: 'dup-2', idempotency_key: 'wave-1' });
    const first = await postBan(api, keyA, 'game-1', body);
    const repeat = await postBan(api, keyA, 'game-1', body);
    expect([first.status, repeat.status]).toEqual([201, 200]);
    expect(repeat.body).toEqual({ ...first.body, status: 'idempotent_ok' });

    const second = await postBan(api, keyA, 'game-1', ban({ device_id: 'dup-2', allow_duplicate: true }));
    expect(second.status).toBe(201);
    expect(second.body.status).toBe('created');
    expect(second.body.ban_id).not.toBe(first.body.ban_id);
    expect((await storedBans('dup-2')).map((item) => item.ban_id).sort()).toEqual(
      [first.body.ban_id, second.body.ban_id].sort(),
    );
  });

  it('makes a new ban when the earlier one is revoked or expired, or differs in reason, scope or game', async () => {
    const revoked = await postBan(api, keyA, 'game-1', ban({ device_id: 'dup-3' }));
    expect(
      (await revokeBan(api, keyA, 'game-1', 'dup-3', revoked.body.ban_id, { reason_code: 'x' })).status,
    ).toBe(200);
    expect((await postBan(api, keyA, 'game-1', ban({ device_id: 'dup-3' }))).status).toBe(201);

    const expiring = await postBan(api, keyA, 'game-1', ban({ device_id: 'dup-4', expires_at: future() }));
    expect(expiring.status).toBe(201);
    api.setClockOffset(2 * 86_400_000);
    try {
      expect((await postBan(api, keyA, 'game-1', ban({ device_id: 'dup-4' }))).status).toBe(201);
    } finally {
      api.setClockOffset(0);
    }

    expect((await postBan(api, keyA, 'game-1', ban({ device_id: 'dup-5' }))).status).toBe(201);
    expect(
      (await postBan(api, keyA, 'game-1', ban({ device_id: 'dup-5', reason_code: 'wallhack' }))).status,
    ).toBe(201);
    expect((await postBan(api, keyA, 'game-2', ban({ device_id: 'dup-5' }))).status).toBe(201);
    const publisherWide = await postBan(api, keyA, 'game-1', ban({ device_id: 'dup-5', scope: 'publisher' }));
    expect(publisherWide.status).toBe(201);
    // A publisher ban reaches every game: made from another game, it is the same ban.
    const fromOtherGame = await postBan(api, keyA, 'game-3', ban({ device_id: 'dup-5', scope: 'publisher' }));
    expect(fromOtherGame.status).toBe(200);
    expect(fromOtherGame.body).toMatchObject({ status: 'already_active', ban_id: publisherWide.body.ban_id });
    expect(await storedBans('dup-5')).toHaveLength(4);
  });

  it("does not let another publisher's identical ban block, nor reveal it", async () => {
    const theirs = await postBan(api, keyB, 'game-1', ban({ device_id: 'dup-6', scope: 'global' }));
    expect(theirs.status).toBe(201);
    const ours = await postBan(api, keyA, 'game-1', ban({ device_id: 'dup-6', scope: 'global' }));
    expect(ours.status).toBe(201);
    expect(ours.body).toMatchObject({ status: 'created', publisher_id: 'pub-a' });
    expect(ours.body.ban_id).not.toBe(theirs.body.ban_id);
    // And theirs still answers to them alone.
    const theirsAgain = await postBan(api, keyB, 'game-1', ban({ device_id: 'dup-6', scope: 'global' }));
    expect(theirsAgain.body).toMatchObject({ status: 'already_active', ban_id: theirs.body.ban_id });
  });
});
