import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, paginateQuery, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventsQuery } from '../model/requests';
import type { FeedEvent, FeedPage, Policy } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import {
  FEED_ENTRY_PREFIX,
  FEED_SEQ_DIGITS,
  feedEntryKey,
  feedMarkerKey,
  GLOBAL_FEED_PARTITION,
  gameFeedPartition,
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
 *   marker   same partition / `EVENT#<event_id>`   (`after`, then `seq`: where the event went)
 *
 * Positions are gapless and only ever grow, without transactions or clocks: an appender puts
 * the entry at (the last position it read) + 1 on condition that the position is free, and reads
 * again when it is not. So position n + 1 is taken only after n is, and a reader that has seen up
 * to n (consistent reads) can never have an entry appear behind it. The marker, put before the
 * entry, makes appending the same event again (a retried change record) find it instead of
 * appending a copy.
 */

const LAST_SEQ = 10 ** FEED_SEQ_DIGITS - 1;

/** The partition an event goes to: the one every reader that may see it reads. */
export const feedPartitionOf = (event: ChangeEvent): string => {
  if (event.type === 'policy.updated') return publisherFeedPartition(event.publisher_id);
  const { scope, publisher_id, game_id } = event.ban;
  if (scope === 'global') return GLOBAL_FEED_PARTITION;
  return scope === 'game' ? gameFeedPartition(publisher_id, game_id) : publisherFeedPartition(publisher_id);
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

/** Where an earlier attempt that died after its marker appended the event, if it did. */
const findAppended = async (
  partition: string,
  after: number,
  eventId: string,
): Promise<number | undefined> => {
  const pages = paginateQuery(
    { client: dynamo },
    {
      ...entriesAfter(partition, after),
      FilterExpression: 'event_id = :id',
      ExpressionAttributeValues: {
        ...entriesAfter(partition, after).ExpressionAttributeValues,
        ':id': eventId,
      },
    },
  );
  for await (const page of pages) {
    const found = page.Items?.[0];
    if (found) return seqOf(found.sk);
  }
  return undefined;
};

const setMarker = (partition: string, eventId: string, seq: number) =>
  dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: feedMarkerKey(partition, eventId),
      UpdateExpression: 'SET seq = :seq',
      ExpressionAttributeValues: { ':seq': seq },
    }),
  );

/**
 * Appends events to one partition in the order given, each once however often it is appended.
 * Returns how many it appended (0 for those it found there).
 */
const appendToPartition = async (partition: string, events: readonly ChangeEvent[]): Promise<number> => {
  let next: number | undefined;
  let appended = 0;
  for (const event of events) {
    const markerKey = feedMarkerKey(partition, event.event_id);
    next ??= (await lastSeq(partition)) + 1;
    let marker: Record<string, unknown> | undefined;
    try {
      await dynamo.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...markerKey, event_id: event.event_id, after: next - 1 },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      marker = (
        await dynamo.send(new GetCommand({ TableName: tableName, Key: markerKey, ConsistentRead: true }))
      ).Item;
    }
    if (marker) {
      if (typeof marker.seq === 'number') continue;
      const found = await findAppended(partition, Number(marker.after ?? 0), event.event_id);
      if (found !== undefined) {
        await setMarker(partition, event.event_id, found);
        continue;
      }
    }
    for (;;) {
      next ??= (await lastSeq(partition)) + 1;
      try {
        await dynamo.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...feedEntryKey(partition, next),
              event_id: event.event_id,
              appended_at: new Date().toISOString(),
              event,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        break;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        next = undefined; // another appender took it: read where the feed ends now
      }
    }
    await setMarker(partition, event.event_id, next);
    next += 1;
    appended += 1;
  }
  return appended;
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
        UpdateExpression: 'REMOVE #event.#ban.#details',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#event': 'event', '#ban': 'ban', '#details': 'details_json' },
      }),
    );
  }
};

/** Appends the events of a batch of changes to the feed, in their order. Safe to repeat. */
export const appendToFeed = async (events: readonly ChangeEvent[]): Promise<number> => {
  const byPartition = new Map<string, ChangeEvent[]>();
  for (const event of events) {
    const partition = feedPartitionOf(event);
    byPartition.set(partition, [...(byPartition.get(partition) ?? []), event]);
  }
  let appended = 0;
  await Promise.all(
    [...byPartition].map(async ([partition, list]) => {
      appended += await appendToPartition(partition, list);
      for (const event of list) await redactErased(partition, event);
    }),
  );
  return appended;
};

/** How an event reads to a publisher: its ban as a listing shows it, under the reader's policy now. */
export const toFeedEvent = (event: ChangeEvent, policy: Policy, now: string): FeedEvent => {
  if (event.type === 'policy.updated') {
    const { event_id, type, occurred_at, policy: changed } = event;
    return { event_id, type, occurred_at, device_id: null, policy: changed };
  }
  const listed = toListedBan(event.ban, policy, now);
  return {
    event_id: event.event_id,
    type: event.type,
    occurred_at: event.occurred_at,
    device_id: event.device_id,
    // An erased ban is enforced nowhere, whatever it was.
    ban: event.type === 'ban.erased' ? { ...listed, details_json: null, enforced: false } : listed,
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
  return [Number(match[2]), Number(match[3]), Number(match[4])];
};

interface Entry {
  partition: number;
  seq: number;
  appendedAt: string;
  event: ChangeEvent;
}

const entryFromItem = (partition: number, item: Record<string, unknown>): Entry => {
  const event = item.event as ChangeEvent | undefined;
  if (typeof event?.event_id !== 'string' || typeof item.appended_at !== 'string') {
    throw new IntegrityError('stored feed entry is malformed');
  }
  return { partition, seq: seqOf(item.sk), appendedAt: item.appended_at, event };
};

/**
 * One page of the feed for (publisher, game), oldest first: one Query per partition read (three)
 * and the reader's policy, in parallel. The partitions are merged by when their entries were
 * appended; the page stops where any partition's read stops, so nothing later is shown before
 * something earlier that was not read yet. `next_cursor` holds a position per partition: from
 * it, every entry after is read once, whatever was appended meanwhile.
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
  const merged = read
    .flat()
    .sort((a, b) => a.appendedAt.localeCompare(b.appendedAt) || a.partition - b.partition || a.seq - b.seq);
  const positions = [...from];
  const items: FeedEvent[] = [];
  const now = new Date().toISOString();
  for (const entry of merged) {
    items.push(toFeedEvent(entry.event, policy, now));
    positions[entry.partition] = entry.seq;
    // A partition read in full may hold more after its last entry: stop with it.
    const list = read[entry.partition] ?? [];
    if (list.length === query.limit && list.at(-1) === entry) break;
    if (items.length === query.limit) break;
  }
  return { items, next_cursor: encodeCursor(publisherId, gameId, positions as unknown as Positions) };
};
