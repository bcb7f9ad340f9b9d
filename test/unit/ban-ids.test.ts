import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { BAN_ID_EPOCH_MS, BAN_ID_SHARDS, banIdOf, nextBanId, stampOf } from '../../lib/domain/ban-ids';
import { configureStorage } from '../../lib/storage/client';
import { counterKey } from '../../lib/storage/keys';

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
      for (let count = 1; count <= 64; count += 1) ids.add(banIdOf(now, shard, count));
    }
    expect(ids.size).toBe(BAN_ID_SHARDS * 64);
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
