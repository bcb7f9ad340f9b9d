import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as clock from '../clock';
import { mapWithConcurrency } from '../concurrency';
import { dynamo, tableName } from '../storage/client';
import { counterKey, importSlotKey } from '../storage/keys';

/**
 * Ban ids with no single hot item: `(ms since 2026-01-01) × 2^11 + shard × 2^6 + (count mod 2^5)`,
 * each create adding 1 to one of 32 counter items, taken in turn from a random start; bit 5 (value
 * 32) of a native id is always 0. Imported bans (lib/domain/imports.ts) take ids of their own,
 * stamped with their created_at, from per-second or per-millisecond slot counters: bit 5 set after
 * IMPORT_REGION_END, below every native id before it. Invariants: ids are unique integers below
 * 2^53, id order is creation order to the stamp (a native id's millisecond, an imported one's second
 * or millisecond), native ids within one process also in creation order; a create makes one counter
 * write, an import one per distinct second or millisecond of a batch. The reasons and the
 * arithmetic: docs/data-model.md#where-this-project-deviates-from-a-plain-reading.
 */

export const BAN_ID_EPOCH_MS = Date.UTC(2026, 0, 1);
export const BAN_ID_SHARDS = 32;
const SHARD_BITS = 5;
const COUNT_BITS = 6;
/** A native id's count takes the low 5 of its 6 bits: the sixth (value 32) is an imported id's. */
const NATIVE_COUNT_MODULUS = 2 ** 5;
const IMPORTED_BIT = 32;

let nextShard = Math.floor(Math.random() * BAN_ID_SHARDS);
let lastId = 0;

/** The id of `count` from `shard`, stamped at `now`. */
export const banIdOf = (now: number, shard: number, count: number): number =>
  (now - BAN_ID_EPOCH_MS) * 2 ** (SHARD_BITS + COUNT_BITS) +
  shard * 2 ** COUNT_BITS +
  (count % NATIVE_COUNT_MODULUS);

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

/** The time a native id (or an imported one of region B) is stamped with. */
export const stampOf = (id: number): number =>
  Math.floor(id / 2 ** (SHARD_BITS + COUNT_BITS)) + BAN_ID_EPOCH_MS;

/** Imported bans created from here on take region B ids (to the millisecond, bit 5 set). */
export const IMPORT_REGION_END_MS = Date.UTC(2026, 11, 1);
/** The earliest created_at an import takes: region A counts seconds from here. */
export const IMPORT_EARLIEST_MS = Date.UTC(1990, 0, 1);
/** Region A: `2^32 + (seconds since 1990) × 2^15 + slot`, above every id of the old single counter. */
const REGION_A_BASE = 2 ** 32;
const REGION_A_SLOT_BITS = 15;
/** Slots in one bucket: a second of region A, a millisecond of region B. */
export const IMPORT_SLOTS = { A: 2 ** REGION_A_SLOT_BITS, B: 2 ** 10 } as const;

export type ImportRegion = 'A' | 'B';
/** Where an imported ban created at `createdAt` (ms) takes its slot: a second (A) or a millisecond (B). */
export const importBucketOf = (createdAt: number): { region: ImportRegion; bucket: number } =>
  createdAt < IMPORT_REGION_END_MS
    ? { region: 'A', bucket: Math.floor((createdAt - IMPORT_EARLIEST_MS) / 1000) }
    : { region: 'B', bucket: createdAt - BAN_ID_EPOCH_MS };

/**
 * The id of slot `slot` of a bucket. Region B spreads the slot over the 11 low bits with bit 5
 * set: `(slot mod 32) × 64 + 32 + floor(slot / 32)`, so it never equals a native id (bit 5 is 0
 * there) of the same millisecond.
 */
export const importedBanIdOf = (region: ImportRegion, bucket: number, slot: number): number => {
  if (!Number.isInteger(slot) || slot < 0 || slot >= IMPORT_SLOTS[region])
    throw new RangeError(`slot ${slot} is outside region ${region}'s 0..${IMPORT_SLOTS[region] - 1}`);
  if (region === 'A') return REGION_A_BASE + bucket * 2 ** REGION_A_SLOT_BITS + slot;
  return (
    bucket * 2 ** (SHARD_BITS + COUNT_BITS) +
    (slot % NATIVE_COUNT_MODULUS) * 2 ** COUNT_BITS +
    IMPORTED_BIT +
    Math.floor(slot / NATIVE_COUNT_MODULUS)
  );
};

/** UpdateItems in flight at once while a batch takes its slots. */
const SLOT_CONCURRENCY = 16;

/** Reserves `count` slots of one bucket: the first of them, by the counter's value after the ADD. */
const reserveSlots = async (region: ImportRegion, bucket: number, count: number): Promise<number> => {
  const { Attributes } = await dynamo.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: importSlotKey(region, bucket),
      UpdateExpression: 'ADD #value :n',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':n': count },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.value) - count;
};

/**
 * Ids for imported bans created at `createdAt` (ms, each at least IMPORT_EARLIEST_MS), in the same
 * order. Rows are grouped by bucket; each bucket is one UpdateItem reserving a slot per row, the
 * rows taking them in created_at order (then input order). The rows a full bucket cannot hold spill
 * to the next one (a second or a millisecond later), and so on: the order is kept, the stamp moves
 * a tick. A slot taken for a row that is then not written is a gap.
 */
export const allocateImportedIds = async (createdAt: readonly number[]): Promise<number[]> => {
  const ids: number[] = new Array(createdAt.length).fill(0);
  const order = createdAt
    .map((at, index) => ({ at, index }))
    .sort((a, b) => a.at - b.at || a.index - b.index);
  let pending = new Map<string, { region: ImportRegion; bucket: number; rows: number[] }>();
  const add = (region: ImportRegion, bucket: number, rows: number[]) => {
    const id = `${region}#${bucket}`;
    const group = pending.get(id) ?? { region, bucket, rows: [] };
    group.rows.push(...rows);
    pending.set(id, group);
  };
  for (const { at, index } of order) {
    if (!(at >= IMPORT_EARLIEST_MS)) throw new RangeError(`created_at ${at} is before 1990`);
    const { region, bucket } = importBucketOf(at);
    add(region, bucket, [index]);
  }
  while (pending.size > 0) {
    const groups = [...pending.values()].sort((a, b) =>
      a.region === b.region ? a.bucket - b.bucket : a.region < b.region ? -1 : 1,
    );
    pending = new Map();
    const spills = await mapWithConcurrency(groups, SLOT_CONCURRENCY, async (group) => {
      const first = await reserveSlots(group.region, group.bucket, group.rows.length);
      const fit = Math.max(0, Math.min(group.rows.length, IMPORT_SLOTS[group.region] - first));
      group.rows.slice(0, fit).forEach((row, i) => {
        ids[row] = importedBanIdOf(group.region, group.bucket, first + i);
      });
      return { ...group, rows: group.rows.slice(fit) };
    });
    for (const spill of spills) if (spill.rows.length > 0) add(spill.region, spill.bucket + 1, spill.rows);
  }
  return ids;
};
