import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import autocannon from 'autocannon';
import { mapWithConcurrency } from '../lib/concurrency';
import { connectionConfig } from '../lib/storage/connection';
import {
  auditEventKey,
  auditPartition,
  banKey,
  bannedDeviceKey,
  policyKey as keyOfPolicy,
} from '../lib/storage/keys';
import { startChild, stopChild, waitForLine } from './children';
import { BENCH_GAME, LIST_DEVICE, LIST_DEVICE_BANS, operations } from './operations';
import { percentile } from './storage-probe';

/**
 * Local throughput: a bounded load on the API (`npm start`'s server over an in-memory store, the
 * authorizer cached as deployed), against the raw store doing the same storage calls directly
 * with the same concurrency. Store, API and load generator are separate processes, and the store
 * process is the same one for both measurements.
 */

const TABLE = 'bench-throughput';

/** The storage calls each operation makes, sent straight to the store. */
/** Whose trail the raw side writes and reads: as many events as the API's, by the same runs. */
const RAW_PUBLISHER = 'raw-publisher';

const rawCalls = async (client: DynamoDBDocumentClient): Promise<Record<string, () => Promise<unknown>>> => {
  // Imported late: the storage client (which lib/bans loads) insists on TABLE_NAME at import.
  process.env.TABLE_NAME ||= TABLE;
  const { visibleBansQuery } = await import('../lib/domain/bans');
  const policyKey = keyOfPolicy('dev-publisher');
  const getPolicy = () =>
    client.send(new GetCommand({ TableName: TABLE, Key: policyKey, ConsistentRead: true }));
  // The very Query input the domain sends, visibility filter included.
  const queryDevice = (device: string) =>
    client.send(
      new QueryCommand({
        ...visibleBansQuery('dev-publisher', BENCH_GAME, device, 'social'),
        TableName: TABLE,
      }),
    );
  const queryAllTypes = (device: string) =>
    client.send(
      new QueryCommand({ ...visibleBansQuery('dev-publisher', BENCH_GAME, device), TableName: TABLE }),
    );
  let id = 10_000_000;
  const putBan = async () => {
    const banId = ++id;
    await client.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk: 'COUNTER', sk: 'RAW' },
        UpdateExpression: 'ADD #v :one',
        ExpressionAttributeNames: { '#v': 'value' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    // The ban and, beside it, its entry in the index of banned devices (lib/domain/banned-devices.ts).
    await Promise.all([
      client.send(
        new PutCommand({
          TableName: TABLE,
          Item: {
            ...banKey(`raw-${banId}`, banId),
            ban_id: banId,
            ban_type: 'cheat',
            scope: 'global',
            reason_code: 'bench',
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
      client.send(
        new PutCommand({
          TableName: TABLE,
          Item: {
            ...bannedDeviceKey(RAW_PUBLISHER, `raw-${banId}`, banId),
            device_id: `raw-${banId}`,
            game_id: 'raw',
            created_at: new Date().toISOString(),
          },
        }),
      ),
    ]);
    await putEvent(`raw-ban-${banId}`);
  };
  /**
   * An audit event put, conditional as the domain's (lib/domain/audit.ts), in a partition of its
   * own: the API reads dev-publisher's trail, and must not meet these bare items there.
   */
  const putEvent = (eventId: string) => {
    const occurredAt = new Date().toISOString();
    const deviceId = `bench-device-${eventId}`;
    return client.send(
      new PutCommand({
        TableName: TABLE,
        Item: {
          ...auditEventKey(RAW_PUBLISHER, occurredAt, eventId),
          type: 'ban.created',
          device_id: deviceId,
          // The size and shape of the events the API stores and reads back.
          event: {
            event_id: eventId,
            occurred_at: occurredAt,
            actor: { key_id: 'key_0123456789ab', name: 'local development' },
            type: 'ban.created',
            device_id: deviceId,
            ban_id: 57_764_096_754_433,
            ban_type: 'cheat',
            scope: 'global',
            game_id: BENCH_GAME,
            reason_code: 'bench',
            expires_at: null,
          },
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  };
  const repeatEvent = async () => {
    // The domain re-records the previous policy change's event each update: a failed condition.
    await putEvent('raw-policy-previous').catch(() => undefined);
  };
  let version = 0;
  return {
    'get policy': getPolicy,
    'put policy': async () => {
      await client.send(
        new UpdateCommand({
          TableName: TABLE,
          Key: policyKey,
          UpdateExpression:
            'SET before_rep_include_game = rep_include_game, rep_include_game = :t, updated_at = :now, version = if_not_exists(version, :zero) + :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':t': true, ':now': new Date().toISOString(), ':zero': 0, ':one': 1 },
          ReturnValues: 'ALL_OLD',
        }),
      );
      await Promise.all([repeatEvent(), putEvent(`raw-policy-${++version}`)]);
    },
    'read the audit trail': () =>
      client.send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :event)',
          ExpressionAttributeValues: { ':pk': auditPartition(RAW_PUBLISHER), ':event': 'EVENT#' },
          ScanIndexForward: false,
          ConsistentRead: true,
          Limit: 51,
        }),
      ),
    'create ban': putBan,
    'list social bans': () => Promise.all([getPolicy(), queryDevice(LIST_DEVICE)]),
    enforcement: () => Promise.all([getPolicy(), queryAllTypes(LIST_DEVICE)]),
    'enforcement batch of 100': () =>
      Promise.all([
        getPolicy(),
        mapWithConcurrency(
          Array.from({ length: 100 }, (_, i) => `bench-lobby-${i}`),
          10,
          queryAllTypes,
        ),
      ]),
  };
};

const runRaw = async (fn: () => Promise<unknown>, connections: number, seconds: number) => {
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) {
        const start = performance.now();
        try {
          await fn();
          latencies.push(performance.now() - start);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  return {
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
};

export const measureThroughput = async (seconds: number, connections: number) => {
  const store = startChild(['bench/store-process.ts'], {});
  const endpoint = JSON.parse((await waitForLine(store, /\{"endpoint":"[^"]+"\}/)).match[0])
    .endpoint as string;
  // The API without the local change recorder beside it (bench/api-process.ts): deployed, the
  // stream is the outbox and no recorder sits on the write path, so with the recorder the write
  // rows would compare unlike work (its extra reads and records) with the raw side's calls.
  const api = startChild(['bench/api-process.ts'], {
    DYNAMODB_ENDPOINT: endpoint,
    TABLE_NAME: TABLE,
    AUTHORIZER_CACHE_SECONDS: '300',
    // One publisher drives every route flat out: the bench measures the service, not its limits.
    RATE_LIMIT_RPS: '1000000',
    RATE_LIMIT_BURST: '1000000',
  });
  const { match } = await waitForLine(api, /^\{"api":.*\}$/m);
  const { url, key } = JSON.parse(match[0]).api as { url: string; key: string };
  const client = DynamoDBDocumentClient.from(new DynamoDBClient(connectionConfig(endpoint)));
  const headers = {
    Authorization: `Bearer ${key}`,
    'X-Game-Id': BENCH_GAME,
    'Content-Type': 'application/json',
  };
  try {
    for (let i = 0; i < LIST_DEVICE_BANS; i++) {
      const res = await fetch(`${url}/v1/bans`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          device_id: LIST_DEVICE,
          ban_type: 'social',
          scope: i % 2 ? 'global' : 'game',
          reason_code: 'bench',
        }),
      });
      if (res.status !== 201) throw new Error(`seeding failed: ${res.status}`);
    }
    const raw = await rawCalls(client);
    const rows = [];
    for (const op of operations) {
      if (op.name === 'create ban, new key') continue;
      // A batch is already 10 queries in flight: one connection keeps the store within its means.
      const opConnections = op.name.startsWith('enforcement batch') ? 1 : connections;
      const result = await autocannon({
        url,
        connections: opConnections,
        duration: seconds,
        requests: [
          {
            method: op.http.method as 'GET',
            path: op.http.path,
            headers,
            ...(op.http.body
              ? {
                  setupRequest: (req: autocannon.Request) => ({
                    ...req,
                    body: JSON.stringify(op.http.body?.()),
                  }),
                }
              : {}),
          },
        ],
      });
      const apiRow = {
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        errors: result.errors + result.timeouts + result.non2xx,
      };
      const rawFn = raw[op.name];
      // The raw side is a rate too: half the time gives a stable figure and keeps the run short.
      const rawRow = rawFn ? await runRaw(rawFn, opConnections, Math.max(5, seconds / 2)) : undefined;
      rows.push({
        operation: op.name,
        api_rps: apiRow.rps,
        api_p50_ms: apiRow.p50,
        api_p99_ms: apiRow.p99,
        api_errors: apiRow.errors,
        raw_rps: rawRow?.rps ?? null,
        raw_p50_ms: rawRow?.p50 ?? null,
        raw_p99_ms: rawRow?.p99 ?? null,
        raw_errors: rawRow?.errors ?? null,
        ratio: rawRow ? apiRow.rps / rawRow.rps : null,
      });
    }
    return rows;
  } finally {
    client.destroy();
    await stopChild(api);
    await stopChild(store);
  }
};
