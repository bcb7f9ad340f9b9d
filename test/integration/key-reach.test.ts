import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { banBody, startTwoPublishers, storedBans, type TestApi } from '../support/fixtures';

/**
 * What a key may do to other keys and beyond its games: it revokes only keys holding nothing it
 * lacks; a key bound to games makes and revokes only game bans and cannot read the audit trail,
 * which spans every game; the key listing pages; a publisher holds at most MAX_LIVE_KEYS live keys,
 * however many mint at once. Each refusal changes nothing, and another publisher is untouched.
 */

let api: TestApi;
let keyA: string;
let keyB: string;

/** lib/domain/api-keys.ts's MAX_LIVE_KEYS (imported there only after the store is up, like all lib code here). */
const MAX_LIVE_KEYS = 100;

beforeAll(async () => {
  ({ api, keyA, keyB } = await startTwoPublishers('reach-a', 'reach-b'));
  expect((await import('../../lib/domain/api-keys')).MAX_LIVE_KEYS).toBe(MAX_LIVE_KEYS);
});
afterAll(() => api?.close());

const make = async (publisher: string, grants: Parameters<TestApi['createKey']>[2]) =>
  api.createKey(publisher, 'reach', grants);

const listedKey = async (key: string, keyId: string) => {
  for (let cursor: string | undefined, page = 0; page < 20; page++) {
    const res = await api.request('GET', `/v1/keys?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { key });
    const found = res.body.items.find((k: { key_id: string }) => k.key_id === keyId);
    if (found) return found;
    if (res.body.next_cursor === null) return undefined;
    cursor = res.body.next_cursor;
  }
  return undefined;
};

describe('revoking a key', () => {
  it('refuses, with 403 naming what it lacks, to revoke a key holding a scope the caller lacks; the key still works', async () => {
    const manager = (await make('reach-a', { scopes: ['keys:manage', 'bans:read'] })).api_key;
    const full = await make('reach-a', { scopes: ['keys:manage', 'bans:read', 'bans:write'] });
    const res = await api.request('POST', `/v1/keys/${full.key_id}/revoke`, { key: manager });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden' });
    expect(res.body.error.message).toContain('the scope bans:write');
    expect((await listedKey(keyA, full.key_id))?.revoked_at).toBeNull();
    const works = await api.request('GET', '/v1/device/d/bans', { key: full.api_key, game: 'g1' });
    expect(works.status).toBe(200);
  });

  it('refuses a key bound to g1 to revoke a key for every game, or for another game', async () => {
    const bound = (await make('reach-a', { scopes: ['keys:manage', 'bans:read'], games: ['g1'] })).api_key;
    const everyGame = await make('reach-a', { scopes: ['bans:read'] });
    const otherGame = await make('reach-a', { scopes: ['bans:read'], games: ['g1', 'g2'] });
    const first = await api.request('POST', `/v1/keys/${everyGame.key_id}/revoke`, { key: bound });
    expect(first.status).toBe(403);
    expect(first.body.error.message).toContain('every game');
    const second = await api.request('POST', `/v1/keys/${otherGame.key_id}/revoke`, { key: bound });
    expect(second.status).toBe(403);
    expect(second.body.error.message).toContain('the game g2');
    expect((await listedKey(keyA, everyGame.key_id))?.revoked_at).toBeNull();
    expect((await listedKey(keyA, otherGame.key_id))?.revoked_at).toBeNull();
  });

  it('lets a key revoke a key holding no more than it does, and itself', async () => {
    const bound = await make('reach-a', { scopes: ['keys:manage', 'bans:read'], games: ['g1'] });
    const smaller = await make('reach-a', { scopes: ['bans:read'], games: ['g1'] });
    const res = await api.request('POST', `/v1/keys/${smaller.key_id}/revoke`, { key: bound.api_key });
    expect(res.status).toBe(200);
    expect(res.body.revoked_at).toEqual(expect.any(String));
    const self = await api.request('POST', `/v1/keys/${bound.key_id}/revoke`, { key: bound.api_key });
    expect(self.status).toBe(200);
  });

  it("answers 404 for another publisher's key, whatever it holds, and leaves it working", async () => {
    const others = await make('reach-b', { scopes: ['bans:read'] });
    const res = await api.request('POST', `/v1/keys/${others.key_id}/revoke`, { key: keyA });
    expect(res.status).toBe(404);
    expect((await listedKey(keyB, others.key_id))?.revoked_at).toBeNull();
  });
});

describe('a key bound to games', () => {
  let bound: string;
  beforeAll(async () => {
    bound = (await make('reach-a', { scopes: ['bans:read', 'bans:write', 'audit:read'], games: ['g1'] }))
      .api_key;
  });

  it.each([['publisher'], ['global']])(
    'may not make a %s ban: 403 naming why, nothing stored',
    async (scope) => {
      const device = `reach-${scope}`;
      const res = await api.request('POST', '/v1/bans', {
        key: bound,
        game: 'g1',
        body: banBody({ device_id: device, scope }),
      });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toMatch(/bound to games.*only game bans/);
      expect(await storedBans(device)).toEqual([]);
    },
  );

  it('makes game bans in its game', async () => {
    const res = await api.request('POST', '/v1/bans', {
      key: bound,
      game: 'g1',
      body: banBody({ device_id: 'reach-game', scope: 'game' }),
    });
    expect(res.status).toBe(201);
  });

  it('may not revoke a publisher ban: 403, and the ban stays active for everyone', async () => {
    const made = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'g1',
      body: banBody({ device_id: 'reach-wide', scope: 'publisher' }),
    });
    expect(made.status).toBe(201);
    const res = await api.request('POST', `/v1/device/reach-wide/bans/${made.body.ban_id}/revoke`, {
      key: bound,
      game: 'g1',
      body: { reason_code: 'appeal' },
    });
    expect(res.status).toBe(403);
    const [stored] = await storedBans('reach-wide');
    expect(stored?.revoked_at).toBeNull();
  });

  it('may not read the audit trail, which spans every game (403, even holding audit:read)', async () => {
    const res = await api.request('GET', '/v1/audit', { key: bound });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe('This key is bound to games, and this operation covers every game');
  });
});

describe('the key listing', () => {
  it('pages in key_id order, each key once, and refuses another publisher’s cursor', async () => {
    for (let i = 0; i < 4; i++) await make('reach-b', { scopes: ['bans:read'] });
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const res = await api.request('GET', `/v1/keys?limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
        key: keyB,
      });
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((k: { key_id: string }) => k.key_id));
      if (res.body.next_cursor === null) break;
      cursor = res.body.next_cursor;
    }
    expect(seen.length).toBeGreaterThanOrEqual(5);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual(seen);
    // Publisher A with B's cursor: refused (cursors are bound to their reader), never B's keys.
    const first = await api.request('GET', '/v1/keys?limit=1', { key: keyB });
    const mixed = await api.request('GET', `/v1/keys?cursor=${first.body.next_cursor}`, { key: keyA });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.details).toEqual([{ field: 'cursor', issue: 'invalid' }]);
    expect(mixed.text).not.toContain(seen[0]);
  });

  it.each([['0'], ['201'], ['x']])('refuses limit=%s', async (limit) => {
    const res = await api.request('GET', `/v1/keys?limit=${limit}`, { key: keyA });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('limit');
  });

  it('refuses a cursor it did not return', async () => {
    const res = await api.request('GET', '/v1/keys?cursor=bm90LWEtY3Vyc29y', { key: keyA });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'cursor', issue: 'invalid' }]);
  });
});

describe('the cap on live keys', () => {
  it(`holds ${MAX_LIVE_KEYS} live keys, however many mint at once; a revocation frees a place; another publisher is untouched`, async () => {
    const { api_key: owner } = await make('reach-cap', { scopes: ['keys:manage', 'bans:read'] });
    const made = [];
    for (let i = 1; i < MAX_LIVE_KEYS - 2; i++) made.push(await make('reach-cap', { scopes: ['bans:read'] }));
    // Two places left, five asking at once: exactly two get one.
    const racing = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        api.request('POST', '/v1/keys', { key: owner, body: { name: `race-${i}`, scopes: ['bans:read'] } }),
      ),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409]);
    const refused = racing.find((r) => r.status === 409);
    expect(refused?.body.error).toMatchObject({ code: 'conflict' });
    expect(refused?.body.error.message).toContain(`${MAX_LIVE_KEYS} live keys`);
    const live = async () => {
      let count = 0;
      for (let cursor: string | undefined, page = 0; page < 10; page++) {
        const res = await api.request('GET', `/v1/keys?limit=200${cursor ? `&cursor=${cursor}` : ''}`, {
          key: owner,
        });
        count += res.body.items.filter((k: { revoked_at: string | null }) => k.revoked_at === null).length;
        if (res.body.next_cursor === null) break;
        cursor = res.body.next_cursor;
      }
      return count;
    };
    expect(await live()).toBe(MAX_LIVE_KEYS);
    // Revoking one frees its place, once.
    const revoked = await api.request('POST', `/v1/keys/${made[0]?.key_id}/revoke`, { key: owner });
    expect(revoked.status).toBe(200);
    const again = await api.request('POST', `/v1/keys/${made[0]?.key_id}/revoke`, { key: owner });
    expect(again.status).toBe(200);
    const next = await api.request('POST', '/v1/keys', {
      key: owner,
      body: { name: 'after', scopes: ['bans:read'] },
    });
    expect(next.status).toBe(201);
    const past = await api.request('POST', '/v1/keys', {
      key: owner,
      body: { name: 'past', scopes: ['bans:read'] },
    });
    expect(past.status).toBe(409);
    expect(await live()).toBe(MAX_LIVE_KEYS);
    // Another publisher mints as before.
    const other = await api.request('POST', '/v1/keys', {
      key: keyB,
      body: { name: 'other', scopes: ['bans:read'] },
    });
    expect(other.status).toBe(201);
  });
});
