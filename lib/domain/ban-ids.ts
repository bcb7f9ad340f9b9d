import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as clock from '../clock';
import { dynamo, tableName } from '../storage/client';
import { counterKey } from '../storage/keys';

/**
 * Ban ids with no single hot item. An id is
 *
 *   (milliseconds since 2026-01-01) × 2^11  +  shard × 2^6  +  (that shard's count mod 2^6)
 *
 * where each create adds 1 to one of 32 counter items, taken in turn from a random start, so the
 * writes spread over 32 items instead of one (DynamoDB allows ~1,000 writes/s per item: one
 * counter capped every publisher together near 1,000 creates/s).
 *
 * - Integers below 2^53 (JSON-safe) until the year 2165; larger than every id of the old single
 *   counter, so existing bans keep their place.
 * - Unique: two creates on different shards differ in the shard bits; on one shard they hold
 *   different counts, and equal ids would need 64 more increments of that one item inside one
 *   millisecond of the clocks that stamped them (64,000 writes/s on one item, which DynamoDB
 *   refuses, or clocks 64 ms apart; Lambda's are synchronised to well under that).
 * - Increasing with time: newest first by id is newest first by creation, to the millisecond;
 *   and within one process strictly in creation order, since an id that would not exceed the
 *   last one this process gave (same millisecond, a lower shard) is stamped a millisecond later.
 * One UpdateItem, as before: the create's round trips do not change.
 */

export const BAN_ID_EPOCH_MS = Date.UTC(2026, 0, 1);
export const BAN_ID_SHARDS = 32;
const SHARD_BITS = 5;
const COUNT_BITS = 6;

let nextShard = Math.floor(Math.random() * BAN_ID_SHARDS);
let lastId = 0;

/** The id of `count` from `shard`, stamped at `now`. */
export const banIdOf = (now: number, shard: number, count: number): number =>
  (now - BAN_ID_EPOCH_MS) * 2 ** (SHARD_BITS + COUNT_BITS) +
  shard * 2 ** COUNT_BITS +
  (count % 2 ** COUNT_BITS);

export const nextBanId = async (): Promise<number> => {
  const shard = nextShard;
  nextShard = (nextShard + 1) % BAN_ID_SHARDS;
  const { Attributes } = await dynamo.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: counterKey(shard),
      UpdateExpression: 'ADD #value :one',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const count = Number(Attributes?.value);
  // Never below the last id: the same stamp if that is enough (a higher shard), else the next one.
  let id = banIdOf(Math.max(clock.now(), stampOf(lastId)), shard, count);
  if (id <= lastId) id = banIdOf(stampOf(lastId) + 1, shard, count);
  lastId = id;
  return id;
};

/** The time an id is stamped with. */
export const stampOf = (id: number): number =>
  Math.floor(id / 2 ** (SHARD_BITS + COUNT_BITS)) + BAN_ID_EPOCH_MS;
