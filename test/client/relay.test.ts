import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPolicyFlags } from '@kernel/policy-flags';
import { defaultPolicyTrust } from '@kernel/policy-trust';
import { afterEach, describe, expect, it } from 'vitest';
import { createBanClient } from '../../client/src/client';
import { ApiError } from '../../client/src/errors';
import {
  type BanMirror,
  createBanMirror,
  type MirrorEvent,
  type MirrorSource,
} from '../../client/src/mirror';
import { type BanRelay, createBanRelay, type RelayEvent, type RelayOptions } from '../../client/src/relay';
import { enforcementSnapshotSchema, errorEnvelopeSchema, feedPageSchema } from '../../lib/model/responses';

/**
 * The relay between a service written here (no network: it counts its reads and can fail) and
 * real mirrors over real HTTP: what they answer, what the service pays, how a change reaches a held
 * read, the keys, the bodies, the cursors, a restart, and an outage. Waits follow what the relay
 * and the mirrors announce (their onEvent, the handler having taken a request) or a clock the test
 * moves; its exactness against the real API is test/integration/relay.test.ts.
 */

const GAME = 'g-1';
const KEY = 'studio-server-key';
const KEY_HASH = createHash('sha256').update(KEY).digest('hex');
const AT = '2026-11-02T00:00:00.000Z';

const basePolicy = {
  publisher_id: 'pub-1',
  ...defaultPolicyFlags,
  ...defaultPolicyTrust,
  updated_at: '2026-11-01T00:00:00.000Z',
};
type Policy = typeof basePolicy;

const ban = (id: number, over: Record<string, unknown> = {}) => ({
  ban_id: id,
  ban_type: 'cheat' as 'cheat' | 'social',
  scope: 'game' as 'game' | 'publisher' | 'global',
  publisher_id: 'pub-1',
  game_id: GAME as string | null,
  reason_code: 'aimbot',
  details_json: null,
  created_at: '2026-11-01T00:00:00.000Z',
  expires_at: null as string | null,
  revoked_at: null as string | null,
  revoke_reason_code: null as string | null,
  player_message: null,
  appealable: true,
  statement: {
    ground: 'terms' as const,
    terms_clause: 'aimbot',
    terms_url: null,
    legal_ground: null,
    illegal_explanation: null,
    facts: 'This device received a cheat ban for aimbot.',
    automated_detection: true,
    automated_decision: 'fully' as const,
    source: 'own_initiative' as const,
    territorial_scope: ['DE', 'FR'],
    category: 'other_violation_tc' as const,
  },
  message_locale: 'en',
  translations: null,
  appeal: null as unknown,
  created_by: null,
  enforced: true,
  ...over,
});
type Ban = ReturnType<typeof ban>;

const unavailable = () =>
  new ApiError({ status: 503, code: 'service_unavailable', message: 'down', details: [], request_id: 'r' });

/**
 * The service as the relay reads it: a snapshot of the live bans (in pages) with a cursor into its
 * feed, and the feed from there. `fail` makes every read throw; `polls` counts feed reads.
 */
const service = () => {
  const live = new Map<number, { device: string; ban: Ban }>();
  const events: Array<Record<string, unknown>> = [];
  let policy: Policy = basePolicy;
  let sequence = 0;
  const upstream = {
    polls: 0,
    snapshots: 0,
    deployment: 'dep-1',
    fail: null as Error | null,
    /** The feed keeps events from this index on; a cursor before it is 410. */
    keptFrom: 0,
  };
  const record = (event: Record<string, unknown>) => {
    sequence += 1;
    events.push({ event_id: `evt_${sequence}`, occurred_at: AT, ...event });
  };
  const source = {
    getEnforcementSnapshot: async (_game: string, query: { limit?: number; cursor?: string } = {}) => {
      if (upstream.fail) throw upstream.fail;
      upstream.snapshots += 1;
      const all = [...live.values()].map(({ device, ban: b }) => ({ device_id: device, ...b }));
      const from = Number(query.cursor ?? 0);
      const to = from + (query.limit ?? 500);
      return {
        game_id: GAME,
        policy,
        feed_cursor: `u${events.length}`,
        deployment_id: upstream.deployment,
        items: all.slice(from, to),
        next_cursor: to < all.length ? String(to) : null,
      };
    },
    listEvents: async (_game: string, query: { cursor?: string; limit?: number } = {}) => {
      upstream.polls += 1;
      if (upstream.fail) throw upstream.fail;
      const from = Number((query.cursor ?? 'u0').slice(1));
      if (from < upstream.keptFrom)
        throw new ApiError({
          status: 410,
          code: 'cursor_expired',
          message: 'gone',
          details: [],
          request_id: 'r',
        });
      const items = events.slice(from, from + (query.limit ?? 100));
      return {
        items,
        next_cursor: `u${from + items.length}`,
        deployment_id: upstream.deployment,
        delay_ms: 7,
      };
    },
  } as unknown as MirrorSource;
  return {
    source,
    upstream,
    create(device: string, b: Ban) {
      live.set(b.ban_id, { device, ban: b });
      record({ type: 'ban.created', device_id: device, ban: b });
    },
    revoke(banId: number) {
      const found = live.get(banId);
      if (!found) throw new Error(`no ban ${banId}`);
      live.delete(banId);
      record({
        type: 'ban.revoked',
        device_id: found.device,
        ban: { ...found.ban, revoked_at: AT, revoke_reason_code: 'mistake', enforced: false },
      });
    },
    setPolicy(over: Partial<Policy>) {
      policy = { ...policy, ...over };
      record({ type: 'policy.updated', device_id: null, policy });
    },
    appeal(banId: number) {
      const found = live.get(banId);
      if (!found) throw new Error(`no ban ${banId}`);
      const appeal = { appeal_id: `apl_${banId}`, status: 'open' as const, outcome: null };
      found.ban = { ...found.ban, appeal };
      record({
        type: 'appeal.created',
        device_id: found.device,
        appeal: {
          ...appeal,
          ban_id: banId,
          ban_publisher_id: found.ban.publisher_id,
          filed_by: 'pub-1',
          created_at: AT,
          decided_at: null,
        },
      });
    },
  };
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  // Together: a relay closing answers the reads its mirrors hold, so their stops end.
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** Resolves with the first event the listener sees that matches. */
const announcements = <E>() => {
  const waiting: Array<{ match: (event: E) => boolean; resolve: (event: E) => void }> = [];
  const seen: E[] = [];
  return {
    seen,
    onEvent: (event: E) => {
      seen.push(event);
      for (const waiter of [...waiting])
        if (waiter.match(event)) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve(event);
        }
    },
    next: (match: (event: E) => boolean) => new Promise<E>((resolve) => waiting.push({ match, resolve })),
  };
};

/**
 * A relay over `source`, served by a server of the test's own around its handler, so a test knows
 * when the relay has taken a request (`taken`); the relay's own `listen` is used where that is not needed.
 */
const startRelay = async (options: Partial<RelayOptions> & Pick<RelayOptions, 'client'>) => {
  const events = announcements<RelayEvent>();
  const relay = createBanRelay({
    keys: [KEY_HASH],
    games: [GAME],
    holdMs: 50,
    ...options,
    onEvent: events.onEvent,
  });
  let taken = 0;
  const takenWaiters: Array<{ count: number; resolve: () => void }> = [];
  const server: Server = createServer((req, res) => {
    relay.handler(req, res);
    taken += 1;
    for (const waiter of [...takenWaiters])
      if (taken >= waiter.count) {
        takenWaiters.splice(takenWaiters.indexOf(waiter), 1);
        waiter.resolve();
      }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(async () => {
    await relay.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    relay,
    url,
    events,
    /** Resolves once the handler has taken `count` requests in all. */
    taken: (count: number) =>
      new Promise<void>((resolve) => (taken >= count ? resolve() : takenWaiters.push({ count, resolve }))),
    takenSoFar: () => taken,
  };
};

const ready = async (relay: { relay: BanRelay; events: ReturnType<typeof announcements<RelayEvent>> }) => {
  if (relay.relay.status().games[GAME]?.state === 'valid') return;
  await relay.events.next((e) => e.type === 'ready' && e.game_id === GAME);
};

const mirrorBehind = (url: string, options: Partial<Parameters<typeof createBanMirror>[0]> = {}) => {
  const events = announcements<MirrorEvent>();
  const mirror = createBanMirror({
    client: createBanClient({ baseUrl: url, apiKey: KEY, retries: 0, deadlineMs: 5_000 }),
    gameId: GAME,
    onEvent: events.onEvent,
    ...options,
  });
  cleanups.push(() => mirror.stop());
  return { mirror, events };
};

const get = async (url: string, path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${url}${path}`, {
    headers: { Authorization: `Bearer ${KEY}`, 'X-Game-Id': GAME, ...headers },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
};

/** What two copies must agree on: the answer but its freshness fields. */
const answerOf = (mirror: BanMirror, device: string) => {
  const { stale: _stale, lag_ms: _lag, ...rest } = mirror.check(device, AT);
  return rest;
};

describe('mirrors behind the relay', () => {
  it('answer check exactly as a mirror on the service does, through creates, revokes, policy and appeals', async () => {
    const svc = service();
    svc.create('d-1', ban(1));
    svc.create('d-2', ban(2, { scope: 'global', publisher_id: 'pub-2', game_id: null, ban_type: 'social' }));
    svc.create('d-3', ban(3, { scope: 'publisher', game_id: null }));
    // Followed on its first request: no games given.
    const relay = await startRelay({ client: svc.source, games: undefined });
    const direct = createBanMirror({ client: svc.source, gameId: GAME });
    const behind = mirrorBehind(relay.url).mirror;
    // Its first request makes the relay follow the game.
    await behind.sync();
    const devices = ['d-1', 'd-2', 'd-3', 'd-4', 'd-5'];
    const compare = async () => {
      await relay.relay.sync(GAME);
      await Promise.all([direct.sync(), behind.sync()]);
      for (const device of devices) expect(answerOf(behind, device)).toEqual(answerOf(direct, device));
    };
    await compare();
    expect(behind.check('d-1', AT).restricted.cheat).toBe(true);

    svc.create('d-4', ban(4, { expires_at: '2026-11-01T12:00:00.000Z' }));
    svc.create('d-5', ban(5, { scope: 'global', publisher_id: 'pub-3', game_id: null }));
    svc.revoke(1);
    svc.appeal(3);
    await compare();
    svc.setPolicy({ enforce_social_global: true, global_quorum: 2 });
    svc.create('d-2', ban(6, { scope: 'global', publisher_id: 'pub-4', game_id: null, ban_type: 'social' }));
    await compare();
    expect(behind.check('d-2', AT).restricted.social).toBe(true);
    expect(behind.check('d-1', AT).restricted.cheat).toBe(false);
  });

  it('cost the service one feed read per interval, however many mirrors follow, with a change each interval', async () => {
    const svc = service();
    svc.create('d-1', ban(1));
    const relay = await startRelay({ client: svc.source, intervalMs: 20, holdMs: 5_000 });
    await ready(relay);
    const mirrors = Array.from({ length: 20 }, () => mirrorBehind(relay.url, { intervalMs: 5 }));
    await Promise.all(mirrors.map(({ mirror }) => mirror.start()));
    // Each caught-up read of the relay brings one new ban, until eight have been made.
    const pollsBefore = svc.upstream.polls;
    const started = Date.now();
    const readsBefore = relay.relay.status().games[GAME]?.upstream_reads ?? 0;
    let made = 0;
    await relay.events.next((e) => {
      if (e.type !== 'caught_up') return false;
      if (made === 8) return true;
      made += 1;
      svc.create(`d-new-${made}`, ban(100 + made));
      return false;
    });
    await Promise.all(
      mirrors.map(({ mirror, events }) =>
        mirror.check('d-new-8', AT).restricted.cheat
          ? undefined
          : events.next(() => mirror.check('d-new-8', AT).restricted.cheat),
      ),
    );
    const reads = (relay.relay.status().games[GAME]?.upstream_reads ?? 0) - readsBefore;
    // One request to the service per relay read, changes or none; none made for the mirrors.
    expect(svc.upstream.polls - pollsBefore).toBe(reads);
    expect(svc.upstream.snapshots).toBe(1);
    for (const { mirror } of mirrors)
      for (let i = 1; i <= 8; i++) expect(mirror.check(`d-new-${i}`, AT).restricted.cheat).toBe(true);
    // At most one read per interval of 20 ms, and every mirror read the relay at its start and since.
    expect(reads).toBeGreaterThanOrEqual(9);
    expect(reads).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 20) + 1);
    expect(relay.relay.status().served.events).toBeGreaterThanOrEqual(20 * 2 + reads);
  });
});

describe('a feed read at the end', () => {
  it('is held until a change, and answered with it at once', async () => {
    const svc = service();
    const relay = await startRelay({ client: svc.source, holdMs: 60_000 });
    await ready(relay);
    const snapshot = await get(relay.url, '/v1/enforcement/snapshot');
    const first = await get(relay.url, `/v1/events?cursor=${snapshot.body.feed_cursor}`);
    expect(first.body.items).toEqual([]);
    const before = relay.takenSoFar();
    const held = get(relay.url, `/v1/events?cursor=${first.body.next_cursor}`);
    await relay.taken(before + 1);
    expect(relay.relay.status().games[GAME]?.held_polls).toBe(1);
    svc.create('d-9', ban(9));
    await relay.relay.sync(GAME);
    const answer = await held;
    expect(answer.status).toBe(200);
    expect(answer.body.items.map((e: { type: string }) => e.type)).toEqual(['ban.created']);
    expect(relay.relay.status().games[GAME]?.held_polls).toBe(0);
    // The page that brought the change leads to one that is answered at once, so a mirror catches up.
    const after = await get(relay.url, `/v1/events?cursor=${answer.body.next_cursor}`);
    expect(after.body.items).toEqual([]);
  });

  it('answers every one of more reads than one slice when a change comes, each with the change', async () => {
    const svc = service();
    const relay = await startRelay({ client: svc.source, holdMs: 60_000 });
    await ready(relay);
    const snapshot = await get(relay.url, '/v1/enforcement/snapshot');
    const first = await get(relay.url, `/v1/events?cursor=${snapshot.body.feed_cursor}`);
    const before = relay.takenSoFar();
    // More than the relay answers in one turn of its event loop (500), so the fan-out takes slices.
    const held = Array.from({ length: 1_200 }, () =>
      get(relay.url, `/v1/events?cursor=${first.body.next_cursor}`),
    );
    await relay.taken(before + held.length);
    expect(relay.relay.status().games[GAME]?.held_polls).toBe(held.length);
    svc.create('d-7', ban(7));
    await relay.relay.sync(GAME);
    const answers = await Promise.all(held);
    expect(answers.map((answer) => answer.status)).toEqual(held.map(() => 200));
    expect(
      new Set(
        answers.map((answer) => JSON.stringify(answer.body.items.map((e: { type: string }) => e.type))),
      ),
    ).toEqual(new Set([JSON.stringify(['ban.created'])]));
    expect(relay.relay.status().games[GAME]?.held_polls).toBe(0);
  });

  it("is answered empty when nothing changed, past the hold, after the relay's next read of the service", async () => {
    const svc = service();
    const relay = await startRelay({ client: svc.source, holdMs: 20, intervalMs: 30 });
    await ready(relay);
    const snapshot = await get(relay.url, '/v1/enforcement/snapshot');
    const first = await get(relay.url, `/v1/events?cursor=${snapshot.body.feed_cursor}`);
    const readsBefore = relay.relay.status().games[GAME]?.upstream_reads ?? 0;
    const held = await get(relay.url, `/v1/events?cursor=${first.body.next_cursor}`);
    expect(relay.relay.status().games[GAME]?.upstream_reads).toBeGreaterThan(readsBefore);
    expect(held.status).toBe(200);
    expect(held.body).toMatchObject({ items: [], next_cursor: first.body.next_cursor });
  });
});

describe('sync', () => {
  it('reads the service again for a caller who asks while a read is under way, since that read may have passed the change', async () => {
    const svc = service();
    // The next feed read is held back after the service answered it: "nothing new".
    const listEvents = svc.source.listEvents;
    let holdNext = false;
    let release: () => void = () => {};
    const released = new Promise<void>((done) => {
      release = done;
    });
    svc.source.listEvents = (async (...args: Parameters<typeof listEvents>) => {
      const page = await listEvents(...args);
      if (holdNext) {
        holdNext = false;
        await released;
      }
      return page;
    }) as typeof listEvents;
    const relay = await startRelay({ client: svc.source, intervalMs: 60_000 });
    await ready(relay);
    holdNext = true;
    const polls = svc.upstream.polls;
    const first = relay.relay.sync(GAME);
    await expect.poll(() => svc.upstream.polls).toBe(polls + 1);
    svc.create('d-9', ban(9));
    const second = relay.relay.sync(GAME);
    release();
    await Promise.all([first, second]);
    const snapshot = await get(relay.url, '/v1/enforcement/snapshot');
    expect(snapshot.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual([9]);
    expect(svc.upstream.polls).toBe(polls + 2);
  });
});

describe('keys, routes and bodies', () => {
  it('refuses an unknown key with 401 and takes a key whose SHA-256 it was given', async () => {
    const svc = service();
    const relay = await startRelay({ client: svc.source });
    await ready(relay);
    const refused = await get(relay.url, '/v1/events', { Authorization: 'Bearer another-key' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect(errorEnvelopeSchema.parse(refused.body).error.code).toBe('unauthorized');
    expect((await get(relay.url, '/v1/events', { Authorization: 'Basic x' })).status).toBe(401);
    expect((await get(relay.url, '/v1/events')).status).toBe(200);
    // Or a function of the studio's that decides per key and game.
    const byFunction = await startRelay({
      client: svc.source,
      keys: (key, game) => key === 'other-key' && game === GAME,
    });
    await ready(byFunction);
    expect((await get(byFunction.url, '/v1/events', { Authorization: 'Bearer other-key' })).status).toBe(200);
    expect((await get(byFunction.url, '/v1/events')).status).toBe(401);
    expect(() => createBanRelay({ client: svc.source, keys: [KEY] })).toThrow(/SHA-256/);
  });

  it('answers bad input, unknown routes and other games in the error envelope', async () => {
    const svc = service();
    const relay = await startRelay({ client: svc.source });
    await ready(relay);
    const cases: Array<[string, Record<string, string>, number, string, string?]> = [
      ['/v1/events?limit=0', {}, 400, 'invalid_request', 'too_small'],
      ['/v1/events?limit=abc', {}, 400, 'invalid_request', 'invalid_format'],
      ['/v1/enforcement/snapshot?limit=1001', {}, 400, 'invalid_request', 'too_big'],
      ['/v1/events?limit=1&limit=2', {}, 400, 'invalid_request', 'repeated'],
      ['/v1/events?since=1', {}, 400, 'invalid_request', 'unknown_field'],
      ['/v1/events?cursor=!!', {}, 400, 'invalid_request', 'invalid_format'],
      ['/v1/events?cursor=abcdef', {}, 400, 'invalid_request', 'invalid'],
      ['/v1/events', { 'X-Game-Id': '' }, 400, 'invalid_request', 'required'],
      ['/v1/events', { 'X-Game-Id': 'bad game' }, 400, 'invalid_request', 'invalid_format'],
      ['/v1/events', { 'X-Game-Id': 'g-2' }, 403, 'forbidden'],
      ['/v1/bans', {}, 404, 'not_found'],
    ];
    for (const [path, headers, status, code, issue] of cases) {
      const answer = await get(relay.url, path, headers);
      expect({ path, status: answer.status }).toEqual({ path, status });
      const envelope = errorEnvelopeSchema.parse(answer.body);
      expect(envelope.error.code).toBe(code);
      if (issue) expect(envelope.error.details?.[0]?.issue).toBe(issue);
      expect(envelope.request_id).toBe(answer.headers.get('x-request-id'));
    }
    const post = await fetch(`${relay.url}/v1/events`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it("serves bodies that parse as the API's, in pages, with the relay's deployment and the feed's delay", async () => {
    const svc = service();
    for (let i = 1; i <= 5; i++) svc.create(`d-${i}`, ban(i));
    let clock = Date.parse(AT);
    const relay = await startRelay({ client: svc.source, now: () => clock });
    await ready(relay);
    const items: string[] = [];
    let page = enforcementSnapshotSchema.parse(
      (await get(relay.url, '/v1/enforcement/snapshot?limit=2')).body,
    );
    const { feed_cursor, deployment_id } = page;
    for (;;) {
      expect(page).toMatchObject({ feed_cursor, deployment_id, game_id: GAME });
      items.push(...page.items.map((b) => b.device_id));
      if (!page.next_cursor) break;
      page = enforcementSnapshotSchema.parse(
        (await get(relay.url, `/v1/enforcement/snapshot?limit=2&cursor=${page.next_cursor}`)).body,
      );
    }
    expect(items.sort()).toEqual(['d-1', 'd-2', 'd-3', 'd-4', 'd-5']);
    expect(deployment_id).toMatch(/^dep-1~relay-/);
    svc.revoke(2);
    svc.create('d-6', ban(6, { expires_at: '2030-01-01T00:00:00.000Z' }));
    await relay.relay.sync(GAME);
    const feed = feedPageSchema.parse((await get(relay.url, `/v1/events?cursor=${feed_cursor}`)).body);
    expect(feed.items.map((e) => e.type)).toEqual(['ban.revoked', 'ban.created']);
    expect(feed.deployment_id).toBe(deployment_id);
    // The service's delay, plus the relay's own since its last caught-up read.
    expect(feed.delay_ms).toBe(7);
    clock += 300;
    expect((await get(relay.url, `/v1/events?cursor=${feed_cursor}`)).body.delay_ms).toBe(307);
    // A cursor past the relay's log is refused, as the service refuses one ahead of its feed.
    const parts = Buffer.from(feed.next_cursor, 'base64url').toString().split('.');
    parts[4] = String(Number(parts[4]) + 5);
    const ahead = Buffer.from(parts.join('.')).toString('base64url');
    const refused = await get(relay.url, `/v1/events?cursor=${ahead}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ field: 'cursor', issue: 'ahead_of_feed' }]);
    const health = await fetch(`${relay.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true, games: { [GAME]: { state: 'valid' } } });
  });
});

describe('cursors the relay no longer serves', () => {
  it('answers 410 for a cursor before its log, and the mirror resyncs from its snapshot', async () => {
    const svc = service();
    svc.create('d-1', ban(1));
    const relay = await startRelay({ client: svc.source, retention: { events: 2 } });
    await ready(relay);
    const { mirror, events } = mirrorBehind(relay.url);
    await mirror.sync();
    for (let i = 2; i <= 6; i++) svc.create(`d-${i}`, ban(i));
    await relay.relay.sync(GAME);
    await mirror.sync();
    expect(events.seen).toContainEqual({ type: 'snapshot', bans: 6, reason: 'cursor_expired' });
    for (let i = 1; i <= 6; i++) expect(mirror.check(`d-${i}`, AT).restricted.cheat).toBe(true);
  });

  it("refuses another relay instance's cursor, so a mirror behind a restarted relay resyncs", async () => {
    const svc = service();
    svc.create('d-1', ban(1));
    const dir = await mkdtemp(join(tmpdir(), 'relay-'));
    // Retried: the cleanups run together, and a mirror's stop writes its state file meanwhile.
    cleanups.push(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
    const stateFile = join(dir, 'mirror.json');
    const firstEvents = announcements<RelayEvent>();
    const first = createBanRelay({
      client: svc.source,
      keys: [KEY_HASH],
      games: [GAME],
      onEvent: firstEvents.onEvent,
    });
    await firstEvents.next((e) => e.type === 'ready');
    const { port } = await first.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${port}`;
    const before = mirrorBehind(url, { stateFile });
    await before.mirror.sync();
    await before.mirror.stop();
    const deploymentBefore = first.status().games[GAME]?.deployment_id;
    await first.close();

    svc.create('d-2', ban(2));
    const secondEvents = announcements<RelayEvent>();
    const second = createBanRelay({
      client: svc.source,
      keys: [KEY_HASH],
      games: [GAME],
      onEvent: secondEvents.onEvent,
    });
    cleanups.push(() => second.close());
    await secondEvents.next((e) => e.type === 'ready');
    await second.listen(port, '127.0.0.1');
    expect(second.status().games[GAME]?.deployment_id).not.toBe(deploymentBefore);
    // The server restarts from its state file, whose cursor the new relay instance refuses.
    const after = mirrorBehind(url, { stateFile });
    await after.mirror.sync();
    expect(after.events.seen.map((e) => e.type)).toEqual(['state_loaded', 'snapshot', 'caught_up']);
    expect(after.events.seen).toContainEqual({ type: 'snapshot', bans: 2, reason: 'cursor_refused' });
    expect(after.mirror.check('d-2', AT).restricted.cheat).toBe(true);
    await after.mirror.stop();
  });
});

describe('an outage of the service', () => {
  it('serves the copy until maxLagMs, then 503 so the mirrors fail by their own mode, and recovers', async () => {
    const svc = service();
    svc.create('d-1', ban(1));
    let clock = Date.parse(AT);
    const now = () => clock;
    // Its reads of the service are the test's alone (relay.sync), at the clock the test sets.
    const relay = await startRelay({ client: svc.source, maxLagMs: 1_000, intervalMs: 60_000, now });
    await ready(relay);
    const closed = mirrorBehind(relay.url, { now, maxLagMs: 2_000, failMode: 'closed' });
    const open = mirrorBehind(relay.url, { now, maxLagMs: 2_000, failMode: 'open' });
    await Promise.all([closed.mirror.sync(), open.mirror.sync()]);

    svc.upstream.fail = unavailable();
    clock += 500;
    await relay.relay.sync(GAME);
    expect(relay.events.seen.at(-1)).toMatchObject({ type: 'read_failed', status: 503 });
    expect(relay.relay.status().games[GAME]?.state).toBe('interrupted');
    // Within its lag limit the relay still serves its copy and the feed.
    expect((await get(relay.url, '/v1/events')).status).toBe(200);
    expect((await get(relay.url, '/v1/enforcement/snapshot')).status).toBe(200);
    expect(closed.mirror.check('d-2', AT)).toMatchObject({ stale: false, restricted: { cheat: false } });

    clock += 600;
    await relay.relay.sync(GAME);
    expect(relay.events.seen).toContainEqual({ type: 'stale', game_id: GAME, lag_ms: 1_100 });
    const refused = await get(relay.url, '/v1/events');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(errorEnvelopeSchema.parse(refused.body).error.code).toBe('service_unavailable');
    await expect(closed.mirror.sync()).rejects.toMatchObject({ status: 503 });
    await expect(open.mirror.sync()).rejects.toMatchObject({ status: 503 });
    expect((await fetch(`${relay.url}/health`)).status).toBe(503);

    clock += 1_500;
    expect(closed.mirror.check('d-2', AT)).toMatchObject({
      stale: true,
      restricted: { cheat: true, social: true },
    });
    expect(open.mirror.check('d-2', AT)).toMatchObject({ stale: true, restricted: { cheat: false } });
    expect(open.mirror.check('d-1', AT)).toMatchObject({ stale: true, restricted: { cheat: true } });

    svc.upstream.fail = null;
    svc.create('d-2', ban(2));
    await relay.relay.sync(GAME);
    expect(relay.events.seen).toContainEqual({ type: 'recovered', game_id: GAME, after_failures: 2 });
    await Promise.all([closed.mirror.sync(), open.mirror.sync()]);
    expect(closed.mirror.check('d-2', AT)).toMatchObject({ stale: false, restricted: { cheat: true } });
  });

  it('reports a refused key and answers 503 downstream', async () => {
    const svc = service();
    const relay = await startRelay({ client: svc.source });
    await ready(relay);
    svc.upstream.fail = new ApiError({
      status: 401,
      code: 'unauthorized',
      message: 'A valid API key is required',
      details: [],
      request_id: 'r',
    });
    await relay.relay.sync(GAME);
    expect(relay.events.seen).toContainEqual({
      type: 'key_refused',
      game_id: GAME,
      status: 401,
      code: 'unauthorized',
      message: 'A valid API key is required',
    });
    expect(relay.relay.status().games[GAME]).toMatchObject({ state: 'key_refused' });
    const answer = await get(relay.url, '/v1/events');
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('service_unavailable');
  });

  it('resyncs itself when the service is another deployment, and its mirrors follow', async () => {
    const svc = service();
    svc.create('d-1', ban(1));
    const relay = await startRelay({ client: svc.source });
    await ready(relay);
    const { mirror, events } = mirrorBehind(relay.url);
    await mirror.sync();
    svc.upstream.deployment = 'dep-2';
    svc.create('d-2', ban(2));
    await relay.relay.sync(GAME);
    expect(relay.events.seen).toContainEqual({
      type: 'snapshot',
      game_id: GAME,
      bans: 2,
      reason: 'deployment_changed',
    });
    await mirror.sync();
    expect(events.seen).toContainEqual({ type: 'snapshot', bans: 2, reason: 'cursor_expired' });
    expect(relay.relay.status().games[GAME]?.deployment_id).toMatch(/^dep-2~relay-/);
  });
});
