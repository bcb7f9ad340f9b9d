import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../lib/domain/change-events';
import { GLOBAL_FEED_PARTITION, gameFeedPartition, liveBanKey, partitions } from '../../lib/storage/keys';
import type { TestApi } from '../support/api';
import { startTestApi } from '../support/api';
import { storedItem, unique } from '../support/fixtures';

/**
 * `GET /v1/enforcement/snapshot` end to end over HTTP: exactly the active bans a publisher and game
 * can see, in pages that give each once under one feed cursor, its cursors bound to their reader,
 * and the promise a mirror relies on: the snapshot, then the feed replayed from its `feed_cursor`,
 * equals what the listings show, even with creates, revokes and erasures racing the snapshot.
 * Runs on the sources, the bundles, Node 24 and DynamoDB Local like every integration suite.
 */

let api: TestApi;
beforeAll(async () => {
  // Every feed read from the table: the fold below reads the feed right after the writes it checks.
  api = await startTestApi({ env: { FEED_CACHE_MS: '0' } });
});
afterAll(async () => {
  await api?.close();
});

const publisher = async (scopes?: string[]) => {
  const id = unique('snap');
  const key = await api.createKey(id, 'snapshot test', scopes ? { scopes: scopes as never } : undefined);
  return { id, key: key.api_key };
};
type Publisher = Awaited<ReturnType<typeof publisher>>;

const ban = async (p: Publisher, game: string, body: Record<string, unknown>) => {
  const res = await api.request('POST', '/v1/bans', {
    key: p.key,
    game,
    body: { ban_type: 'cheat', scope: 'game', reason_code: 'aimbot', allow_duplicate: true, ...body },
  });
  expect(res.status).toBe(201);
  return res.body.ban_id as number;
};
const revoke = (p: Publisher, game: string, device: string, banId: number) =>
  api.request('POST', `/v1/device/${device}/bans/${banId}/revoke`, {
    key: p.key,
    game,
    body: { reason_code: 'appeal' },
  });
const erase = (p: Publisher, device: string) =>
  api.request('POST', `/v1/device/${device}/erase`, { key: p.key });

/** Every page of a snapshot: each ban once, one feed cursor on every page. */
const snapshot = async (p: Publisher, game: string, limit = 500) => {
  const items: any[] = [];
  const feedCursors = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    const res = await api.request('GET', `/v1/enforcement/snapshot?${query}`, { key: p.key, game });
    expect(res.status).toBe(200);
    expect(res.body.game_id).toBe(game);
    expect(res.body.policy.publisher_id).toBe(p.id);
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    feedCursors.add(res.body.feed_cursor);
    items.push(...res.body.items);
    cursor = res.body.next_cursor;
    pages += 1;
    expect(pages).toBeLessThan(1_000);
  } while (cursor);
  expect(feedCursors.size).toBe(1);
  const ids = items.map((item) => item.ban_id);
  expect(new Set(ids).size).toBe(ids.length);
  return { items, feedCursor: [...feedCursors][0] as string, pages };
};

/** Every event from `cursor` to the end of the feed. */
const feedFrom = async (p: Publisher, game: string, cursor: string) => {
  const items: any[] = [];
  let next = cursor;
  for (let page = 0; page < 200; page += 1) {
    const res = await api.request('GET', `/v1/events?limit=500&cursor=${next}`, { key: p.key, game });
    expect(res.status).toBe(200);
    next = res.body.next_cursor;
    if (res.body.items.length === 0) return items;
    items.push(...res.body.items);
  }
  throw new Error('the feed never ended');
};

/** The active bans a listing shows the publisher in the game on each device: ban id → device. */
const listedActive = async (p: Publisher, game: string, devices: Iterable<string>) => {
  const active = new Map<number, string>();
  for (const device of devices) {
    const res = await api.request('GET', `/v1/device/${device}/bans?status=active&limit=200`, {
      key: p.key,
      game,
    });
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    for (const item of res.body.items) active.set(item.ban_id, device);
  }
  return active;
};

const onDevices = (items: any[], devices: Set<string>) =>
  new Map(items.filter((item) => devices.has(item.device_id)).map((item) => [item.ban_id, item.device_id]));

describe('GET /v1/enforcement/snapshot', () => {
  afterEach(() => api.setClockOffset(0));

  it("shows exactly the active bans the publisher sees in the game: its own, and everyone's global ones", async () => {
    const a = await publisher();
    const b = await publisher();
    const device = unique('dev');
    const other = unique('dev');
    const mine = {
      game: await ban(a, 'g1', { device_id: device, details: { clip: 'c-1' }, player_message: 'Cheating.' }),
      publisher: await ban(a, 'g2', { device_id: device, scope: 'publisher', ban_type: 'social' }),
      global: await ban(a, 'g2', { device_id: other, scope: 'global' }),
    };
    const theirsGlobal = await ban(b, 'g1', { device_id: device, scope: 'global', details: { b: 1 } });
    // Never A's in g1: its game ban of another game, B's game and publisher bans, and what ended.
    const inG2 = await ban(a, 'g2', { device_id: device });
    const theirsGame = await ban(b, 'g1', { device_id: device });
    const theirsPublisher = await ban(b, 'g1', { device_id: device, scope: 'publisher' });
    const revoked = await ban(a, 'g1', { device_id: device, scope: 'publisher' });
    expect((await revoke(a, 'g1', device, revoked)).status).toBe(200);
    const erasedDevice = unique('dev');
    const erased = await ban(a, 'g1', {
      device_id: erasedDevice,
      scope: 'global',
      details: { evidence: `${erasedDevice}-evidence` },
    });
    expect((await erase(a, erasedDevice)).status).toBe(200);
    const soon = new Date(Date.now() + 1_500).toISOString();
    const expiring = await ban(a, 'g1', { device_id: device, expires_at: soon });
    await api.settle();
    // The API's clock past the expiring ban's end, instead of waiting for it (back after the test).
    api.setClockOffset(Math.max(0, Date.parse(soon) + 200 - Date.now()));

    const devices = new Set([device, other, erasedDevice]);
    const seenByA = await snapshot(a, 'g1');
    const aItems = seenByA.items.filter((item) => devices.has(item.device_id));
    expect(new Map(aItems.map((item) => [item.ban_id, item.device_id]))).toEqual(
      new Map([
        [mine.game, device],
        [mine.publisher, device],
        [mine.global, other],
        [theirsGlobal, device],
      ]),
    );
    for (const absent of [inG2, theirsGame, theirsPublisher, revoked, erased, expiring])
      expect(aItems.map((item) => item.ban_id)).not.toContain(absent);
    // As a listing shows each: the device, its own details and player message; another's details null.
    const byId = new Map(aItems.map((item) => [item.ban_id, item]));
    expect(byId.get(mine.game)).toMatchObject({
      device_id: device,
      scope: 'game',
      game_id: 'g1',
      publisher_id: a.id,
      details_json: { clip: 'c-1' },
      player_message: 'Cheating.',
      revoked_at: null,
      enforced: true,
    });
    expect(byId.get(theirsGlobal)).toMatchObject({ publisher_id: b.id, details_json: null, game_id: null });
    // The same as the listings, device by device.
    expect(onDevices(seenByA.items, devices)).toEqual(await listedActive(a, 'g1', devices));

    // B in g1: its own game and publisher bans, both global ones; none of A's others.
    const seenByB = await snapshot(b, 'g1');
    expect(onDevices(seenByB.items, devices)).toEqual(await listedActive(b, 'g1', devices));
    expect([...onDevices(seenByB.items, devices).keys()].sort()).toEqual(
      [theirsGame, theirsPublisher, theirsGlobal, mine.global].sort(),
    );
    expect(seenByB.items.find((item) => item.ban_id === theirsGlobal).details_json).toEqual({ b: 1 });

    // Stored: a live item per ban; a tombstone (nothing of the ban) for the revoked and erased ones.
    const gameLive = await storedItem(liveBanKey(gameFeedPartition(a.id, 'g1'), device, mine.game));
    expect(gameLive).toMatchObject({
      device_id: device,
      ban: { ban_id: mine.game, details_json: '{"clip":"c-1"}' },
    });
    const erasedKey = liveBanKey(GLOBAL_FEED_PARTITION, erasedDevice, erased);
    expect(await storedItem(erasedKey)).toEqual({
      ...erasedKey,
      gone: true,
      occurred_at: expect.any(String),
      ttl: expect.any(Number),
    });
    // Nothing the dispatcher keeps (feed entries, live sets) holds the erased ban's details.
    const derived = (await api.items({ derived: true })).filter((item) =>
      String(item.pk).startsWith(partitions.feed),
    );
    expect(JSON.stringify(derived)).not.toContain(`${erasedDevice}-evidence`);
  });

  it('pages with small limits: each ban once, one feed cursor on every page, the feed empty from it when nothing changed', async () => {
    const a = await publisher();
    const device = unique('dev');
    const made = new Set<number>();
    for (const [i, scope] of ['game', 'publisher', 'global', 'game', 'publisher', 'game', 'global'].entries())
      made.add(await ban(a, 'g1', { device_id: `${device}-${i % 3}`, scope }));
    await api.settle();
    const whole = await snapshot(a, 'g1', 1000);
    const devices = new Set([0, 1, 2].map((i) => `${device}-${i}`));
    expect(new Set(onDevices(whole.items, devices).keys())).toEqual(made);
    for (const limit of [1, 2, 3]) {
      const paged = await snapshot(a, 'g1', limit);
      expect(paged.items.map((item) => item.ban_id)).toEqual(whole.items.map((item) => item.ban_id));
      expect(paged.pages).toBeGreaterThanOrEqual(Math.ceil(whole.items.length / limit));
    }
    // The feed cursor is the feed's end when the snapshot began: nothing since, nothing to replay.
    expect(await feedFrom(a, 'g1', whole.feedCursor)).toEqual([]);
    // And a write after it is replayed from it.
    const later = await ban(a, 'g1', { device_id: `${device}-0` });
    await api.settle();
    expect((await feedFrom(a, 'g1', whole.feedCursor)).map((e) => [e.type, e.ban.ban_id])).toEqual([
      ['ban.created', later],
    ]);
  });

  it('refuses bad limits, foreign and forged cursors, a missing game and a key without bans:read; stores nothing', async () => {
    const a = await publisher();
    const b = await publisher();
    for (let i = 0; i < 3; i += 1) await ban(a, 'g1', { device_id: unique('dev') });
    await api.settle();
    const first = await api.request('GET', '/v1/enforcement/snapshot?limit=1', { key: a.key, game: 'g1' });
    expect(first.status).toBe(200);
    const cursor = first.body.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const noScope = await publisher(['policy:read']);
    // Its policy's change dispatched first: the dispatcher's own writes are not this test's.
    await api.settle();
    const before = await api.items({ derived: true });
    const cases: [Publisher, string, string, string, string][] = [
      [b, 'g1', `cursor=${cursor}`, 'cursor', 'was returned to another publisher or for another game'],
      [a, 'g2', `cursor=${cursor}`, 'cursor', 'was returned to another publisher or for another game'],
      // Another reader's feed cursor is no snapshot cursor.
      [a, 'g1', `cursor=${first.body.feed_cursor}`, 'cursor', 'must be a next_cursor this API returned'],
      [a, 'g1', 'cursor=bm90LWEtY3Vyc29y', 'cursor', 'must be a next_cursor this API returned'],
      [a, 'g1', 'cursor=%2F%2F', 'cursor', 'cursor must be a next_cursor this API returned'],
      [a, 'g1', 'limit=0', 'limit', 'limit must be between 1 and 1000'],
      [a, 'g1', 'limit=1001', 'limit', 'limit must be between 1 and 1000'],
      [a, 'g1', 'limit=ten', 'limit', 'limit must be an integer'],
      [a, 'g1', 'game_id=g1', 'game_id', ''],
    ];
    for (const [p, game, query, field, message] of cases) {
      const res = await api.request('GET', `/v1/enforcement/snapshot?${query}`, { key: p.key, game });
      expect(res.status, query).toBe(400);
      expect(res.body.error.code, query).toBe('invalid_request');
      expect(res.body.error.details[0].field, query).toBe(field);
      if (message) expect(res.body.error.message, query).toContain(message);
    }
    expect((await api.request('GET', '/v1/enforcement/snapshot', { key: a.key })).status).toBe(400);
    expect(
      (await api.request('GET', '/v1/enforcement/snapshot', { key: noScope.key, game: 'g1' })).status,
    ).toBe(403);
    expect((await api.request('GET', '/v1/enforcement/snapshot', { game: 'g1' })).status).toBe(401);
    // The cursor still works for its own reader.
    const next = await api.request('GET', `/v1/enforcement/snapshot?limit=1&cursor=${cursor}`, {
      key: a.key,
      game: 'g1',
    });
    expect(next.status).toBe(200);
    expect(next.body.feed_cursor).toBe(first.body.feed_cursor);
    expect(await api.items({ derived: true })).toEqual(before);
  });

  it('ends in the state of the last event of a ban, whatever order (and however often) its events are applied', async () => {
    // The storage client reads its settings at import: only after startTestApi chose the store.
    const { applyToLiveSet } = await import('../../lib/domain/live-set');
    const a = await publisher();
    const device = unique('dev');
    const base = {
      ban_id: 0,
      device_id: device,
      ban_type: 'cheat' as const,
      scope: 'game' as const,
      publisher_id: a.id,
      reason_code: 'aimbot',
      created_at: '2026-11-20T00:00:00.000Z',
      expires_at: null,
      revoked_at: null,
    };
    const eventOf = (type: ChangeEvent['type'], game: string, over: Record<string, unknown>, at: string) =>
      ({
        event_id: `evt_${type}_${game}`,
        type,
        occurred_at: at,
        publisher_id: a.id,
        device_id: device,
        ban: { ...base, game_id: game, ban_id: 9_000 + Number(game.slice(1)), ...over },
      }) as ChangeEvent;
    const orders = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ];
    for (const withRevoke of [false, true]) {
      for (const [n, order] of orders.entries()) {
        const game = `p${withRevoke ? 10 + n : n}`;
        const events = [
          eventOf('ban.created', game, {}, base.created_at),
          eventOf(
            'ban.updated',
            game,
            { updated_at: '2026-11-21T00:00:00.000Z', player_message: 'One.' },
            '2026-11-21T00:00:00.000Z',
          ),
          withRevoke
            ? eventOf(
                'ban.revoked',
                game,
                { revoked_at: '2026-11-22T00:00:00.000Z' },
                '2026-11-22T00:00:00.000Z',
              )
            : eventOf(
                'ban.updated',
                game,
                { updated_at: '2026-11-22T00:00:00.000Z', player_message: 'Two.' },
                '2026-11-22T00:00:00.000Z',
              ),
        ];
        const shuffled = order.map((i) => events[i] as ChangeEvent);
        // In that order, then once more each (a batch handed on again).
        await applyToLiveSet(gameFeedPartition(a.id, game), [...shuffled, ...shuffled]);
        const { items } = await snapshot(a, game);
        const own = items.filter((item) => item.device_id === device);
        if (withRevoke) expect(own, `${game} ${order}`).toEqual([]);
        else
          expect(
            own.map((item) => item.player_message),
            `${game} ${order}`,
          ).toEqual(['Two.']);
      }
    }
  });

  it('races: the snapshot read while bans are made, revoked and erased, then the feed replayed from its cursor, equals the listings', async () => {
    const a = await publisher();
    const b = await publisher();
    const prefix = unique('race');
    const touched = new Set<string>();
    const live: { by: Publisher; game: string; device: string; banId: number }[] = [];
    let seq = 0;
    const create = async (by: Publisher, game: string, scope: string) => {
      seq += 1;
      const device = `${prefix}-${seq % 9}`;
      touched.add(device);
      const banId = await ban(by, game, { device_id: device, scope, ban_type: seq % 2 ? 'cheat' : 'social' });
      live.push({ by, game, device, banId });
    };
    const kinds: [Publisher, string, string][] = [
      [a, 'g1', 'game'],
      [a, 'g2', 'game'],
      [a, 'g1', 'publisher'],
      [a, 'g1', 'global'],
      [b, 'g1', 'global'],
      [b, 'g1', 'game'],
      [b, 'g1', 'publisher'],
    ];
    for (const [by, game, scope] of kinds) await create(by, game, scope);
    await api.settle();
    let raced = 0;

    for (let round = 0; round < 3; round += 1) {
      let writing = true;
      const writer = (async () => {
        try {
          for (let i = 0; i < 16; i += 1) {
            const roll = (i * 7 + round * 3) % 10;
            if (roll < 5 || live.length < 3) {
              const [by, game, scope] = kinds[(i + round) % kinds.length] as [Publisher, string, string];
              await create(by, game, scope);
            } else if (roll < 8) {
              const [target] = live.splice((i * 5) % live.length, 1);
              if (target)
                expect((await revoke(target.by, target.game, target.device, target.banId)).status).toBe(200);
            } else {
              const target = live[(i * 3) % live.length];
              if (!target) continue;
              expect((await erase(target.by, target.device)).status).toBe(200);
              for (let j = live.length - 1; j >= 0; j -= 1)
                if (live[j]?.device === target.device && live[j]?.by === target.by) live.splice(j, 1);
            }
          }
        } finally {
          writing = false;
        }
      })();
      // Snapshots taken over and over while the writes go on, each checked below: in pages of 3
      // (a page's reads far from the feed cursor) and whole (its reads right after it).
      const taken: Awaited<ReturnType<typeof snapshot>>[] = [];
      const reader = (async () => {
        do taken.push(await snapshot(a, 'g1', taken.length % 2 ? 1000 : 3));
        while (writing);
      })();
      await Promise.all([writer, reader]);
      await api.settle();

      const expected = await listedActive(a, 'g1', touched);
      for (const shot of taken) {
        const mirror = onDevices(shot.items, touched);
        const replayed = (await feedFrom(a, 'g1', shot.feedCursor)).filter(
          (event) => event.type.startsWith('ban.') && touched.has(event.device_id),
        );
        // Writes landed after its feed cursor: this snapshot raced them.
        if (replayed.length > 0) raced += 1;
        for (const event of replayed) {
          if (event.type === 'ban.created' || event.type === 'ban.updated')
            mirror.set(event.ban.ban_id, event.device_id);
          else mirror.delete(event.ban.ban_id);
        }
        expect(mirror, `round ${round}`).toEqual(expected);
      }
      // Nothing left behind: a snapshot taken now, with no replay, is the listings too.
      expect(onDevices((await snapshot(a, 'g1', 3)).items, touched)).toEqual(expected);
    }
    // Snapshots read while writes went on were checked, not only the quiet ones.
    expect(raced).toBeGreaterThanOrEqual(3);
  }, 60_000);
});
