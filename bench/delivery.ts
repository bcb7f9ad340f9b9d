import type { ChildProcess } from 'node:child_process';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { mapWithConcurrency } from '../lib/concurrency';
import { throttleClasses } from '../lib/routes';
import { startChild, stopChild, waitForLine } from './children';
import { proxyEvent } from './events';
import {
  type InFront,
  measureFeedPage,
  measureRoundTrips,
  seedListingDevice,
  startInProcess,
} from './in-process';
import { BENCH_GAME, operations, WRITE_FLOORS } from './operations';
import { median, percentile } from './storage-probe';

/**
 * Part 7, events, on the local server (`npm start`'s startLocalApi over an in-memory
 * store, with its change-log recorder and dispatcher):
 *  - delivery latency: a webhook to a receiver on the loopback, `events` bans created over HTTP by
 *    10 writers, and for each ban the time from its 201 reaching the writer to its `ban.created`
 *    delivery reaching the receiver (matched by `webhook-id`, the event id). Goal p99 ≤ 2 s, with
 *    the writes paced at twice one publisher's deployed write limit (PACE). The same again
 *    unpaced: ten writers as fast as the one local process answers, where the dispatcher shares
 *    that process's thread with the API and falls behind, so the figure is mostly its backlog
 *    (reported, not a goal; on AWS the dispatcher is a function of its own).
 *  - write throughput of the same load with events (with a webhook, and without one) against the
 *    same gateway and handlers with no recorder in front of the store, in alternating rounds: the
 *    recorder's (and the dispatcher's) local cost. On AWS the stream is the outbox and the write
 *    path has no such cost.
 *  - storage calls per write: the API's (the lib client's, as deployed), and the store's behind
 *    the recorder (its read before, its read after an UpdateItem, its record), counted by a proxy
 *    between the recorder and the store.
 * Each API runs in a process of its own (the storage client reads its store at import); the
 * writers and the receiver run here, on one clock.
 *
 * Runs alone: `npx tsx bench/delivery.ts` (2–3 minutes; with the round trips, feed page
 * included); `npm run bench` includes its rows. BENCH_DELIVERY_EVENTS (default 1000) sets the load.
 */

export const DELIVERY_GOAL_MS = 2_000;
const WRITERS = 10;
/**
 * The paced load, writes a second: half the deployed stage's write limit for all publishers
 * (lib/routes.ts throttleClasses.write), 50 a second.
 */
const PACE = throttleClasses.write.rateLimit / 2;
/** Rounds of the throughput comparison, each side writing a fifth of the load in each. */
const ROUNDS = 5;
/** Creates before the measured ones, on every API alike (first calls load code, fill caches). */
const WARM_UP = 20;
/** How long to wait for the last delivery after the last write. */
const DELIVERY_WAIT_MS = 120_000;
const PUBLISHER = 'dev-publisher';
/** Every write goes through, as fast as it can: the bench measures the service, not its limits. */
const API_ENV = {
  AUTHORIZER_CACHE_SECONDS: '300',
  RATE_LIMIT_RPS: '1000000',
  RATE_LIMIT_BURST: '1000000',
  // Retries a failed attempt after 100 ms rather than 30 s (none is expected: the receiver answers 204).
  WEBHOOK_RETRY_BASE_MS: '100',
};

// --- child processes (bench/children.ts) ------------------------------------------------------

/** Whatever store this process used, each child opens its own in memory. */
const IN_MEMORY = { DYNAMODB_ENDPOINT: '', TABLE_NAME: '', DATA_DIR: ':memory:' };

/** A JSON line the child prints: `{"<marker>": ...}`. */
const jsonLine = async <T>(child: ChildProcess, marker: string): Promise<T> =>
  JSON.parse((await waitForLine(child, new RegExp(`^\\{"${marker}":.*\\}$`, 'm'))).match[0])[marker] as T;

interface RunningApi {
  url: string;
  key: string;
  child: ChildProcess;
}

/** `npm start` itself: the recorder and the dispatcher in front of the store. */
const startEventsApi = async (): Promise<RunningApi> => {
  const child = startChild(['infra/local/main.ts'], { ...IN_MEMORY, ...API_ENV, PORT: '0' });
  const { out } = await waitForLine(child, /bsk_[A-Za-z0-9_-]{43}/);
  return {
    url: (/listening on (http:\/\/[\d.:]+)/.exec(out) as RegExpExecArray)[1] as string,
    key: (/bsk_[A-Za-z0-9_-]{43}/.exec(out) as RegExpExecArray)[0],
    child,
  };
};

/** The same gateway and handlers straight on the store: no recorder, no dispatcher (bench/api-process.ts). */
const startPlainApi = async (): Promise<RunningApi> => {
  const child = startChild(['bench/api-process.ts'], {
    ...IN_MEMORY,
    ...API_ENV,
    BENCH_PUBLISHER: PUBLISHER,
  });
  return { ...(await jsonLine<{ url: string; key: string }>(child, 'api')), child };
};

// --- the counting proxy ----------------------------------------------------------------------

/** An HTTP proxy in front of a DynamoDB endpoint that counts the requests by operation. */
const countingProxy = async (upstreamEndpoint: string) => {
  const upstream = new URL(upstreamEndpoint);
  const agent = new Agent({ keepAlive: true });
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
    counts.set(operation, (counts.get(operation) ?? 0) + 1);
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reset: () => counts.clear(),
    calls: () => Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b))),
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    close: async () => {
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
      agent.destroy();
    },
  };
};

// --- the receiver ----------------------------------------------------------------------------

interface Arrival {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on the loopback: answers 204, keeps each event's first arrival by `webhook-id`. */
const startReceiver = async () => {
  const arrivals = new Map<string, Arrival>();
  let requests = 0;
  const server = createServer((req: IncomingMessage, res) => {
    const at = performance.now();
    requests += 1;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      if (!arrivals.has(id))
        arrivals.set(id, { at, headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    arrivals,
    requests: () => requests,
    /** Waits until every id has arrived, or `timeoutMs` passed; returns whether they all did. */
    waitFor: async (ids: readonly string[], timeoutMs: number) => {
      const until = Date.now() + timeoutMs;
      while (!ids.every((id) => arrivals.has(id))) {
        if (Date.now() > until) return false;
        await new Promise((done) => setTimeout(done, 20));
      }
      return true;
    },
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
};

// --- the write load --------------------------------------------------------------------------

const call = async (api: RunningApi, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${api.key}`,
      'X-Game-Id': BENCH_GAME,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** `count` global bans by `writers` writers: each write's event id and when its 201 arrived. */
const writeBans = async (
  api: RunningApi,
  count: number,
  label: string,
  writers = WRITERS,
  /** Writes a second at most (each write starts no earlier than its turn); none: as fast as answered. */
  pace?: number,
) => {
  process.env.TABLE_NAME ||= 'bench-delivery'; // lib/domain/audit.ts's storage client insists on one
  const { eventIdOf } = await import('../lib/domain/audit');
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const writes = await mapWithConcurrency(
    Array.from({ length: count }, (_, i) => i),
    writers,
    async (i) => {
      if (pace !== undefined) {
        const turn = started + (i * 1000) / pace;
        const wait = turn - performance.now();
        if (wait > 0) await new Promise((done) => setTimeout(done, wait));
      }
      const sent = performance.now();
      const res = await call(api, 'POST', '/v1/bans', {
        device_id: `bench-${label}-${i}`,
        ban_type: 'cheat',
        scope: 'global',
        reason_code: 'bench',
      }).catch(() => ({ status: 0, body: {} as Record<string, unknown> }));
      const acked = performance.now();
      if (res.status !== 201) {
        errors += 1;
        return undefined;
      }
      latencies.push(acked - sent);
      return { eventId: eventIdOf(PUBLISHER, 'ban.created', String(res.body.ban_id)), acked };
    },
  );
  return {
    started,
    seconds: (performance.now() - started) / 1000,
    writes: writes.filter((w) => w !== undefined),
    errors,
    latencies,
  };
};

/** Waits until the feed shows every id (the dispatcher has handed them on), reading on from where it was. */
const feedFollower = (api: RunningApi) => {
  let cursor: string | undefined;
  const seen = new Set<string>();
  return async (ids: readonly string[]) => {
    const until = Date.now() + DELIVERY_WAIT_MS;
    while (!ids.every((id) => seen.has(id)) && Date.now() < until) {
      const page = await call(
        api,
        'GET',
        `/v1/events?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      if (page.status !== 200) throw new Error(`feed read answered ${page.status}`);
      const items = page.body.items as Array<{ event_id: string }>;
      for (const item of items) seen.add(item.event_id);
      cursor = String(page.body.next_cursor);
      if (items.length === 0) await new Promise((done) => setTimeout(done, 20));
    }
  };
};

export interface WriteLoad {
  creates: number;
  errors: number;
  creates_per_s: number;
  p50_ms: number;
  p99_ms: number;
}

/**
 * Write throughput on three APIs, side by side: the plain one (no recorder), the events one
 * without a webhook (recorder, feed appends) and with one (and deliveries). ROUNDS rounds of a
 * fifth of the load each, the order turning every round, so that the host's load, which varies
 * from minute to minute, falls on every side alike. After an events side's round its dispatcher
 * is let catch up (the feed, or the receiver, has every event) before the next side writes.
 */
const measureWriteThroughput = async (count: number) => {
  const receiver = await startReceiver();
  const started: RunningApi[] = [];
  const start = async (api: Promise<RunningApi>) => {
    const running = await api;
    started.push(running);
    return running;
  };
  try {
    const plain = await start(startPlainApi());
    const noWebhook = await start(startEventsApi());
    const withWebhook = await start(startEventsApi());
    const hook = await call(withWebhook, 'POST', '/v1/webhooks', { url: receiver.url });
    if (hook.status !== 201) throw new Error(`webhook not made: ${hook.status} ${JSON.stringify(hook.body)}`);
    const sides = [
      { name: 'plain', api: plain, settle: async (_ids: string[]) => {} },
      { name: 'noWebhook', api: noWebhook, settle: feedFollower(noWebhook) },
      {
        name: 'withWebhook',
        api: withWebhook,
        settle: async (ids: string[]) => void (await receiver.waitFor(ids, DELIVERY_WAIT_MS)),
      },
    ].map((side) => ({ ...side, seconds: 0, creates: 0, errors: 0, latencies: [] as number[] }));
    for (const side of sides) {
      const warm = await writeBans(side.api, WARM_UP, `${side.name}-warm`);
      await side.settle(warm.writes.map((w) => w.eventId));
    }
    const perRound = Math.ceil(count / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(round + k) % sides.length] as (typeof sides)[number];
        const load = await writeBans(side.api, perRound, `${side.name}-${round}`);
        side.seconds += load.seconds;
        side.creates += load.writes.length;
        side.errors += load.errors;
        side.latencies.push(...load.latencies);
        await side.settle(load.writes.map((w) => w.eventId));
      }
    }
    const result = (name: string): WriteLoad => {
      const side = sides.find((s) => s.name === name) as (typeof sides)[number];
      return {
        creates: side.creates,
        errors: side.errors,
        creates_per_s: side.creates / side.seconds,
        p50_ms: median(side.latencies),
        p99_ms: percentile(side.latencies, 99),
      };
    };
    return { plain: result('plain'), noWebhook: result('noWebhook'), withWebhook: result('withWebhook') };
  } finally {
    for (const api of started) await stopChild(api.child);
    await receiver.close();
  }
};

/** The write load with a webhook on the events API: each delivery's latency. */
const measureDeliveries = async (count: number, writers: number, pace?: number) => {
  const receiver = await startReceiver();
  const api = await startEventsApi();
  try {
    const hook = await call(api, 'POST', '/v1/webhooks', { url: receiver.url });
    if (hook.status !== 201) throw new Error(`webhook not made: ${hook.status} ${JSON.stringify(hook.body)}`);
    const warm = await writeBans(api, WARM_UP, 'delivery-warm');
    await receiver.waitFor(
      warm.writes.map((w) => w.eventId),
      DELIVERY_WAIT_MS,
    );
    const load = await writeBans(api, count, 'delivery', writers, pace);
    const ids = load.writes.map((w) => w.eventId);
    await receiver.waitFor(ids, DELIVERY_WAIT_MS);
    const latencies: number[] = [];
    const webhook = new Webhook(String(hook.body.secret));
    let unsigned = 0;
    let lastArrival = load.started;
    for (const write of load.writes) {
      const arrival = receiver.arrivals.get(write.eventId);
      if (!arrival) continue;
      latencies.push(arrival.at - write.acked);
      lastArrival = Math.max(lastArrival, arrival.at);
      try {
        webhook.verify(arrival.body, arrival.headers as Record<string, string>);
      } catch {
        unsigned += 1;
      }
    }
    return {
      writers,
      pace: pace ?? null,
      events: ids.length,
      write_errors: load.errors,
      /** Creates a second during the load (the dispatcher working beside them). */
      creates_per_s: ids.length / load.seconds,
      delivered: latencies.length,
      /** Deliveries whose signature does not verify (standardwebhooks, with the webhook's secret). */
      unsigned,
      /** Requests the receiver got beyond one per event (retries, duplicates). */
      extra_requests: receiver.requests() - receiver.arrivals.size,
      p50_ms: latencies.length ? median(latencies) : Number.NaN,
      p99_ms: latencies.length ? percentile(latencies, 99) : Number.NaN,
      max_ms: latencies.length ? Math.max(...latencies) : Number.NaN,
      min_ms: latencies.length ? Math.min(...latencies) : Number.NaN,
      /** Events delivered a second, from the first write to the last delivery: the dispatcher's pace. */
      delivered_per_s: latencies.length / ((lastArrival - load.started) / 1000),
    };
  } finally {
    await stopChild(api.child);
    await receiver.close();
  }
};

// --- storage calls per write behind the recorder (`--store-calls`) ----------------------------

export interface StoreCallsRow {
  operation: keyof typeof WRITE_FLOORS;
  api_calls: number;
  api_by_command: Record<string, number>;
  store_calls: number;
  store_by_command: Record<string, number>;
  floor: number;
}

/** In a child: the in-process API with the recorder in front of the store and the proxy behind it. */
const storeCallsChild = async (): Promise<StoreCallsRow[]> => {
  const { startChangeRecorder } = await import('../infra/local/change-log');
  let proxy: Awaited<ReturnType<typeof countingProxy>> | undefined;
  const inFront: InFront = async (store) => {
    if (!store.endpoint) throw new Error('no local store');
    const counter = await countingProxy(store.endpoint);
    proxy = counter;
    const recorder = await startChangeRecorder({ endpoint: counter.endpoint, tableName: store.tableName });
    return {
      endpoint: recorder.endpoint,
      close: async () => {
        await recorder.close();
        await counter.close();
      },
    };
  };
  const env = await startInProcess({ inFront });
  const counter = proxy as NonNullable<typeof proxy>;
  const rows: StoreCallsRow[] = [];
  const measure = async (
    operation: keyof typeof WRITE_FLOORS,
    route: string,
    event: ReturnType<typeof proxyEvent>,
  ) => {
    env.probe.reset();
    counter.reset();
    // The recorder stores its record before it answers the write, so all its calls are in by now.
    const result = await env.invoke(route, event);
    rows.push({
      operation,
      api_calls: env.probe.total(),
      api_by_command: env.probe.calls(),
      store_calls: counter.total(),
      store_by_command: counter.calls(),
      floor: WRITE_FLOORS[operation],
    });
    return JSON.parse(result.body) as Record<string, unknown>;
  };
  try {
    const create = operations.find((op) => op.name === 'create ban');
    const update = operations.find((op) => op.name === 'put policy');
    if (!create || !update) throw new Error('no "create ban" or "put policy" operation');
    const ban = await measure('create ban', create.route, create.event('bench-publisher'));
    await measure(
      'revoke ban',
      'revokeBan',
      proxyEvent({
        method: 'POST',
        resource: '/v1/device/{device_id}/bans/{ban_id}/revoke',
        publisherId: 'bench-publisher',
        headers: { 'X-Game-Id': BENCH_GAME },
        pathParameters: { device_id: String(ban.device_id), ban_id: String(ban.ban_id) },
        body: { reason_code: 'bench' },
      }),
    );
    await measure('put policy', update.route, update.event('bench-publisher'));
    return rows;
  } finally {
    await env.close();
  }
};

const measureStoreCalls = async () => {
  const child = startChild(['bench/delivery.ts', '--store-calls'], IN_MEMORY);
  try {
    return await jsonLine<StoreCallsRow[]>(child, 'storeCalls');
  } finally {
    await stopChild(child);
  }
};

// --- the part as a whole ---------------------------------------------------------------------

export const measureEvents = async (events: number) => {
  const log = (line: string) => console.error(`  ${line}`);
  const storeCalls = await measureStoreCalls();
  log(`store calls: ${storeCalls.map((r) => `${r.operation} ${r.api_calls}/${r.store_calls}`).join(', ')}`);
  const writes = await measureWriteThroughput(events);
  log(
    `creates/s: no recorder ${writes.plain.creates_per_s.toFixed(0)}, events without a webhook ${writes.noWebhook.creates_per_s.toFixed(0)}, with one ${writes.withWebhook.creates_per_s.toFixed(0)}`,
  );
  const deliveries = [];
  // Paced at PACE writes a second (twice one publisher's deployed write limit, half the stage's),
  // then unpaced: ten writers as fast as the one local process answers, where the dispatcher,
  // sharing that process's one thread with the API, falls behind (reported, not a goal).
  for (const [writers, pace] of [
    [WRITERS, PACE],
    [WRITERS, undefined],
  ] as const) {
    const d = await measureDeliveries(events, writers, pace);
    log(
      `delivery, ${d.writers} writer(s)${pace ? ` at ${pace}/s` : ''}: p50 ${d.p50_ms.toFixed(0)} ms p99 ${d.p99_ms.toFixed(0)} ms, ${d.delivered} of ${d.events}, ${d.creates_per_s.toFixed(0)} creates/s, ${d.delivered_per_s.toFixed(0)} delivered/s`,
    );
    deliveries.push(d);
  }
  return { events, rounds: ROUNDS, storeCalls, writes, deliveries };
};

export type EventsResult = Awaited<ReturnType<typeof measureEvents>>;

const fixed = (n: number, digits = 2) => Number(n.toFixed(digits));
const byCommand = (calls: Record<string, number>) =>
  Object.entries(calls)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
const rate = (w: WriteLoad) =>
  `${fixed(w.creates_per_s, 0)} creates/s p50 ${fixed(w.p50_ms, 1)} p99 ${fixed(w.p99_ms, 1)} ms, ${w.errors} errors`;

/** The report's rows (bench/run.ts). */
export const eventsRows = (result: EventsResult) => {
  const { writes } = result;
  return [
    ...result.deliveries.map((d) => ({
      part: '7 events',
      subject: `delivery latency after the write (${d.events} events, ${d.writers} writers, ${d.pace ? `paced at ${d.pace}/s` : 'unpaced'})`,
      value: `p50 ${fixed(d.p50_ms, 0)} ms, p99 ${fixed(d.p99_ms, 0)} ms, max ${fixed(d.max_ms, 0)} ms; ${d.delivered} of ${d.events} delivered, ${d.unsigned} unsigned, ${d.extra_requests} extra`,
      baseline: `from each 201; ${fixed(d.creates_per_s, 0)} creates/s, ${fixed(d.delivered_per_s, 0)} delivered/s`,
      ratio: fixed(d.p99_ms / DELIVERY_GOAL_MS),
      target: d.pace ? 'p99 ≤ 2 s, all delivered' : 'reported (saturating one process), all delivered',
      ok:
        (d.pace === null || d.p99_ms <= DELIVERY_GOAL_MS) &&
        d.delivered === d.events &&
        d.unsigned === 0 &&
        d.write_errors === 0,
    })),
    ...(
      [
        ['write throughput, events and a webhook', writes.withWebhook],
        ['write throughput, events without a webhook', writes.noWebhook],
      ] as const
    ).map(([subject, load]) => ({
      part: '7 events',
      subject: `${subject} (${load.creates} creates in ${result.rounds} rounds)`,
      value: rate(load),
      baseline: `no recorder: ${rate(writes.plain)}`,
      ratio: fixed(load.creates_per_s / writes.plain.creates_per_s),
      target: 'reported (local only)',
      ok: load.errors === 0 && writes.plain.errors === 0,
    })),
    ...result.storeCalls.map((r) => ({
      part: '7 events',
      subject: `${r.operation}: API calls / store calls behind the recorder`,
      value: `${r.api_calls} (${byCommand(r.api_by_command)}) / ${r.store_calls} (${byCommand(r.store_by_command)})`,
      baseline: `API floor ${r.floor}, unchanged (AWS: the stream)`,
      ratio: fixed(r.store_calls / r.api_calls),
      target: 'API calls = floor',
      ok: r.api_calls === r.floor,
    })),
  ];
};

// --- entry points ----------------------------------------------------------------------------

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.LOG_LEVEL = 'silent';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const mode = process.argv[2];
  if (mode === '--store-calls') {
    console.log(JSON.stringify({ storeCalls: await storeCallsChild() }));
    process.exit(0);
  } else {
    // Alone: the round trips (the feed page among them), then this part.
    const events = Number(process.env.BENCH_DELIVERY_EVENTS ?? 1000);
    const env = await startInProcess();
    await seedListingDevice(env);
    const roundTrips = [...(await measureRoundTrips(env)), await measureFeedPage(env)];
    await env.close();
    const result = await measureEvents(events);
    console.table(
      roundTrips.map((r) => ({ operation: r.operation, calls: r.calls, floor: r.floor, ...r.by_command })),
    );
    console.table(eventsRows(result));
    console.log(JSON.stringify(result, null, 2));
  }
}
