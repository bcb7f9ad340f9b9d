import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ensureTable, openStore, type Store, useStore } from '../infra/local/store';
import type { ChangeRecord } from '../lib/domain/change-events';
import { authorizerFunction, handlerEntry, routes } from '../lib/routes';
import { banKey } from '../lib/storage/keys';
import { lambdaContext, proxyEvent } from './events';
import {
  type AppealTarget,
  appealOperations,
  BENCH_GAME,
  FEED_PAGE_EVENTS,
  feedPage,
  LIST_DEVICE,
  LIST_DEVICE_BANS,
  operations,
  WEBHOOK_FLOORS,
} from './operations';
import { median, probeStorage } from './storage-probe';

/**
 * The in-process parts of the benchmark, on an in-memory dynalite store:
 *  - storage round trips per operation, counted by intercepting the client;
 *  - handler overhead: time in our code (total minus time waiting on storage), warm;
 *  - scale: listing latency against the number of visible bans on the device.
 */

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Something put between the storage client and the store (bench/delivery.ts: the change log's recorder). */
export type InFront = (store: Store) => Promise<{ endpoint: string; close(): Promise<void> }>;

export const startInProcess = async (options: { inFront?: InFront } = {}) => {
  const store = await openStore({ env: { DATA_DIR: ':memory:' } });
  await ensureTable(store);
  const front = await options.inFront?.(store);
  useStore(front ? { ...store, endpoint: front.endpoint } : store);
  const { dynamo, tableName: boundTable } = await import('../lib/storage/client');
  const tableName = boundTable();
  const { createApiKey } = await import('../lib/domain/api-keys');
  const probe = probeStorage(dynamo);
  const handlers = new Map<string, Handler>();
  for (const route of routes) {
    handlers.set(route.id, (await import(`../${handlerEntry(route.handler)}`)).handler as Handler);
  }
  const authorizer = (await import(`../${handlerEntry(authorizerFunction.handler)}`)).handler as (
    e: unknown,
  ) => Promise<unknown>;
  const key = await createApiKey('bench-publisher');

  /** Writes `count` visible social bans on a device, 25 per BatchWriteItem. */
  const seedBans = async (deviceId: string, count: number, firstId: number) => {
    for (let start = 0; start < count; start += 25) {
      const items = Array.from({ length: Math.min(25, count - start) }, (_, i) => {
        const banId = firstId + start + i;
        return {
          PutRequest: {
            Item: {
              ...banKey(deviceId, banId),
              ban_id: banId,
              device_id: deviceId,
              ban_type: 'social',
              scope: i % 2 ? 'global' : 'publisher',
              publisher_id: 'bench-publisher',
              game_id: BENCH_GAME,
              reason_code: 'bench',
              details_json: '{"match":"m-1","evidence":"clip-22"}',
              created_at: '2026-01-01T00:00:00.000Z',
              expires_at: null,
              revoked_at: null,
            },
          },
        };
      });
      await dynamo.send(new BatchWriteCommand({ RequestItems: { [tableName]: items } }));
    }
  };

  const invoke = async (routeId: string, event: APIGatewayProxyEvent) => {
    const handler = handlers.get(routeId);
    if (!handler) throw new Error(`no handler for ${routeId}`);
    const result = await handler(event, lambdaContext);
    if (result.statusCode >= 300) throw new Error(`${routeId} answered ${result.statusCode}: ${result.body}`);
    return result;
  };

  const close = async () => {
    await front?.close();
    await store.close();
  };
  return { store, probe, handlers, authorizer, key, seedBans, invoke, close };
};

export type InProcess = Awaited<ReturnType<typeof startInProcess>>;

export const seedListingDevice = (env: InProcess) => env.seedBans(LIST_DEVICE, LIST_DEVICE_BANS, 1_000_000);

export const measureRoundTrips = async (env: InProcess) => {
  const rows = [];
  for (const op of operations) {
    if (op.warm) await env.invoke(op.route, op.event('bench-publisher'));
    env.probe.reset();
    await env.invoke(op.route, op.event('bench-publisher'));
    rows.push({
      operation: op.name,
      calls: env.probe.total(),
      floor: op.floor,
      by_command: env.probe.calls(),
    });
  }
  env.probe.reset();
  await env.authorizer({
    type: 'TOKEN',
    authorizationToken: `Bearer ${env.key.api_key}`,
    methodArn: 'arn:aws:execute-api:local:0:api/stage/GET/v1/policy',
  });
  rows.push({ operation: 'authorizer', calls: env.probe.total(), floor: 1, by_command: env.probe.calls() });
  return rows;
};

/**
 * Fills the feed of bench-publisher in bench-game with `count` ban.created events, a third in
 * each partition its reader reads (publisher, game, global), through the dispatcher itself
 * (lib/domain/dispatch.ts) from change records of the stream's shape.
 */
export const seedFeed = async (count: number, firstId = 3_000_000) => {
  const { dispatchChanges } = await import('../lib/domain/dispatch');
  const scopes = ['publisher', 'game', 'global'] as const;
  const records = Array.from({ length: count }, (_, i) => {
    const banId = firstId + i;
    const deviceId = `bench-feed-${banId}`;
    const key = banKey(deviceId, banId);
    const createdAt = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    const item = {
      ...key,
      ban_id: banId,
      device_id: deviceId,
      ban_type: 'cheat',
      scope: scopes[i % scopes.length],
      publisher_id: 'bench-publisher',
      game_id: BENCH_GAME,
      reason_code: 'bench',
      created_at: createdAt,
      expires_at: null,
      revoked_at: null,
    };
    return {
      eventName: 'INSERT' as const,
      dynamodb: {
        ApproximateCreationDateTime: Date.parse(createdAt) / 1000,
        Keys: marshall(key),
        NewImage: marshall(item),
        SequenceNumber: String(i + 1),
        StreamViewType: 'NEW_AND_OLD_IMAGES' as const,
      },
    };
  });
  // The dispatcher's batches are 100 records (infra/local/events.ts); no webhook, so no deliveries.
  for (let start = 0; start < records.length; start += 100) {
    // Marshalled images are the stream's, typed apart from aws-lambda's record (as the local log's are).
    await dispatchChanges(records.slice(start, start + 100) as unknown as ChangeRecord[], async () => {});
  }
};

/**
 * The storage calls of one feed page of 100 (`GET /v1/events?limit=100`) over a feed that holds
 * more: one Query per partition the reader reads, and the policy. Checks the page is full.
 */
export const measureFeedPage = async (env: InProcess) => {
  await seedFeed(FEED_PAGE_EVENTS);
  env.probe.reset();
  const result = await env.invoke(feedPage.route, feedPage.event('bench-publisher'));
  const row = {
    operation: feedPage.name,
    calls: env.probe.total(),
    floor: feedPage.floor,
    by_command: env.probe.calls(),
  };
  const items = (JSON.parse(result.body) as { items: unknown[] }).items.length;
  if (items !== 100) throw new Error(`feed page: ${items} events, not 100`);
  return row;
};

/**
 * The storage calls of the appeals' operations (bench/operations.ts, appealOperations), in their
 * order: each on a game ban of the bench publisher's in the bench game (enforced under its policy),
 * made, and for a decision appealed, before the count starts.
 */
/**
 * Webhooks (WEBHOOK_FLOORS): one webhook of the bench publisher's, to a receiver on the loopback;
 * its listing, a test event (queued into a local hand-off, not SQS), and that delivery's attempt.
 */
export const measureWebhookRoundTrips = async (env: InProcess) => {
  const { useLocalDeliveryQueue } = await import('../lib/storage/delivery-queue');
  const { attemptDelivery } = await import('../lib/domain/deliveries');
  const receiver = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', () => done()));
  const loopback = process.env.WEBHOOK_ALLOW_LOOPBACK;
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  const queued: Array<Parameters<typeof attemptDelivery>[0]> = [];
  useLocalDeliveryQueue(async (refs) => {
    queued.push(...refs);
  });
  const publisherId = 'bench-publisher';
  try {
    const made = await env.invoke(
      'createWebhook',
      proxyEvent({
        method: 'POST',
        resource: '/v1/webhooks',
        publisherId,
        body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/bench` },
      }),
    );
    const webhookPath = { webhook_id: (JSON.parse(made.body) as { webhook_id: string }).webhook_id };
    const rows: Array<{
      operation: string;
      calls: number;
      floor: number;
      by_command: ReturnType<InProcess['probe']['calls']>;
    }> = [];
    const measure = async (operation: keyof typeof WEBHOOK_FLOORS, run: () => Promise<unknown>) => {
      env.probe.reset();
      await run();
      rows.push({
        operation,
        calls: env.probe.total(),
        floor: WEBHOOK_FLOORS[operation],
        by_command: env.probe.calls(),
      });
    };
    await measure('list webhooks', () =>
      env.invoke('listWebhooks', proxyEvent({ resource: '/v1/webhooks', publisherId })),
    );
    await measure('test webhook', () =>
      env.invoke(
        'testWebhook',
        proxyEvent({
          method: 'POST',
          resource: '/v1/webhooks/{webhook_id}/test',
          publisherId,
          pathParameters: webhookPath,
        }),
      ),
    );
    const [ref] = queued;
    if (!ref) throw new Error('the test event was not queued');
    await measure('delivery attempt', async () => {
      const outcome = await attemptDelivery(ref, 1);
      if (!outcome.settled) throw new Error('the test delivery was not delivered');
    });
    await env.invoke(
      'deleteWebhook',
      proxyEvent({
        method: 'DELETE',
        resource: '/v1/webhooks/{webhook_id}',
        publisherId,
        pathParameters: webhookPath,
      }),
    );
    return rows;
  } finally {
    useLocalDeliveryQueue(undefined);
    if (loopback === undefined) delete process.env.WEBHOOK_ALLOW_LOOPBACK;
    else process.env.WEBHOOK_ALLOW_LOOPBACK = loopback;
    await new Promise((done) => receiver.close(done));
  }
};

export const measureAppealRoundTrips = async (env: InProcess) => {
  const publisherId = 'bench-publisher';
  const newBan = async (fields: Record<string, unknown> = {}): Promise<AppealTarget> => {
    const result = await env.invoke(
      'createBan',
      proxyEvent({
        method: 'POST',
        resource: '/v1/bans',
        publisherId,
        headers: { 'X-Game-Id': BENCH_GAME },
        body: {
          device_id: `bench-appeal-${randomUUID()}`,
          ban_type: 'cheat',
          scope: 'game',
          reason_code: 'bench',
          ...fields,
        },
      }),
    );
    const { ban_id, device_id } = JSON.parse(result.body) as { ban_id: number; device_id: string };
    return { ban_id, device_id, appeal_id: '' };
  };
  const filing = appealOperations.find((op) => op.on === 'new ban');
  if (!filing) throw new Error('appeals: no filing to make the appeals with');
  const file = async (target: AppealTarget) => {
    const result = await env.invoke(filing.route, filing.event(publisherId, target));
    return { ...target, appeal_id: (JSON.parse(result.body) as { appeal_id: string }).appeal_id };
  };
  let filed: AppealTarget | undefined;
  const rows = [];
  for (const op of appealOperations) {
    const target =
      op.on === 'new ban'
        ? await newBan(op.ban?.())
        : op.on === 'own appeal'
          ? await file(await newBan(op.ban?.()))
          : filed;
    if (!target) throw new Error(`${op.name}: no appeal filed before it`);
    if (op.warmUp) await env.invoke(op.route, op.event(publisherId, target));
    env.probe.reset();
    const result = await env.invoke(op.route, op.event(publisherId, target));
    rows.push({
      operation: op.name,
      calls: env.probe.total(),
      floor: op.floor,
      by_command: env.probe.calls(),
    });
    if (op.on === 'new ban') {
      filed = { ...target, appeal_id: (JSON.parse(result.body) as { appeal_id: string }).appeal_id };
    }
  }
  return rows;
};

export const measureOverhead = async (env: InProcess, invocations: number) => {
  const rows = [];
  for (const op of operations) {
    const ours: number[] = [];
    const totals: number[] = [];
    // A batch is 100 device queries, seconds each on the in-process store: 10 runs give a stable
    // median and keep the whole benchmark inside its 10 minutes.
    const isBatch = op.name.startsWith('enforcement batch');
    const runs = isBatch ? Math.min(10, invocations) : invocations;
    const warmUp = isBatch ? 3 : 20;
    for (let i = 0; i < runs + warmUp; i++) {
      const event = op.event('bench-publisher');
      env.probe.reset();
      const start = performance.now();
      await env.invoke(op.route, event);
      const total = performance.now() - start;
      if (i < warmUp) continue;
      totals.push(total);
      ours.push(total - env.probe.busyMs());
    }
    rows.push({
      operation: op.name,
      invocations: runs,
      median_total_ms: median(totals),
      median_ours_ms: median(ours),
    });
    console.error(`  ${op.name}: ${median(ours).toFixed(3)} ms ours of ${median(totals).toFixed(2)} ms`);
  }
  return rows;
};

export const measureScale = async (env: InProcess, sizes: readonly number[]) => {
  const rows = [];
  let nextId = 2_000_000;
  for (const size of sizes) {
    const device = `bench-scale-${size}`;
    await env.seedBans(device, size, nextId);
    nextId += size;
    const event = proxyEvent({
      resource: '/v1/device/{device_id}/bans/social',
      publisherId: 'bench-publisher',
      headers: { 'X-Game-Id': BENCH_GAME },
      pathParameters: { device_id: device },
      query: { limit: '50' },
    });
    const samples: number[] = [];
    const runs = size >= 10_000 ? 3 : size >= 1_000 ? 7 : 20;
    let queries = 0;
    for (let i = 0; i < runs + 1; i++) {
      env.probe.reset();
      const start = performance.now();
      const result = await env.invoke('listSocialBans', event);
      const elapsed = performance.now() - start;
      if (i === 0) {
        const body = JSON.parse(result.body);
        if (body.counts.total !== size || body.items.length !== Math.min(50, size))
          throw new Error(`scale ${size}: wrong listing`);
      }
      queries = env.probe.calls().Query ?? 0;
      if (i >= 1) samples.push(elapsed);
    }
    rows.push({
      visible_bans: size,
      median_ms: median(samples),
      queries,
      ms_per_ban: median(samples) / size,
    });
  }
  // Growth exponent k in latency ∝ bans^k, by least squares on the log-log points from 100 up
  // (below that the fixed cost of the request dominates).
  const points = rows
    .filter((r) => r.visible_bans >= 100)
    .map((r) => [Math.log(r.visible_bans), Math.log(r.median_ms)] as const);
  const mx = points.reduce((a, [x]) => a + x, 0) / points.length;
  const my = points.reduce((a, [, y]) => a + y, 0) / points.length;
  const exponent =
    points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) /
    points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return { rows, exponent };
};
