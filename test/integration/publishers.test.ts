import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { now } from '../../lib/clock';
import { skeletonDigest } from '../../lib/domain/display-names';
import { DIRECTORY_PARTITION, directoryKey, displayNameKey, profileKey } from '../../lib/storage/keys';
import { storedEvents } from '../support/audit';
import {
  createBan,
  revokeBan,
  startWithPublishers,
  storedItem,
  storeItem,
  type TestApi,
  unique,
} from '../support/fixtures';

/**
 * The directory of publishers (`GET /v1/publishers`) and each one's name in it (`PUT
 * /v1/publisher`): counted by the dispatcher from the global bans' events, read by any key, the
 * same for every publisher.
 */

let api: TestApi;
let keys: Record<'dir-a' | 'dir-b' | 'dir-c' | 'dir-d', string>;

beforeAll(async () => {
  ({ api, keys } = await startWithPublishers(['dir-a', 'dir-b', 'dir-c', 'dir-d']));
});
afterAll(() => api?.close());

const list = (key: string, query = '') => api.request('GET', `/v1/publishers${query}`, { key });
const rename = (key: string, body: unknown) => api.request('PUT', '/v1/publisher', { key, body });
const globalBan = (key: string, device: string, extra: Record<string, unknown> = {}) =>
  createBan(api, key, 'g1', {
    device_id: device,
    ban_type: 'cheat',
    scope: 'global',
    reason_code: 'aimbot',
    ...extra,
  });
const directory = async (key: string) => {
  await api.settle();
  const res = await list(key);
  expect(res.status).toBe(200);
  return res.body as { items: Array<Record<string, unknown>>; next_cursor: string | null };
};
const nameEvents = async (publisher: string) =>
  (await storedEvents(publisher)).filter((event) => event.type === 'publisher.updated');
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('PUT /v1/publisher', () => {
  it('stores the name, answers it, and records publisher.updated; no global ban yet, so not listed', async () => {
    const res = await rename(keys['dir-a'], { display_name: 'Acme Games 🎮' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      publisher_id: 'dir-a',
      display_name: 'Acme Games 🎮',
      updated_at: expect.stringMatching(TIME),
    });
    expect(await storedItem(profileKey('dir-a'))).toMatchObject({
      display_name: 'Acme Games 🎮',
      previous_display_name: null,
      updated_at: res.body.updated_at,
    });
    expect(await nameEvents('dir-a')).toEqual([
      {
        type: 'publisher.updated',
        event_id: expect.stringMatching(/^evt_/),
        occurred_at: res.body.updated_at,
        actor: expect.objectContaining({ type: 'key' }),
        display_name: 'Acme Games 🎮',
        previous_display_name: null,
      },
    ]);
    const audit = await api.request('GET', '/v1/audit?type=publisher.updated', { key: keys['dir-a'] });
    expect(audit.body.items).toEqual(await nameEvents('dir-a'));
    // Nobody's directory lists it yet, and nobody else's name or trail changed.
    for (const key of Object.values(keys)) expect((await directory(key)).items).toEqual([]);
    expect(await storedItem(directoryKey('dir-a'))).toBeUndefined();
    expect(await storedItem(profileKey('dir-b'))).toBeUndefined();
    expect(await nameEvents('dir-b')).toEqual([]);
  });

  it.each([
    [{ display_name: '' }, 'display_name', 'too_small'],
    [{ display_name: 'x'.repeat(65) }, 'display_name', 'too_big'],
    [{ display_name: 'Evil\u202Egnp.exe' }, 'display_name', 'invalid_format'],
    [{ display_name: 'two\nlines' }, 'display_name', 'invalid_format'],
    [{ display_name: 'tab\there' }, 'display_name', 'invalid_format'],
    [{ display_name: 'zero\u200Bwidth' }, 'display_name', 'invalid_format'],
    [{ display_name: 'line\u2028break' }, 'display_name', 'invalid_format'],
    [{ display_name: ' Acme' }, 'display_name', 'invalid_format'],
    [{ display_name: 'Acme ' }, 'display_name', 'invalid_format'],
    // Names that read as nothing, and one that looks exactly like another with a joiner after it.
    [{ display_name: '\u200D' }, 'display_name', 'invalid_format'],
    [{ display_name: '\uFE0F' }, 'display_name', 'invalid_format'],
    [{ display_name: '\u0301' }, 'display_name', 'invalid_format'],
    [{ display_name: '\u3164' }, 'display_name', 'invalid_format'],
    [{ display_name: '\u2800' }, 'display_name', 'invalid_format'],
    [{ display_name: '\u3164\u200D\u2800' }, 'display_name', 'invalid_format'],
    [{ display_name: 'Dev Games\u200D' }, 'display_name', 'invalid_format'],
    [{ display_name: '\u0301Dev Games' }, 'display_name', 'invalid_format'],
    [{ display_name: 'Dev Games\uFE0F' }, 'display_name', 'invalid_format'],
    [{ display_name: 7 }, 'display_name', 'invalid_type'],
    [{}, 'display_name', 'required'],
    [{ display_name: 'Acme', publisher_id: 'dir-b' }, 'publisher_id', 'unknown_field'],
  ])('refuses %j with 400 naming %s, and stores nothing', async (body, field, issue) => {
    const profile = await storedItem(profileKey('dir-a'));
    const events = await storedEvents('dir-a');
    const res = await rename(keys['dir-a'], body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details).toContainEqual({ field, issue });
    expect(await storedItem(profileKey('dir-a'))).toEqual(profile);
    expect(await storedEvents('dir-a')).toEqual(events);
    expect(await storedItem(profileKey('dir-b'))).toBeUndefined();
  });

  it('accepts marks, joiners and variation selectors between visible characters, stored as sent', async () => {
    for (const name of [
      'Cafe\u0301 Games',
      'Team \u{1F469}\u200D\u{1F4BB} Dev',
      'Hearts \u2764\uFE0F Games',
    ]) {
      const res = await rename(keys['dir-d'], { display_name: name });
      expect(res.status, JSON.stringify(name)).toBe(200);
      expect(res.body.display_name).toBe(name);
      expect((await storedItem(profileKey('dir-d')))?.display_name).toBe(name);
    }
  });

  it('needs policy:write; a key without it changes nothing, and any key reads the directory', async () => {
    const reader = (await api.createKey('dir-a', unique('reader'), { scopes: ['bans:read'], games: ['g1'] }))
      .api_key;
    const before = await storedItem(profileKey('dir-a'));
    const refused = await rename(reader, { display_name: 'Hijacked' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('This key lacks the scope policy:write');
    expect(await storedItem(profileKey('dir-a'))).toEqual(before);
    const read = await list(reader);
    expect(read.status).toBe(200);
  });
});

describe('GET /v1/publishers', () => {
  const made: Record<string, { device: string; banId: number }[]> = {};
  let shortEnds = 0;
  // The expiry below is reached by setting the API's clock past it; the rest of the file runs on
  // the wall clock again.
  afterAll(() => api.setClockOffset(0));

  it('lists exactly the publishers with global bans, the same for every key, with their counts and names', async () => {
    const make = async (publisher: keyof typeof keys, n: number, extra: Record<string, unknown> = {}) => {
      for (let i = 0; i < n; i++) {
        const device = unique(`dir-dev-${publisher}`);
        const banId = await globalBan(keys[publisher], device, extra);
        made[publisher] = [...(made[publisher] ?? []), { device, banId }];
      }
    };
    await make('dir-a', 3);
    await make('dir-b', 1);
    // A ban of dir-b that ends in a few seconds (whole seconds: exact to the second), still
    // active when this test has read the directory four times, however loaded the machine.
    shortEnds = Math.ceil((Date.now() + 12_000) / 1000) * 1000;
    await make('dir-b', 1, { expires_at: new Date(shortEnds).toISOString() });
    await make('dir-c', 1, { expires_at: '2030-01-01T00:00:00Z' });
    // dir-d makes game and publisher bans only: never in the directory.
    await createBan(api, keys['dir-d'], 'g1', {
      device_id: unique('dir-dev-d'),
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'aimbot',
    });
    await createBan(api, keys['dir-d'], 'g1', {
      device_id: unique('dir-dev-d'),
      ban_type: 'social',
      scope: 'publisher',
      reason_code: 'spam',
    });

    // dir-a revokes one (within 30 days) and erases another (a privacy deletion, no revocation);
    // dir-c revokes its only one.
    const [a0, a1] = made['dir-a'] as [{ device: string; banId: number }, { device: string; banId: number }];
    expect(
      (await revokeBan(api, keys['dir-a'], 'g1', a0.device, a0.banId, { reason_code: 'mistake' })).status,
    ).toBe(200);
    expect((await api.request('POST', `/v1/device/${a1.device}/erase`, { key: keys['dir-a'] })).status).toBe(
      200,
    );
    const c0 = made['dir-c']?.[0] as { device: string; banId: number };
    expect(
      (await revokeBan(api, keys['dir-c'], 'g1', c0.device, c0.banId, { reason_code: 'mistake' })).status,
    ).toBe(200);
    // dir-b names itself after its first global ban.
    expect((await rename(keys['dir-b'], { display_name: 'Blue Harbor' })).status).toBe(200);

    const seen = await directory(keys['dir-d']);
    const entry = (over: Record<string, unknown>) => ({
      global_bans_past_30_days: 0,
      revoked_within_30_days_share: null,
      first_global_ban_at: expect.stringMatching(TIME),
      last_global_ban_at: expect.stringMatching(TIME),
      ...over,
    });
    expect(seen).toEqual({
      items: [
        entry({
          publisher_id: 'dir-a',
          // Set before its first global ban: shown now that it is listed.
          display_name: 'Acme Games 🎮',
          active_global_bans: 1,
          global_bans: 3,
          revoked_within_30_days: 1,
        }),
        entry({
          publisher_id: 'dir-b',
          display_name: 'Blue Harbor',
          active_global_bans: 2,
          global_bans: 2,
          revoked_within_30_days: 0,
        }),
        entry({
          publisher_id: 'dir-c',
          display_name: null,
          active_global_bans: 0,
          global_bans: 1,
          revoked_within_30_days: 1,
        }),
      ],
      next_cursor: null,
    });
    const a = seen.items[0] as { first_global_ban_at: string; last_global_ban_at: string };
    expect(a.first_global_ban_at <= a.last_global_ban_at).toBe(true);
    // Every publisher sees the same directory.
    for (const key of [keys['dir-a'], keys['dir-b'], keys['dir-c']])
      expect(await directory(key)).toEqual(seen);
    // One entry per publisher in one partition; the request stored nothing else there.
    const entries = (await api.items({ derived: true })).filter((item) => item.pk === DIRECTORY_PARTITION);
    expect(entries.map((item) => item.sk)).toEqual(['dir-a', 'dir-b', 'dir-c']);
  });

  it('drops a global ban from active once it expires, with no event for it', async () => {
    // The API's clock (and its events thread's) a second past the ban's end, instead of waiting
    // for it; it stays ahead of the wall clock, so the ban stays ended for this describe.
    api.setClockOffset(Math.max(0, shortEnds + 1_000 - Date.now()));
    await expect
      .poll(
        async () =>
          (await directory(keys['dir-c'])).items.find((item) => item.publisher_id === 'dir-b')
            ?.active_global_bans,
        { timeout: 30_000, interval: 250 },
      )
      .toBe(1);
    expect(now()).toBeGreaterThanOrEqual(shortEnds);
    const b = (await directory(keys['dir-a'])).items.find((item) => item.publisher_id === 'dir-b');
    expect(b).toMatchObject({ global_bans: 2, revoked_within_30_days: 0 });
  }, 60_000);

  it("changes a listed publisher's name with its own key only; another publisher's rename changes only its own", async () => {
    const before = await directory(keys['dir-c']);
    expect((await rename(keys['dir-a'], { display_name: 'Acme Interactive' })).status).toBe(200);
    const after = await directory(keys['dir-c']);
    expect(after.items.map((item) => item.display_name)).toEqual(['Acme Interactive', 'Blue Harbor', null]);
    expect(after.items.slice(1)).toEqual(before.items.slice(1));
    expect(
      (await nameEvents('dir-a')).map((event) => [event.previous_display_name, event.display_name]),
    ).toEqual([
      ['Acme Games 🎮', 'Acme Interactive'],
      [null, 'Acme Games 🎮'],
    ]);
    // dir-c names itself: dir-a's and dir-b's names stay.
    expect((await rename(keys['dir-c'], { display_name: 'Crimson' })).status).toBe(200);
    expect((await directory(keys['dir-b'])).items.map((item) => item.display_name)).toEqual([
      'Acme Interactive',
      'Blue Harbor',
      'Crimson',
    ]);
    expect(await nameEvents('dir-a')).toHaveLength(2);
    // The name is not a change of any ban: nothing in the change feed.
    const feed = await api.request('GET', '/v1/events', { key: keys['dir-d'], game: 'g1' });
    expect(feed.body.items.map((event: { type: string }) => event.type)).not.toContain('publisher.updated');
  });

  it('pages with next_cursor, and refuses a cursor it did not give and a bad limit', async () => {
    const first = await list(keys['dir-b'], '?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.items.map((item: { publisher_id: string }) => item.publisher_id)).toEqual([
      'dir-a',
      'dir-b',
    ]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await list(keys['dir-b'], `?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ items: [{ publisher_id: 'dir-c' }], next_cursor: null });
    for (const [query, field] of [
      ['?cursor=bm90IGEgY3Vyc29y', 'cursor'],
      ['?limit=0', 'limit'],
      ['?limit=201', 'limit'],
      ['?sort=name', 'sort'],
    ]) {
      const res = await list(keys['dir-b'], query);
      expect(res.status, query).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
  });
});

describe('erasure and the directory', () => {
  it('keeps the counts and the revoked share as they stood: an erasure removes personal data, not statistics', async () => {
    const key = (await api.createKey('dir-e')).api_key;
    const made: { device: string; banId: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const device = unique('dir-dev-e');
      made.push({ device, banId: await globalBan(key, device) });
    }
    const [revoked, active, kept] = made as [(typeof made)[0], (typeof made)[0], (typeof made)[0]];
    expect(
      (await revokeBan(api, key, 'g1', revoked.device, revoked.banId, { reason_code: 'mistake' })).status,
    ).toBe(200);
    const entryOf = async () =>
      (await directory(keys['dir-a'])).items.find((item) => item.publisher_id === 'dir-e');
    const before = await entryOf();
    expect(before).toMatchObject({ global_bans: 3, revoked_within_30_days: 1, active_global_bans: 2 });
    const stored = await storedItem(directoryKey('dir-e'));
    const counters = (item: Record<string, unknown> | undefined) =>
      Object.fromEntries(
        Object.entries(item ?? {}).filter(([name]) => /^(global_bans|revoked_30d|[cr]\d+)$/.test(name)),
      );

    // The revoked ban and an active one are erased: the bans are gone, the counts stay.
    for (const { device } of [revoked, active])
      expect((await api.request('POST', `/v1/device/${device}/erase`, { key })).status).toBe(200);
    const after = await entryOf();
    expect(after).toEqual({ ...before, active_global_bans: 1 });
    expect(counters(await storedItem(directoryKey('dir-e')))).toEqual(counters(stored));
    // What every other publisher reads of it is the same, and the kept ban is untouched.
    expect((await directory(keys['dir-b'])).items.find((item) => item.publisher_id === 'dir-e')).toEqual(
      after,
    );
    const listed = await api.request('GET', `/v1/device/${kept.device}/bans`, { key, game: 'g1' });
    expect(listed.body.items.map((ban: { ban_id: number }) => ban.ban_id)).toEqual([kept.banId]);
  });
});

describe('names that look alike (Unicode TS #39 confusable skeletons)', () => {
  const fresh = async () => {
    const id = unique('look');
    return { id, key: (await api.createKey(id, 'look-alike')).api_key };
  };
  const nameItems = async () =>
    (await api.items()).filter((item) => String(item.pk).startsWith('DISPLAYNAME#'));

  it.each([
    ['a Cyrillic а', 'Dev Games', 'Dev Gаmes'],
    ['the same name', 'Dev Games', 'Dev Games'],
    ['letters joined by an invisible joiner', 'DevGames', 'Dev\u200DGames'],
    ['rn for m', 'Dev Games', 'Dev Garnes'],
    ['a Roman numeral Ⅾ', 'Dev Games', 'Ⅾev Games'],
  ])(
    "refuses a name that looks like another publisher's (%s) with 409, storing nothing",
    async (_how, first, second) => {
      const holder = await fresh();
      const other = await fresh();
      // One suffix for both, so that each case contests a name of its own.
      const [taken, name] = [`${first} ${holder.id}`, `${second} ${holder.id}`];
      expect((await rename(holder.key, { display_name: taken })).status).toBe(200);
      const before = await nameItems();
      const res = await rename(other.key, { display_name: name });
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual({
        code: 'conflict',
        message: "display_name looks like another publisher's name in the directory",
      });
      expect(await storedItem(profileKey(other.id))).toBeUndefined();
      expect(await nameEvents(other.id)).toEqual([]);
      expect(await nameItems()).toEqual(before);
      // The holder keeps its name.
      expect((await storedItem(profileKey(holder.id)))?.display_name).toBe(taken);
      // Released: the holder renames itself, and the other may take the look-alike.
      expect((await rename(holder.key, { display_name: `Elsewhere ${holder.id}` })).status).toBe(200);
      expect((await rename(other.key, { display_name: name })).status).toBe(200);
    },
  );

  describe('a claim its holder never used (its request cut short after the claim)', () => {
    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const leaveClaim = async (name: string, holder: string, claimedAt: string) =>
      storeItem({ ...displayNameKey(skeletonDigest(name)), publisher_id: holder, claimed_at: claimedAt });

    it("is taken over once it is older than any request, and the name is then the new holder's", async () => {
      const ghost = await fresh();
      const other = await fresh();
      const name = `Ghost Name ${ghost.id}`;
      await leaveClaim(name, ghost.id, minutesAgo(10));
      const res = await rename(other.key, { display_name: `Ghоst Name ${ghost.id}` });
      expect(res.status).toBe(200);
      expect(await storedItem(displayNameKey(skeletonDigest(name)))).toMatchObject({
        publisher_id: other.id,
      });
      // The ghost cannot come back for it: the name is now someone's.
      expect((await rename(ghost.key, { display_name: name })).status).toBe(409);
      expect(await storedItem(profileKey(ghost.id))).toBeUndefined();
    });

    it('is kept while it is younger than any request could be (its name may still be being set)', async () => {
      const ghost = await fresh();
      const other = await fresh();
      const name = `Young Claim ${ghost.id}`;
      await leaveClaim(name, ghost.id, minutesAgo(1));
      expect((await rename(other.key, { display_name: name })).status).toBe(409);
      expect(await storedItem(displayNameKey(skeletonDigest(name)))).toMatchObject({
        publisher_id: ghost.id,
      });
      expect(await storedItem(profileKey(other.id))).toBeUndefined();
    });

    it('is never taken from a holder whose name it is, however old', async () => {
      const holder = await fresh();
      const other = await fresh();
      const name = `Old Holder ${holder.id}`;
      expect((await rename(holder.key, { display_name: name })).status).toBe(200);
      await leaveClaim(name, holder.id, minutesAgo(60 * 24));
      expect((await rename(other.key, { display_name: name.replace('o', 'о') })).status).toBe(409);
      expect(await storedItem(displayNameKey(skeletonDigest(name)))).toMatchObject({
        publisher_id: holder.id,
      });
    });
  });

  it('lets a publisher rename itself to a look-alike of its own name', async () => {
    const self = await fresh();
    expect((await rename(self.key, { display_name: 'Own Name' })).status).toBe(200);
    expect((await rename(self.key, { display_name: 'Оwn Name' })).status).toBe(200);
    expect((await storedItem(profileKey(self.id)))?.display_name).toBe('Оwn Name');
  });

  it('gives a contested look-alike to exactly one of many publishers racing for it', async () => {
    const racers = await Promise.all(Array.from({ length: 6 }, fresh));
    const names = ['Race Team', 'Rаce Team', 'Race Tеam', 'Racе Team', 'Race\u200D Team', 'Rac\u0435 Team'];
    const answers = await Promise.all(
      racers.map((racer, i) => rename(racer.key, { display_name: names[i] as string })),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    const winner = racers[answers.findIndex((res) => res.status === 200)] as { id: string };
    const held = (await nameItems()).filter((item) => racers.some((r) => r.id === item.publisher_id));
    expect(held.map((item) => item.publisher_id)).toEqual([winner.id]);
    for (const racer of racers) {
      const profile = await storedItem(profileKey(racer.id));
      expect(profile === undefined, racer.id).toBe(racer.id !== winner.id);
    }
  });
});
