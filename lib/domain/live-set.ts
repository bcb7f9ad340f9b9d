import { PutCommand, type PutCommandInput, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as clock from '../clock';
import { mapWithConcurrency } from '../concurrency';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import { LIVE_BAN_PREFIX, liveBanKey } from '../storage/keys';
import { TIME_TO_LIVE_ATTRIBUTE } from '../storage/table';
import { type Ban, banFromCopy } from './ban-record';
import type { ChangeEvent } from './change-events';
import { IntegrityError } from './errors';

/**
 * The live sets of the enforcement snapshot: beside each feed partition, one item per ban of its
 * events that may still restrict a device, kept by the dispatcher from the same events as the feed
 * and changed BEFORE they are appended (lib/domain/feed.ts appendToFeed), so every event at or
 * before a feed cursor read first is already in what a reader of the set reads after it.
 * Invariant: the result does not depend on the order its writes land in (revoked and erased leave
 * a tombstone; a ban is put only where no tombstone and no later copy is). Items, time to live and
 * the reasons: docs/data-model.md#the-enforcement-snapshot.
 */

/** Seconds a tombstone is kept: longer than a change record can be dispatched again (the stream keeps 24 h). */
export const TOMBSTONE_SECONDS = 2 * 86_400;
/** Seconds a live ban's item is kept after its end (as the index of expiring bans does). */
const AFTER_EXPIRY_SECONDS = 86_400;

/** Writes to a partition's live set in flight at once. */
const LIVE_SET_CONCURRENCY = 10;

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The write one event makes to one partition's live set, or none (not a ban event). */
export const liveSetWrite = (
  partition: string,
  event: ChangeEvent,
  now = clock.now(),
): PutCommandInput | undefined => {
  if (!('ban' in event)) return undefined;
  const { ban } = event;
  const key = liveBanKey(partition, ban.device_id, ban.ban_id);
  const gone = event.type === 'ban.revoked' || event.type === 'ban.erased' || ban.revoked_at !== null;
  if (gone) {
    return {
      TableName: tableName(),
      Item: {
        ...key,
        gone: true,
        occurred_at: event.occurred_at,
        [TIME_TO_LIVE_ATTRIBUTE]: Math.floor(now / 1000) + TOMBSTONE_SECONDS,
      },
    };
  }
  return {
    TableName: tableName(),
    Item: {
      ...key,
      device_id: ban.device_id,
      occurred_at: event.occurred_at,
      ban,
      ...(ban.expires_at === null
        ? {}
        : { [TIME_TO_LIVE_ATTRIBUTE]: epochSeconds(ban.expires_at) + AFTER_EXPIRY_SECONDS }),
    },
    // Never over a tombstone, nor over a later event's copy.
    ConditionExpression: 'attribute_not_exists(pk) OR (attribute_not_exists(gone) AND occurred_at <= :at)',
    ExpressionAttributeValues: { ':at': event.occurred_at },
  };
};

/**
 * Applies a batch's events to one feed partition's live set. Safe to repeat, in any order and by
 * several dispatchers at once (see above); a put refused by its condition is a later state kept.
 */
export const applyToLiveSet = async (partition: string, events: readonly ChangeEvent[]): Promise<void> => {
  const writes = events.flatMap((event) => liveSetWrite(partition, event) ?? []);
  await mapWithConcurrency(writes, LIVE_SET_CONCURRENCY, async (write) => {
    try {
      await dynamo.send(new PutCommand(write));
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  });
};

/** What a live set's Query gives: its live bans (tombstones left out) and where it stopped. */
export interface LivePage {
  bans: Ban[];
  /** The sort key of the last item read (live or not), if any. */
  lastKey: string | undefined;
  /** Whether the partition may hold more after `lastKey`. */
  more: boolean;
  /** Items read, tombstones and ended bans included. */
  read: number;
}

/**
 * One Query of a partition's live set in key order (consistent), after `after` (a sort key), at
 * most `limit` items read; tombstones are read and left out, as are bans that have ended by `now`.
 */
export const readLiveSet = async (
  partition: string,
  after: string | undefined,
  limit: number,
  now: string,
): Promise<LivePage> => {
  const { Items = [], LastEvaluatedKey } = await dynamo.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :live)',
      ExpressionAttributeValues: { ':pk': partition, ':live': LIVE_BAN_PREFIX },
      ConsistentRead: true,
      Limit: limit,
      ...(after === undefined ? {} : { ExclusiveStartKey: { pk: partition, sk: after } }),
    }),
  );
  const bans: Ban[] = [];
  for (const item of Items) {
    if (item.gone === true) continue;
    if (typeof item.ban !== 'object' || item.ban === null)
      throw new IntegrityError('stored live ban is malformed');
    const ban = banFromCopy(item.ban);
    if (ban.revoked_at !== null || (ban.expires_at !== null && ban.expires_at <= now)) continue;
    bans.push(ban);
  }
  const last = Items.at(-1);
  return {
    bans,
    lastKey: last === undefined ? after : String(last.sk),
    more: LastEvaluatedKey !== undefined,
    read: Items.length,
  };
};
