import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../support/api';
import { startTestApi } from '../support/api';

/**
 * A message for the player and whether the ban may be contested: taken on
 * create, shown with the ban to whoever sees it (it is written for players), in the enforcement
 * answer, and gone with an erasure, from the feed too. Runs on the sources, the bundles, Node 24
 * and DynamoDB Local like every integration suite.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

let n = 0;
const unique = (prefix: string) => {
  n += 1;
  return `${prefix}-${Date.now().toString(36)}-${n}`;
};

const publisher = async () => {
  const id = unique('pm');
  return { id, key: (await api.createKey(id, 'player message test')).api_key };
};

const MESSAGE = 'This device is banned for using cheat software. Contact support@example.com.';

const banItems = async (device: string) =>
  (await api.items()).filter((item) => item.pk === `DEVICE#${device}` && String(item.sk).startsWith('BAN#'));

describe('a message for the player', () => {
  it('is kept with the ban and shown to every publisher who sees it, with appealable; details stay private', async () => {
    const owner = await publisher();
    const other = await publisher();
    const device = unique('dev');
    const made = await api.request('POST', '/v1/bans', {
      key: owner.key,
      game: 'g1',
      body: {
        device_id: device,
        ban_type: 'cheat',
        scope: 'global',
        reason_code: 'aimbot',
        details: { detector: 'v5' },
        player_message: MESSAGE,
        appealable: false,
      },
    });
    expect(made.status).toBe(201);
    const mine = await api.request('GET', `/v1/device/${device}/bans`, { key: owner.key, game: 'g1' });
    expect(mine.body.items[0]).toMatchObject({
      ban_id: made.body.ban_id,
      player_message: MESSAGE,
      appealable: false,
      details_json: { detector: 'v5' },
    });
    const theirs = await api.request('GET', `/v1/device/${device}/bans`, { key: other.key, game: 'g9' });
    expect(theirs.body.items[0]).toMatchObject({
      ban_id: made.body.ban_id,
      player_message: MESSAGE,
      appealable: false,
      details_json: null,
    });
    const enforcement = await api.request('GET', `/v1/device/${device}/enforcement`, {
      key: other.key,
      game: 'g9',
    });
    expect(enforcement.body.restricted.cheat).toBe(true);
    expect(enforcement.body.bans[0]).toMatchObject({ player_message: MESSAGE, appealable: false });
  });

  it('is null, and the ban appealable, when the create names neither (and on bans stored before them)', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const made = await api.request('POST', '/v1/bans', {
      key: owner.key,
      game: 'g1',
      body: { device_id: device, ban_type: 'social', scope: 'game', reason_code: 'spam' },
    });
    expect(made.status).toBe(201);
    const [stored] = await banItems(device);
    expect(stored).not.toHaveProperty('player_message');
    expect(stored).not.toHaveProperty('appealable');
    const listed = await api.request('GET', `/v1/device/${device}/bans`, { key: owner.key, game: 'g1' });
    expect(listed.body.items[0]).toMatchObject({ player_message: null, appealable: true });
  });

  it('takes 500 characters counted as a player reads them (500 emoji), and refuses 501 with nothing stored', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const post = (player_message: unknown, appealable?: unknown) =>
      api.request('POST', '/v1/bans', {
        key: owner.key,
        game: 'g1',
        body: {
          device_id: device,
          ban_type: 'cheat',
          scope: 'game',
          reason_code: 'aimbot',
          player_message,
          allow_duplicate: true,
          ...(appealable === undefined ? {} : { appealable }),
        },
      });
    const refused: Array<[unknown, string, unknown?]> = [
      ['x'.repeat(501), 'too_big'],
      ['😀'.repeat(501), 'too_big'],
      ['first line\nsecond line', 'invalid_format'],
      ['tab\there', 'invalid_format'],
      ['innocent \u202Etxt.exe', 'invalid_format'],
      ['   ', 'invalid_format'],
      [42, 'invalid_type'],
      [null, 'invalid_type'],
    ];
    for (const [message, issue] of refused) {
      const res = await post(message);
      expect(res.status, JSON.stringify(message).slice(0, 30)).toBe(400);
      expect(res.body.error.details).toContainEqual({ field: 'player_message', issue });
    }
    const badFlag = await post('fine', 'yes');
    expect(badFlag.status).toBe(400);
    expect(badFlag.body.error.details).toEqual([{ field: 'appealable', issue: 'invalid_type' }]);
    expect(await banItems(device)).toEqual([]);

    for (const message of ['x'.repeat(500), '😀'.repeat(500), 'Ç’est bon: 漢字 ok']) {
      const res = await post(message);
      expect(res.status).toBe(201);
    }
    const stored = (await banItems(device)).map((item) => item.player_message).sort();
    expect(stored).toEqual(['x'.repeat(500), 'Ç’est bon: 漢字 ok', '😀'.repeat(500)].sort());
  });

  it('goes with an erasure: the feed keeps neither the created event’s message nor the erased one’s', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const message = `Banned for cheating (case ${unique('case')}).`;
    const made = await api.request('POST', '/v1/bans', {
      key: owner.key,
      game: 'g1',
      body: {
        device_id: device,
        ban_type: 'cheat',
        scope: 'publisher',
        reason_code: 'aimbot',
        player_message: message,
      },
    });
    expect(made.status).toBe(201);
    await api.settle();
    const erased = await api.request('POST', `/v1/device/${device}/erase`, { key: owner.key });
    expect(erased.status).toBe(200);
    await api.settle();
    const feed = await api.request('GET', '/v1/events?limit=100', { key: owner.key, game: 'g1' });
    const events = feed.body.items.filter((e: { device_id: string }) => e.device_id === device);
    expect(events.map((e: { type: string }) => e.type)).toEqual(['ban.created', 'ban.erased']);
    for (const event of events) expect(event.ban.player_message).toBeNull();
    expect(JSON.stringify(await api.items({ derived: true })).includes(message)).toBe(false);
  });
});
