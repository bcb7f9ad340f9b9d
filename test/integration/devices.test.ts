import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../support/api';
import { startTestApi } from '../support/api';

/**
 * Finding a device by a prefix of its id: `GET /v1/devices` lists the devices a
 * publisher has banned, from an index kept on each ban's create and cleared by an erasure. Three
 * publishers: each finds only its own devices. Runs on the sources, the bundles, Node 24 and
 * DynamoDB Local.
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

const publisher = async (grants?: Parameters<TestApi['createKey']>[2]) => {
  const id = unique('dv');
  return { id, key: (await api.createKey(id, 'devices test', grants)).api_key };
};

const ban = async (key: string, device: string, game: string, scope = 'game') => {
  const res = await api.request('POST', '/v1/bans', {
    key,
    game,
    body: { device_id: device, ban_type: 'cheat', scope, reason_code: 'aimbot' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.ban_id as number;
};

const find = (key: string, query: string) => api.request('GET', `/v1/devices${query}`, { key });
const ids = (res: { body: { items: Array<{ device_id: string }> } }) =>
  res.body.items.map((d) => d.device_id);

describe('finding devices by a prefix of their id', () => {
  it("lists the publisher's banned devices in id order with their games, and nobody else's", async () => {
    const [a, b, c] = [await publisher(), await publisher(), await publisher()];
    const stem = unique('rep');
    await ban(a.key, `${stem}-b`, 'g2');
    await ban(a.key, `${stem}-a`, 'g1');
    await ban(a.key, `${stem}-a`, 'g2', 'global');
    await ban(a.key, unique('other'), 'g1');
    await ban(b.key, `${stem}-c`, 'g1');

    const found = await find(a.key, `?prefix=${stem}`);
    expect(found.status).toBe(200);
    expect(found.body.next_cursor).toBeNull();
    expect(found.body.items).toEqual([
      {
        device_id: `${stem}-a`,
        first_banned_at: expect.any(String),
        last_banned_at: expect.any(String),
        games: ['g1', 'g2'],
      },
      {
        device_id: `${stem}-b`,
        first_banned_at: expect.any(String),
        last_banned_at: expect.any(String),
        games: ['g2'],
      },
    ]);
    const [first] = found.body.items;
    expect(first.first_banned_at < first.last_banned_at).toBe(true);
    expect(ids(await find(b.key, `?prefix=${stem}`))).toEqual([`${stem}-c`]);
    expect(ids(await find(c.key, `?prefix=${stem}`))).toEqual([]);
    expect(ids(await find(c.key, ''))).toEqual([]);
    // Stored: two small items per ban (by id, and by id reversed), in the publisher's own partition.
    const index = (await api.items()).filter((item) => item.pk === `BANNED#${a.id}`);
    expect(index).toHaveLength(8);
    const ofA = index.filter((item) => String(item.sk).startsWith(`${stem}-a#`));
    expect(ofA.map((item) => item.game_id).sort()).toEqual(['g1', 'g2']);
  });

  it('pages with next_cursor, which holds only for the same prefix', async () => {
    const a = await publisher();
    const stem = unique('page');
    for (const suffix of ['1', '2', '3']) await ban(a.key, `${stem}-${suffix}`, 'g1');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: {
        status: number;
        body: { items: Array<{ device_id: string }>; next_cursor: string | null };
      } = await find(a.key, `?prefix=${stem}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...ids(page));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([`${stem}-1`, `${stem}-2`, `${stem}-3`]);
    const firstPage = await find(a.key, `?prefix=${stem}&limit=1`);
    const elsewhere = await find(a.key, `?prefix=zzz&cursor=${firstPage.body.next_cursor}`);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.details).toEqual([{ field: 'cursor', issue: 'invalid' }]);
  });

  it('keeps the devices of revoked bans, and forgets a device once the publisher erases it', async () => {
    const [a, b] = [await publisher(), await publisher()];
    const device = unique('gone');
    const banId = await ban(a.key, device, 'g1');
    await ban(b.key, device, 'g1');
    const revoked = await api.request('POST', `/v1/device/${device}/bans/${banId}/revoke`, {
      key: a.key,
      game: 'g1',
      body: { reason_code: 'mistake' },
    });
    expect(revoked.status).toBe(200);
    expect(ids(await find(a.key, `?prefix=${device}`))).toEqual([device]);
    const erased = await api.request('POST', `/v1/device/${device}/erase`, { key: a.key });
    expect(erased.body.erased_bans).toBe(1);
    expect(ids(await find(a.key, `?prefix=${device}`))).toEqual([]);
    expect(
      (await api.items()).some((item) => item.pk === `BANNED#${a.id}` && item.device_id === device),
    ).toBe(false);
    // Another publisher's index of the same device stays.
    expect(ids(await find(b.key, `?prefix=${device}`))).toEqual([device]);
  });

  it('shows a key bound to games the devices banned in them, with only those games', async () => {
    const a = await publisher();
    const bound = (await api.createKey(a.id, 'g1 only', { scopes: ['bans:read'], games: ['g1'] })).api_key;
    const stem = unique('bound');
    await ban(a.key, `${stem}-1`, 'g1');
    await ban(a.key, `${stem}-1`, 'g2');
    await ban(a.key, `${stem}-2`, 'g2');
    const found = await find(bound, `?prefix=${stem}`);
    expect(found.status).toBe(200);
    expect(
      found.body.items.map((d: { device_id: string; games: string[] }) => [d.device_id, d.games]),
    ).toEqual([[`${stem}-1`, ['g1']]]);
  });

  it("finds a device by the end of its id with one Query of the reversed entries, and nobody else's", async () => {
    const [a, b] = [await publisher(), await publisher()];
    const tail = `${Date.now()}${n}`.slice(-9);
    await ban(a.key, `steam-${tail}`, 'g1');
    await ban(a.key, `steam-${tail}`, 'g2');
    await ban(a.key, `xbox-1${tail}`, 'g1');
    await ban(a.key, `steam-${tail}9`, 'g1');
    await ban(b.key, `psn-${tail}`, 'g1');

    const found = await find(a.key, `?suffix=${tail}&limit=1`);
    expect(found.status).toBe(200);
    // In order of the id read backwards: "...1-xobx" after "...-maets".
    expect(found.body.items).toEqual([
      {
        device_id: `steam-${tail}`,
        first_banned_at: expect.any(String),
        last_banned_at: expect.any(String),
        games: ['g1', 'g2'],
      },
    ]);
    expect(found.body.others_global).toEqual([]);
    const next = await find(a.key, `?suffix=${tail}&cursor=${found.body.next_cursor}`);
    expect(ids(next)).toEqual([`xbox-1${tail}`]);
    expect(next.body.next_cursor).toBeNull();
    expect(ids(await find(b.key, `?suffix=${tail}`))).toEqual([`psn-${tail}`]);
    // A cursor of the end is no cursor of the start.
    const wrongEnd = await find(a.key, `?prefix=steam-&cursor=${found.body.next_cursor}`);
    expect(wrongEnd.status).toBe(400);
    expect(wrongEnd.body.error.details).toEqual([{ field: 'cursor', issue: 'invalid' }]);
    // Stored: each ban's entry by id and its entry reversed, in the publisher's partition.
    const index = (await api.items()).filter(
      (item) => item.pk === `BANNED#${a.id}` && item.device_id === `steam-${tail}`,
    );
    expect(index.map((item) => String(item.sk).replace(/#\d{16}$/, '')).sort()).toEqual([
      `#${tail.split('').reverse().join('')}-maets`,
      `#${tail.split('').reverse().join('')}-maets`,
      `steam-${tail}`,
      `steam-${tail}`,
    ]);
    // Both ends: the ids that begin with one and end with the other.
    expect(ids(await find(a.key, `?prefix=steam-&suffix=${tail}`))).toEqual([`steam-${tail}`]);
    // A listing without prefix or suffix lists each device once, not its reversed entries.
    const all = await find(a.key, '?limit=100');
    expect(ids(all)).toEqual([`steam-${tail}`, `steam-${tail}9`, `xbox-1${tail}`]);
  });

  it("names the devices only other publishers' global bans in force name, with their publishers only", async () => {
    const [a, b, c] = [await publisher(), await publisher(), await publisher()];
    const stem = unique('glob');
    await ban(a.key, `${stem}-mine`, 'g1');
    await ban(b.key, `${stem}-mine`, 'g1', 'global');
    await ban(b.key, `${stem}-theirs`, 'g3', 'global');
    await ban(c.key, `${stem}-theirs`, 'g1', 'global');
    await ban(b.key, `${stem}-game`, 'g1');
    const revoked = await ban(c.key, `${stem}-revoked`, 'g1', 'global');
    expect(
      (
        await api.request('POST', `/v1/device/${stem}-revoked/bans/${revoked}/revoke`, {
          key: c.key,
          game: 'g1',
          body: { reason_code: 'mistake' },
        })
      ).status,
    ).toBe(200);
    await api.settle();

    const found = await find(a.key, `?prefix=${stem}`);
    expect(found.status).toBe(200);
    expect(ids(found)).toEqual([`${stem}-mine`]);
    expect(found.body.others_global).toEqual([
      { device_id: `${stem}-theirs`, publishers: [b.id, c.id].sort() },
    ]);
    // B lists the devices it banned itself; C's ban of one of them adds nothing to others_global.
    const ofB = await find(b.key, `?prefix=${stem}`);
    expect(ids(ofB)).toEqual([`${stem}-game`, `${stem}-mine`, `${stem}-theirs`]);
    expect(ofB.body.others_global).toEqual([]);
    // A later page and a search by the end do not repeat them.
    expect((await find(a.key, `?suffix=theirs`)).body.others_global).toEqual([]);
  });

  it('refuses bad input with the field named, and a key without bans:read', async () => {
    const a = await publisher();
    for (const [query, field] of [
      ['?prefix=', 'prefix'],
      ['?prefix=a%2Fb', 'prefix'],
      [`?prefix=${'x'.repeat(129)}`, 'prefix'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?cursor=%24%24', 'cursor'],
      ['?cursor=bm8vcGU', 'cursor'],
      ['?colour=red', 'colour'],
      ['?suffix=', 'suffix'],
      ['?suffix=a%2Fb', 'suffix'],
    ] as const) {
      const res = await find(a.key, query);
      expect(res.status, query).toBe(400);
      expect(
        res.body.error.details.map((d: { field: string }) => d.field),
        query,
      ).toContain(field);
    }
    const writer = (await api.createKey(a.id, 'writer', { scopes: ['bans:write'] })).api_key;
    const refused = await find(writer, '');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
  });
});

describe('the games a publisher has made bans in', () => {
  it("answers the games of the publisher's bans once dispatched, whatever their scope; nobody else's", async () => {
    const [a, b] = [await publisher(), await publisher()];
    const games = async (key: string) => {
      const res = await api.request('GET', '/v1/games', { key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.games as string[];
    };
    expect(await games(a.key)).toEqual([]);
    await ban(a.key, unique('gm'), 'g2');
    await ban(a.key, unique('gm'), 'g1', 'publisher');
    const revoked = unique('gm');
    const id = await ban(a.key, revoked, 'g3', 'global');
    const undo = await api.request('POST', `/v1/device/${revoked}/bans/${id}/revoke`, {
      key: a.key,
      game: 'g3',
      body: { reason_code: 'mistake' },
    });
    expect(undo.status).toBe(200);
    await ban(b.key, unique('gm'), 'b-only');
    await api.settle();
    // A revoked ban's game stays: it was used.
    expect(await games(a.key)).toEqual(['g1', 'g2', 'g3']);
    expect(await games(b.key)).toEqual(['b-only']);
    const bound = (await api.createKey(a.id, 'g2 and g9', { scopes: ['bans:read'], games: ['g2', 'g9'] }))
      .api_key;
    expect(await games(bound)).toEqual(['g2']);
    // Stored: one set per publisher, in its own partition.
    const stored = (await api.items({ derived: true })).filter((item) => item.pk === `GAMES#${a.id}`);
    expect(stored.map((item) => [item.sk, [...(item.games as Set<string>)].sort()])).toEqual([
      ['GAMES', ['g1', 'g2', 'g3']],
    ]);
    const writer = (await api.createKey(a.id, 'writer', { scopes: ['bans:write'] })).api_key;
    expect((await api.request('GET', '/v1/games', { key: writer })).status).toBe(403);
    expect((await api.request('GET', '/v1/games?x=1', { key: a.key })).status).toBe(400);
  });
});

describe('device id formats a publisher declares', () => {
  const declare = (key: string, formats: unknown) =>
    api.request('PUT', '/v1/device-formats', { key, body: { formats } });
  const declared = async (key: string) => {
    const res = await api.request('GET', '/v1/device-formats', { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  // A SteamID64 nobody else in this run uses: the first digits are every Steam account's.
  const steam64 = () => `76561198${String(Date.now() % 1e9).padStart(9, '0')}`;

  it('searches a bare SteamID64 or STEAM_X:Y:Z as the publisher spells it, and says so', async () => {
    const [a, b] = [await publisher(), await publisher()];
    expect(await declared(a.key)).toEqual({ formats: [], updated_at: null });
    const id = steam64();
    await ban(a.key, `steam:${id}`, 'g1');
    await ban(b.key, `st_${id}`, 'g1');
    // Undeclared, the bare id is searched as typed and finds nothing.
    const before = await find(a.key, `?prefix=${id}`);
    expect(ids(before)).toEqual([]);
    expect(before.body.normalised).toBeUndefined();

    const put = await declare(a.key, [
      { platform: 'steam', prefix: 'steam:' },
      { platform: 'epic', prefix: 'epic:' },
    ]);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual({
      formats: [
        { platform: 'steam', prefix: 'steam:' },
        { platform: 'epic', prefix: 'epic:' },
      ],
      updated_at: expect.any(String),
    });
    expect(await declared(a.key)).toEqual(put.body);

    const found = await find(a.key, `?prefix=${id}`);
    expect(found.status).toBe(200);
    expect(ids(found)).toEqual([`steam:${id}`]);
    expect(found.body.normalised).toEqual({ typed: id, searched: `steam:${id}`, platform: 'steam' });
    // The legacy spelling of the same account: SteamID64 = 76561197960265728 + 2Z + Y.
    const offset = BigInt(id) - 76561197960265728n;
    const steam2 = `STEAM_0:${offset % 2n}:${offset / 2n}`;
    const legacy = await find(a.key, `?prefix=${steam2}`);
    expect(ids(legacy)).toEqual([`steam:${id}`]);
    expect(legacy.body.normalised).toEqual({ typed: steam2, searched: `steam:${id}`, platform: 'steam' });
    // As typed on request, and never for a part of an id or a suffix.
    expect(ids(await find(a.key, `?prefix=${id}&as_typed=true`))).toEqual([]);
    expect((await find(a.key, `?prefix=${id.slice(0, 12)}`)).body.normalised).toBeUndefined();
    expect((await find(a.key, `?suffix=${id}`)).body.normalised).toBeUndefined();

    // Another publisher's declaration is its own: b declared nothing, and a's formats do not reach it.
    expect(await declared(b.key)).toEqual({ formats: [], updated_at: null });
    const ofB = await find(b.key, `?prefix=${id}`);
    expect(ids(ofB)).toEqual([]);
    expect(ofB.body.normalised).toBeUndefined();
    expect((await declare(b.key, [{ platform: 'steam', prefix: 'st_' }])).status).toBe(200);
    expect(ids(await find(b.key, `?prefix=${id}`))).toEqual([`st_${id}`]);
    expect(ids(await find(a.key, `?prefix=${id}`))).toEqual([`steam:${id}`]);

    // Stored: one item beside the policy; recorded once in the audit trail.
    const items = (await api.items()).filter((item) => item.pk === `PUBLISHER#${a.id}`);
    const item = items.find((i) => i.sk === 'DEVICE_FORMATS');
    expect(item?.formats).toEqual(put.body.formats);
    const audit = await api.request('GET', '/v1/audit?type=device_formats.updated', { key: a.key });
    expect(audit.body.items.map((e: { formats: unknown }) => e.formats)).toEqual([put.body.formats]);
    const auditOfB = await api.request('GET', '/v1/audit?type=device_formats.updated', { key: b.key });
    expect(auditOfB.body.items.map((e: { formats: unknown }) => e.formats)).toEqual([
      [{ platform: 'steam', prefix: 'st_' }],
    ]);

    // Declaring none turns the search back to as typed.
    expect((await declare(a.key, [])).status).toBe(200);
    expect(ids(await find(a.key, `?prefix=${id}`))).toEqual([]);
  });

  it('refuses a bad list with the field named, a key bound to games and one without policy:write', async () => {
    const a = await publisher();
    await declare(a.key, [{ platform: 'xbox', prefix: 'xbl:' }]);
    const stored = await declared(a.key);
    for (const [formats, field] of [
      [[{ platform: 'psn', prefix: 'psn:' }], 'formats.0.platform'],
      [[{ platform: 'steam', prefix: 'steam' }], 'formats.0.prefix'],
      [[{ platform: 'steam', prefix: '' }], 'formats.0.prefix'],
      [[{ platform: 'steam', prefix: `${'s'.repeat(32)}:` }], 'formats.0.prefix'],
      [[{ platform: 'steam', prefix: 'st/' }], 'formats.0.prefix'],
      [
        [
          { platform: 'steam', prefix: 'steam:' },
          { platform: 'steam', prefix: 's:' },
        ],
        'formats.1.platform',
      ],
      [[{ platform: 'steam', prefix: 'steam:', colour: 'red' }], 'formats.0.colour'],
      ['steam', 'formats'],
    ] as const) {
      const res = await declare(a.key, formats);
      expect(res.status, JSON.stringify(formats)).toBe(400);
      expect(
        res.body.error.details.map((d: { field: string }) => d.field),
        JSON.stringify(formats),
      ).toContain(field);
    }
    const bound = (await api.createKey(a.id, 'g1 only', { scopes: ['policy:write'], games: ['g1'] })).api_key;
    expect((await declare(bound, [])).status).toBe(403);
    const reader = (await api.createKey(a.id, 'reader', { scopes: ['bans:read'] })).api_key;
    expect((await declare(reader, [])).status).toBe(403);
    expect(await declared(reader)).toEqual(stored);
    const writer = (await api.createKey(a.id, 'writer', { scopes: ['bans:write'] })).api_key;
    expect((await api.request('GET', '/v1/device-formats', { key: writer })).status).toBe(403);
    // Nothing changed, and nothing was recorded beyond the one declaration.
    expect(await declared(a.key)).toEqual(stored);
    const audit = await api.request('GET', '/v1/audit?type=device_formats.updated', { key: a.key });
    expect(audit.body.items).toHaveLength(1);
  });
});
