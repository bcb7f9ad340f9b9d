import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../lib/routes';
import { publisherPartition } from '../../lib/storage/keys';
import { banBody, startTwoPublishers, storedBans, type TestApi, unique } from '../support/fixtures';

/**
 * Scoped keys: each route needs its scope, a key bound to games may name only those, an expired key
 * is refused; what a key may not do it cannot do, and nothing is stored when it tries.
 */

let api: TestApi;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  ({ api, keyA, keyB } = await startTwoPublishers('scope-a', 'scope-b'));
});
afterAll(() => api?.close());

const scoped = async (publisher: string, grants: Parameters<TestApi['createKey']>[2]) =>
  (await api.createKey(publisher, 'scoped', grants)).api_key;

describe('the route table', () => {
  it('names a scope for every authenticated route and none for the public ones', () => {
    for (const route of routes) expect(route.scope === null, route.id).toBe(!route.auth);
  });
});

describe('a key with bans:read only', () => {
  let reader: string;
  beforeAll(async () => {
    reader = await scoped('scope-a', { scopes: ['bans:read'] });
  });

  it('lists and checks enforcement', async () => {
    const list = await api.request('GET', '/v1/device/sc-dev/bans', { key: reader, game: 'g1' });
    expect(list.status).toBe(200);
    const enforcement = await api.request('GET', '/v1/device/sc-dev/enforcement', {
      key: reader,
      game: 'g1',
    });
    expect(enforcement.status).toBe(200);
  });

  it('is refused a create with 403 naming the missing scope, and nothing is stored', async () => {
    const res = await api.request('POST', '/v1/bans', {
      key: reader,
      game: 'g1',
      body: banBody({ device_id: 'sc-dev-ro' }),
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ code: 'forbidden', message: 'This key lacks the scope bans:write' });
    expect(await storedBans('sc-dev-ro')).toEqual([]);
  });

  it('is refused the policy, read or write, and the policy is unchanged', async () => {
    const before = await api.request('GET', '/v1/policy', { key: keyA });
    const read = await api.request('GET', '/v1/policy', { key: reader });
    expect(read.status).toBe(403);
    expect(read.body.error.message).toBe('This key lacks the scope policy:read');
    const write = await api.request('PUT', '/v1/policy', { key: reader, body: { enforce_game: false } });
    expect(write.status).toBe(403);
    expect((await api.request('GET', '/v1/policy', { key: keyA })).body).toEqual(before.body);
  });

  it('is refused before its request is validated: a bad body still gets the 403', async () => {
    const res = await api.request('POST', '/v1/bans', { key: reader, game: 'g1', body: { nonsense: true } });
    expect(res.status).toBe(403);
  });
});

describe('a body that is not UTF-8', () => {
  /** A ban body with one byte that no UTF-8 text holds (0xFF) inside the device id. */
  const notUtf8 = (device: string) =>
    Buffer.concat([
      Buffer.from(`{"device_id":"${device}`),
      Buffer.from([0xff]),
      Buffer.from('","ban_type":"cheat","scope":"game","reason_code":"x"}'),
    ]);
  const json = { 'Content-Type': 'application/json' };

  it('gets the 403 of a key lacking the scope, as any other bad body does', async () => {
    const reader = await scoped('scope-a', { scopes: ['bans:read'] });
    const res = await api.request('POST', '/v1/bans', {
      key: reader,
      game: 'g1',
      rawBody: notUtf8('sc-utf8-ro'),
      headers: json,
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ code: 'forbidden', message: 'This key lacks the scope bans:write' });
  });

  it('gets the 403 of a key not bound to the game it names', async () => {
    const bound = await scoped('scope-a', { scopes: ['bans:write'], games: ['g1'] });
    const res = await api.request('POST', '/v1/bans', {
      key: bound,
      game: 'g9',
      rawBody: notUtf8('sc-utf8-g9'),
      headers: json,
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ code: 'forbidden', message: 'This key is not bound to game g9' });
  });

  it('is refused with 400 for a key that may make the call, and nothing is stored', async () => {
    const res = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'g1',
      rawBody: notUtf8('sc-utf8'),
      headers: json,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'invalid_json',
      message: 'The request body is not valid UTF-8',
    });
    expect(await storedBans('sc-utf8\ufffd')).toEqual([]);
    expect(await storedBans('sc-utf8')).toEqual([]);
  });
});

describe('a key bound to games', () => {
  let bound: string;
  beforeAll(async () => {
    bound = await scoped('scope-a', { scopes: ['bans:read', 'bans:write'], games: ['g1', 'g2'] });
  });

  it('creates and lists in its games', async () => {
    const res = await api.request('POST', '/v1/bans', {
      key: bound,
      game: 'g2',
      body: banBody({ device_id: 'sc-bound' }),
    });
    expect(res.status).toBe(201);
    expect(res.body.game_id).toBe('g2');
    const list = await api.request('GET', '/v1/device/sc-bound/bans', { key: bound, game: 'g2' });
    expect(list.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual([res.body.ban_id]);
  });

  it('is refused another game with 403 naming it, and nothing is stored', async () => {
    const res = await api.request('POST', '/v1/bans', {
      key: bound,
      game: 'g3',
      body: banBody({ device_id: 'sc-g3' }),
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ code: 'forbidden', message: 'This key is not bound to game g3' });
    expect(await storedBans('sc-g3')).toEqual([]);
    const list = await api.request('GET', '/v1/device/sc-bound/bans', { key: bound, game: 'g3' });
    expect(list.status).toBe(403);
    const batch = await api.request('POST', '/v1/enforcement/batch', {
      key: bound,
      game: 'g3',
      body: { device_ids: ['sc-bound'] },
    });
    expect(batch.status).toBe(403);
  });

  it("gives no reach into another publisher's data: its bans stay invisible and unrevocable", async () => {
    const other = await api.request('POST', '/v1/bans', {
      key: keyB,
      game: 'g1',
      body: banBody({ device_id: 'sc-other' }),
    });
    expect(other.status).toBe(201);
    const list = await api.request('GET', '/v1/device/sc-other/bans', { key: bound, game: 'g1' });
    expect(list.body.items).toEqual([]);
    const revoke = await api.request('POST', `/v1/device/sc-other/bans/${other.body.ban_id}/revoke`, {
      key: bound,
      game: 'g1',
      body: { reason_code: 'x' },
    });
    expect(revoke.status).toBe(404);
    const [stored] = await storedBans('sc-other');
    expect(stored?.revoked_at).toBeNull();
  });
});

describe("a key bound to games and the publisher's settings", () => {
  /** Each setting that applies in every game, and a change to it. */
  const settings = [
    ['the policy', '/v1/policy', { enforce_social_global: true }],
    ['the trust settings', '/v1/policy', { global_sources: { only: ['scope-b'] }, global_quorum: 1 }],
    // Strict reasons with an empty catalogue: no game could make a ban.
    ['the reason catalogue and strict reasons', '/v1/reasons', { reasons: [], strict_reasons: true }],
    ['the display name', '/v1/publisher', { display_name: 'Renamed By One Game' }],
    ['the device id formats', '/v1/device-formats', { formats: [{ platform: 'steam', prefix: 's:' }] }],
  ] as const;

  /** What is stored in the publisher's own partition (policy, catalogue, profile, keys). */
  const storedSettings = async (publisher: string) =>
    (await api.items()).filter((item) => item.pk === publisherPartition(publisher));

  it.each(settings)(
    'is refused %s with 403, whatever scopes it holds, and nothing changes',
    async (_, path, body) => {
      const publisher = unique('settings');
      const everyGame = (await api.createKey(publisher, 'every game')).api_key;
      const bound = await scoped(publisher, {
        scopes: ['policy:read', 'policy:write', 'bans:write'],
        games: ['g1'],
      });
      const before = await storedSettings(publisher);
      const trail = await api.request('GET', '/v1/audit', { key: everyGame });
      const res = await api.request('PUT', path, { key: bound, body });
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({
        code: 'forbidden',
        message: 'This key is bound to games, and this operation covers every game',
      });
      expect(await storedSettings(publisher)).toEqual(before);
      // Nothing recorded either: the trail is as it was.
      expect((await api.request('GET', '/v1/audit', { key: everyGame })).body).toEqual(trail.body);
      // A ban in its game is still made: strict reasons did not reach it.
      expect(
        (
          await api.request('POST', '/v1/bans', {
            key: bound,
            game: 'g1',
            body: banBody({ device_id: unique('sc-set') }),
          })
        ).status,
      ).toBe(201);
    },
  );

  it.each(settings)(
    'leaves %s to a key bound to no game, and lets the bound key read it',
    async (_, path, body) => {
      const publisher = unique('settings');
      const everyGame = await scoped(publisher, { scopes: ['policy:read', 'policy:write'] });
      const bound = await scoped(publisher, { scopes: ['policy:read'], games: ['g1'] });
      const other = await api.request('GET', '/v1/policy', { key: keyB });
      const res = await api.request('PUT', path, { key: everyGame, body });
      expect(res.status).toBe(200);
      if (path !== '/v1/publisher')
        expect((await api.request('GET', path, { key: bound })).body).toEqual(res.body);
      // Another publisher's settings are untouched.
      expect((await api.request('GET', '/v1/policy', { key: keyB })).body).toEqual(other.body);
    },
  );
});

describe('keys made without scopes', () => {
  it('keep every scope and every game, as every key made before scopes existed', async () => {
    for (const [method, path, body] of [
      ['GET', '/v1/policy', undefined],
      ['GET', '/v1/device/sc-any/bans', undefined],
      ['POST', '/v1/bans', banBody({ device_id: 'sc-any' })],
    ] as const) {
      const res = await api.request(method, path, { key: keyA, game: 'any-game', body });
      expect(res.status, path).toBeLessThan(300);
    }
  });
});

describe('an expired key', () => {
  it('is refused with 401, like an unknown one', async () => {
    const soon = new Date(Date.now() + 1_000).toISOString();
    const expiring = await scoped('scope-a', { expiresAt: soon });
    expect((await api.request('GET', '/v1/policy', { key: expiring })).status).toBe(200);
    // The API's clock past the key's end, instead of waiting for it.
    api.setClockOffset(1_100);
    try {
      const res = await api.request('GET', '/v1/policy', { key: expiring });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    } finally {
      api.setClockOffset(0);
    }
  });
});
