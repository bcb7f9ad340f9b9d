import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitions } from '../../lib/storage/keys';
import { type Body, createBan, revokeBan, startTwoPublishers, type TestApi } from '../support/fixtures';

let api: TestApi;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  ({ api, keyA, keyB } = await startTwoPublishers());
});
afterAll(() => api?.close());

const create = (key: string, game: string, body: Body) =>
  createBan(api, key, game, { reason_code: 'r', ...body });
const enforcement = (key: string, game: string, device: string) =>
  api.request('GET', `/v1/device/${device}/enforcement`, { key, game });
const setPolicy = (key: string, body: Body) => api.request('PUT', '/v1/policy', { key, body });
const ids = (items: Array<{ ban_id: number }>) => items.map((b) => b.ban_id);

describe('GET /v1/device/{device_id}/enforcement', () => {
  const device = 'dev-enforce';
  const bans: Record<string, number> = {};

  beforeAll(async () => {
    bans.aGameSocial = await create(keyA, 'game-1', { device_id: device, ban_type: 'social', scope: 'game' });
    bans.bGlobalCheat = await create(keyB, 'game-9', {
      device_id: device,
      ban_type: 'cheat',
      scope: 'global',
      details: { secret: 'b' },
    });
    bans.bGlobalSocial = await create(keyB, 'game-9', {
      device_id: device,
      ban_type: 'social',
      scope: 'global',
    });
    bans.bPublisherCheat = await create(keyB, 'game-9', {
      device_id: device,
      ban_type: 'cheat',
      scope: 'publisher',
    });
  });

  it('says restricted and why under the default policy (global social bans not enforced)', async () => {
    const res = await enforcement(keyA, 'game-1', device);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      device_id: device,
      game_id: 'game-1',
      restricted: { cheat: true, social: true },
    });
    expect(ids(res.body.bans)).toEqual([bans.bGlobalCheat, bans.aGameSocial]);
    expect(res.body.bans[0]).toMatchObject({
      rule: ['enforce_global', 'enforce_cheat_global'],
      enforced: true,
      details_json: null,
      publisher_id: 'pub-b',
    });
    expect(res.body.bans[1]).toMatchObject({ rule: ['enforce_game'], game_id: 'game-1' });
    const policy = (await api.request('GET', '/v1/policy', { key: keyA })).body;
    expect(res.body.policy_updated_at).toBe(policy.updated_at);
    expect(Date.parse(res.body.evaluated_at)).not.toBeNaN();
  });

  it('scores reputation over the visible bans: 100 − 40 (global cheat) − 15 (global social) − 15 (game social) = 30', async () => {
    const res = await enforcement(keyA, 'game-1', device);
    expect(res.body.reputation).toMatchObject({
      score: 30,
      included_scopes: ['game', 'publisher', 'global'],
    });
    expect(res.body.reputation.counts.social.global).toEqual({ active: 1, expired: 0 });
    // pub-b's publisher ban is not visible to pub-a, so it does not count.
    expect(res.body.reputation.counts.cheat.publisher).toEqual({ active: 0, expired: 0 });
  });

  it('follows the caller policy: enforcing global social bans adds one, dropping global drops both', async () => {
    await setPolicy(keyA, { enforce_social_global: true });
    expect(ids((await enforcement(keyA, 'game-1', device)).body.bans)).toEqual([
      bans.bGlobalSocial,
      bans.bGlobalCheat,
      bans.aGameSocial,
    ]);
    await setPolicy(keyA, { enforce_global: false });
    const res = await enforcement(keyA, 'game-1', device);
    expect(ids(res.body.bans)).toEqual([bans.aGameSocial]);
    expect(res.body.restricted).toEqual({ cheat: false, social: true });
    await setPolicy(keyA, { enforce_global: true, enforce_social_global: false });
  });

  it("shows another publisher its own view: its publisher ban applies, pub-a's game ban is invisible", async () => {
    const res = await enforcement(keyB, 'game-1', device);
    expect(ids(res.body.bans)).toEqual([bans.bPublisherCheat, bans.bGlobalCheat]);
    expect(res.body.bans[1].details_json).toEqual({ secret: 'b' });
    expect(res.text).not.toContain(`"ban_id":${bans.aGameSocial},`);
  });

  it('answers a clean device unrestricted with score 100', async () => {
    const res = await enforcement(keyA, 'game-1', 'dev-clean');
    expect(res.body).toMatchObject({
      restricted: { cheat: false, social: false },
      bans: [],
      reputation: { score: 100 },
    });
  });

  it('refuses a bad device id or a missing X-Game-Id with 400', async () => {
    expect((await enforcement(keyA, 'game-1', 'bad%23id')).status).toBe(400);
    expect((await api.request('GET', '/v1/device/dev-1/enforcement', { key: keyA })).status).toBe(400);
  });
});

describe('POST /v1/enforcement/batch', () => {
  beforeAll(async () => {
    await create(keyA, 'lobby', { device_id: 'lobby-cheater', ban_type: 'cheat', scope: 'game' });
  });
  const batch = (body: unknown, key = keyA) =>
    api.request('POST', '/v1/enforcement/batch', { key, game: 'lobby', body });

  it('answers one device like the single endpoint', async () => {
    const res = await batch({ device_ids: ['lobby-cheater'] });
    expect(res.status).toBe(200);
    const single = (await enforcement(keyA, 'lobby', 'lobby-cheater')).body;
    expect(res.body.results).toEqual([{ ...single, evaluated_at: res.body.evaluated_at }]);
  });

  it('answers 100 devices in request order', async () => {
    const devices = Array.from({ length: 100 }, (_, i) => (i === 42 ? 'lobby-cheater' : `lobby-${99 - i}`));
    const res = await batch({ device_ids: devices });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: Body) => r.device_id)).toEqual(devices);
    expect(
      res.body.results.filter((r: { restricted: { cheat: boolean } }) => r.restricted.cheat),
    ).toHaveLength(1);
    expect(res.body.results[42].restricted.cheat).toBe(true);
  });

  it.each([
    ['an empty list', { device_ids: [] }, 'too_small'],
    ['101 devices', { device_ids: Array.from({ length: 101 }, (_, i) => `d-${i}`) }, 'too_big'],
    ['no list', {}, 'required'],
    ['a string', { device_ids: 'dev-1' }, 'invalid_type'],
  ])('refuses %s with 400', async (_, body, issue) => {
    const res = await batch(body);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field: 'device_ids', issue });
  });

  it('refuses a number among the ids with 400: ids are strings, a malformed string is per-item', async () => {
    const res = await batch({ device_ids: ['dev-1', 12] });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field: 'device_ids.1', issue: 'invalid_type' });
  });

  it('gives each invalid id its own error entry and answers the rest', async () => {
    const res = await batch({ device_ids: ['lobby-cheater', 'bad#one', '..', 'lobby-ok'] });
    expect(res.status).toBe(200);
    expect(res.body.results[0].restricted.cheat).toBe(true);
    expect(res.body.results[1]).toEqual({
      device_id: 'bad#one',
      error: {
        code: 'invalid_request',
        message: expect.any(String),
        details: [{ field: 'device_ids.1', issue: 'invalid_format' }],
      },
    });
    expect(res.body.results[2].error.details).toEqual([{ field: 'device_ids.2', issue: 'invalid_format' }]);
    expect(res.body.results[3]).toMatchObject({
      device_id: 'lobby-ok',
      restricted: { cheat: false, social: false },
    });
  });

  it("keeps another publisher's game bans out of its answer", async () => {
    const res = await batch({ device_ids: ['lobby-cheater'] }, keyB);
    expect(res.body.results[0]).toMatchObject({ restricted: { cheat: false }, bans: [] });
  });
});

describe('POST /v1/device/{device_id}/bans/{ban_id}/revoke', () => {
  const revoke = (
    key: string,
    device: string,
    banId: number | string,
    body: unknown = { reason_code: 'appeal_upheld' },
  ) => revokeBan(api, key, 'game-1', device, banId, body);
  const storedBan = async (banId: number) =>
    (await api.items()).find(
      (item) => item.ban_id === banId && String(item.pk).startsWith(partitions.device),
    );

  it('lets the owner revoke: revoked_at and the reason set, kept in history, inactive everywhere at once', async () => {
    const banId = await create(keyA, 'game-1', {
      device_id: 'dev-revoke',
      ban_type: 'cheat',
      scope: 'global',
    });
    const res = await revoke(keyA, 'dev-revoke', banId);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ban_id: banId,
      revoked_at: expect.stringMatching(/Z$/),
      revoke_reason_code: 'appeal_upheld',
      enforced: false,
    });
    expect(await storedBan(banId)).toMatchObject({
      revoked_at: res.body.revoked_at,
      revoke_reason_code: 'appeal_upheld',
    });

    for (const key of [keyA, keyB]) {
      const active = await api.request('GET', '/v1/device/dev-revoke/bans/cheat', { key, game: 'game-1' });
      expect(active.body.items).toEqual([]);
      expect(active.body.counts).toEqual({ active: 0, inactive: 1, total: 1 });
      const history = await api.request('GET', '/v1/device/dev-revoke/bans/cheat?status=inactive', {
        key,
        game: 'game-1',
      });
      expect(history.body.items[0]).toMatchObject({
        ban_id: banId,
        revoked_at: res.body.revoked_at,
        enforced: false,
      });
      expect((await enforcement(key, 'game-1', 'dev-revoke')).body).toMatchObject({
        restricted: { cheat: false },
        bans: [],
        reputation: { score: 100 },
      });
    }
  });

  it('returns the ban unchanged with 200 when revoked again', async () => {
    const banId = await create(keyA, 'game-1', {
      device_id: 'dev-revoke-2',
      ban_type: 'social',
      scope: 'game',
    });
    const first = await revoke(keyA, 'dev-revoke-2', banId);
    const second = await revoke(keyA, 'dev-revoke-2', banId, { reason_code: 'different_reason' });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
  });

  it('answers another publisher 404, revealing nothing, and leaves the ban as it was', async () => {
    const banId = await create(keyA, 'game-1', {
      device_id: 'dev-not-yours',
      ban_type: 'cheat',
      scope: 'global',
    });
    const before = await storedBan(banId);
    const res = await revoke(keyB, 'dev-not-yours', banId);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    const missing = await revoke(keyB, 'dev-not-yours', 999_999);
    expect(missing.body.error.message).toBe(res.body.error.message);
    expect(await storedBan(banId)).toEqual(before);
  });

  it('answers 404 for a ban id on the wrong device', async () => {
    const banId = await create(keyA, 'game-1', { device_id: 'dev-right', ban_type: 'cheat', scope: 'game' });
    expect((await revoke(keyA, 'dev-wrong', banId)).status).toBe(404);
  });

  it.each([
    ['no reason', {}, 'reason_code', 'required'],
    ['a bad reason', { reason_code: 'no spaces allowed' }, 'reason_code', 'invalid_format'],
    [
      'an extra field',
      { reason_code: 'ok', revoked_at: '2020-01-01T00:00:00Z' },
      'revoked_at',
      'unknown_field',
    ],
  ])('refuses %s with 400', async (_, body, field, issue) => {
    const res = await revoke(keyA, 'dev-1', 1, body);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field, issue });
  });

  it.each(['0', 'abc', '1.5'])('refuses the ban id %s with 400', async (banId) => {
    const res = await revoke(keyA, 'dev-1', banId);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field: 'ban_id', issue: expect.any(String) });
  });
});

describe('listings of every type', () => {
  const device = 'dev-types';
  const bans: Record<string, number> = {};
  beforeAll(async () => {
    bans.cheat = await create(keyA, 'game-1', { device_id: device, ban_type: 'cheat', scope: 'game' });
    bans.social = await create(keyA, 'game-1', { device_id: device, ban_type: 'social', scope: 'global' });
    bans.bCheat = await create(keyB, 'game-1', { device_id: device, ban_type: 'cheat', scope: 'game' });
  });

  it('lists every type with /bans, one type with ?type=, and cheat bans with /bans/cheat', async () => {
    const all = await api.request('GET', `/v1/device/${device}/bans`, { key: keyA, game: 'game-1' });
    expect(ids(all.body.items)).toEqual([bans.social, bans.cheat]);
    expect(all.body.counts).toEqual({ active: 2, inactive: 0, total: 2 });
    const socialOnly = await api.request('GET', `/v1/device/${device}/bans?type=social`, {
      key: keyA,
      game: 'game-1',
    });
    expect(ids(socialOnly.body.items)).toEqual([bans.social]);
    expect(socialOnly.body.counts.total).toBe(1);
    const cheat = await api.request('GET', `/v1/device/${device}/bans/cheat`, { key: keyA, game: 'game-1' });
    expect(ids(cheat.body.items)).toEqual([bans.cheat]);
  });

  it('marks enforced per the caller policy', async () => {
    const byId = async () =>
      new Map(
        (await api.request('GET', `/v1/device/${device}/bans`, { key: keyA, game: 'game-1' })).body.items.map(
          (b: Body) => [b.ban_id, b.enforced],
        ),
      );
    expect(await byId()).toEqual(
      new Map([
        [bans.social, false],
        [bans.cheat, true],
      ]),
    );
    await setPolicy(keyA, { enforce_game: false, enforce_social_global: true });
    expect(await byId()).toEqual(
      new Map([
        [bans.social, true],
        [bans.cheat, false],
      ]),
    );
    await setPolicy(keyA, { enforce_game: true, enforce_social_global: false });
  });

  it("shows pub-b its own game ban and pub-a's global one, never pub-a's game ban", async () => {
    const res = await api.request('GET', `/v1/device/${device}/bans`, { key: keyB, game: 'game-1' });
    expect(ids(res.body.items)).toEqual([bans.bCheat, bans.social]);
  });

  it.each([
    ['/bans?type=toxic', 'type', 'invalid_value'],
    ['/bans/cheat?type=cheat', 'type', 'unknown_field'],
    ['/bans?limit=201', 'limit', 'too_big'],
  ])('refuses %s with 400', async (path, field, issue) => {
    const res = await api.request('GET', `/v1/device/${device}${path}`, { key: keyA, game: 'game-1' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field, issue });
  });

  it('pages /bans with next_cursor like the social listing', async () => {
    const first = await api.request('GET', `/v1/device/${device}/bans?limit=1`, {
      key: keyA,
      game: 'game-1',
    });
    expect(first.body.next_cursor).toBe(bans.social);
    const second = await api.request(
      'GET',
      `/v1/device/${device}/bans?limit=1&cursor=${first.body.next_cursor}`,
      { key: keyA, game: 'game-1' },
    );
    expect(ids(second.body.items)).toEqual([bans.cheat]);
    expect(second.body.next_cursor).toBeNull();
  });
});
