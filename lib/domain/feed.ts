import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as clock from '../clock';
import { mapWithConcurrency } from '../concurrency';
import { parseSafeInteger } from '../model/numbers';
import type { EventsQuery } from '../model/requests';
import type { FeedEvent, FeedPage, Policy } from '../model/responses';
import { dynamo, perStore, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import {
  FEED_HEAD_SK,
  feedEntryKey,
  feedHeadKey,
  feedMarkerKey,
  GLOBAL_FEED_PARTITION,
  gameFeedPartition,
  LAST_SEQ,
  publisherFeedPartition,
} from '../storage/keys';
import { TIME_TO_LIVE_ATTRIBUTE } from '../storage/table';
import { eventIdOf } from './audit';
import type { Ban } from './ban-record';
import { deviceGlobalBans, enforcedAmong, needsQuorumContext, toListedBan } from './bans';
import { type ChangeEvent, readsAppealEvent } from './change-events';
import { currentDeploymentId } from './deployment';
import { CursorExpiredError, IntegrityError, InvalidInputError } from './errors';
import { feedCacheMs, ShortCache } from './feed-cache';
import { lastSeq, seqOf } from './feed-end';
import { applyToLiveSet } from './live-set';
import { getPolicy, withTrustDefaults } from './policy';
import { isPastRetention, ttlFrom } from './retention';

/**
 * The change feed: every event a (publisher, game) may see, oldest first, each exactly once from
 * any cursor, in three partitions per reader. Invariants: positions are gapless and only grow,
 * without transactions or clocks (an entry is put at the last position read + 1, only if free),
 * and an event appended again lands at the one position its marker holds. Partitions, items,
 * retention and the reasons: docs/data-model.md#the-change-feed.
 */

/**
 * The partitions an event goes to: those every reader that may see it reads. An appeal's events
 * go to its ban's owner and, when another publisher filed it, to the filer too (publisher-wide).
 */
export const feedPartitionsOf = (event: ChangeEvent): string[] => {
  if (event.type === 'policy.updated') return [publisherFeedPartition(event.publisher_id)];
  if ('appeal' in event)
    return [...new Set([event.publisher_id, event.filer_publisher_id])].map(publisherFeedPartition);
  const { scope, publisher_id, game_id } = event.ban;
  if (scope === 'global') return [GLOBAL_FEED_PARTITION];
  return [scope === 'game' ? gameFeedPartition(publisher_id, game_id) : publisherFeedPartition(publisher_id)];
};

/** The partitions a reader reads, in the order its cursor lists their positions. */
const readerPartitions = (publisherId: string, gameId: string) =>
  [
    publisherFeedPartition(publisherId),
    gameFeedPartition(publisherId, gameId),
    GLOBAL_FEED_PARTITION,
  ] as const;

/** The entry at a position: when its event happened, and when it was appended. */
interface Appended {
  readonly seq: number;
  readonly occurredAt: string;
  readonly appendedAt: string;
}

/**
 * Raises the partition's head to the newest entry appended (never lowers it): once per appended
 * batch, after its entries are put, so the head never names a position without an entry behind
 * it. The head keeps that entry's `occurred_at` and `appended_at` too: how long the newest event
 * waited to be appended, which every reader that reaches the head is told (`delay_ms`).
 */
const raiseHead = async (partition: string, newest: Appended) => {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: feedHeadKey(partition),
        UpdateExpression: 'SET seq = :seq, occurred_at = :occurred, appended_at = :appended',
        ConditionExpression: 'attribute_not_exists(seq) OR seq < :seq',
        ExpressionAttributeValues: {
          ':seq': newest.seq,
          ':occurred': newest.occurredAt,
          ':appended': newest.appendedAt,
        },
      }),
    );
  } catch (error) {
    // Another appender raised it as far or further.
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * Entries after `after` (a position), oldest first, then the head once the range reaches the end:
 * one Query, at most `limit` items (the head counts as one).
 */
const entriesAfter = (partition: string, after: number, limit: number) => ({
  TableName: tableName(),
  KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
  ExpressionAttributeValues: {
    ':pk': partition,
    ':from': feedEntryKey(partition, after + 1).sk,
    ':to': FEED_HEAD_SK,
  },
  ConsistentRead: true,
  Limit: limit,
});

/** The position an event's marker names, if any (consistent read). */
const claimedSeq = async (partition: string, eventId: string): Promise<number | undefined> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: feedMarkerKey(partition, eventId), ConsistentRead: true }),
  );
  return typeof Item?.seq === 'number' ? Item.seq : undefined;
};

/**
 * Names `seq` as the event's position: the first claim (`from` undefined) only where there is
 * none, a later one only over the claim `from` it replaces. False when another appender's claim
 * came first.
 */
const claim = async (partition: string, eventId: string, seq: number, from?: number): Promise<boolean> => {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: feedMarkerKey(partition, eventId),
        // The marker outlives no entry it names: its ttl is set before the entry's (putAt).
        UpdateExpression: 'SET seq = :seq, event_id = :id, #ttl = :ttl',
        ConditionExpression: from === undefined ? 'attribute_not_exists(seq)' : 'seq = :from',
        ExpressionAttributeNames: { '#ttl': TIME_TO_LIVE_ATTRIBUTE },
        ExpressionAttributeValues: {
          ':seq': seq,
          ':id': eventId,
          ':ttl': ttlFrom(clock.now())[TIME_TO_LIVE_ATTRIBUTE],
          ...(from === undefined ? {} : { ':from': from }),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/**
 * Puts the event at `seq` if the position is free. When the event is there now (put by anyone):
 * when it was appended; else undefined.
 */
const putAt = async (partition: string, seq: number, event: ChangeEvent): Promise<string | undefined> => {
  const now = clock.now();
  const appendedAt = new Date(now).toISOString();
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...feedEntryKey(partition, seq),
          event_id: event.event_id,
          appended_at: appendedAt,
          event,
          ...ttlFrom(now),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return appendedAt;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: feedEntryKey(partition, seq), ConsistentRead: true }),
  );
  if (Item?.event_id !== event.event_id) return undefined;
  return typeof Item.appended_at === 'string' ? Item.appended_at : appendedAt;
};

/**
 * Appends events to one partition in the order given, each exactly once however often, and
 * however many appenders at once, append it. An event's marker claims its position before the
 * entry is put there, and only the claimed position is ever written: an appender that finds a
 * claim (a retry after a crash, or a concurrent appender) puts the same entry at that position
 * if it is free, and when another event took it first, moves the claim on (compare-and-set) to
 * the end of the feed. So the event is at one position at most, and once put, stays the claim.
 * Two round trips per event when nothing races: the claim and the put; then one for the batch,
 * the head raised to the last position written.
 */
const appendToPartition = async (partition: string, events: readonly ChangeEvent[]): Promise<void> => {
  let last: number | undefined;
  let newest: Appended | undefined;
  for (const event of events) {
    let seq: number | undefined;
    let appendedAt: string | undefined;
    last ??= await lastSeq(partition);
    if (await claim(partition, event.event_id, last + 1)) seq = last + 1;
    else seq = await claimedSeq(partition, event.event_id);
    for (;;) {
      if (seq === undefined) throw new IntegrityError('feed marker lost its position');
      appendedAt = await putAt(partition, seq, event);
      if (appendedAt !== undefined) break;
      // Another event took the claimed position first: claim the end of the feed instead.
      last = await lastSeq(partition);
      const next = last + 1;
      seq = (await claim(partition, event.event_id, next, seq))
        ? next
        : await claimedSeq(partition, event.event_id);
    }
    last = Math.max(last ?? 0, seq);
    if (newest === undefined || seq > newest.seq) newest = { seq, occurredAt: event.occurred_at, appendedAt };
  }
  if (newest !== undefined) await raiseHead(partition, newest);
};

/**
 * What an erasure leaves of the erased ban's earlier events: the entries keep their place (no
 * reader's cursor moves), their ban loses its details.
 */
const redactErased = async (partition: string, event: ChangeEvent) => {
  if (event.type !== 'ban.erased') return;
  for (const type of ['ban.created', 'ban.revoked'] as const) {
    const eventId = eventIdOf(event.publisher_id, type, String(event.ban.ban_id));
    const { Item: marker } = await dynamo.send(
      new GetCommand({
        TableName: tableName(),
        Key: feedMarkerKey(partition, eventId),
        ConsistentRead: true,
      }),
    );
    if (typeof marker?.seq !== 'number') continue;
    // Past its time the entry is gone for every reader, and time to live may have deleted it
    // already (an entry's ttl is never before its marker's): nothing is left to redact.
    if (isPastRetention(marker, undefined, clock.now())) continue;
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: feedEntryKey(partition, marker.seq),
        UpdateExpression:
          'SET #event.#ban.#statement = :erased REMOVE #event.#ban.#details, #event.#ban.#message, #event.#ban.#translations',
        ConditionExpression: 'event_id = :id',
        ExpressionAttributeNames: {
          '#event': 'event',
          '#ban': 'ban',
          '#details': 'details_json',
          '#message': 'player_message',
          '#statement': 'statement',
          '#translations': 'translations',
        },
        ExpressionAttributeValues: { ':id': eventId, ':erased': null },
      }),
    );
  }
};

/** Appends the events of a batch of changes to the feed, in their order. Safe to repeat. */
export const appendToFeed = async (events: readonly ChangeEvent[]): Promise<void> => {
  const byPartition = new Map<string, ChangeEvent[]>();
  for (const event of events)
    for (const partition of feedPartitionsOf(event))
      byPartition.set(partition, [...(byPartition.get(partition) ?? []), event]);
  await Promise.all(
    [...byPartition].map(async ([partition, list]) => {
      // The live set first (lib/domain/live-set.ts): an appended event is always in it already.
      await applyToLiveSet(partition, list);
      await appendToPartition(partition, list);
      for (const event of list) await redactErased(partition, event);
    }),
  );
};

/**
 * How an event reads to a publisher: its ban as a listing shows it, under the reader's policy now.
 * Its `enforced` judges the event's copy of the ban beside the device's global bans as stored now
 * (`deviceGlobals`, read by readFeed only for the bans whose quorum needs them: needsQuorumContext),
 * so it agrees with the enforcement answer. A policy event stored before trust settings carries
 * their defaults.
 */
export const toFeedEvent = (
  event: ChangeEvent,
  policy: Policy,
  now: string,
  deviceGlobals: ReadonlyMap<string, readonly Ban[]> = new Map(),
  wanted: readonly string[] = [],
): FeedEvent => {
  if (event.type === 'policy.updated') {
    const { event_id, type, occurred_at, policy: changed } = event;
    return { event_id, type, occurred_at, device_id: null, policy: withTrustDefaults(changed) };
  }
  if ('appeal' in event) {
    const { event_id, type, occurred_at, device_id, appeal } = event;
    return { event_id, type, occurred_at, device_id, appeal };
  }
  const others = deviceGlobals.get(event.device_id) ?? [];
  const listed = toListedBan(event.ban, policy, enforcedAmong(policy, event.ban, others, now), { wanted });
  return {
    event_id: event.event_id,
    type: event.type,
    occurred_at: event.occurred_at,
    device_id: event.device_id,
    // An erased ban is enforced nowhere, whatever it was.
    ban:
      event.type === 'ban.erased'
        ? {
            ...listed,
            details_json: null,
            player_message: null,
            statement: null,
            translations: null,
            enforced: false,
          }
        : listed,
  };
};

type Positions = readonly [number, number, number];

/** Device reads in flight at once for the quorum of a feed page or a snapshot page. */
export const QUORUM_READ_CONCURRENCY = 10;

/** Binds a cursor to its reader, so one publisher's (or game's) cursor is refused for another. */
const readerTag = (publisherId: string, gameId: string) =>
  createHash('sha256').update(`${publisherId}\n${gameId}`).digest('base64url').slice(0, 12);

const CURSOR = /^f1\.([A-Za-z0-9_-]{12})\.(\d{1,16})\.(\d{1,16})\.(\d{1,16})$/;

const encodeCursor = (publisherId: string, gameId: string, positions: Positions) =>
  Buffer.from(`f1.${readerTag(publisherId, gameId)}.${positions.join('.')}`).toString('base64url');

const decodeCursor = (publisherId: string, gameId: string, cursor: string): Positions => {
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new InvalidInputError('cursor', 'invalid', 'must be a next_cursor this API returned');
  if (match[1] !== readerTag(publisherId, gameId)) {
    throw new InvalidInputError('cursor', 'invalid', 'was returned to another publisher or for another game');
  }
  // A forged position at or past the last one a key can hold is no cursor of ours (reading after
  // it would ask for a range that ends before it starts).
  const positions = [match[2], match[3], match[4]].map((digits) => parseSafeInteger(digits ?? ''));
  if (positions.some((position) => position === undefined || position >= LAST_SEQ))
    throw new InvalidInputError('cursor', 'invalid', 'must be a next_cursor this API returned');
  return positions as unknown as Positions;
};

/**
 * A cursor at the current end of the reader's three partitions (consistent reads, one Query each):
 * it covers every entry appended before the call began and none appended after it returned, so
 * reading the feed from it gives exactly what is appended after it (GET /v1/enforcement/snapshot
 * takes one before its first page).
 */
export const feedHeadCursor = async (publisherId: string, gameId: string): Promise<string> => {
  const positions = await Promise.all(readerPartitions(publisherId, gameId).map(lastSeq));
  return encodeCursor(publisherId, gameId, positions as unknown as Positions);
};

interface Entry {
  partition: number;
  seq: number;
  event: ChangeEvent;
  item: Record<string, unknown>;
}

const entryFromItem = (partition: number, item: Record<string, unknown>): Entry => {
  const event = item.event as ChangeEvent | undefined;
  if (typeof event?.event_id !== 'string' || typeof event.occurred_at !== 'string') {
    throw new IntegrityError('stored feed entry is malformed');
  }
  return { partition, seq: seqOf(item.sk), event, item };
};

/**
 * The entries of the partitions read, as one list: each partition's in its own order (its
 * positions), the heads compared by when their events happened. Only heads are compared, so a
 * partition is never reordered, whatever the appenders' clocks, and the cursor's positions only
 * grow. Across partitions the order is the order of the changes: a revoke answered before a
 * policy update comes first, even when one dispatcher batch appended them the other way round.
 */
const mergeByOccurrence = (read: readonly (readonly Entry[])[]): Entry[] => {
  const next = read.map(() => 0);
  const merged: Entry[] = [];
  for (;;) {
    let pick: Entry | undefined;
    for (const [index, list] of read.entries()) {
      const head = list[next[index] ?? 0];
      if (head && (!pick || head.event.occurred_at < pick.event.occurred_at)) pick = head;
    }
    if (!pick) return merged;
    merged.push(pick);
    next[pick.partition] = (next[pick.partition] ?? 0) + 1;
  }
};

/** One partition read: its entries after a position, and its head when the read reached it. */
interface PartitionRead {
  readonly entries: readonly Record<string, unknown>[];
  /** The head's position, when the read reached the end (undefined: not reached, or none yet). */
  readonly head: number | undefined;
  /** Whether the read reached the end of the partition (nothing after its last entry). */
  readonly complete: boolean;
  /** How long the head's entry waited to be appended (ms), when the read reached a head that says. */
  readonly headWaitedMs?: number | undefined;
}

/** Milliseconds from when an event happened to its append; undefined when either is unknown. */
const waitedMs = (occurredAt: unknown, appendedAt: unknown): number | undefined => {
  if (typeof occurredAt !== 'string' || typeof appendedAt !== 'string') return undefined;
  const waited = Date.parse(appendedAt) - Date.parse(occurredAt);
  return Number.isFinite(waited) ? Math.max(0, Math.round(waited)) : undefined;
};

/**
 * Partition reads (and readers' policies), shared for FEED_CACHE_MS by every request this process
 * answers (lib/domain/feed-cache.ts). A read is keyed by exactly what it asked (partition, after,
 * limit): its answer stays true for that position, so the cache can make a page late, never wrong.
 * Kept per bound store: two stores bound in turn in one process never see each other's reads.
 */
const caches = perStore(() => ({
  partitionReads: new ShortCache<PartitionRead>(),
  policies: new ShortCache<Policy>(),
}));

/** Empties the bound store's feed caches (tests, and the benchmark's runs without and with them). */
export const clearFeedCaches = () => {
  caches().partitionReads.clear();
  caches().policies.clear();
};

const readPartition = (partition: string, after: number, limit: number): Promise<PartitionRead> =>
  caches().partitionReads.get(`${partition}\n${after}\n${limit}`, feedCacheMs(), async () => {
    const page = await dynamo.send(new QueryCommand(entriesAfter(partition, after, limit)));
    const items = page.Items ?? [];
    const last = items.at(-1);
    const head = last?.sk === FEED_HEAD_SK ? Number(last.seq) || 0 : undefined;
    return {
      entries: head === undefined ? items : items.slice(0, -1),
      head,
      complete: head !== undefined || page.LastEvaluatedKey === undefined,
      headWaitedMs: head === undefined ? undefined : waitedMs(last?.occurred_at, last?.appended_at),
    };
  });

const EXPIRED_MESSAGE =
  'The cursor points before events that are past the retention and gone: resync from GET /v1/enforcement/snapshot, then follow the feed from the cursor it gives';

/**
 * With a cursor at `after`: the entries read must be exactly after+1, after+2, ... and each within
 * the retention, and a head read past them means the positions between are gone. Otherwise the
 * reader missed events it can never have: 410 (never an empty page that looks caught up).
 */
const checkContinuity = (read: PartitionRead, after: number, now: number) => {
  let expected = after + 1;
  for (const item of read.entries) {
    if (seqOf(item.sk) !== expected || isPastRetention(item, item.appended_at, now))
      throw new CursorExpiredError(EXPIRED_MESSAGE);
    expected += 1;
  }
  if (read.head !== undefined && read.head >= expected) throw new CursorExpiredError(EXPIRED_MESSAGE);
};

const AHEAD_MESSAGE =
  "is ahead of the feed's end, at positions this store never reached (a state from another deployment, or a store restored from an older backup): resync from GET /v1/enforcement/snapshot, then follow the feed from the cursor it gives";

/**
 * With a cursor at `after`, a read that found nothing after it and no head at or past it: the
 * cursor may be ahead of everything this store ever appended there. The read may be a cached one,
 * and a head can lag its last entry (an append whose head update has not landed), so the end is
 * read again, uncached and consistent (lastSeq), before the cursor is refused: a cursor this store
 * gave out is never ahead of it. A 400 rather than an empty page that looks caught up for ever.
 */
const refuseIfAhead = async (partition: string, read: PartitionRead, after: number) => {
  if (read.entries.length > 0 || (read.head ?? 0) >= after) return;
  if ((await lastSeq(partition)) < after)
    throw new InvalidInputError('cursor', 'ahead_of_feed', AHEAD_MESSAGE);
};

/**
 * The first position whose entry is retained, at or after `from` (an entry known past the
 * retention is before it) and at most `last` (an entry known retained): a binary search of one-item
 * Queries, since entries are appended (and so expire) in position order and deleted ones leave
 * gaps. About log2(last - from) reads, only for a read without a cursor over a partition whose
 * oldest entries are past the retention but not yet deleted.
 */
const firstRetained = async (partition: string, from: number, last: number, now: number) => {
  let lo = from;
  let hi = last;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const { Items = [] } = await dynamo.send(new QueryCommand(entriesAfter(partition, mid - 1, 1)));
    const found = Items[0];
    if (!found || found.sk === FEED_HEAD_SK || isPastRetention(found, found.appended_at, now)) lo = mid + 1;
    else hi = Math.min(mid, seqOf(found.sk));
  }
  return lo;
};

/**
 * A read without a cursor starts at the oldest retained entry, never with a 410: past the gone
 * ones (deleted, or past the retention and not deleted yet), and with a position no lower than
 * theirs, so the cursor it answers never points before a gone entry.
 */
const readFromOldest = async (
  partition: string,
  limit: number,
  now: number,
): Promise<{ read: PartitionRead; after: number }> => {
  const first = await readPartition(partition, 0, limit);
  const gone = (item: Record<string, unknown>) => isPastRetention(item, item.appended_at, now);
  const retained = first.entries.findIndex((item) => !gone(item));
  const firstEntry = first.entries[0];
  if (!firstEntry) return { read: first, after: first.head ?? 0 };
  if (retained >= 0) {
    const at = first.entries[retained];
    return {
      read:
        retained === 0 ? first : { ...first, entries: first.entries.slice(retained).filter((i) => !gone(i)) },
      after: seqOf(at?.sk) - 1,
    };
  }
  if (first.complete)
    return {
      read: { ...first, entries: [] },
      after: Math.max(first.head ?? 0, seqOf(first.entries.at(-1)?.sk)),
    };
  // Every entry read is gone and more follow: find where the retained ones start.
  const end = await lastSeq(partition);
  const lastEntry = await readPartition(partition, end - 1, 1);
  const newest = lastEntry.entries[0];
  if (!newest || gone(newest)) return { read: { entries: [], head: end, complete: true }, after: end };
  const start = await firstRetained(partition, seqOf(first.entries.at(-1)?.sk) + 1, seqOf(newest.sk), now);
  const read = await readPartition(partition, start - 1, limit);
  const from = read.entries.findIndex((item) => !gone(item));
  const kept = read.entries[from];
  // The position before the first entry kept (deleted ones may lie between `start` and it).
  if (kept)
    return {
      read: { ...read, entries: read.entries.slice(from).filter((item) => !gone(item)) },
      after: seqOf(kept.sk) - 1,
    };
  const lastRead = read.entries.at(-1);
  return {
    read: { ...read, entries: [] },
    after: Math.max(start - 1, read.head ?? 0, lastRead ? seqOf(lastRead.sk) : 0),
  };
};

/**
 * How far the feed is behind the writes, as far as the reads reach: over the partitions, the
 * longest wait (occurred to appended) of the newest entry each read reaches: the head's record
 * when it reached the head (and no entry past it: a head update still to land), else its last
 * entry's; null when none of them has an event.
 */
const feedDelayMs = (reads: readonly PartitionRead[]): number | null => {
  const waits = reads.flatMap((read) => {
    const lastEntry = read.entries.at(-1);
    const headIsNewest =
      read.head !== undefined && (lastEntry === undefined || seqOf(lastEntry.sk) <= read.head);
    const event = lastEntry?.event as ChangeEvent | undefined;
    const waited =
      (headIsNewest ? read.headWaitedMs : undefined) ?? waitedMs(event?.occurred_at, lastEntry?.appended_at);
    return waited === undefined ? [] : [waited];
  });
  return waits.length === 0 ? null : Math.max(...waits);
};

/** The entries one read of the reader's partitions picks, the positions after them, and the feed's delay. */
const pickEntries = async (
  publisherId: string,
  gameId: string,
  limit: number,
  from: Positions | undefined,
  now: number,
): Promise<{ picked: Entry[]; positions: number[]; delayMs: number | null }> => {
  const reads = await Promise.all(
    readerPartitions(publisherId, gameId).map(async (partition, index) => {
      if (from === undefined) return readFromOldest(partition, limit, now);
      const after = from[index] ?? 0;
      const read = await readPartition(partition, after, limit);
      checkContinuity(read, after, now);
      await refuseIfAhead(partition, read, after);
      return { read, after };
    }),
  );
  const lists = reads.map(({ read }, index) => read.entries.map((item) => entryFromItem(index, item)));
  const positions = reads.map(({ after }) => after);
  const picked: Entry[] = [];
  for (const entry of mergeByOccurrence(lists)) {
    picked.push(entry);
    positions[entry.partition] = entry.seq;
    // A partition not read to its end may hold more after its last entry: stop with it.
    if (!reads[entry.partition]?.read.complete && lists[entry.partition]?.at(-1) === entry) break;
    if (picked.length === limit) break;
  }
  return { picked, positions, delayMs: feedDelayMs(reads.map(({ read }) => read)) };
};

/**
 * One page of the feed for (publisher, game), oldest first: one Query per partition read (three)
 * and the reader's policy, in parallel, each possibly shared with other polls of the last
 * FEED_CACHE_MS, merged by when their events happened (mergeByOccurrence). Invariants: the page
 * stops where any partition's read stops, so nothing later is shown before something earlier not
 * yet read; from `next_cursor` every entry after it is read once, or, once some are past the
 * retention, a 410 `cursor_expired`; a cursor past a partition's end is a 400 `ahead_of_feed`
 * (refuseIfAhead). A key bound to `games` reads the appeal events a webhook bound to them takes
 * (readsAppealEvent), reading on past a page of others, so an empty page still means caught up.
 */
export const readFeed = async (
  publisherId: string,
  gameId: string,
  query: EventsQuery,
  games: readonly string[] | null = null,
  wanted: readonly string[] = [],
): Promise<FeedPage> => {
  let from = query.cursor === undefined ? undefined : decodeCursor(publisherId, gameId, query.cursor);
  const now = clock.now();
  const shown = (entry: Entry) =>
    !('appeal' in entry.event) || readsAppealEvent(entry.event, publisherId, games);
  const [policy, first] = await Promise.all([
    caches().policies.get(publisherId, feedCacheMs(), () => getPolicy(publisherId)),
    pickEntries(publisherId, gameId, query.limit, from, now),
  ]);
  let { picked, positions, delayMs } = first;
  while (picked.length > 0 && !picked.some(shown)) {
    from = positions as unknown as Positions;
    ({ picked, positions, delayMs } = await pickEntries(publisherId, gameId, query.limit, from, now));
  }
  picked = picked.filter(shown);
  const nowIso = new Date(now).toISOString();
  // Under a quorum above 1, a trusted global ban of another publisher applies only beside the
  // device's other global bans: one Query per such device per page (none under the default policy).
  const devices = new Set<string>();
  for (const { event } of picked)
    if ('ban' in event && event.type !== 'ban.erased' && needsQuorumContext(policy, event.ban, nowIso))
      devices.add(event.device_id);
  const globals = await mapWithConcurrency([...devices], QUORUM_READ_CONCURRENCY, deviceGlobalBans);
  const deviceGlobals = new Map([...devices].map((device, i) => [device, globals[i] ?? []]));
  const items = picked.map((entry) => toFeedEvent(entry.event, policy, nowIso, deviceGlobals, wanted));
  return {
    items,
    next_cursor: encodeCursor(publisherId, gameId, positions as unknown as Positions),
    delay_ms: delayMs,
    // After the reads: a refused read creates nothing. Read once per process, so no wait after.
    deployment_id: await currentDeploymentId(),
  };
};
