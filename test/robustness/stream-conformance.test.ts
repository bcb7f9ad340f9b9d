import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent, ChangeRecord } from '../../lib/domain/change-events';
import { connectionConfig } from '../../lib/storage/connection';
import { GLOBAL_FEED_PARTITION, gameFeedPartition, publisherFeedPartition } from '../../lib/storage/keys';
import { TABLE_KEYS } from '../../lib/storage/table';
import type { TestApi } from '../support/api';
import { startTestApi } from '../support/api';

/**
 * The local change log stands for DynamoDB Streams: on DynamoDB Local, which has streams, the
 * same writes through the API are read back from the table's real stream (NEW_AND_OLD_IMAGES, as
 * the stack configures it) and must make exactly the events the local log made: the same ids,
 * types and items, so the dispatcher function deployed on the stream sees what the local one saw.
 * Only on DynamoDB Local (TEST_DYNAMODB_ENDPOINT, test/ddb-local/run.ts); dynalite has no streams.
 *
 * The streams API is called as JSON over HTTP (three calls), rather than adding a client package
 * for a test.
 */

const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
const tableName = `stream-${randomUUID()}`;
let api: TestApi;

const streams = async (operation: string, body: Record<string, unknown>): Promise<any> => {
  const res = await fetch(endpoint as string, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': `DynamoDBStreams_20120810.${operation}`,
      Authorization:
        'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: JSON.stringify(body),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${operation}: ${JSON.stringify(answer)}`);
  return answer;
};

/** Every record of the table's stream so far, shard by shard, oldest first. */
const streamRecords = async (streamArn: string): Promise<ChangeRecord[]> => {
  const { StreamDescription } = await streams('DescribeStream', { StreamArn: streamArn });
  const records: ChangeRecord[] = [];
  for (const shard of StreamDescription.Shards as Array<{ ShardId: string }>) {
    let { ShardIterator } = await streams('GetShardIterator', {
      StreamArn: streamArn,
      ShardId: shard.ShardId,
      ShardIteratorType: 'TRIM_HORIZON',
    });
    for (let empty = 0; ShardIterator && empty < 2; ) {
      const page = await streams('GetRecords', { ShardIterator, Limit: 1000 });
      records.push(...page.Records);
      empty = page.Records.length === 0 ? empty + 1 : 0;
      ShardIterator = page.NextShardIterator;
    }
  }
  return records;
};

describe.skipIf(!endpoint)('the local change log and the table stream', () => {
  let streamArn: string;
  beforeAll(async () => {
    const client = new DynamoDBClient(connectionConfig(endpoint));
    const { TableDescription } = await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
        ],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: tableName });
    client.destroy();
    streamArn = TableDescription?.LatestStreamArn as string;
    api = await startTestApi({ env: { DYNAMODB_ENDPOINT: endpoint as string, TABLE_NAME: tableName } });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('makes the same events from the stream as from the local log, for every kind of change', async () => {
    const key = (await api.createKey('stream-pub')).api_key;
    const made = async (body: Record<string, unknown>) =>
      (
        await api.request('POST', '/v1/bans', {
          key,
          game: 'g1',
          body: { device_id: 'stream-device', ban_type: 'cheat', reason_code: 'aimbot', ...body },
        })
      ).body.ban_id;
    const gameBan = await made({
      scope: 'game',
      details: { clip: 'c', frames: [1, 2.5], nested: { ok: true } },
    });
    await made({ scope: 'global', expires_at: '2099-01-01T00:00:00Z' });
    await made({ scope: 'publisher', ban_type: 'social' });
    await api.request('POST', `/v1/device/stream-device/bans/${gameBan}/revoke`, {
      key,
      game: 'g1',
      body: { reason_code: 'appeal' },
    });
    await api.request('PUT', '/v1/policy', { key, body: { enforce_global: false } });
    await api.request('PUT', '/v1/policy', { key, body: { enforce_global: true } });
    expect((await api.request('POST', '/v1/device/stream-device/erase', { key })).status).toBe(200);
    await api.settle();

    const { eventsOfChange } = await import('../../lib/domain/change-events');
    const fromStream = (await streamRecords(streamArn)).flatMap(eventsOfChange);
    const { dynamo } = await import('../../lib/storage/client');
    const feedEvents = async () => {
      const events: ChangeEvent[] = [];
      for (const pk of [
        publisherFeedPartition('stream-pub'),
        gameFeedPartition('stream-pub', 'g1'),
        GLOBAL_FEED_PARTITION,
      ]) {
        const pages = paginateQuery(
          { client: dynamo },
          {
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :seq)',
            ExpressionAttributeValues: { ':pk': pk, ':seq': 'SEQ#' },
            ConsistentRead: true,
          },
        );
        for await (const page of pages)
          for (const item of page.Items ?? []) events.push(item.event as ChangeEvent);
      }
      return events;
    };
    // The local dispatcher also reads its log every second: under a loaded machine (the whole
    // suite at once) the last record may be handed on just after settle(). What must hold is that
    // the feed comes to hold the stream's events, so it is read until it has as many, up to 10 s.
    let fromLog = await feedEvents();
    for (let waited = 0; fromLog.length < fromStream.length && waited < 10_000; waited += 250) {
      await new Promise((done) => setTimeout(done, 250));
      fromLog = await feedEvents();
    }
    const canonical = (value: unknown) =>
      JSON.stringify(value, (_key, entry) =>
        entry && typeof entry === 'object' && !Array.isArray(entry)
          ? Object.fromEntries(Object.entries(entry).sort(([a], [b]) => a.localeCompare(b)))
          : entry,
      );
    // An erasure's time is the change's own (the stream's clock, the log's): all else is the item.
    const comparable = (events: ChangeEvent[]) =>
      events
        .map((event) => {
          const { occurred_at, ...rest } = event;
          const shown = event.type === 'ban.erased' ? rest : event;
          // The feed drops an erased ban's details and statement from its earlier events; the stream
          // keeps the images.
          if (
            'ban' in shown &&
            fromStream.some((e) => e.type === 'ban.erased' && 'ban' in e && e.ban.ban_id === shown.ban.ban_id)
          ) {
            const { details_json: _gone, statement: _erased, ...ban } = shown.ban;
            return canonical({ ...shown, ban });
          }
          return canonical(shown);
        })
        .sort();
    expect(fromStream.map((e) => e.type).sort()).toEqual(
      [
        'ban.created',
        'ban.created',
        'ban.created',
        'ban.revoked',
        'policy.updated',
        'policy.updated',
        'ban.erased',
        'ban.erased',
        'ban.erased',
      ].sort(),
    );
    expect(comparable(fromLog)).toEqual(comparable(fromStream));
  });
});
