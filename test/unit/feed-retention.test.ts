import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settingsFrom } from '../../lib/config';
import { eventIdOf } from '../../lib/domain/audit';
import { type ChangeEvent, type ChangeRecord, eventsOfChange } from '../../lib/domain/change-events';
import { deploymentIdOf, forgetDeploymentId } from '../../lib/domain/deployment';
import { CursorExpiredError, IntegrityError, InvalidInputError } from '../../lib/domain/errors';
import { appendToFeed, clearFeedCaches, feedHeadCursor, readFeed } from '../../lib/domain/feed';
import { ShortCache } from '../../lib/domain/feed-cache';
import { defaultPolicyFlags } from '../../lib/domain/policy';
import { parseRetentionDays, retentionMs } from '../../lib/domain/retention';
import { tableName } from '../../lib/storage/client';
import {
  banKey,
  deploymentKey,
  FEED_HEAD_SK,
  feedEntryKey,
  feedHeadKey,
  feedMarkerKey,
  GLOBAL_FEED_PARTITION,
  gameFeedPartition,
  policyKey,
  publisherFeedPartition,
} from '../../lib/storage/keys';
import { stubSettings, unstubSettings } from '../support/settings';

/**
 * The feed's retention and polling scale against a mocked client that keeps items in memory:
 * the head item and the position after it, the 410 conditions, reads without a cursor past what
 * expired, the cache's keying, an erasure over an expired entry, and TTL deletions never being
 * events. The calls each operation makes are asserted too.
 */

const ddb = mockClient(DynamoDBDocumentClient);
const conditionFailed = () =>
  Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 27, 12);
const PUB = publisherFeedPartition('pub-a');
const GAME = gameFeedPartition('pub-a', 'g1');
const GLOBAL = GLOBAL_FEED_PARTITION;

/** The table, as items by partition and sort key. */
let table: Map<string, Map<string, Record<string, any>>>;
const part = (pk: string) => {
  const items = table.get(pk) ?? new Map<string, Record<string, any>>();
  table.set(pk, items);
  return items;
};
const store = (item: Record<string, any>) => part(item.pk).set(item.sk, structuredClone(item));
const stored = (pk: string, sk: string) => table.get(pk)?.get(sk);

const query = (input: QueryCommandInput) => {
  const values = input.ExpressionAttributeValues ?? {};
  const [from, to] = /BETWEEN/.test(String(input.KeyConditionExpression))
    ? [values[':from'] ?? values[':entry'], values[':to'] ?? values[':head']]
    : [values[':live'], `${values[':live']}\uffff`];
  const sks = [...part(values[':pk']).keys()].filter((sk) => sk >= from && sk <= to).sort();
  if (input.ScanIndexForward === false) sks.reverse();
  const limited = input.Limit === undefined ? sks : sks.slice(0, input.Limit);
  const last = limited.at(-1);
  return {
    Items: limited.map((sk) => structuredClone(stored(values[':pk'], sk))),
    ...(limited.length < sks.length && last ? { LastEvaluatedKey: { pk: values[':pk'], sk: last } } : {}),
  };
};

const ban = (id: number, scope: 'game' | 'publisher' | 'global' = 'game') => ({
  ban_id: id,
  device_id: `dev-${id}`,
  ban_type: 'cheat' as const,
  scope,
  publisher_id: 'pub-a',
  game_id: 'g1',
  reason_code: 'aimbot',
  details_json: '{"clip":"c"}',
  created_at: new Date(NOW - DAY).toISOString(),
  expires_at: null,
  revoked_at: null,
});
const created = (id: number, scope: 'game' | 'publisher' | 'global' = 'game'): ChangeEvent =>
  ({
    event_id: eventIdOf('pub-a', 'ban.created', String(id)),
    type: 'ban.created',
    occurred_at: new Date(NOW - DAY + id).toISOString(),
    publisher_id: 'pub-a',
    device_id: `dev-${id}`,
    ban: ban(id, scope),
  }) as ChangeEvent;

/** An entry appended `ageMs` ago at `seq`, with the ttl the append gives it. */
const entry = (pk: string, seq: number, ageMs: number, id = seq) => {
  const appended = NOW - ageMs;
  const event = created(id, pk === GLOBAL ? 'global' : pk === PUB ? 'publisher' : 'game');
  store({
    ...feedEntryKey(pk, seq),
    event_id: event.event_id,
    appended_at: new Date(appended).toISOString(),
    event,
    ttl: Math.ceil((appended + 30 * DAY) / 1000),
  });
};
const head = (pk: string, seq: number) => store({ ...feedHeadKey(pk), seq });
const RANDOM_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const DEPLOYMENT_ID = deploymentIdOf(RANDOM_ID, tableName());
/** The page of a reader that is caught up at `cursor` (no head here records a delay, unless given). */
const caughtUp = (cursor: string, delay: number | null = null) => ({
  items: [],
  next_cursor: cursor,
  deployment_id: DEPLOYMENT_ID,
  delay_ms: delay,
});

beforeEach(() => {
  table = new Map();
  ddb.reset();
  clearFeedCaches();
  // A table whose deployment item exists, in a process that has not read it yet (one GetItem).
  forgetDeploymentId();
  store({ ...deploymentKey(), random_id: RANDOM_ID });
  vi.spyOn(Date, 'now').mockImplementation(() => NOW);
  stubSettings({ EVENT_RETENTION_DAYS: '30' });
  stubSettings({ FEED_CACHE_MS: '0' });
  store({
    ...policyKey('pub-a'),
    publisher_id: 'pub-a',
    ...defaultPolicyFlags,
    updated_at: '2026-11-01T00:00:00.000Z',
  });
  ddb.on(GetCommand).callsFake((input) => ({ Item: structuredClone(stored(input.Key.pk, input.Key.sk)) }));
  ddb.on(QueryCommand).callsFake(query);
  ddb.on(PutCommand).callsFake((input) => {
    if (input.ConditionExpression === 'attribute_not_exists(pk)' && stored(input.Item.pk, input.Item.sk))
      throw conditionFailed();
    store(input.Item);
    return {};
  });
  ddb.on(UpdateCommand).callsFake((input) => {
    const { pk, sk } = input.Key;
    const item = stored(pk, sk);
    const values = input.ExpressionAttributeValues;
    if (sk === FEED_HEAD_SK) {
      if (item && item.seq >= values[':seq']) throw conditionFailed();
      store({
        pk,
        sk,
        seq: values[':seq'],
        occurred_at: values[':occurred'],
        appended_at: values[':appended'],
      });
    } else if (String(sk).startsWith('EVENT#')) {
      if (values[':from'] === undefined ? item?.seq !== undefined : item?.seq !== values[':from'])
        throw conditionFailed();
      store({ ...item, pk, sk, seq: values[':seq'], event_id: values[':id'], ttl: values[':ttl'] });
    } else {
      // An erasure's redaction of an entry.
      if (!item || item.event_id !== values[':id']) throw conditionFailed();
      delete item.event.ban.details_json;
    }
    return {};
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  unstubSettings();
});

const feedQueries = () =>
  ddb
    .commandCalls(QueryCommand)
    .map((call) => call.args[0].input)
    .filter((input) => String(input.ExpressionAttributeValues?.[':pk']).startsWith('FEED#'));
const cursorAt = async (positions: [number, number, number]) => {
  const saved = table;
  table = new Map();
  for (const [index, pk] of [PUB, GAME, GLOBAL].entries()) head(pk, positions[index] ?? 0);
  const cursor = await feedHeadCursor('pub-a', 'g1');
  table = saved;
  ddb.resetHistory();
  return cursor;
};

describe('feedHeadCursor', () => {
  it('is one consistent Query per partition, newest first over the head and the last entry, at the higher of the two', async () => {
    entry(PUB, 1, 1000);
    entry(PUB, 2, 500);
    head(PUB, 1); // an append whose head update has not landed yet
    head(GAME, 7); // every entry deleted by time to live
    const cursor = await feedHeadCursor('pub-a', 'g1');

    const queries = feedQueries();
    expect(queries.map((q) => q.ExpressionAttributeValues?.[':pk'])).toEqual([PUB, GAME, GLOBAL]);
    for (const q of queries)
      expect(q).toMatchObject({
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :entry AND :head',
        ExpressionAttributeValues: { ':entry': 'SEQ#', ':head': FEED_HEAD_SK },
        ScanIndexForward: false,
        Limit: 2,
        ConsistentRead: true,
      });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(3);
    // Reading from it: caught up (nothing after 2, 7, 0), the same cursor back.
    expect(await readFeed('pub-a', 'g1', { limit: 100, cursor })).toEqual(caughtUp(cursor));
    // What is appended after it, and only that, is read from it.
    await appendToFeed([created(100, 'publisher'), created(101, 'game')]);
    const page = await readFeed('pub-a', 'g1', { limit: 100, cursor });
    expect(page.items.map((item) => 'ban' in item && item.ban.ban_id)).toEqual([100, 101]);
    expect(stored(PUB, feedEntryKey(PUB, 3).sk)?.event.ban.ban_id).toBe(100);
    expect(stored(GAME, feedEntryKey(GAME, 8).sk)?.event.ban.ban_id).toBe(101);
  });
});

describe('appending', () => {
  it('continues after the head when time to live deleted every entry, stamps ttl on marker and entry, and raises the head once per batch', async () => {
    head(GAME, 5);
    await appendToFeed([created(1), created(2)]);

    const entries = [...part(GAME).values()].filter((item) => String(item.sk).startsWith('SEQ#'));
    expect(entries.map((item) => item.sk)).toEqual([feedEntryKey(GAME, 6).sk, feedEntryKey(GAME, 7).sk]);
    const ttl = Math.ceil((NOW + 30 * DAY) / 1000);
    for (const item of entries) expect(item.ttl).toBe(ttl);
    expect(stored(GAME, feedMarkerKey(GAME, created(1).event_id).sk)).toMatchObject({ seq: 6, ttl });
    // The head names the newest entry, with when its event happened and when it was appended.
    const newest = { occurred_at: created(2).occurred_at, appended_at: new Date(NOW).toISOString() };
    expect(stored(GAME, FEED_HEAD_SK)).toEqual({ ...feedHeadKey(GAME), seq: 7, ...newest });
    const headUpdates = ddb
      .commandCalls(UpdateCommand)
      .map((call) => call.args[0].input)
      .filter((input) => input.Key?.sk === FEED_HEAD_SK);
    expect(headUpdates).toEqual([
      expect.objectContaining({
        UpdateExpression: 'SET seq = :seq, occurred_at = :occurred, appended_at = :appended',
        ConditionExpression: 'attribute_not_exists(seq) OR seq < :seq',
        ExpressionAttributeValues: {
          ':seq': 7,
          ':occurred': newest.occurred_at,
          ':appended': newest.appended_at,
        },
      }),
    ]);
    // The one read of the end: the head and the last entry, newest first.
    expect(feedQueries()).toEqual([expect.objectContaining({ Limit: 2, ScanIndexForward: false })]);
  });

  it('never lowers the head: a slower appender of an earlier position leaves it where it is', async () => {
    head(GAME, 9);
    entry(GAME, 9, 0);
    await appendToFeed([created(1)]);
    expect(stored(GAME, feedEntryKey(GAME, 10).sk)?.event_id).toBe(created(1).event_id);
    expect(stored(GAME, FEED_HEAD_SK)?.seq).toBe(10);
  });

  it('leaves an entry past the retention as it is when its ban is erased (time to live may have deleted it), and still redacts a kept one', async () => {
    const erased = (id: number) =>
      ({ ...created(id), type: 'ban.erased', event_id: `evt_erased_${id}` }) as ChangeEvent;
    // Ban 1's entry is gone (deleted), its marker past its ttl but not deleted yet.
    store({ ...feedMarkerKey(GAME, created(1).event_id), seq: 1, ttl: Math.floor(NOW / 1000) - 10 });
    entry(GAME, 2, 1000, 2);
    store({ ...feedMarkerKey(GAME, created(2).event_id), seq: 2, ttl: Math.ceil(NOW / 1000) + 1000 });
    head(GAME, 2);
    await appendToFeed([erased(1), erased(2)]);

    const redactions = ddb
      .commandCalls(UpdateCommand)
      .map((call) => call.args[0].input)
      .filter((input) => String(input.Key?.sk).startsWith('SEQ#'));
    expect(redactions.map((input) => input.Key?.sk)).toEqual([feedEntryKey(GAME, 2).sk]);
    expect(stored(GAME, feedEntryKey(GAME, 2).sk)?.event.ban.details_json).toBeUndefined();
  });

  it('still fails (for the batch to be retried) when a marker within the retention names no entry yet', async () => {
    store({ ...feedMarkerKey(GAME, created(1).event_id), seq: 1, ttl: Math.ceil(NOW / 1000) + 1000 });
    entry(GAME, 1, 0, 9); // another event at its position
    head(GAME, 1);
    await expect(
      appendToFeed([{ ...created(1), type: 'ban.erased', event_id: 'evt_e' } as ChangeEvent]),
    ).rejects.toThrow('conditional');
  });
});

describe('reading with a cursor', () => {
  it('answers a page after the cursor, each partition read in one Query that ends with the head, the policy in parallel', async () => {
    const cursor = await cursorAt([0, 2, 0]);
    entry(GAME, 1, 5000);
    entry(GAME, 2, 4000);
    entry(GAME, 3, 3000);
    head(GAME, 3);
    const page = await readFeed('pub-a', 'g1', { limit: 100, cursor });
    expect(page.items.map((item) => 'ban' in item && item.ban.ban_id)).toEqual([3]);
    expect(feedQueries().find((q) => q.ExpressionAttributeValues?.[':pk'] === GAME)).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':from': feedEntryKey(GAME, 3).sk, ':to': FEED_HEAD_SK },
      Limit: 100,
      ConsistentRead: true,
    });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(3);
    // The policy, then the deployment item (this process's first read of it).
    expect(ddb.commandCalls(GetCommand).map((call) => call.args[0].input.Key)).toEqual([
      policyKey('pub-a'),
      deploymentKey(),
    ]);
    expect(page.deployment_id).toBe(DEPLOYMENT_ID);
    expect(page.next_cursor).toBe(await cursorAt([0, 3, 0]));
  });

  it('is caught up (an empty page, the same cursor) when the head is at the cursor, and in a partition from before heads', async () => {
    const cursor = await cursorAt([4, 3, 0]);
    entry(PUB, 4, 1000);
    entry(GAME, 3, 1000);
    head(GAME, 3);
    expect(await readFeed('pub-a', 'g1', { limit: 100, cursor })).toEqual(caughtUp(cursor));
  });

  it('is 410 cursor_expired when every entry after the cursor was deleted (the head is past it)', async () => {
    const cursor = await cursorAt([0, 3, 0]);
    head(GAME, 5);
    await expect(readFeed('pub-a', 'g1', { limit: 100, cursor })).rejects.toThrow(CursorExpiredError);
    await expect(readFeed('pub-a', 'g1', { limit: 100, cursor })).rejects.toThrow(
      /resync from GET \/v1\/enforcement\/snapshot/,
    );
  });

  it('is 410 when the first entry after the cursor is not the next position (those between were deleted)', async () => {
    const cursor = await cursorAt([0, 3, 0]);
    entry(GAME, 5, 1000);
    head(GAME, 5);
    await expect(readFeed('pub-a', 'g1', { limit: 100, cursor })).rejects.toThrow(CursorExpiredError);
  });

  it('is 410 when the next entry is past the retention, deleted or not, by its ttl or by its age', async () => {
    const cursor = await cursorAt([0, 3, 0]);
    entry(GAME, 4, 31 * DAY);
    head(GAME, 4);
    await expect(readFeed('pub-a', 'g1', { limit: 100, cursor })).rejects.toThrow(CursorExpiredError);
    // An entry from before ttls, past the retention by its age alone.
    const legacy = stored(GAME, feedEntryKey(GAME, 4).sk) as Record<string, unknown>;
    delete legacy.ttl;
    await expect(readFeed('pub-a', 'g1', { limit: 100, cursor })).rejects.toThrow(CursorExpiredError);
    // A retention set longer afterwards does not bring back what its ttl ended.
    stubSettings({ EVENT_RETENTION_DAYS: '60' });
    store({ ...legacy, ttl: Math.floor(NOW / 1000) });
    await expect(readFeed('pub-a', 'g1', { limit: 100, cursor })).rejects.toThrow(CursorExpiredError);
    // Within it, the same entry is read.
    store({ ...legacy, ttl: Math.floor(NOW / 1000) + 60 });
    expect((await readFeed('pub-a', 'g1', { limit: 100, cursor })).items).toHaveLength(1);
  });

  it('is 410 when the head is past the last entry of a read that reached it', async () => {
    const cursor = await cursorAt([0, 3, 0]);
    entry(GAME, 4, 1000);
    head(GAME, 6);
    await expect(readFeed('pub-a', 'g1', { limit: 100, cursor })).rejects.toThrow(CursorExpiredError);
  });
});

describe("a cursor ahead of the feed's end", () => {
  const endReads = (pk: string) =>
    feedQueries().filter((q) => q.ExpressionAttributeValues?.[':pk'] === pk && q.ScanIndexForward === false);

  it("refuses a cursor ahead of the feed's end with 400 ahead_of_feed, after an uncached consistent read of the end, writing nothing", async () => {
    const cursor = await cursorAt([0, 5, 0]);
    entry(GAME, 1, 1000);
    entry(GAME, 2, 500);
    head(GAME, 2);
    const refused = readFeed('pub-a', 'g1', { limit: 100, cursor });
    await expect(refused).rejects.toThrow(InvalidInputError);
    await expect(readFeed('pub-a', 'g1', { limit: 100, cursor })).rejects.toMatchObject({
      field: 'cursor',
      issue: 'ahead_of_feed',
      message: expect.stringMatching(/ahead of the feed's end.*resync from GET \/v1\/enforcement\/snapshot/),
    });
    expect(endReads(GAME)).toEqual([
      expect.objectContaining({ Limit: 2, ConsistentRead: true, ScanIndexForward: false }),
      expect.objectContaining({ Limit: 2, ConsistentRead: true, ScanIndexForward: false }),
    ]);
    // Nothing written, not even the deployment item, nor read.
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(
      ddb.commandCalls(GetCommand).filter((call) => call.args[0].input.Key?.pk === deploymentKey().pk),
    ).toHaveLength(0);
  });

  it('refuses a cursor into a partition this store never appended to', async () => {
    const cursor = await cursorAt([3, 0, 0]);
    await expect(readFeed('pub-a', 'g1', { limit: 100, cursor })).rejects.toMatchObject({
      field: 'cursor',
      issue: 'ahead_of_feed',
    });
  });

  it('never refuses a cursor at the last entry while the head lags it (an append whose head update has not landed)', async () => {
    stubSettings({ FEED_CACHE_MS: '60000' });
    entry(GAME, 1, 1000);
    entry(GAME, 2, 500);
    entry(GAME, 3, 100);
    head(GAME, 1);
    const cursor = await cursorAt([0, 3, 0]);
    for (let poll = 0; poll < 3; poll += 1)
      expect(await readFeed('pub-a', 'g1', { limit: 100, cursor })).toEqual(caughtUp(cursor));
    // The page is cached; the end is read again, uncached, by every poll that meets the lagging head.
    expect(feedQueries().filter((q) => q.ScanIndexForward !== false)).toHaveLength(3);
    expect(endReads(GAME)).toHaveLength(3);
    // Once the head is raised, no read of the end at all.
    head(GAME, 3);
    clearFeedCaches();
    ddb.resetHistory();
    expect(await readFeed('pub-a', 'g1', { limit: 100, cursor })).toEqual(caughtUp(cursor));
    expect(feedQueries()).toHaveLength(3);
  });

  it('never refuses a cursor at the last entry of a partition from before heads, nor one at the head', async () => {
    entry(PUB, 1, 1000);
    entry(PUB, 2, 500);
    head(GAME, 4);
    const cursor = await cursorAt([2, 4, 0]);
    expect(await readFeed('pub-a', 'g1', { limit: 100, cursor })).toEqual(caughtUp(cursor));
    expect(endReads(PUB)).toHaveLength(1);
    expect(endReads(GAME)).toHaveLength(0);
  });
});

describe('delay_ms: how far the feed is behind the writes', () => {
  /** How long `created(id)` waited when appended `ageMs` ago (it happened a day before NOW, plus id ms). */
  const waited = (id: number, ageMs = 0) => DAY - id - ageMs;

  it('is null while none of the three partitions holds an event, also with a head', async () => {
    expect((await readFeed('pub-a', 'g1', { limit: 100 })).delay_ms).toBeNull();
    head(GAME, 3); // every entry deleted, from before heads kept a record
    const cursor = await cursorAt([0, 3, 0]);
    expect(await readFeed('pub-a', 'g1', { limit: 100, cursor })).toEqual(caughtUp(cursor));
  });

  it("is the head's record when a read reaches the head, even caught up: the newest append's wait", async () => {
    await appendToFeed([created(1), created(5)]);
    const page = await readFeed('pub-a', 'g1', { limit: 100 });
    expect(page.items).toHaveLength(2);
    expect(page.delay_ms).toBe(waited(5));
    // Caught up: nothing read, and the head still tells how late the last append was.
    expect(await readFeed('pub-a', 'g1', { limit: 100, cursor: page.next_cursor })).toEqual(
      caughtUp(page.next_cursor, waited(5)),
    );
  });

  it('is the last entry read when the read stops before the head, or the head lags it', async () => {
    entry(GAME, 1, 3000, 1);
    entry(GAME, 2, 2000, 2);
    entry(GAME, 3, 1000, 3);
    store({
      ...feedHeadKey(GAME),
      seq: 3,
      occurred_at: new Date(NOW - 10).toISOString(),
      appended_at: new Date(NOW).toISOString(),
    });
    expect((await readFeed('pub-a', 'g1', { limit: 1 })).delay_ms).toBe(waited(1, 3000));
    expect((await readFeed('pub-a', 'g1', { limit: 100 })).delay_ms).toBe(10);
    // An entry appended past the head (its head update not landed yet) is newer than the head's record.
    entry(GAME, 4, 0, 4);
    expect((await readFeed('pub-a', 'g1', { limit: 100 })).delay_ms).toBe(waited(4));
  });

  it('is the largest over the three partitions, and never negative (an event stamped after its append)', async () => {
    entry(PUB, 1, 5000, 1);
    entry(GLOBAL, 1, 1000, 2);
    head(PUB, 1);
    head(GLOBAL, 1);
    expect((await readFeed('pub-a', 'g1', { limit: 100 })).delay_ms).toBe(waited(2, 1000));
    table = new Map();
    store({
      ...policyKey('pub-a'),
      publisher_id: 'pub-a',
      ...defaultPolicyFlags,
      updated_at: '2026-11-01T00:00:00.000Z',
    });
    const early = new Date(NOW - 50).toISOString();
    store({
      ...feedEntryKey(GAME, 1),
      event_id: 'evt_1',
      appended_at: early,
      event: { ...created(1), occurred_at: new Date(NOW).toISOString() },
    });
    expect((await readFeed('pub-a', 'g1', { limit: 100 })).delay_ms).toBe(0);
  });
});

describe('reading without a cursor', () => {
  it('starts at the oldest entry kept, with a cursor past the expired ones, never a 410', async () => {
    for (let seq = 1; seq <= 3; seq += 1) entry(GAME, seq, 40 * DAY);
    entry(GAME, 4, 1000);
    entry(GAME, 5, 500);
    head(GAME, 5);
    head(PUB, 9); // all nine deleted
    entry(GLOBAL, 2, 10 * DAY); // 1 deleted, 2 kept, no head yet
    const page = await readFeed('pub-a', 'g1', { limit: 100 });
    expect(page.items.map((item) => 'ban' in item && item.ban.ban_id)).toEqual([2, 4, 5]);
    expect(page.next_cursor).toBe(await cursorAt([9, 5, 2]));
  });

  it('with nothing read, answers a cursor no lower than what expired, so the next read is not a 410', async () => {
    entry(GAME, 1, 40 * DAY);
    entry(GAME, 2, 40 * DAY);
    head(GAME, 2);
    const page = await readFeed('pub-a', 'g1', { limit: 100 });
    expect(page).toEqual(caughtUp(await cursorAt([0, 2, 0])));
    expect(await readFeed('pub-a', 'g1', { limit: 100, cursor: page.next_cursor })).toEqual(page);
  });

  it('finds where the kept entries start past a page of expired ones (a search of one-item reads), and stops a page at that partition', async () => {
    for (let seq = 1; seq <= 300; seq += 1) entry(GAME, seq, seq <= 250 ? 40 * DAY : 1000);
    head(GAME, 300);
    const page = await readFeed('pub-a', 'g1', { limit: 10 });
    expect(page.items.map((item) => 'ban' in item && item.ban.ban_id)).toEqual(
      Array.from({ length: 10 }, (_, i) => 251 + i),
    );
    // The first page of 10, the end (Limit 2), about log2(290) one-item probes, the page from 250.
    const game = feedQueries().filter((q) => q.ExpressionAttributeValues?.[':pk'] === GAME);
    expect(game.filter((q) => q.Limit === 1).length).toBeLessThanOrEqual(10);
    expect(game.length).toBeLessThanOrEqual(14);
    const next = await readFeed('pub-a', 'g1', { limit: 100, cursor: page.next_cursor });
    expect(next.items).toHaveLength(40);
  });

  it('starts after deleted positions between the expired entries still stored and the first kept one', async () => {
    for (let seq = 1; seq <= 200; seq += 1) entry(GAME, seq, 40 * DAY);
    for (let seq = 261; seq <= 300; seq += 1) entry(GAME, seq, 1000);
    head(GAME, 300);
    // A reader of other partitions only: the page stops before this one is read into.
    const page = await readFeed('pub-a', 'g1', { limit: 100 });
    expect(page.items.map((item) => 'ban' in item && item.ban.ban_id)).toEqual(
      Array.from({ length: 40 }, (_, i) => 261 + i),
    );
    expect(page.next_cursor).toBe(await cursorAt([0, 300, 0]));
    const fresh = await readFeed('pub-a', 'g1', { limit: 1 });
    expect(fresh.items.map((item) => 'ban' in item && item.ban.ban_id)).toEqual([261]);
    // A cursor taken before any of them is read: it points at 260, not into the deleted gap.
    entry(PUB, 1, 0, 1);
    entry(PUB, 2, 0, 2);
    head(PUB, 2);
    const other = await readFeed('pub-a', 'g1', { limit: 1 });
    expect(other.items.map((item) => 'ban' in item && item.ban.ban_id)).toEqual([1]);
    expect(other.next_cursor).toBe(await cursorAt([1, 260, 0]));
    const after = await readFeed('pub-a', 'g1', { limit: 100, cursor: other.next_cursor });
    expect(after.items).toHaveLength(41);
  });
});

describe('the cache of feed reads', () => {
  it('answers the same poll from one read per partition within FEED_CACHE_MS, and reads again after it', async () => {
    stubSettings({ FEED_CACHE_MS: '1000' });
    let now = NOW;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    entry(GAME, 1, 1000);
    head(GAME, 1);
    const first = await readFeed('pub-a', 'g1', { limit: 100 });
    for (let i = 0; i < 5; i += 1) expect(await readFeed('pub-a', 'g1', { limit: 100 })).toEqual(first);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(3);
    // The policy, shared too, and the deployment item, read once by the process.
    expect(ddb.commandCalls(GetCommand)).toHaveLength(2);
    // Another limit is another read of each partition; another position, of that partition only
    // (the cursor is at 0 in the other two, which the first poll read already).
    await readFeed('pub-a', 'g1', { limit: 50 });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(6);
    await readFeed('pub-a', 'g1', { limit: 100, cursor: first.next_cursor });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(7);
    expect(ddb.commandCalls(QueryCommand).at(-1)?.args[0].input.ExpressionAttributeValues).toMatchObject({
      ':pk': GAME,
      ':from': feedEntryKey(GAME, 2).sk,
    });
    // A new entry is seen once the window has passed, from the same cursor.
    entry(GAME, 2, 0);
    head(GAME, 2);
    expect((await readFeed('pub-a', 'g1', { limit: 100, cursor: first.next_cursor })).items).toEqual([]);
    now += 1000;
    const later = await readFeed('pub-a', 'g1', { limit: 100, cursor: first.next_cursor });
    expect(later.items.map((item) => 'ban' in item && item.ban.ban_id)).toEqual([2]);
  });

  it('applies the retention to a cached page at each read: an entry that expires meanwhile is a 410, not served', async () => {
    stubSettings({ FEED_CACHE_MS: '60000' });
    let now = NOW;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const cursor = await cursorAt([0, 0, 0]);
    entry(GAME, 1, 30 * DAY - 500);
    head(GAME, 1);
    expect((await readFeed('pub-a', 'g1', { limit: 100, cursor })).items).toHaveLength(1);
    now += 1000;
    await expect(readFeed('pub-a', 'g1', { limit: 100, cursor })).rejects.toThrow(CursorExpiredError);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(3);
  });

  it('is off with FEED_CACHE_MS=0: every poll reads', async () => {
    for (let i = 0; i < 3; i += 1) await readFeed('pub-a', 'g1', { limit: 100 });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(9);
    // The policy each time; the deployment item once (it never changes for a table).
    expect(ddb.commandCalls(GetCommand)).toHaveLength(4);
  });

  it('joins a read in flight, keeps no failed read, and holds at most its size', async () => {
    let now = 0;
    const cache = new ShortCache<number>(3, () => now);
    let loads = 0;
    const load = async () => ++loads;
    const [a, b] = await Promise.all([cache.get('k', 1000, load), cache.get('k', 1000, load)]);
    expect([a, b, loads]).toEqual([1, 1, 1]);
    await expect(cache.get('bad', 1000, () => Promise.reject(new IntegrityError('x')))).rejects.toThrow();
    await Promise.resolve();
    expect(await cache.get('bad', 1000, load)).toBe(2);
    for (const key of ['c', 'd', 'e']) await cache.get(key, 1000, load);
    expect(cache.size).toBe(3);
    now = 1000;
    expect(await cache.get('k', 1000, load)).toBe(6);
  });

  it('validates its settings', () => {
    expect(settingsFrom({}).feedCacheMs).toBe(1000);
    expect(settingsFrom({ FEED_CACHE_MS: '0' }).feedCacheMs).toBe(0);
    for (const bad of ['-1', '1.5', 'x', '60001'])
      expect(() => settingsFrom({ FEED_CACHE_MS: bad })).toThrow(/FEED_CACHE_MS/);
    expect(parseRetentionDays(undefined)).toBe(30);
    expect(retentionMs(settingsFrom({ EVENT_RETENTION_DAYS: String(5 / 86_400) }).eventRetentionDays)).toBe(
      5000,
    );
    for (const bad of ['0', '-1', 'x', '3651', 'Infinity'])
      expect(() => parseRetentionDays(bad), bad).toThrow(/EVENT_RETENTION_DAYS/);
  });
});

describe('deletions by time to live', () => {
  const ttlService = { type: 'Service', principalId: 'dynamodb.amazonaws.com' };
  const removed = (item: Record<string, unknown>, userIdentity?: unknown): ChangeRecord => ({
    eventName: 'REMOVE',
    dynamodb: {
      Keys: marshall({ pk: item.pk, sk: item.sk }) as never,
      OldImage: marshall(item, { removeUndefinedValues: true }) as never,
      ApproximateCreationDateTime: NOW / 1000,
    },
    ...(userIdentity ? { userIdentity } : {}),
  });

  it('are never events: not of a feed entry, a marker, a delivery, nor of a ban item', () => {
    const feedItem = {
      ...feedEntryKey(GLOBAL, 4),
      event_id: 'evt_x',
      appended_at: '2026-10-01T00:00:00.000Z',
      event: created(4, 'global'),
      ttl: 1,
    };
    expect(eventsOfChange(removed(feedItem, ttlService))).toEqual([]);
    expect(
      eventsOfChange(removed({ ...feedMarkerKey(GLOBAL, 'evt_x'), seq: 4, ttl: 1 }, ttlService)),
    ).toEqual([]);
    const banItem = { ...banKey('dev-1', 7), ...ban(7), ttl: 1 };
    expect(eventsOfChange(removed(banItem, ttlService))).toEqual([]);
    // The same deletion made by anyone else is an erasure.
    expect(eventsOfChange(removed(banItem)).map((event) => event.type)).toEqual(['ban.erased']);
    expect(
      eventsOfChange(removed(banItem, { type: 'Service', principalId: 'other.amazonaws.com' })).map(
        (e) => e.type,
      ),
    ).toEqual(['ban.erased']);
  });
});
