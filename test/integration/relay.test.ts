import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBanClient } from '../../client/src/client';
import { createBanMirror } from '../../client/src/mirror';
import { type BanRelay, createBanRelay, type RelayEvent } from '../../client/src/relay';
import type { TestApi } from '../support/api';
import { createBan, startWithPublisher } from '../support/fixtures';

/**
 * A game server's mirror behind a relay behind the real API (over HTTP, on the local store): a ban
 * made through the API reaches the mirror through the relay, and the mirror answers as the API's
 * enforcement route does. The relay holds the studio's key of the service; the game server holds
 * a key of the studio's own, which the relay knows by its SHA-256 only.
 */

const PUBLISHER = 'relay-pub';
const GAME = 'relay-game';
const SERVER_KEY = 'studio-game-server-key';

let api: TestApi;
let key: string;
let relay: BanRelay;
let relayUrl: string;
const relayEvents: RelayEvent[] = [];

beforeAll(async () => {
  ({ api, key } = await startWithPublisher(PUBLISHER));
  relay = createBanRelay({
    client: createBanClient({ baseUrl: api.url, apiKey: key, deadlineMs: 5_000 }),
    keys: [createHash('sha256').update(SERVER_KEY).digest('hex')],
    holdMs: 200,
    onEvent: (event) => relayEvents.push(event),
  });
  const { port } = await relay.listen(0, '127.0.0.1');
  relayUrl = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await relay?.close();
  await api?.close();
});

describe('a mirror behind a relay behind the API', () => {
  it('sees a ban made through the API, as the API answers it', async () => {
    await createBan(api, key, GAME, {
      device_id: 'dev-before',
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'x',
    });
    await api.settle();
    const mirror = createBanMirror({
      client: createBanClient({ baseUrl: relayUrl, apiKey: SERVER_KEY, deadlineMs: 5_000 }),
      gameId: GAME,
      maxLagMs: 60_000,
    });
    // Its first request makes the relay follow the game: a snapshot of the API, then its feed.
    await mirror.sync();
    expect(relayEvents).toContainEqual({ type: 'snapshot', game_id: GAME, bans: 1, reason: 'start' });
    expect(mirror.check('dev-before').restricted.cheat).toBe(true);

    const made = await createBan(api, key, GAME, {
      device_id: 'dev-after',
      ban_type: 'cheat',
      scope: 'publisher',
      reason_code: 'x',
    });
    await api.settle();
    expect(mirror.check('dev-after').restricted.cheat).toBe(false);
    await relay.sync(GAME);
    await mirror.sync();
    const check = mirror.check('dev-after');
    expect(check.restricted.cheat).toBe(true);
    expect(check.bans.map((b) => b.ban_id)).toEqual([made]);

    const answer = await api.request('GET', '/v1/device/dev-after/enforcement', { key, game: GAME });
    expect(answer.status).toBe(200);
    const {
      stale: _stale,
      lag_ms: _lag,
      ...fromMirror
    } = mirror.check('dev-after', answer.body.evaluated_at);
    const { reputation: _reputation, ...fromApi } = answer.body;
    // The feed does not carry who made a ban (docs/game-servers.md, What check answers).
    expect(fromMirror).toEqual({
      ...fromApi,
      bans: fromApi.bans.map((b: Record<string, unknown>) => ({ ...b, created_by: null })),
    });
    await mirror.stop();
  });
});
