import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalApi } from '../infra/local/server';
import { connectionConfig } from '../lib/storage/connection';
import { banKey, GLOBAL_FEED_PARTITION, partitions } from '../lib/storage/keys';
import { startChild, stopChild, waitForLine } from './children';
import { percentile } from './storage-probe';

/**
 * Part 10 of `npm run bench` (alone: `npx tsx bench/feed-polling.ts`): game servers polling the
 * change feed. FEED_BENCH_SERVERS (default 200) simulated servers, spread over 10 publishers of 2
 * games each, each polling `GET /v1/events` of the local API once a second (each at its own phase)
 * for FEED_BENCH_SECONDS (default 10), while bans are written 4 a second (global, publisher and game
 * ones of every publisher), once with the feed's cache off (FEED_CACHE_MS=0) and once at its default
 * (1,000 ms). A counting middleware on the API's storage client counts the reads each partition
 * takes per second: `FEED#GLOBAL`, which every server reads, and the busiest publisher or game
 * partition and policy. Every server must have received each event it may see exactly once in both
 * runs. The figure is the ratio of `FEED#GLOBAL` reads per poll without the cache to with it (per
 * poll, since without the cache the local store may be overwhelmed and answer fewer polls, with
 * 503s); docs/scale.md turns it into the deployed numbers (per container instead of per server).
 */

const SERVERS = Number(process.env.FEED_BENCH_SERVERS ?? 200);
const SECONDS = Number(process.env.FEED_BENCH_SECONDS ?? 10);
const PUBLISHERS = 10;
const GAMES = ['g1', 'g2'] as const;
const WRITES_PER_SECOND = 4;

export interface PollingRun {
  cache_ms: number;
  servers: number;
  seconds: number;
  polls: number;
  polls_per_second: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  first_error?: string;
  events_written: number;
  /** Query reads per second of FEED#GLOBAL, which every server reads. */
  global_reads_per_second: number;
  /** Query reads of FEED#GLOBAL per poll: reads per second over polls per second, whatever the load. */
  global_reads_per_poll: number;
  /** The busiest publisher or game feed partition's Query reads per second. */
  hottest_other_reads_per_second: number;
  /** The busiest publisher's policy reads per second (its item is on PUBLISHER#). */
  hottest_policy_reads_per_second: number;
  /** DynamoDB reads (Query and GetItem) per poll. */
  reads_per_poll: number;
  /** Every server received each event it may see exactly once. */
  exact: boolean;
}

export interface FeedPollingResult {
  runs: PollingRun[];
  /**
   * FEED#GLOBAL reads per poll without the cache over with it: how many times fewer reads the
   * partition takes for the same polling (reads per second would compare a store the uncached run
   * may overwhelm, which then answers fewer polls).
   */
  global_ratio: number;
  reads_per_poll_ratio: number;
}

const measure = async (): Promise<FeedPollingResult> => {
  const api = await startLocalApi({
    port: 0,
    console: false,
    identityPort: false,
    // As deployed: the gateway keeps each key's authorizer answer for 300 s.
    authorizerCacheSeconds: 300,
    env: {
      ...process.env,
      DATA_DIR: ':memory:',
      DYNAMODB_ENDPOINT: '',
      TABLE_NAME: '',
      TTL_SWEEP_SECONDS: '0',
      RATE_LIMIT_RPS: '100000',
      RATE_LIMIT_BURST: '100000',
    },
  });
  const { dynamo, tableName: boundTable } = await import('../lib/storage/client');
  const tableName = boundTable();
  const { createApiKey } = await import('../lib/domain/api-keys');
  const { clearFeedCaches } = await import('../lib/domain/feed');
  // Writes go around the counted client, straight to the change log's recorder (the local stream):
  // only the API's reads are counted.
  const writer = DynamoDBDocumentClient.from(
    new DynamoDBClient(connectionConfig(process.env.DYNAMODB_ENDPOINT)),
    {
      marshallOptions: { removeUndefinedValues: true },
    },
  );

  const reads = new Map<string, number>();
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as {
        Key?: { pk?: string };
        ExpressionAttributeValues?: Record<string, unknown>;
      };
      // The client's own command names (GetItemCommand, QueryCommand), as bench/storage-probe.ts sees them.
      const name = String(context.commandName)
        .replace(/Command$/, '')
        .replace(/^Get$/, 'GetItem');
      const pk = String(input.Key?.pk ?? input.ExpressionAttributeValues?.[':pk'] ?? '');
      if (name === 'Query' || name === 'GetItem')
        reads.set(`${name} ${pk}`, (reads.get(`${name} ${pk}`) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: 'feedPollingProbe' },
  );

  const publishers = Array.from({ length: PUBLISHERS }, (_, i) => `poll-pub-${i}`);
  const keys = new Map<string, string>();
  for (const publisher of publishers) keys.set(publisher, (await createApiKey(publisher, 'poller')).api_key);

  // Warm-up, not counted: each publisher's key through the authorizer (then cached 300 s), the
  // handlers' first runs, for both games.
  for (const publisher of publishers)
    for (const game of GAMES)
      await fetch(`${api.url}/v1/events?limit=100`, {
        headers: { Authorization: `Bearer ${keys.get(publisher)}`, 'X-Game-Id': game },
      }).then((res) => res.arrayBuffer());

  let banId = 5_000_000;
  const run = async (cacheMs: number, tag: string): Promise<PollingRun> => {
    process.env.FEED_CACHE_MS = String(cacheMs);
    clearFeedCaches();
    await api.events?.drain();
    const written: Array<{ id: number; scope: string; publisher: string; game: string }> = [];
    const servers = Array.from({ length: SERVERS }, (_, i) => ({
      publisher: publishers[i % PUBLISHERS] as string,
      game: GAMES[Math.floor(i / PUBLISHERS) % GAMES.length] as string,
      cursor: undefined as string | undefined,
      seen: [] as number[],
    }));
    const latencies: number[] = [];
    let errors = 0;
    let firstError: string | undefined;
    const poll = async (server: (typeof servers)[number]) => {
      const query = new URLSearchParams({
        limit: '100',
        ...(server.cursor ? { cursor: server.cursor } : {}),
      });
      const started = performance.now();
      const res = await fetch(`${api.url}/v1/events?${query}`, {
        headers: { Authorization: `Bearer ${keys.get(server.publisher)}`, 'X-Game-Id': server.game },
      });
      const body = (await res.json()) as {
        items?: Array<{ device_id?: string | null; ban?: { ban_id: number } }>;
        next_cursor?: string;
      };
      latencies.push(performance.now() - started);
      if (res.status !== 200 || !body.next_cursor) {
        errors += 1;
        firstError ??= `${res.status} ${JSON.stringify(body).slice(0, 200)}`;
        return 0;
      }
      server.cursor = body.next_cursor;
      for (const item of body.items ?? [])
        if (item.ban && item.device_id?.startsWith(`${tag}-`)) server.seen.push(item.ban.ban_id);
      return body.items?.length ?? 0;
    };

    reads.clear();
    const started = Date.now();
    const until = started + SECONDS * 1000;
    const writing = (async () => {
      const scopes = ['global', 'publisher', 'game'] as const;
      for (let i = 0; Date.now() < until; i += 1) {
        const id = banId++;
        const publisher = publishers[i % PUBLISHERS] as string;
        const game = GAMES[i % GAMES.length] as string;
        const scope = scopes[i % scopes.length] as string;
        const deviceId = `${tag}-${id}`;
        await writer.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...banKey(deviceId, id),
              ban_id: id,
              device_id: deviceId,
              ban_type: 'cheat',
              scope,
              publisher_id: publisher,
              game_id: game,
              reason_code: 'bench',
              created_at: new Date().toISOString(),
              expires_at: null,
              revoked_at: null,
            },
          }),
        );
        written.push({ id, scope, publisher, game });
        await new Promise((next) => setTimeout(next, 1000 / WRITES_PER_SECOND));
      }
    })();
    let polls = 0;
    await Promise.all(
      servers.map(async (server) => {
        // Each server at its own phase of the second.
        await new Promise((next) => setTimeout(next, Math.random() * 1000));
        while (Date.now() < until) {
          const at = Date.now();
          await poll(server).catch((error: Error) => {
            errors += 1;
            firstError ??= error.message;
          });
          polls += 1;
          await new Promise((next) => setTimeout(next, Math.max(0, at + 1000 - Date.now())));
        }
      }),
    );
    await writing;
    const elapsed = (Date.now() - started) / 1000;
    const counted = new Map(reads);
    // Then every server catches up (what the cache may have held back, it shows a window later).
    await api.events?.drain();
    await new Promise((next) => setTimeout(next, cacheMs + 50));
    for (const server of servers) while ((await poll(server)) > 0);
    const exact = servers.every((server) => {
      const expected = written
        .filter(
          (w) =>
            w.scope === 'global' ||
            (w.publisher === server.publisher && (w.scope === 'publisher' || w.game === server.game)),
        )
        .map((w) => w.id)
        .sort();
      return JSON.stringify([...server.seen].sort()) === JSON.stringify(expected);
    });

    const perSecond = (n: number) => Number((n / elapsed).toFixed(1));
    const of = (prefix: string) => [...counted].filter(([key]) => key.startsWith(prefix)).map(([, n]) => n);
    const total = [...counted.values()].reduce((a, b) => a + b, 0);
    const globalReads = of(`Query ${GLOBAL_FEED_PARTITION}`).reduce((a, b) => a + b, 0);
    return {
      cache_ms: cacheMs,
      servers: SERVERS,
      seconds: Number(elapsed.toFixed(1)),
      polls,
      polls_per_second: perSecond(polls),
      p50_ms: Number(percentile(latencies, 50).toFixed(1)),
      p99_ms: Number(percentile(latencies, 99).toFixed(1)),
      errors,
      ...(firstError ? { first_error: firstError } : {}),
      events_written: written.length,
      global_reads_per_second: perSecond(globalReads),
      global_reads_per_poll: Number((globalReads / Math.max(1, polls)).toFixed(4)),
      hottest_other_reads_per_second: perSecond(
        Math.max(
          0,
          ...[...counted]
            .filter(([k]) => k.startsWith(`Query ${partitions.feed}`) && !k.endsWith(GLOBAL_FEED_PARTITION))
            .map(([, n]) => n),
        ),
      ),
      hottest_policy_reads_per_second: perSecond(Math.max(0, ...of(`GetItem ${partitions.publisher}`))),
      reads_per_poll: Number((total / Math.max(1, polls)).toFixed(3)),
      exact,
    };
  };

  const off = await run(0, 'poll-off');
  const on = await run(1000, 'poll-on');
  await api.close();
  return {
    runs: [off, on],
    global_ratio: Number((off.global_reads_per_poll / Math.max(0.0001, on.global_reads_per_poll)).toFixed(1)),
    reads_per_poll_ratio: Number((off.reads_per_poll / Math.max(0.001, on.reads_per_poll)).toFixed(1)),
  };
};

/** Runs the measurement in a child process of its own (its own store, its own storage client). */
export const measureFeedPolling = async (): Promise<FeedPollingResult> => {
  const child = startChild([fileURLToPath(import.meta.url), '--json'], {});
  try {
    const { match } = await waitForLine(child, /^(\{"feed_polling".*\})$/m);
    return (JSON.parse(match[1] as string) as { feed_polling: FeedPollingResult }).feed_polling;
  } finally {
    await stopChild(child);
  }
};

export const feedPollingRows = (result: FeedPollingResult) =>
  result.runs.map((r) => ({
    part: '10 feed polling',
    subject: `${r.servers} servers polling at 1 s, FEED_CACHE_MS=${r.cache_ms}`,
    value: `FEED#GLOBAL ${r.global_reads_per_second} reads/s (${r.global_reads_per_poll} per poll), hottest other ${r.hottest_other_reads_per_second}/s, policy ${r.hottest_policy_reads_per_second}/s; ${r.reads_per_poll} reads/poll; ${r.polls_per_second} polls/s p50 ${r.p50_ms} p99 ${r.p99_ms} ms, ${r.errors} errors`,
    baseline:
      r.cache_ms === 0
        ? 'no cache'
        : `no cache: ${result.global_ratio}x the FEED#GLOBAL reads per poll, ${result.reads_per_poll_ratio}x all reads per poll`,
    ratio: r.cache_ms === 0 ? null : result.global_ratio,
    // Without the cache the local store may be overwhelmed (503s): that run is the baseline, kept
    // only to every event once; with it, no error and at least 10x fewer reads of FEED#GLOBAL.
    target: r.cache_ms === 0 ? 'every event once' : '≥ 10x fewer, no error, every event once',
    ok: r.exact && (r.cache_ms === 0 || (r.errors === 0 && result.global_ratio >= 10)),
  }));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.env.LOG_LEVEL ??= 'silent';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const result = await measure();
  if (process.argv.includes('--json')) console.log(JSON.stringify({ feed_polling: result }));
  else {
    console.table(result.runs);
    console.log(
      `FEED#GLOBAL reads per poll without the cache over with it: ${result.global_ratio}x; all reads per poll: ${result.reads_per_poll_ratio}x`,
    );
  }
  process.exit(0);
}
