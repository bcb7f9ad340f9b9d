import { describe, expect, it } from 'vitest';
import { itemsWritten } from '../../bench/storage-probe';
import { banKey, counterKey, idempotencyKey, policyKey } from '../../lib/storage/keys';

/** The bench's write count per item (bench/hot-item.ts) names each item a command writes, once. */

const name = (key: { pk: string; sk: string }) => `${key.pk} ${key.sk}`;
const ban = banKey('dev-1', 7);
const counter = counterKey(3);

describe('itemsWritten', () => {
  it('names the one item of a PutItem, UpdateItem or DeleteItem, plain or marshalled', () => {
    expect(itemsWritten('PutItem', { Item: { ...ban, ban_id: 7 } })).toEqual([name(ban)]);
    expect(itemsWritten('UpdateItem', { Key: counter })).toEqual([name(counter)]);
    expect(itemsWritten('DeleteItem', { Key: { pk: { S: ban.pk }, sk: { S: ban.sk } } })).toEqual([
      name(ban),
    ]);
  });

  it('names each item a TransactWriteItems or BatchWriteItem writes, and no condition check', () => {
    const record = idempotencyKey('pub-a', 'g', 'k');
    const policy = policyKey('pub-a');
    expect(
      itemsWritten('TransactWriteItems', {
        TransactItems: [
          { Put: { Item: record } },
          { Update: { Key: counter } },
          { Delete: { Key: ban } },
          { ConditionCheck: { Key: policy } },
        ],
      }),
    ).toEqual([name(record), name(counter), name(ban)]);
    expect(
      itemsWritten('BatchWriteItem', {
        RequestItems: { table: [{ PutRequest: { Item: ban } }, { DeleteRequest: { Key: policy } }] },
      }),
    ).toEqual([name(ban), name(policy)]);
  });

  it('names nothing for reads', () => {
    expect(itemsWritten('GetItem', { Key: ban })).toEqual([]);
    expect(itemsWritten('Query', { ExpressionAttributeValues: { ':pk': ban.pk } })).toEqual([]);
  });
});
