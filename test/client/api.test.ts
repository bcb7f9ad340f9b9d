import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type BanClient, createBanClient } from '../../client/src/index';
import { startWithPublishers, storedBans, storedRecord, type TestApi } from '../support/fixtures';

/**
 * The client against the real local API (test/support/api.ts): ban, list, enforce, revoke, the
 * feed, errors as the API sends them, an answer lost on the way back, and what another
 * publisher's client sees of it all (nothing).
 */

const A = 'client-pub-a';
const B = 'client-pub-b';
const GAME = 'client-game';

let api: TestApi;
let a: BanClient;
let b: BanClient;
/** The create-ban bodies client A sent, in order, and how many answers to drop on the way back. */
const sentBans: Array<Record<string, unknown>> = [];
let dropAnswers = 0;

beforeAll(async () => {
  const started = await startWithPublishers([A, B]);
  api = started.api;
  // A fetch in front of the real one: records create bodies, and can lose an answer after the
  // API has acted on the request (what a dropped connection does).
  const recording: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    if (url.pathname === '/v1/bans' && init?.method === 'POST') sentBans.push(JSON.parse(String(init.body)));
    const res = await fetch(input, init);
    if (dropAnswers > 0) {
      dropAnswers -= 1;
      await res.arrayBuffer();
      throw new TypeError('fetch failed: connection reset');
    }
    return res;
  };
  a = createBanClient({ baseUrl: api.url, apiKey: started.keys[A], fetch: recording, baseDelayMs: 5 });
  b = createBanClient({ baseUrl: `${api.url}/`, apiKey: started.keys[B] });
});
afterAll(() => api?.close());

describe('a game server with the client', () => {
  const device = 'dev:client@1+x=y';
  let banId: number;
  let lostAnswerBanId: number;

  it('bans a device (the client adds an idempotency key), sees it listed and enforced', async () => {
    const made = await a.createBan(GAME, {
      device_id: device,
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'aimbot',
    });
    expect(made).toMatchObject({ device_id: device, status: 'created', publisher_id: A, game_id: GAME });
    banId = made.ban_id;
    const key = sentBans.at(-1)?.idempotency_key as string;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(await storedRecord(A, GAME, key)).toBeDefined();

    const listed = await a.listBans(GAME, device, { status: 'all' });
    expect(listed.items.map((ban) => ban.ban_id)).toEqual([banId]);
    const iterated = [];
    for await (const ban of a.bans(GAME, device, { status: 'all', limit: 1 })) iterated.push(ban.ban_id);
    expect(iterated).toEqual([banId]);

    const enforcement = await a.getEnforcement(GAME, device);
    expect(enforcement).toMatchObject({
      device_id: device,
      game_id: GAME,
      restricted: { cheat: true, social: false },
    });
    expect(enforcement.bans.map((ban) => [ban.ban_id, ban.rule])).toEqual([[banId, ['enforce_game']]]);
    const batch = await a.getEnforcementBatch(GAME, { device_ids: [device, 'dev-clean'] });
    expect(batch.results.map((r) => [r.device_id, 'restricted' in r && r.restricted.cheat])).toEqual([
      [device, true],
      ['dev-clean', false],
    ]);
  });

  it('a create whose answer is lost is retried with the same key: one ban, answered as the first', async () => {
    const before = sentBans.length;
    dropAnswers = 1;
    const made = await a.createBan(GAME, {
      device_id: 'dev-lost-answer',
      ban_type: 'social',
      scope: 'game',
      reason_code: 'toxicity',
    });
    const bodies = sentBans.slice(before);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toEqual(bodies[0]);
    // The retry found the first attempt's ban: the API answers it 200 idempotent_ok.
    expect(made.status).toBe('idempotent_ok');
    lostAnswerBanId = made.ban_id;
    const stored = (await storedBans('dev-lost-answer')).filter((item) => 'ban_id' in item);
    expect(stored.map((item) => item.ban_id)).toEqual([made.ban_id]);
  });

  it('revokes the ban, and a revoke whose answer is lost ends the same', async () => {
    dropAnswers = 1;
    const revoked = await a.revokeBan(GAME, device, banId, { reason_code: 'appeal_upheld' });
    expect(revoked).toMatchObject({ ban_id: banId, revoke_reason_code: 'appeal_upheld', enforced: false });
    expect(revoked.revoked_at).toEqual(expect.any(String));
    const again = await a.revokeBan(GAME, device, banId, { reason_code: 'other_reason' });
    expect([again.revoked_at, again.revoke_reason_code]).toEqual([revoked.revoked_at, 'appeal_upheld']);
    expect((await a.getEnforcement(GAME, device)).restricted).toEqual({ cheat: false, social: false });
  });

  it('reads the feed until caught up, and the next passes bring only what came since', async () => {
    await api.settle();
    const feed = a.events(GAME, { limit: 2 });
    const seen: Array<[string, number | false]> = [];
    /** One pass over the feed; the events it brought are added to `seen`. */
    const pass = async () => {
      for await (const event of feed) seen.push([event.type, 'ban' in event && event.ban.ban_id]);
      return seen.length;
    };
    // The API may answer a poll from a read up to FEED_CACHE_MS old (docs/scale.md): poll as a server does.
    await expect.poll(pass, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    // Three events over pages of two, each once, oldest first (the lost answer's ban once).
    expect(seen).toEqual([
      ['ban.created', banId],
      ['ban.created', lostAnswerBanId],
      ['ban.revoked', banId],
    ]);
    expect(feed.cursor).toEqual(expect.any(String));
    expect(feed.caughtUpAt).toEqual(expect.any(Number));

    const later = await a.createBan(GAME, {
      device_id: 'dev-later',
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'x',
    });
    await api.settle();
    await expect.poll(pass, { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
    expect(seen.slice(3)).toEqual([['ban.created', later.ban_id]]);

    // A poller that restarts from the saved cursor reads nothing again.
    const resumed = a.events(GAME, { cursor: feed.cursor });
    for await (const event of resumed) throw new Error(`read again: ${event.event_id}`);
    expect(resumed.cursor).toBe(feed.cursor);
  });

  it('throws the API error as sent: status, code, message, details, request_id', async () => {
    const error = await a.listBans(GAME, device, { limit: 500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError).toMatchObject({
      status: 400,
      code: 'invalid_request',
      details: [{ field: 'limit', issue: 'too_big' }],
      attempts: 1,
    });
    expect(apiError.message).toMatch(/limit/);
    expect(apiError.request_id).toMatch(/^[0-9a-f-]{36}$/);

    const unknownKey = createBanClient({ baseUrl: api.url, apiKey: 'bsk_nope' });
    await expect(unknownKey.getPolicy()).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });
});

describe("another publisher's client", () => {
  const device = 'dev-isolated';
  let banId: number;

  beforeAll(async () => {
    banId = (
      await a.createBan(GAME, { device_id: device, ban_type: 'cheat', scope: 'game', reason_code: 'r' })
    ).ban_id;
    await api.settle();
  });

  it("sees none of A's game bans, in listings, enforcement or the feed", async () => {
    expect((await b.listBans(GAME, device, { status: 'all' })).items).toEqual([]);
    expect((await b.getEnforcement(GAME, device)).restricted).toEqual({ cheat: false, social: false });
    for await (const event of b.events(GAME))
      expect('ban' in event && event.ban.publisher_id === A).toBe(false);
    const devices = [];
    for await (const found of b.devices({ prefix: 'dev-' })) devices.push(found.device_id);
    expect(devices).not.toContain(device);
  });

  it("cannot revoke A's ban: 404 not_found, and the ban stays active", async () => {
    const error = await b.revokeBan(GAME, device, banId, { reason_code: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', attempts: 1 });
    expect((await a.getEnforcement(GAME, device)).restricted.cheat).toBe(true);
  });
});
