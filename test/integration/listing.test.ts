import { EEA_COUNTRIES } from '@kernel/statement-of-reasons';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBan, startTwoPublishers, type TestApi } from '../support/fixtures';

let api: TestApi;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  ({ api, keyA, keyB } = await startTwoPublishers());
});
afterAll(() => api?.close());

const create = (key: string, game: string, body: Record<string, unknown>) =>
  createBan(api, key, game, { ban_type: 'social', reason_code: 'toxicity', ...body });
const list = (key: string, game: string, device: string, query = '') =>
  api.request('GET', `/v1/device/${encodeURIComponent(device)}/bans/social${query}`, { key, game });

describe('what a publisher sees', () => {
  const device = 'dev-visibility';
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    ids.aGame1 = await create(keyA, 'game-1', {
      device_id: device,
      scope: 'game',
      details: { chat_log: 'l-1' },
    });
    ids.aGame2 = await create(keyA, 'game-2', { device_id: device, scope: 'game' });
    ids.aPublisher = await create(keyA, 'game-2', {
      device_id: device,
      scope: 'publisher',
      details: { note: 'a only' },
    });
    ids.aGlobal = await create(keyA, 'game-1', {
      device_id: device,
      scope: 'global',
      details: { evidence: 'private to a' },
    });
    ids.aCheat = await create(keyA, 'game-1', { device_id: device, scope: 'global', ban_type: 'cheat' });
    ids.bGame1 = await create(keyB, 'game-1', { device_id: device, scope: 'game' });
    ids.bGlobal = await create(keyB, 'game-7', {
      device_id: device,
      scope: 'global',
      details: { evidence: 'private to b' },
    });
  });

  it('shows the owner its game bans for this game, its publisher bans and every global ban, newest first', async () => {
    const res = await list(keyA, 'game-1', device);
    expect(res.status).toBe(200);
    expect(res.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual([
      ids.bGlobal,
      ids.aGlobal,
      ids.aPublisher,
      ids.aGame1,
    ]);
    expect(res.body.counts).toEqual({ active: 4, inactive: 0, total: 4 });
    expect(res.body.next_cursor).toBeNull();
  });

  it("returns the owner's details, game_id for game bans, and null game_id for publisher and global bans", async () => {
    const res = await list(keyA, 'game-1', device);
    const byId = new Map(res.body.items.map((b: { ban_id: number }) => [b.ban_id, b]));
    expect(byId.get(ids.aGame1)).toEqual({
      ban_id: ids.aGame1,
      ban_type: 'social',
      scope: 'game',
      publisher_id: 'pub-a',
      game_id: 'game-1',
      reason_code: 'toxicity',
      details_json: { chat_log: 'l-1' },
      created_at: expect.stringMatching(/Z$/),
      expires_at: null,
      revoked_at: null,
      revoke_reason_code: null,
      player_message: null,
      appealable: true,
      // Made by a key with nothing said of it: the defaults (docs/api.md, The statement of reasons).
      statement: {
        ground: 'terms',
        terms_clause: 'toxicity',
        terms_url: null,
        legal_ground: null,
        illegal_explanation: null,
        facts: 'This device received a social ban for toxicity.',
        automated_detection: true,
        automated_decision: 'fully',
        source: 'own_initiative',
        territorial_scope: [...EEA_COUNTRIES],
        category: 'other_violation_tc',
      },
      // Made without translations: its own language, and no translations to show its owner.
      message_locale: 'en',
      translations: null,
      appeal: null,
      created_by: { type: 'key', key_id: expect.stringMatching(/^key_/), name: expect.any(String) },
      enforced: true,
    });
    expect(byId.get(ids.aPublisher)).toMatchObject({ game_id: null, details_json: { note: 'a only' } });
    expect(byId.get(ids.aGlobal)).toMatchObject({
      game_id: null,
      details_json: { evidence: 'private to a' },
    });
    expect(byId.get(ids.bGlobal)).toMatchObject({ publisher_id: 'pub-b', game_id: null, details_json: null });
  });

  it("shows a second publisher the first one's global bans without their details, and none of its game or publisher bans", async () => {
    const res = await list(keyB, 'game-1', device);
    expect(res.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual([
      ids.bGlobal,
      ids.bGame1,
      ids.aGlobal,
    ]);
    const aGlobal = res.body.items.find((b: { ban_id: number }) => b.ban_id === ids.aGlobal);
    // Who made it is its owner's to know: another publisher sees neither the key nor the person.
    expect(aGlobal).toMatchObject({ publisher_id: 'pub-a', details_json: null, created_by: null });
    expect(res.text).not.toContain('private to a');
    expect(res.body.counts.total).toBe(3);
  });

  it('shows game bans only to the game they were made in', async () => {
    const res = await list(keyA, 'game-2', device);
    expect(res.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual([
      ids.bGlobal,
      ids.aGlobal,
      ids.aPublisher,
      ids.aGame2,
    ]);
  });

  it('never lists cheat bans in the social listing', async () => {
    const res = await list(keyA, 'game-1', device, '?status=all');
    expect(res.body.items.map((b: { ban_id: number }) => b.ban_id)).not.toContain(ids.aCheat);
  });

  it('answers a device without bans with an empty list', async () => {
    const res = await list(keyA, 'game-1', 'dev-never-banned');
    expect(res.body).toEqual({
      device_id: 'dev-never-banned',
      status: 'active',
      counts: { active: 0, inactive: 0, total: 0 },
      items: [],
      next_cursor: null,
    });
  });

  it('takes device ids with every allowed punctuation character', async () => {
    const odd = 'A.b_c~d:e@f+g=h-1';
    await create(keyA, 'game-1', { device_id: odd, scope: 'game' });
    const res = await list(keyA, 'game-1', odd);
    expect(res.body.device_id).toBe(odd);
    expect(res.body.counts.total).toBe(1);
  });
});

describe('active and inactive', () => {
  const device = 'dev-expiry';
  let soon: number;
  let later: number;
  // The expiry is reached by setting the API's clock past it; the next describe runs on the wall clock.
  afterAll(() => api.setClockOffset(0));

  beforeAll(async () => {
    later = await create(keyA, 'g', {
      device_id: device,
      scope: 'game',
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    soon = await create(keyA, 'g', {
      device_id: device,
      scope: 'game',
      expires_at: new Date(Date.now() + 1_500).toISOString(),
    });
  });

  it('reports a ban active until it expires and inactive after', async () => {
    const before = await list(keyA, 'g', device);
    expect(before.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual([soon, later]);
    expect(before.body.counts).toEqual({ active: 2, inactive: 0, total: 2 });

    // The API's clock past the first ban's end (1.5 s after it was made), instead of waiting for it.
    api.setClockOffset(1_700);

    const active = await list(keyA, 'g', device);
    expect(active.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual([later]);
    expect(active.body.counts).toEqual({ active: 1, inactive: 1, total: 2 });
    const inactive = await list(keyA, 'g', device, '?status=inactive');
    expect(inactive.body.status).toBe('inactive');
    expect(inactive.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual([soon]);
    const all = await list(keyA, 'g', device, '?status=all');
    expect(all.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual([soon, later]);
    expect(all.body.counts).toEqual({ active: 1, inactive: 1, total: 2 });
  });
});

describe('pagination', () => {
  const device = 'dev-pages';
  const ids: number[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 23; i++)
      ids.push(await create(keyA, 'g', { device_id: device, scope: i % 2 ? 'publisher' : 'global' }));
    ids.reverse();
  });

  it('walks every ban once, newest first, with counts unchanged on every page', async () => {
    const seen: number[] = [];
    const pages: number[] = [];
    let cursor: number | null = null;
    do {
      const res = await list(keyA, 'g', device, `?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.counts).toEqual({ active: 23, inactive: 0, total: 23 });
      seen.push(...res.body.items.map((b: { ban_id: number }) => b.ban_id));
      pages.push(res.body.items.length);
      cursor = res.body.next_cursor;
      if (cursor !== null) expect(cursor).toBe(seen.at(-1));
    } while (cursor !== null);
    expect(seen).toEqual(ids);
    expect(pages).toEqual([5, 5, 5, 5, 3]);
  });

  it('returns only bans with lower ids than the cursor', async () => {
    const cursor = ids[10] as number;
    const res = await list(keyA, 'g', device, `?cursor=${cursor}&limit=200`);
    expect(res.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual(ids.slice(11));
    expect(res.body.next_cursor).toBeNull();
  });

  it('returns null next_cursor when the page ends exactly at the last ban', async () => {
    const res = await list(keyA, 'g', device, '?limit=23');
    expect(res.body.items).toHaveLength(23);
    expect(res.body.next_cursor).toBeNull();
  });

  it('defaults to 50 per page', async () => {
    for (let i = 0; i < 30; i++) await create(keyA, 'g', { device_id: 'dev-many', scope: 'game' });
    for (let i = 0; i < 25; i++) await create(keyA, 'g', { device_id: 'dev-many', scope: 'game' });
    const res = await list(keyA, 'g', 'dev-many');
    expect(res.body.items).toHaveLength(50);
    expect(res.body.next_cursor).toBe(res.body.items[49].ban_id);
  });
});

describe('listing validation', () => {
  it.each([
    ['?limit=0', 'limit', 'too_small'],
    ['?limit=201', 'limit', 'too_big'],
    ['?limit=abc', 'limit', 'invalid_format'],
    ['?limit=5.5', 'limit', 'invalid_format'],
    ['?limit=-1', 'limit', 'invalid_format'],
    ['?limit=', 'limit', 'invalid_format'],
    ['?cursor=0', 'cursor', 'too_small'],
    ['?cursor=x', 'cursor', 'invalid_format'],
    ['?status=revoked', 'status', 'invalid_value'],
    ['?status=ACTIVE', 'status', 'invalid_value'],
    ['?sort=asc', 'sort', 'unknown_field'],
    ['?limit=5&limit=6', 'limit', 'repeated'],
  ])('refuses %s with 400 naming %s', async (query, field, issue) => {
    const res = await list(keyA, 'g', 'dev-1', query);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details).toContainEqual({ field, issue });
  });

  it.each([
    ['with #', 'a%23b'],
    ['too long', 'd'.repeat(129)],
    ['with a space', 'a%20b'],
  ])('refuses a device_id %s with 400', async (_, device) => {
    const res = await api.request('GET', `/v1/device/${device}/bans/social`, { key: keyA, game: 'g' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field: 'device_id', issue: 'invalid_format' });
  });

  it('refuses a listing without X-Game-Id', async () => {
    const res = await api.request('GET', '/v1/device/dev-1/bans/social', { key: keyA });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field: 'X-Game-Id', issue: 'required' });
  });

  it('refuses a listing without a key before validating anything', async () => {
    const res = await api.request('GET', '/v1/device/dev-1/bans/social?limit=0', {});
    expect(res.status).toBe(401);
  });
});
