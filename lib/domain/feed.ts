import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { parseSafeInteger } from '../model/numbers';
import type { EventsQuery } from '../model/requests';
import type { FeedEvent, FeedPage, Policy } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import {
  FEED_ENTRY_PREFIX,
  feedEntryKey,
  feedMarkerKey,
  GLOBAL_FEED_PARTITION,
  gameFeedPartition,
  LAST_SEQ,
  publisherFeedPartition,
} from '../storage/keys';
import { eventIdOf } from './audit';
import { toListedBan } from './bans';
import type { ChangeEvent } from './change-events';
import { IntegrityError, InvalidInputError } from './errors';
import { getPolicy } from './policy';

/**
 * The change feed: every event a (publisher, game) may see, oldest first, each exactly once from
 * any cursor. Items (lib/storage/keys.ts), in three partitions per reader:
 *   entry    `FEED#PUB#<publisher>` | `FEED#GAME#<publisher>#<game>` | `FEED#GLOBAL` / `SEQ#<position>`
 *   marker   same partition / `EVENT#<event_id>`   (`seq`: the position the event has, or claims)
 *
 * Positions are gapless and only ever grow, without transactions or clocks: a position is
 * claimed as (the last position read) + 1 and an entry is put there only if it is free, so
 * position n + 1 is taken only after n is, and a reader that has read up to n (consistent reads)
 * can never have an entry appear behind it. Each event's marker holds the one position it may be
 * put at (appendToPartition), so an event appended again (a retried change record, a concurrent
 * dispatcher) lands once.
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

const seqOf = (sk: unknown) => Number(String(sk).slice(FEED_ENTRY_PREFIX.length));

const lastSeq = async (partition: string): Promise<number> => {
  const { Items } = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :entry)',
      ExpressionAttributeValues: { ':pk': partition, ':entry': FEED_ENTRY_PREFIX },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  return Items?.[0] ? seqOf(Items[0].sk) : 0;
};

/** Entries after `after` (a position), oldest first: one Query, at most `limit`. */
const entriesAfter = (partition: string, after: number, limit?: number) => ({
  TableName: tableName,
  KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
  ExpressionAttributeValues: {
    ':pk': partition,
    ':from': feedEntryKey(partition, after + 1).sk,
    ':to': feedEntryKey(partition, LAST_SEQ).sk,
  },
  ConsistentRead: true,
  ...(limit === undefined ? {} : { Limit: limit }),
});

/** The position an event's marker names, if any (consistent read). */
const claimedSeq = async (partition: string, eventId: string): Promise<number | undefined> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: feedMarkerKey(partition, eventId), ConsistentRead: true }),
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
        TableName: tableName,
        Key: feedMarkerKey(partition, eventId),
        UpdateExpression: 'SET seq = :seq, event_id = :id',
        ConditionExpression: from === undefined ? 'attribute_not_exists(seq)' : 'seq = :from',
        ExpressionAttributeValues: {
          ':seq': seq,
          ':id': eventId,
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

/** Puts the event at `seq` if the position is free; true when the event is there now (put by anyone). */
const putAt = async (partition: string, seq: number, event: ChangeEvent): Promise<boolean> => {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...feedEntryKey(partition, seq),
          event_id: event.event_id,
          appended_at: new Date().toISOString(),
          event,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: feedEntryKey(partition, seq), ConsistentRead: true }),
  );
  return Item?.event_id === event.event_id;
};

/**
 * Appends events to one partition in the order given, each exactly once however often, and
 * however many appenders at once, append it. An event's marker claims its position before the
 * entry is put there, and only the claimed position is ever written: an appender that finds a
 * claim (a retry after a crash, or a concurrent appender) puts the same entry at that position
 * if it is free, and when another event took it first, moves the claim on (compare-and-set) to
 * the end of the feed. So the event is at one position at most, and once put, stays the claim.
 * Two round trips per event when nothing races: the claim and the put.
 */
const appendToPartition = async (partition: string, events: readonly ChangeEvent[]): Promise<void> => {
  let last: number | undefined;
  for (const event of events) {
    let seq: number | undefined;
    last ??= await lastSeq(partition);
    if (await claim(partition, event.event_id, last + 1)) seq = last + 1;
    else seq = await claimedSeq(partition, event.event_id);
    for (;;) {
      if (seq === undefined) throw new IntegrityError('feed marker lost its position');
      if (await putAt(partition, seq, event)) break;
      // Another event took the claimed position first: claim the end of the feed instead.
      last = await lastSeq(partition);
      const next = last + 1;
      seq = (await claim(partition, event.event_id, next, seq))
        ? next
        : await claimedSeq(partition, event.event_id);
    }
    last = Math.max(last ?? 0, seq);
  }
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
      new GetCommand({ TableName: tableName, Key: feedMarkerKey(partition, eventId), ConsistentRead: true }),
    );
    if (typeof marker?.seq !== 'number') continue;
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: feedEntryKey(partition, marker.seq),
        UpdateExpression: 'REMOVE #event.#ban.#details, #event.#ban.#message',
        ConditionExpression: 'event_id = :id',
        ExpressionAttributeNames: {
          '#event': 'event',
          '#ban': 'ban',
          '#details': 'details_json',
          '#message': 'player_message',
        },
        ExpressionAttributeValues: { ':id': eventId },
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
      await appendToPartition(partition, list);
      for (const event of list) await redactErased(partition, event);
    }),
  );
};

/** How an event reads to a publisher: its ban as a listing shows it, under the reader's policy now. */
export const toFeedEvent = (event: ChangeEvent, policy: Policy, now: string): FeedEvent => {
  if (event.type === 'policy.updated') {
    const { event_id, type, occurred_at, policy: changed } = event;
    return { event_id, type, occurred_at, device_id: null, policy: changed };
  }
  if ('appeal' in event) {
    const { event_id, type, occurred_at, device_id, appeal } = event;
    return { event_id, type, occurred_at, device_id, appeal };
  }
  const listed = toListedBan(event.ban, policy, now);
  return {
    event_id: event.event_id,
    type: event.type,
    occurred_at: event.occurred_at,
    device_id: event.device_id,
    // An erased ban is enforced nowhere, whatever it was.
    ban:
      event.type === 'ban.erased'
        ? { ...listed, details_json: null, player_message: null, enforced: false }
        : listed,
  };
};

type Positions = readonly [number, number, number];

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

interface Entry {
  partition: number;
  seq: number;
  event: ChangeEvent;
}

const entryFromItem = (partition: number, item: Record<string, unknown>): Entry => {
  const event = item.event as ChangeEvent | undefined;
  if (typeof event?.event_id !== 'string' || typeof event.occurred_at !== 'string') {
    throw new IntegrityError('stored feed entry is malformed');
  }
  return { partition, seq: seqOf(item.sk), event };
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

/**
 * One page of the feed for (publisher, game), oldest first: one Query per partition read (three)
 * and the reader's policy, in parallel. The partitions are merged by when their events happened
 * (mergeByOccurrence); the page stops where any partition's read stops, so nothing later is shown
 * before something earlier that was not read yet. `next_cursor` holds a position per partition:
 * from it, every entry after is read once, whatever was appended meanwhile.
 */
export const readFeed = async (
  publisherId: string,
  gameId: string,
  query: EventsQuery,
): Promise<FeedPage> => {
  const partitions = readerPartitions(publisherId, gameId);
  const from =
    query.cursor === undefined ? ([0, 0, 0] as const) : decodeCursor(publisherId, gameId, query.cursor);
  const [policy, ...pages] = await Promise.all([
    getPolicy(publisherId),
    ...partitions.map((partition, index) =>
      dynamo.send(new QueryCommand(entriesAfter(partition, from[index] ?? 0, query.limit))),
    ),
  ]);
  const read = pages.map((page, index) => (page.Items ?? []).map((item) => entryFromItem(index, item)));
  const positions = [...from];
  const items: FeedEvent[] = [];
  const now = new Date().toISOString();
  for (const entry of mergeByOccurrence(read)) {
    items.push(toFeedEvent(entry.event, policy, now));
    positions[entry.partition] = entry.seq;
    // A partition read in full may hold more after its last entry: stop with it.
    const list = read[entry.partition] ?? [];
    if (list.length === query.limit && list.at(-1) === entry) break;
    if (items.length === query.limit) break;
  }
  return { items, next_cursor: encodeCursor(publisherId, gameId, positions as unknown as Positions) };
};
