import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Ban } from '../../lib/domain/ban-record';
import type { ChangeEvent } from '../../lib/domain/change-events';
import { putPublisherRequestSchema } from '../../lib/model/requests';
import { DIRECTORY_PARTITION, directoryKey, directoryMarkerKey } from '../../lib/storage/keys';
import { startTestApi, type TestApi } from '../support/api';

/**
 * The directory's counting (lib/domain/publishers.ts): what each change event of a global ban
 * adds, how the buckets read at a given time, the display name's rule, and, on the in-memory
 * store, that each event counts exactly once however often and however concurrently its batch
 * is handed on, and after its mark moved off the entry.
 */

// The storage client reads its settings at import: the module is imported once the store runs.
let api: TestApi;
let pub: typeof import('../../lib/domain/publishers');
let lib: { dynamo: typeof import('../../lib/storage/client').dynamo; tableName: string };
beforeAll(async () => {
  // The API's own dispatcher is off: this file alone hands batches on.
  api = await startTestApi({ events: false });
  pub = await import('../../lib/domain/publishers');
  const { dynamo, tableName } = await import('../../lib/storage/client');
  lib = { dynamo, tableName: tableName() };
});
afterAll(() => api?.close());
const activeBucketOf: typeof pub.activeBucketOf = (...args) => pub.activeBucketOf(...args);
const contributionOf: typeof pub.contributionOf = (...args) => pub.contributionOf(...args);
const countInDirectory: typeof pub.countInDirectory = (...args) => pub.countInDirectory(...args);
const directoryEntryFromItem: typeof pub.directoryEntryFromItem = (...args) =>
  pub.directoryEntryFromItem(...args);

const HOUR = 3_600_000;
const DAY = 86_400_000;
const T0 = Date.parse('2026-06-01T10:20:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

let banIds = 0;
const ban = (over: Partial<Ban> = {}): Ban => ({
  ban_id: ++banIds,
  device_id: `dev-${banIds}`,
  ban_type: 'cheat',
  scope: 'global',
  publisher_id: 'pub-a',
  game_id: 'g1',
  reason_code: 'aimbot',
  created_at: iso(T0),
  expires_at: null,
  revoked_at: null,
  ...over,
});
const event = (type: 'ban.created' | 'ban.revoked' | 'ban.erased' | 'ban.updated', b: Ban): ChangeEvent => ({
  event_id: `evt_${type}_${b.ban_id}_${b.updated_at ?? ''}`,
  type,
  occurred_at: b.revoked_at ?? b.updated_at ?? b.created_at,
  publisher_id: b.publisher_id,
  device_id: b.device_id,
  ban: b,
});
const adds = (e: ChangeEvent) => Object.fromEntries(contributionOf(e)?.adds ?? []);

describe('where an active ban is counted until it ends', () => {
  it('to the second for bans of at most 6 hours, the hour up to 45 days, the day beyond; rounded up', () => {
    const created = iso(T0);
    expect(activeBucketOf(created, null)).toBe('permanent_active');
    expect(activeBucketOf(created, iso(T0 + 1500))).toBe(`s${Math.ceil((T0 + 1500) / 1000)}`);
    expect(activeBucketOf(created, iso(T0 + 6 * HOUR))).toBe(`s${(T0 + 6 * HOUR) / 1000}`);
    expect(activeBucketOf(created, iso(T0 + 6 * HOUR + 1000))).toBe(
      `h${Math.ceil((T0 + 6 * HOUR + 1000) / HOUR)}`,
    );
    expect(activeBucketOf(created, iso(T0 + 45 * DAY))).toBe(`h${Math.ceil((T0 + 45 * DAY) / HOUR)}`);
    expect(activeBucketOf(created, iso(T0 + 46 * DAY))).toBe(`d${Math.ceil((T0 + 46 * DAY) / DAY)}`);
  });
});

describe('what each event adds to its publisher', () => {
  const day = Math.floor(T0 / DAY);

  it('a global ban made: one made that day, one active in its bucket, and its time', () => {
    const made = ban({ expires_at: iso(T0 + 2 * DAY) });
    expect(adds(event('ban.created', made))).toEqual({
      global_bans: 1,
      [`c${day}`]: 1,
      [activeBucketOf(made.created_at, made.expires_at)]: 1,
    });
    expect(contributionOf(event('ban.created', made))?.created_at).toBe(made.created_at);
  });

  it('a revoke within 30 days counts as one, day by its creation day; after 30 days only ends it', () => {
    const soon = ban({ revoked_at: iso(T0 + 30 * DAY) });
    expect(adds(event('ban.revoked', soon))).toEqual({
      permanent_active: -1,
      revoked_30d: 1,
      [`r${day}`]: 1,
    });
    const late = ban({ revoked_at: iso(T0 + 30 * DAY + 1) });
    expect(adds(event('ban.revoked', late))).toEqual({ permanent_active: -1 });
  });

  it('an erasure ends a ban in force and is no revocation; of a revoked ban it changes nothing', () => {
    expect(adds(event('ban.erased', ban({ expires_at: iso(T0 + HOUR) })))).toEqual({
      [`s${(T0 + HOUR) / 1000}`]: -1,
    });
    expect(contributionOf(event('ban.erased', ban({ revoked_at: iso(T0 + HOUR) })))).toBeUndefined();
  });

  it('an appeal that moved its end moves it between buckets; a new message alone changes nothing', () => {
    const moved = ban({
      expires_at: iso(T0 + 2 * HOUR),
      previous_expires_at: null,
      updated_at: iso(T0 + HOUR),
    });
    expect(adds(event('ban.updated', moved))).toEqual({
      permanent_active: -1,
      [`s${(T0 + 2 * HOUR) / 1000}`]: 1,
    });
    const message = ban({ expires_at: null, previous_expires_at: null, updated_at: iso(T0 + HOUR) });
    expect(contributionOf(event('ban.updated', message))).toBeUndefined();
  });

  it('game and publisher bans, and policy events, count for nothing', () => {
    expect(contributionOf(event('ban.created', ban({ scope: 'game' })))).toBeUndefined();
    expect(contributionOf(event('ban.created', ban({ scope: 'publisher' })))).toBeUndefined();
  });
});

describe('an entry as read at a given time', () => {
  const base = {
    publisher_id: 'p',
    global_bans: 10,
    first_global_ban_at: iso(T0 - 60 * DAY),
    last_global_ban_at: iso(T0),
  };

  it('counts the buckets that have not ended and the creation days whose 30 days are over', () => {
    const now = T0;
    const oldDay = Math.floor((T0 - 40 * DAY) / DAY);
    const youngDay = Math.floor((T0 - 10 * DAY) / DAY);
    const entry = directoryEntryFromItem(
      {
        ...base,
        permanent_active: 2,
        [`s${Math.floor(now / 1000)}`]: 5, // ended this very second
        [`s${Math.floor(now / 1000) + 1}`]: 1,
        [`h${Math.ceil(now / HOUR)}`]: 3,
        [`d${Math.floor(now / DAY)}`]: 7, // ended at midnight
        [`c${oldDay}`]: 4,
        [`r${oldDay}`]: 1,
        [`c${youngDay}`]: 6,
        [`r${youngDay}`]: 2,
        matured_bans: 4,
        matured_revoked_30d: 0,
        revoked_30d: 3,
        display_name: 'Acme',
        m_evt_x: now,
      },
      now,
    );
    expect(entry).toEqual({
      ...base,
      display_name: 'Acme',
      active_global_bans: 6,
      revoked_within_30_days: 3,
      global_bans_past_30_days: 8,
      revoked_within_30_days_share: 0.125,
    });
  });

  it('has no share while no ban is past its 30 days, and a null name until one is set', () => {
    expect(directoryEntryFromItem({ ...base, permanent_active: 1 }, T0)).toMatchObject({
      display_name: null,
      global_bans_past_30_days: 0,
      revoked_within_30_days_share: null,
      revoked_within_30_days: 0,
    });
  });

  it('fails loudly on an item this code did not write', () => {
    expect(() => directoryEntryFromItem({ publisher_id: 'p' }, T0)).toThrow(/malformed/);
  });
});

describe('the display name', () => {
  const parse = (display_name: unknown) => putPublisherRequestSchema.safeParse({ display_name });
  it.each([
    'Acme',
    'Acme Games 🎮',
    'x'.repeat(64),
    '🎮'.repeat(64),
    '👨\u200D👩\u200D👧 family',
    'Ünïcödé 名前',
  ])('takes %j', (name) => {
    expect(parse(name)).toMatchObject({ success: true, data: { display_name: name } });
  });
  it.each([
    ['', 'too_small'],
    ['x'.repeat(65), 'too_big'],
    ['🎮'.repeat(65), 'too_big'],
    [' Acme', 'invalid_format'],
    ['Acme ', 'invalid_format'],
    ['   ', 'invalid_format'],
    ['a\tb', 'invalid_format'],
    ['a\nb', 'invalid_format'],
    ['a\u0085b', 'invalid_format'],
    ['a\u202Eb', 'invalid_format'],
    ['a\u2067b', 'invalid_format'],
    ['a\u200Fb', 'invalid_format'],
    ['a\u200Bb', 'invalid_format'],
    ['a\uFEFFb', 'invalid_format'],
    ['a\u2028b', 'invalid_format'],
    ['a\uD800b', 'invalid_format'],
    [42, 'invalid_type'],
  ])('refuses %j (%s)', (name, code) => {
    const result = parse(name);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.code)).toContain(code);
  });
});

describe('counting on the store', () => {
  afterEach(() => vi.useRealTimers());

  const entryOf = async (publisherId: string) =>
    (
      await lib.dynamo.send(
        new GetCommand({ TableName: lib.tableName, Key: directoryKey(publisherId), ConsistentRead: true }),
      )
    ).Item;
  const listed = async (publisherId: string, now = Date.now()) => {
    const item = await entryOf(publisherId);
    return item && directoryEntryFromItem(item, now);
  };

  it('counts each event once when its batch is handed on again, and when two dispatchers run it at once', async () => {
    const now = Date.now();
    const p = 'count-a';
    const made = [0, 1, 2].map(() => ban({ publisher_id: p, created_at: iso(now - 1000) }));
    const expiring = ban({ publisher_id: p, created_at: iso(now - 1000), expires_at: iso(now + HOUR) });
    const revoked = { ...made[0], revoked_at: iso(now) } as Ban;
    const erased = made[1] as Ban;
    const batch = [
      ...[...made, expiring].map((b) => event('ban.created', b)),
      event('ban.revoked', revoked),
      event('ban.erased', erased),
      // Another publisher's game ban in the same batch counts for nothing.
      event('ban.created', ban({ publisher_id: 'count-b', scope: 'game' })),
    ];
    await countInDirectory(batch);
    const first = await listed(p);
    expect(first).toEqual({
      publisher_id: p,
      display_name: null,
      active_global_bans: 2,
      global_bans: 4,
      revoked_within_30_days: 1,
      global_bans_past_30_days: 0,
      revoked_within_30_days_share: null,
      first_global_ban_at: iso(now - 1000),
      last_global_ban_at: iso(now - 1000),
    });
    // Again, whole; then twice at once, overlapping, with a new event in one of them.
    await countInDirectory(batch);
    const later = ban({ publisher_id: p, created_at: iso(now) });
    await Promise.all([
      countInDirectory([...batch.slice(2), event('ban.created', later)]),
      countInDirectory([event('ban.created', later), ...batch]),
    ]);
    expect(await listed(p)).toEqual({
      ...first,
      active_global_bans: 3,
      global_bans: 5,
      last_global_ban_at: iso(now),
    });
    expect(await entryOf('count-b')).toBeUndefined();
  });

  it('an expiring ban stops counting as active the second it ends, with no event', async () => {
    const now = Date.now();
    const p = 'count-expiry';
    // To the second: a ban ending at a whole second stops counting at that very second.
    const ends = Math.ceil((now + 10 * 60_000) / 1000) * 1000;
    await countInDirectory([
      event('ban.created', ban({ publisher_id: p, created_at: iso(now), expires_at: iso(ends) })),
      event('ban.created', ban({ publisher_id: p, created_at: iso(now), expires_at: iso(now + 3 * HOUR) })),
    ]);
    expect((await listed(p, ends - 1000))?.active_global_bans).toBe(2);
    expect((await listed(p, ends))?.active_global_bans).toBe(1);
    expect((await listed(p, now + 3 * HOUR + 1000))?.active_global_bans).toBe(0);
  });

  it('moves its marks off the entry after their hour, and a batch handed on after that still counts once', async () => {
    const p = 'count-moved';
    const now = Date.now();
    const made = ban({ publisher_id: p, created_at: iso(now) });
    const batch = [event('ban.created', made)];
    await countInDirectory(batch);
    expect(Object.keys((await entryOf(p)) ?? {}).filter((name) => name.startsWith('m_'))).toEqual([
      `m_${batch[0]?.event_id}`,
    ]);

    // Two hours on, the next count moves the old mark to its own item.
    vi.useFakeTimers({ toFake: ['Date'], now: now + pub.ENTRY_MARKER_MOVE_AFTER_MS + 1000 });
    const next = ban({ publisher_id: p, created_at: iso(Date.now()) });
    await countInDirectory([event('ban.created', next)]);
    const entry = await entryOf(p);
    expect(Object.keys(entry ?? {}).filter((name) => name.startsWith('m_'))).toEqual([
      `m_${event('ban.created', next).event_id}`,
    ]);
    const marker = await lib.dynamo.send(
      new GetCommand({ TableName: lib.tableName, Key: directoryMarkerKey(batch[0]?.event_id ?? '') }),
    );
    expect(marker.Item).toMatchObject({ publisher_id: p, ttl: expect.any(Number) });
    expect(marker.Item?.ttl).toBeGreaterThan(Date.now() / 1000 + 2 * 86_400);

    // The first batch handed on again (the stream keeps records 24 hours): counted once still.
    await countInDirectory(batch);
    expect((await listed(p))?.global_bans).toBe(2);
  });

  it("folds a creation day into the share once its bans' 30 days are over, and the read agrees before and after", async () => {
    const p = 'count-share';
    const now = Date.now();
    const made = [0, 1, 2, 3].map(() => ban({ publisher_id: p, created_at: iso(now) }));
    await countInDirectory([
      ...made.map((b) => event('ban.created', b)),
      event('ban.revoked', { ...made[0], revoked_at: iso(now + DAY) } as Ban),
    ]);
    const past = now + 32 * DAY;
    const before = await listed(p, past);
    expect(before).toMatchObject({
      global_bans: 4,
      global_bans_past_30_days: 4,
      revoked_within_30_days: 1,
      revoked_within_30_days_share: 0.25,
    });
    // A later count tidies the entry: the day folded into the totals, the same answer.
    vi.useFakeTimers({ toFake: ['Date'], now: past });
    await countInDirectory([event('ban.created', ban({ publisher_id: p, created_at: iso(past) }))]);
    const entry = await entryOf(p);
    expect(Object.keys(entry ?? {}).filter((name) => /^[cr]\d+$/.test(name))).toEqual([
      `c${Math.floor(past / DAY)}`,
    ]);
    expect(entry).toMatchObject({ matured_bans: 4, matured_revoked_30d: 1 });
    expect(await listed(p, past)).toEqual({
      ...before,
      active_global_bans: (before?.active_global_bans ?? 0) + 1,
      global_bans: 5,
      last_global_ban_at: iso(past),
    });
  });

  it('keeps one entry per publisher in one partition, nothing else there', async () => {
    const { Items = [] } = await lib.dynamo.send(
      new QueryCommand({
        TableName: lib.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': DIRECTORY_PARTITION },
      }),
    );
    expect(Items.map((item) => item.sk)).toEqual(['count-a', 'count-expiry', 'count-moved', 'count-share']);
  });
});
