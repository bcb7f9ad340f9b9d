import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../support/api';
import { startTestApi } from '../support/api';

/**
 * The bans that end soon: `GET /v1/bans/expiring` lists a publisher's bans in
 * force that end within the next hours, soonest first, from an index by expiry kept on create and
 * on an appeal that shortens a ban, checked against each ban when read, and cleared by an erasure.
 * Runs on the sources, the bundles, Node 24 and DynamoDB Local.
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
  const id = unique('ex');
  return { id, key: (await api.createKey(id, 'expiring test')).api_key };
};

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

const ban = async (key: string, device: string, expiresAt: string | null, game = 'g1', scope = 'game') => {
  const res = await api.request('POST', '/v1/bans', {
    key,
    game,
    body: {
      device_id: device,
      ban_type: 'social',
      scope,
      reason_code: 'chat.spam',
      allow_duplicate: true,
      ...(expiresAt === null ? {} : { expires_at: expiresAt }),
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.ban_id as number;
};

const expiring = (key: string, query = '') => api.request('GET', `/v1/bans/expiring${query}`, { key });
const banIds = (res: { body: { items: Array<{ ban_id: number }> } }) => res.body.items.map((b) => b.ban_id);
const entriesOf = async (publisherId: string) =>
  (await api.items()).filter((item) => item.pk === `EXPIRING#${publisherId}`);

describe('the bans that end soon', () => {
  it("lists the publisher's bans ending within 24 hours, soonest first, and nobody else's", async () => {
    const [a, b, c] = [await publisher(), await publisher(), await publisher()];
    const device = unique('dev');
    const in2h = inHours(2);
    const late = await ban(a.key, device, inHours(30));
    const second = await ban(a.key, device, in2h, 'g2', 'publisher');
    const first = await ban(a.key, unique('dev'), inHours(1));
    await ban(a.key, unique('dev'), null);
    const ofB = await ban(b.key, device, inHours(1), 'g1', 'global');

    const res = await expiring(a.key);
    expect(res.status).toBe(200);
    expect(banIds(res)).toEqual([first, second]);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.items[1]).toEqual({
      device_id: device,
      ban_id: second,
      ban_type: 'social',
      scope: 'publisher',
      game_id: 'g2',
      reason_code: 'chat.spam',
      created_at: expect.stringMatching(/Z$/),
      expires_at: in2h,
      created_by: { type: 'key', key_id: expect.stringMatching(/^key_/), name: 'expiring test' },
    });
    expect(banIds(await expiring(a.key, '?within_hours=48'))).toEqual([first, second, late]);
    // Another publisher sees its own ban on the same device, never a's; a third sees nothing.
    expect(banIds(await expiring(b.key))).toEqual([ofB]);
    expect(banIds(await expiring(c.key))).toEqual([]);
    // Stored: one entry per ban with an expiry, in the publisher's own partition; none for the
    // permanent ban.
    const entries = await entriesOf(a.id);
    expect(entries).toHaveLength(3);
    expect(entries.every((entry) => typeof entry.ttl === 'number')).toBe(true);
  });

  it('drops a revoked ban, and lists a ban an appeal shortened once, at its new end', async () => {
    const a = await publisher();
    const device = unique('dev');
    const revoked = await ban(a.key, device, inHours(3));
    const shortened = await ban(a.key, device, inHours(40));
    const revoke = await api.request('POST', `/v1/device/${device}/bans/${revoked}/revoke`, {
      key: a.key,
      game: 'g1',
      body: { reason_code: 'mistake' },
    });
    expect(revoke.status).toBe(200);
    expect(banIds(await expiring(a.key, '?within_hours=48'))).toEqual([shortened]);

    const filed = await api.request('POST', '/v1/appeals', {
      key: a.key,
      game: 'g1',
      body: { device_id: device, ban_id: shortened, message: 'It was my brother.' },
    });
    expect(filed.status, JSON.stringify(filed.body)).toBe(201);
    const until = inHours(5);
    const decided = await api.request('POST', `/v1/appeals/${filed.body.appeal_id}/decision`, {
      key: a.key,
      body: { outcome: 'shortened', expires_at: until },
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    const soon = await expiring(a.key);
    expect(
      soon.body.items.map((b: { ban_id: number; expires_at: string }) => [b.ban_id, b.expires_at]),
    ).toEqual([[shortened, until]]);
    // The entry at the old end is still stored, and passed by: the ban is listed once.
    expect(banIds(await expiring(a.key, '?within_hours=48'))).toEqual([shortened]);
    expect((await entriesOf(a.id)).length).toBe(3);
  });

  it('forgets every entry of an erased device, its old end included, and keeps other devices', async () => {
    const a = await publisher();
    const device = unique('gone');
    const kept = await ban(a.key, unique('kept'), inHours(4));
    const id = await ban(a.key, device, inHours(20));
    const filed = await api.request('POST', '/v1/appeals', {
      key: a.key,
      game: 'g1',
      body: { device_id: device, ban_id: id, message: 'Please.' },
    });
    await api.request('POST', `/v1/appeals/${filed.body.appeal_id}/decision`, {
      key: a.key,
      body: { outcome: 'shortened', expires_at: inHours(2) },
    });
    expect((await entriesOf(a.id)).filter((entry) => entry.device_id === device)).toHaveLength(2);
    const erased = await api.request('POST', `/v1/device/${device}/erase`, { key: a.key });
    expect(erased.body.erased_bans).toBe(1);
    expect((await entriesOf(a.id)).filter((entry) => entry.device_id === device)).toEqual([]);
    expect(banIds(await expiring(a.key))).toEqual([kept]);
  });

  it('shows a key bound to games the bans made in them', async () => {
    const a = await publisher();
    const bound = (await api.createKey(a.id, 'g1 only', { scopes: ['bans:read'], games: ['g1'] })).api_key;
    const inG1 = await ban(a.key, unique('dev'), inHours(1), 'g1');
    await ban(a.key, unique('dev'), inHours(2), 'g2');
    expect(banIds(await expiring(bound))).toEqual([inG1]);
  });

  it('pages with next_cursor', async () => {
    const a = await publisher();
    const made = [
      await ban(a.key, unique('dev'), inHours(1)),
      await ban(a.key, unique('dev'), inHours(2)),
      await ban(a.key, unique('dev'), inHours(3)),
    ];
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { items: Array<{ ban_id: number }>; next_cursor: string | null } } =
        await expiring(a.key, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...banIds(page));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(made);
  });

  it('refuses bad input with the field named, and a key without bans:read', async () => {
    const a = await publisher();
    for (const [query, field] of [
      ['?within_hours=0', 'within_hours'],
      ['?within_hours=169', 'within_hours'],
      ['?within_hours=1.5', 'within_hours'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?cursor=%24%24', 'cursor'],
      // A well-formed cursor that is not one of this listing's positions.
      [`?cursor=${Buffer.from('DONE#x').toString('base64url')}`, 'cursor'],
      ['?colour=red', 'colour'],
    ] as const) {
      const res = await expiring(a.key, query);
      expect(res.status, query).toBe(400);
      expect(
        res.body.error.details.map((d: { field: string }) => d.field),
        query,
      ).toContain(field);
    }
    const writer = (await api.createKey(a.id, 'writer', { scopes: ['bans:write'] })).api_key;
    const refused = await expiring(writer);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
  });
});
