import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { defaultPolicyTrust } from '@kernel/policy-trust';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Ban } from '../../lib/domain/ban-record';
import type { ChangeEvent } from '../../lib/domain/change-events';
import { deploymentIdOf, forgetDeploymentId } from '../../lib/domain/deployment';
import {
  decodeSnapshotCursor,
  encodeSnapshotCursor,
  readEnforcementSnapshot,
} from '../../lib/domain/enforcement-snapshot';
import { appendToFeed } from '../../lib/domain/feed';
import { applyToLiveSet, liveSetWrite, TOMBSTONE_SECONDS } from '../../lib/domain/live-set';
import { defaultPolicyFlags } from '../../lib/domain/policy';
import { tableName } from '../../lib/storage/client';
import {
  deploymentKey,
  GLOBAL_FEED_PARTITION,
  gameFeedPartition,
  liveBanKey,
  policyKey,
  publisherFeedPartition,
} from '../../lib/storage/keys';

/**
 * The enforcement snapshot's storage, against a mocked client: the live set's item per event type
 * (its key spelled out once here, as test/unit/keys.test.ts does for the others), that the feed
 * changes it before appending, and the snapshot's reads, paging and cursor binding.
 */

const ddb = mockClient(DynamoDBDocumentClient);
const conditionFailed = () =>
  Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });

const NOW_MS = Date.parse('2026-11-27T12:00:00.000Z');
const ban: Ban = {
  ban_id: 42,
  device_id: 'device-1',
  ban_type: 'cheat',
  scope: 'game',
  publisher_id: 'pub-a',
  game_id: 'g1',
  reason_code: 'aimbot',
  details_json: '{"clip":"c"}',
  player_message: 'Banned for cheating.',
  created_at: '2026-11-23T10:00:00.000Z',
  expires_at: null,
  revoked_at: null,
};
const event = (type: ChangeEvent['type'], over: Partial<Ban> = {}, at = ban.created_at): ChangeEvent =>
  ({
    event_id: `evt_${type}`,
    type,
    occurred_at: at,
    publisher_id: 'pub-a',
    device_id: 'device-1',
    ban: { ...ban, ...over },
  }) as ChangeEvent;
const GAME = gameFeedPartition('pub-a', 'g1');

describe('the live set kept beside each feed partition', () => {
  it('spells its key LIVE#<device>#<ban id, 16 digits> in the feed partition', () => {
    expect(liveBanKey(GAME, 'device-1', 42)).toEqual({
      pk: 'FEED#GAME#pub-a#g1',
      sk: 'LIVE#device-1#0000000000000042',
    });
  });

  it('puts a created ban whole, never over a tombstone or a later event, with no ttl when permanent', () => {
    expect(liveSetWrite(GAME, event('ban.created'), NOW_MS)).toEqual({
      TableName: expect.any(String),
      Item: {
        pk: 'FEED#GAME#pub-a#g1',
        sk: 'LIVE#device-1#0000000000000042',
        device_id: 'device-1',
        occurred_at: ban.created_at,
        ban: { ...ban },
      },
      ConditionExpression: 'attribute_not_exists(pk) OR (attribute_not_exists(gone) AND occurred_at <= :at)',
      ExpressionAttributeValues: { ':at': ban.created_at },
    });
  });

  it('gives an expiring ban a ttl a day after its end (epoch seconds)', () => {
    const expires = '2026-12-01T00:00:00.000Z';
    const write = liveSetWrite(GAME, event('ban.created', { expires_at: expires }), NOW_MS);
    expect(write?.Item?.ttl).toBe(Date.parse(expires) / 1000 + 86_400);
  });

  it('puts an updated ban at its update time, under the same condition', () => {
    const at = '2026-11-25T10:00:00.000Z';
    const write = liveSetWrite(
      GAME,
      event('ban.updated', { updated_at: at, player_message: 'New.' }, at),
      NOW_MS,
    );
    expect(write?.Item).toMatchObject({ occurred_at: at, ban: { player_message: 'New.', updated_at: at } });
    expect(write?.ExpressionAttributeValues).toEqual({ ':at': at });
  });

  it.each([
    ['ban.revoked', { revoked_at: '2026-11-24T00:00:00.000Z' }],
    ['ban.erased', {}],
    // One record of an appeal decision can make ban.updated and ban.revoked: the update of a revoked ban is gone too.
    ['ban.updated', { revoked_at: '2026-11-24T00:00:00.000Z', updated_at: '2026-11-24T00:00:00.000Z' }],
  ] as const)('leaves a tombstone for %s: nothing of the ban, kept two days, unconditional', (type, over) => {
    const write = liveSetWrite(GAME, event(type, over, '2026-11-24T00:00:00.000Z'), NOW_MS);
    expect(write).toEqual({
      TableName: expect.any(String),
      Item: {
        pk: 'FEED#GAME#pub-a#g1',
        sk: 'LIVE#device-1#0000000000000042',
        gone: true,
        occurred_at: '2026-11-24T00:00:00.000Z',
        ttl: NOW_MS / 1000 + TOMBSTONE_SECONDS,
      },
    });
  });

  it('ignores policy and appeal events', () => {
    const policyEvent = {
      event_id: 'evt_p',
      type: 'policy.updated',
      occurred_at: ban.created_at,
      publisher_id: 'pub-a',
      device_id: null,
      policy: {
        publisher_id: 'pub-a',
        ...defaultPolicyFlags,
        ...defaultPolicyTrust,
        updated_at: ban.created_at,
      },
    } as ChangeEvent;
    expect(liveSetWrite(publisherFeedPartition('pub-a'), policyEvent)).toBeUndefined();
  });
});

describe('applyToLiveSet and appendToFeed', () => {
  beforeEach(() => ddb.reset());

  it('makes one put per ban event; a put refused by its condition keeps the later state', async () => {
    ddb.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});
    await applyToLiveSet(GAME, [event('ban.created'), event('ban.revoked', { revoked_at: ban.created_at })]);
    const puts = ddb.commandCalls(PutCommand).map((c) => c.args[0].input.Item);
    expect(puts).toHaveLength(2);
    expect(puts.map((item) => item?.sk)).toEqual([
      'LIVE#device-1#0000000000000042',
      'LIVE#device-1#0000000000000042',
    ]);
  });

  it('fails (for the batch to be retried) on any other storage error', async () => {
    ddb.on(PutCommand).rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    await expect(applyToLiveSet(GAME, [event('ban.created')])).rejects.toThrow('throttled');
  });

  it('changes the live set of each partition before it appends the events there', async () => {
    const order: string[] = [];
    ddb.on(PutCommand).callsFake((input) => {
      order.push(String(input.Item.sk).startsWith('LIVE#') ? 'live' : 'entry');
      return {};
    });
    ddb.on(UpdateCommand).callsFake(() => {
      order.push('feed');
      return {};
    });
    ddb.on(QueryCommand).resolves({ Items: [] });
    await appendToFeed([event('ban.created')]);
    // The live item first, then the feed's own writes (its claim, its entry, ...).
    expect(order[0]).toBe('live');
    expect(order.filter((write) => write === 'live')).toHaveLength(1);
    expect(order).toContain('entry');
    const live = ddb.commandCalls(PutCommand)[0]?.args[0].input;
    expect(live?.Item).toMatchObject(liveBanKey(GAME, 'device-1', 42));
  });
});

describe('readEnforcementSnapshot', () => {
  const policyItem = {
    ...policyKey('pub-a'),
    publisher_id: 'pub-a',
    ...defaultPolicyFlags,
    updated_at: '2026-11-01T00:00:00.000Z',
  };
  const future = new Date(Date.now() + 86_400_000).toISOString();
  const past = new Date(Date.now() - 1000).toISOString();
  const liveItem = (partition: string, b: Partial<Ban>) => {
    const whole = { ...ban, ...b };
    return {
      ...liveBanKey(partition, whole.device_id, whole.ban_id),
      device_id: whole.device_id,
      ban: whole,
    };
  };
  const RANDOM_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
  /** Each partition's live items, in key order, as the mocked Query serves them (Limit, ExclusiveStartKey). */
  let live: Record<string, Record<string, unknown>[]>;
  const liveQueries = () =>
    ddb
      .commandCalls(QueryCommand)
      .map((c) => c.args[0].input as QueryCommandInput)
      .filter((input) => input.ExpressionAttributeValues?.[':live'] === 'LIVE#');

  beforeEach(() => {
    ddb.reset();
    forgetDeploymentId();
    ddb.on(GetCommand, { Key: policyKey('pub-a') }).resolves({ Item: policyItem });
    ddb
      .on(GetCommand, { Key: deploymentKey() })
      .resolves({ Item: { ...deploymentKey(), random_id: RANDOM_ID } });
    live = {
      [publisherFeedPartition('pub-a')]: [
        liveItem(publisherFeedPartition('pub-a'), { ban_id: 1, scope: 'publisher' }),
      ],
      [GAME]: [
        liveItem(GAME, { ban_id: 2, device_id: 'd-expired', expires_at: past }),
        { ...liveBanKey(GAME, 'd-gone', 3), gone: true, occurred_at: ban.created_at },
        liveItem(GAME, { ban_id: 4, device_id: 'd-later', expires_at: future }),
      ],
      [GLOBAL_FEED_PARTITION]: [
        liveItem(GLOBAL_FEED_PARTITION, {
          ban_id: 5,
          scope: 'global',
          publisher_id: 'pub-b',
          device_id: 'd-g',
        }),
      ],
    };
    ddb.on(QueryCommand).callsFake((input: QueryCommandInput) => {
      if (input.ExpressionAttributeValues?.[':live'] !== 'LIVE#') return { Items: [] };
      const all = live[String(input.ExpressionAttributeValues[':pk'])] ?? [];
      const start = input.ExclusiveStartKey
        ? all.findIndex((item) => item.sk === input.ExclusiveStartKey?.sk) + 1
        : 0;
      const Items = all.slice(start, start + (input.Limit ?? all.length));
      const more = start + Items.length < all.length || Items.length === input.Limit;
      return {
        Items,
        ...(more && Items.length > 0
          ? { LastEvaluatedKey: { pk: Items.at(-1)?.pk, sk: Items.at(-1)?.sk } }
          : {}),
      };
    });
  });

  it('reads the policy and each partition live set in order (consistent), skipping tombstones and ended bans', async () => {
    const page = await readEnforcementSnapshot('pub-a', 'g1', { limit: 500 });
    expect(page.items.map((item) => [item.device_id, item.ban_id])).toEqual([
      ['device-1', 1],
      ['d-later', 4],
      ['d-g', 5],
    ]);
    expect(page.next_cursor).toBeNull();
    expect(page.policy).toEqual({
      publisher_id: 'pub-a',
      ...defaultPolicyFlags,
      // An item without trust settings reads as their defaults.
      ...defaultPolicyTrust,
      updated_at: policyItem.updated_at,
    });
    expect(page.game_id).toBe('g1');
    // Listed as a listing shows it: another publisher's details are null, its own shown.
    expect(page.items[0]).toMatchObject({ details_json: { clip: 'c' }, enforced: true, created_by: null });
    expect(page.items[2]).toMatchObject({ publisher_id: 'pub-b', details_json: null, game_id: null });
    expect(liveQueries()).toEqual(
      [publisherFeedPartition('pub-a'), GAME, GLOBAL_FEED_PARTITION].map((pk) => ({
        TableName: expect.any(String),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :live)',
        ExpressionAttributeValues: { ':pk': pk, ':live': 'LIVE#' },
        ConsistentRead: true,
        Limit: expect.any(Number),
      })),
    );
    // The policy and the table's deployment item, read once by this process.
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input.Key)).toEqual([
      policyKey('pub-a'),
      deploymentKey(),
    ]);
    expect(page.deployment_id).toBe(deploymentIdOf(RANDOM_ID, tableName()));
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('pages with a cursor that resumes after the last key read, the feed cursor the same on every page', async () => {
    const first = await readEnforcementSnapshot('pub-a', 'g1', { limit: 1 });
    expect(first.items.map((item) => item.ban_id)).toEqual([1]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const seen = [...first.items.map((item) => item.ban_id)];
    let cursor = first.next_cursor;
    let pages = 1;
    while (cursor) {
      const queriesBefore = ddb.commandCalls(QueryCommand).length;
      const page = await readEnforcementSnapshot('pub-a', 'g1', { limit: 1, cursor });
      // A later page reads no feed head: only the live sets.
      expect(
        ddb
          .commandCalls(QueryCommand)
          .slice(queriesBefore)
          .every((c) => c.args[0].input.ExpressionAttributeValues?.[':live'] === 'LIVE#'),
      ).toBe(true);
      expect(page.feed_cursor).toBe(first.feed_cursor);
      expect(page.deployment_id).toBe(first.deployment_id);
      seen.push(...page.items.map((item) => item.ban_id));
      cursor = page.next_cursor;
      pages += 1;
      expect(pages).toBeLessThan(10);
    }
    expect(seen).toEqual([1, 4, 5]);
    // The deployment item is read by the first page only: the process keeps it.
    expect(
      ddb.commandCalls(GetCommand).filter((c) => c.args[0].input.Key?.pk === deploymentKey().pk),
    ).toHaveLength(1);
  });

  it('refuses a cursor of another game before it reads anything', async () => {
    const first = await readEnforcementSnapshot('pub-a', 'g1', { limit: 1 });
    ddb.resetHistory();
    await expect(
      readEnforcementSnapshot('pub-a', 'g2', { limit: 1, cursor: first.next_cursor as string }),
    ).rejects.toMatchObject({ field: 'cursor', issue: 'invalid' });
    expect(ddb.calls()).toHaveLength(0);
  });

  it('binds its cursor to the publisher and game, and refuses anything it did not make', () => {
    const cursor = encodeSnapshotCursor('pub-a', 'g1', {
      feedCursor: 'ZjEuYWJj',
      partition: 1,
      after: 'LIVE#d-1#0000000000000002',
    });
    expect(decodeSnapshotCursor('pub-a', 'g1', cursor)).toEqual({
      feedCursor: 'ZjEuYWJj',
      partition: 1,
      after: 'LIVE#d-1#0000000000000002',
    });
    for (const [publisher, game] of [
      ['pub-a', 'g2'],
      ['pub-b', 'g1'],
    ] as const) {
      expect(() => decodeSnapshotCursor(publisher, game, cursor)).toThrow(
        expect.objectContaining({
          field: 'cursor',
          message: 'was returned to another publisher or for another game',
        }),
      );
    }
    const forged = (text: string) => Buffer.from(text).toString('base64url');
    for (const garbage of [
      'abc',
      forged('s1.AAAAAAAAAAAA.3.ZjE.'),
      forged(`s1.${Buffer.from(cursor, 'base64url').toString().split('.')[1]}.0.ZjE.${forged('BAN#1')}`),
    ]) {
      expect(() => decodeSnapshotCursor('pub-a', 'g1', garbage)).toThrow(
        expect.objectContaining({ field: 'cursor', message: 'must be a next_cursor this API returned' }),
      );
    }
  });
});
