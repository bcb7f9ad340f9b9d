import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as clock from '../clock';
import { dynamo, tableName } from '../storage/client';
import { counterKey } from '../storage/keys';

/**
 * Ban ids with no single hot item: `(ms since 2026-01-01) × 2^11 + shard × 2^6 + (count mod 2^6)`,
 * each create adding 1 to one of 32 counter items, taken in turn from a random start. Invariants:
 * ids are unique integers below 2^53, increasing with time (within one process, in creation
 * order), and a create makes one counter write. The reasons and the arithmetic:
 * docs/data-model.md#where-this-project-deviates-from-a-plain-reading.
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
