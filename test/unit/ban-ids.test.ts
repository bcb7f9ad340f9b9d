import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  allocateImportedIds,
  BAN_ID_EPOCH_MS,
  BAN_ID_SHARDS,
  banIdOf,
  IMPORT_EARLIEST_MS,
  IMPORT_REGION_END_MS,
  IMPORT_SLOTS,
  importedBanIdOf,
  nextBanId,
  stampOf,
} from '../../lib/domain/ban-ids';
import { configureStorage } from '../../lib/storage/client';
import { counterKey, importSlotKey } from '../../lib/storage/keys';

const ddb = mockClient(DynamoDBDocumentClient);
configureStorage({ tableName: 'unit-test-table' });
beforeEach(() => ddb.reset());

describe('ban ids', () => {
  it('are safe integers until well past 2100', () => {
    const in2100 = Date.UTC(2100, 0, 1);
    expect(Number.isSafeInteger(banIdOf(in2100, BAN_ID_SHARDS - 1, 63))).toBe(true);
  });

  it('exceed every id the single counter ever gave, so existing bans keep their place', () => {
    expect(banIdOf(BAN_ID_EPOCH_MS + 24 * 3600_000, 0, 0)).toBeGreaterThan(2 ** 32);
  });

  it('increase with time whatever the shard and count', () => {
    const now = Date.UTC(2026, 10, 23);
    expect(banIdOf(now + 1, 0, 0)).toBeGreaterThan(banIdOf(now, BAN_ID_SHARDS - 1, 63));
  });

  it('differ for every shard and count within one millisecond', () => {
    const now = Date.UTC(2026, 10, 23);
    const ids = new Set<number>();
    for (let shard = 0; shard < BAN_ID_SHARDS; shard += 1) {
      for (let count = 1; count <= 32; count += 1) ids.add(banIdOf(now, shard, count));
    }
    expect(ids.size).toBe(BAN_ID_SHARDS * 32);
  });

  it('keep bit 5 at 0, whatever the count, so that no native id is an imported one', () => {
    const now = Date.UTC(2026, 11, 5);
    for (let count = 0; count < 200; count += 1)
      expect(banIdOf(now, count % BAN_ID_SHARDS, count) & 32, `count ${count}`).toBe(0);
  });

  it('take turns over every counter item, one UpdateItem ADD each', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { value: 1 } });
    for (let i = 0; i < 2 * BAN_ID_SHARDS; i += 1) await nextBanId();
    const keys = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input.Key?.pk as string);
    expect(keys).toHaveLength(2 * BAN_ID_SHARDS);
    const perItem = new Map<string, number>();
    for (const key of keys) perItem.set(key, (perItem.get(key) ?? 0) + 1);
    expect(perItem.size).toBe(BAN_ID_SHARDS);
    expect([...perItem.values()].every((n) => n === 2)).toBe(true);
    expect([...perItem.keys()].sort()).toEqual(
      Array.from({ length: BAN_ID_SHARDS }, (_, shard) => counterKey(shard).pk).sort(),
    );
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input).toMatchObject({
      UpdateExpression: 'ADD #value :one',
      ReturnValues: 'UPDATED_NEW',
    });
  });

  it('increase in creation order within one process, even inside one millisecond as the shards wrap', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { value: 5 } });
    // Ahead of the real clock: ids never go back in time, so an earlier test's id must not be later.
    const at = Math.floor(Date.now() / 1000) * 1000 + 3_600_000;
    const frozen = vi.spyOn(Date, 'now').mockReturnValue(at);
    try {
      const ids: number[] = [];
      // More creates than shards: the turn comes back to lower shards inside the same millisecond.
      for (let i = 0; i < BAN_ID_SHARDS + 3; i += 1) ids.push(await nextBanId());
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
      expect(stampOf(ids[0] as number)).toBe(at);
      expect(stampOf(ids.at(-1) as number) - stampOf(ids[0] as number)).toBeLessThanOrEqual(2);
    } finally {
      frozen.mockRestore();
    }
  });
});

/** An in-memory slot counter per bucket, as DynamoDB's ADD with UPDATED_NEW answers it. */
const slotCounters = () => {
  const values = new Map<string, number>();
  ddb.on(UpdateCommand).callsFake((input) => {
    const key = `${input.Key.pk}|${input.Key.sk}`;
    const value = (values.get(key) ?? 0) + Number(input.ExpressionAttributeValues[':n']);
    values.set(key, value);
    return { Attributes: { value } };
  });
  return values;
};

const at = (iso: string) => Date.parse(iso);

describe('imported ban ids', () => {
  it('sort by created_at across both regions, below native ids of later times and above earlier ones', async () => {
    slotCounters();
    const times = [
      '2031-05-05T10:00:00.123Z',
      '1990-01-01T00:00:00.000Z',
      '2026-11-30T23:59:59.999Z',
      '2026-12-01T00:00:00.000Z',
      '2005-06-07T08:09:10.500Z',
      '2027-01-01T00:00:00.001Z',
    ].map(at);
    const ids = await allocateImportedIds(times);
    const byTime = times.map((time, i) => ({ time, id: ids[i] as number })).sort((a, b) => a.time - b.time);
    expect(byTime.map((entry) => entry.id)).toEqual([...ids].sort((a, b) => a - b));
    // Region B is stamped to the millisecond as a native id is: after a native id a millisecond
    // earlier, before one a millisecond later, never equal to one of the same millisecond.
    const last = byTime.at(-1) as { time: number; id: number };
    expect(last.id).toBeGreaterThan(banIdOf(last.time - 1, BAN_ID_SHARDS - 1, 31));
    expect(last.id).toBeLessThan(banIdOf(last.time + 1, 0, 0));
    expect(stampOf(last.id)).toBe(last.time);
    // Region A sorts below every native id stamped from 2026-11-01 on, and above the old counter's.
    for (const { time, id } of byTime.filter((entry) => entry.time < IMPORT_REGION_END_MS)) {
      expect(id).toBeLessThan(banIdOf(Date.UTC(2026, 10, 1), 0, 0));
      expect(id).toBeGreaterThanOrEqual(2 ** 32);
      expect(time).toBeGreaterThanOrEqual(IMPORT_EARLIEST_MS);
    }
  });

  it('never equal a native id of the same millisecond, for any slot and any shard and count', () => {
    const ms = Date.UTC(2027, 2, 3, 4, 5, 6, 7);
    const bucket = ms - BAN_ID_EPOCH_MS;
    const native = new Set<number>();
    for (let shard = 0; shard < BAN_ID_SHARDS; shard += 1)
      for (let count = 0; count < 32; count += 1) native.add(banIdOf(ms, shard, count));
    const imported = new Set<number>();
    for (let slot = 0; slot < IMPORT_SLOTS.B; slot += 1) {
      const id = importedBanIdOf('B', bucket, slot);
      expect(native.has(id)).toBe(false);
      expect(stampOf(id)).toBe(ms);
      imported.add(id);
    }
    expect(imported.size).toBe(IMPORT_SLOTS.B);
  });

  it('are safe integers until well past 2100 and refuse a slot outside the bucket', () => {
    const in2100 = Date.UTC(2100, 0, 1);
    expect(Number.isSafeInteger(importedBanIdOf('B', in2100 - BAN_ID_EPOCH_MS, IMPORT_SLOTS.B - 1))).toBe(
      true,
    );
    expect(() => importedBanIdOf('B', 1, IMPORT_SLOTS.B)).toThrow(RangeError);
    expect(() => importedBanIdOf('A', 1, -1)).toThrow(RangeError);
    expect(() => importedBanIdOf('A', 1, IMPORT_SLOTS.A)).toThrow(RangeError);
  });

  it('take one UpdateItem per distinct second (region A) or millisecond (region B) of a batch', async () => {
    slotCounters();
    const second = at('2010-03-04T05:06:07.000Z');
    const ms = at('2027-03-04T05:06:07.008Z');
    const ids = await allocateImportedIds([second + 900, second + 10, ms, second + 500, ms]);
    const calls = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(calls).toHaveLength(2);
    expect(calls.map((input) => input.Key)).toEqual(
      expect.arrayContaining([
        importSlotKey('A', (second - IMPORT_EARLIEST_MS) / 1000),
        importSlotKey('B', ms - BAN_ID_EPOCH_MS),
      ]),
    );
    expect(calls[0]).toMatchObject({ UpdateExpression: 'ADD #value :n', ReturnValues: 'UPDATED_NEW' });
    // Within the second, slots in created_at order: the row at .010 first, then .500, then .900.
    expect([ids[1], ids[3], ids[0]]).toEqual(
      [...[ids[1], ids[3], ids[0]]].sort((a, b) => (a ?? 0) - (b ?? 0)),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('are unique across batches of the same second: each takes slots after the last', async () => {
    slotCounters();
    const t = at('2001-01-01T00:00:00.000Z');
    const first = await allocateImportedIds([t, t, t]);
    const second = await allocateImportedIds([t, t]);
    expect(new Set([...first, ...second]).size).toBe(5);
    expect(Math.min(...second)).toBeGreaterThan(Math.max(...first));
  });

  it('spill the rows a full bucket cannot hold to the next tick, keeping their order', async () => {
    const values = slotCounters();
    const ms = at('2028-02-02T02:02:02.002Z');
    const full = importSlotKey('B', ms - BAN_ID_EPOCH_MS);
    values.set(`${full.pk}|${full.sk}`, IMPORT_SLOTS.B - 2);
    const ids = await allocateImportedIds([ms, ms, ms, ms, ms - 1]);
    expect(new Set(ids).size).toBe(5);
    // Two rows fit in the millisecond; the other two are stamped a millisecond later.
    expect(ids.slice(0, 4).map(stampOf)).toEqual([ms, ms, ms + 1, ms + 1]);
    expect(stampOf(ids[4] as number)).toBe(ms - 1);
    expect(Math.max(ids[0] as number, ids[1] as number)).toBeLessThan(
      Math.min(ids[2] as number, ids[3] as number),
    );
    // Region A: a full second spills into the next second.
    const t = at('1999-12-31T23:59:59.000Z');
    const second = importSlotKey('A', (t - IMPORT_EARLIEST_MS) / 1000);
    values.set(`${second.pk}|${second.sk}`, IMPORT_SLOTS.A);
    const [spilled] = await allocateImportedIds([t]);
    const next = await allocateImportedIds([t + 1000]);
    expect(spilled).toBe(importedBanIdOf('A', (t - IMPORT_EARLIEST_MS) / 1000 + 1, 0));
    expect(next[0]).toBe((spilled as number) + 1);
  });

  it('refuse a created_at before 1990', async () => {
    slotCounters();
    await expect(allocateImportedIds([IMPORT_EARLIEST_MS - 1])).rejects.toThrow(RangeError);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});
