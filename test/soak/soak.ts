import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import dynalite from 'dynalite';

/**
 * `npm run soak`: mixed traffic against the local API for a bounded time, on loopback only.
 *
 *   SOAK_SECONDS      how long to drive traffic (default 60)
 *   SOAK_CONCURRENCY  requests in flight at once (default 16)
 *   DYNAMODB_ENDPOINT a loopback DynamoDB-compatible store to use instead of the in-memory dynalite
 *
 * The store (dynalite, in memory) runs in this process, the API in a child process of its own, so
 * the child's memory is the server's alone. Prints requests, errors, p50/p99 and the server's
 * RSS and heap (after a full GC) at start, after a warm-up and at the end. Exits 1 on any error
 * (an unexpected status or a failed request) or if the server's heap grew without bound.
 */

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 16);
const WARM_UP_SECONDS = Math.min(5, SECONDS / 4);
/** Live heap growth from the warm-up to the end beyond which the run is called a leak. */
const HEAP_GROWTH_LIMIT = 32 * 1024 * 1024;

if (!Number.isFinite(SECONDS) || SECONDS <= 0 || !Number.isInteger(CONCURRENCY) || CONCURRENCY < 1) {
  console.error('SOAK_SECONDS must be a positive number and SOAK_CONCURRENCY a positive integer');
  process.exit(2);
}

type Memory = { rss: number; heapUsed: number; heapTotal: number; external: number };
type Message =
  | { type: 'ready'; url: string; keys: Record<string, string> }
  | { type: 'memory'; memory: Memory };

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

/* The store: an in-memory dynalite in this process, or DYNAMODB_ENDPOINT (e.g. DynamoDB Local). */
const external = process.env.DYNAMODB_ENDPOINT;
if (external && !/^http:\/\/(127\.0\.0\.1|localhost)(:|\/|$)/.test(external)) {
  console.error(
    'soak: DYNAMODB_ENDPOINT must be on loopback (http://127.0.0.1:<port>): load goes nowhere else',
  );
  process.exit(2);
}
const store = external ? undefined : dynalite({ createTableMs: 0 });
if (store) await new Promise<void>((done) => store.listen(0, '127.0.0.1', () => done()));
const storeUrl = store ? `http://127.0.0.1:${(store.address() as AddressInfo).port}` : (external as string);
const closeStore = () => new Promise<void>((done) => (store ? store.close(() => done()) : done()));

/* The API: a child process. */
const server: ChildProcess = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), [], {
  execArgv: ['--expose-gc', '--import', 'tsx'],
  // Request logs on (they are part of the load) but not shown; errors still reach stderr.
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  env: {
    ...process.env,
    DYNAMODB_ENDPOINT: storeUrl,
    TABLE_NAME: `soak-${randomUUID()}`,
    DATA_DIR: '',
    LOG_LEVEL: '',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  },
});
const stopAll = () => {
  if (server.exitCode === null) server.kill('SIGKILL');
  void closeStore();
};
process.on('SIGINT', () => {
  stopAll();
  process.exit(130);
});
// A hard stop, whatever happens: the soak must end by itself.
setTimeout(
  () => {
    console.error('soak: did not finish in time; stopping');
    stopAll();
    process.exit(1);
  },
  (SECONDS + 120) * 1000,
).unref();

const pending = new Map<string, (message: Message) => void>();
server.on('message', (message: Message) => pending.get(message.type)?.(message));
server.once('exit', (code) => {
  if (!stopping) {
    console.error(`soak: the server exited with ${code}`);
    void closeStore();
    process.exit(1);
  }
});
let stopping = false;
const next = <T extends Message['type']>(type: T) =>
  new Promise<Extract<Message, { type: T }>>((done) => {
    pending.set(type, (message) => done(message as Extract<Message, { type: T }>));
  });
const serverMemory = async () => {
  const reply = next('memory');
  server.send({ type: 'memory' });
  return (await reply).memory;
};

const { url, keys } = await next('ready');
const publishers = Object.keys(keys);
const startMemory = await serverMemory();

/* The traffic. */
const devices = Array.from({ length: 200 }, (_, i) => `soak-device-${i}`);
const games = ['game-1', 'game-2', 'game-3'];
const madeBans: Array<{ publisher: string; device: string; banId: number }> = [];
const idempotencyKeys: string[] = [];

interface Call {
  kind: string;
  method: string;
  path: string;
  publisher: string;
  game?: string;
  body?: unknown;
  rawBody?: string;
  expect: number[];
}

const nextCall = (): Call => {
  const publisher = pick(publishers);
  const game = pick(games);
  const device = pick(devices);
  const roll = Math.random();
  if (roll < 0.25) {
    // Creates; some with a fresh idempotency key, some repeating one.
    const repeat = idempotencyKeys.length > 0 && Math.random() < 0.2;
    const key = repeat ? pick(idempotencyKeys) : Math.random() < 0.5 ? randomUUID() : undefined;
    if (key && !repeat) idempotencyKeys.push(key);
    return {
      kind: 'create',
      method: 'POST',
      path: '/v1/bans',
      publisher,
      game,
      body: {
        device_id: device,
        ban_type: pick(['cheat', 'social']),
        scope: pick(['game', 'publisher', 'global']),
        reason_code: 'soak',
        ...(Math.random() < 0.3 ? { expires_at: new Date(Date.now() + 3_600_000).toISOString() } : {}),
        ...(Math.random() < 0.3 ? { details: { run: 'soak', n: Math.random() } } : {}),
        ...(key ? { idempotency_key: key } : {}),
      },
      expect: [200, 201],
    };
  }
  if (roll < 0.55) {
    const type = pick(['/social', '/cheat', '']);
    const query = pick(['', '?status=all', '?status=inactive&limit=5', '?limit=10&cursor=100000']);
    return {
      kind: 'list',
      method: 'GET',
      path: `/v1/device/${device}/bans${type}${query}`,
      publisher,
      game,
      expect: [200],
    };
  }
  if (roll < 0.7) {
    return {
      kind: 'enforcement',
      method: 'GET',
      path: `/v1/device/${device}/enforcement`,
      publisher,
      game,
      expect: [200],
    };
  }
  if (roll < 0.75) {
    const lobby = Array.from({ length: 10 }, () => pick(devices));
    return {
      kind: 'batch',
      method: 'POST',
      path: '/v1/enforcement/batch',
      publisher,
      game,
      body: { device_ids: lobby },
      expect: [200],
    };
  }
  if (roll < 0.85) return { kind: 'get-policy', method: 'GET', path: '/v1/policy', publisher, expect: [200] };
  if (roll < 0.9) {
    const flag = pick(['enforce_game', 'enforce_social_global', 'rep_include_global']);
    return {
      kind: 'put-policy',
      method: 'PUT',
      path: '/v1/policy',
      publisher,
      body: { [flag]: Math.random() < 0.5 },
      expect: [200],
    };
  }
  if (roll < 0.95 && madeBans.length > 0) {
    const made = pick(madeBans);
    return {
      kind: 'revoke',
      method: 'POST',
      path: `/v1/device/${made.device}/bans/${made.banId}/revoke`,
      publisher: made.publisher,
      game,
      body: { reason_code: 'soak-appeal' },
      expect: [200],
    };
  }
  // Bad input: refused with a 4xx, which is the expected answer.
  return pick<Call>([
    {
      kind: 'bad',
      method: 'POST',
      path: '/v1/bans',
      publisher,
      game,
      rawBody: '{"device_id":',
      expect: [400],
    },
    { kind: 'bad', method: 'GET', path: `/v1/device/${device}/bans?limit=0`, publisher, game, expect: [400] },
    { kind: 'bad', method: 'GET', path: '/v1/policy', publisher: 'nobody', expect: [401] },
    { kind: 'bad', method: 'GET', path: '/v1/nowhere', publisher, expect: [404] },
  ]);
};

const latencies: number[] = [];
const byKind = new Map<string, { count: number; errors: number }>();
const errorSamples: string[] = [];
let errors = 0;

const run = async (call: Call) => {
  const headers: Record<string, string> = {};
  const key = keys[call.publisher];
  headers.Authorization = `Bearer ${key ?? `bsk_${'x'.repeat(43)}`}`;
  if (call.game) headers['X-Game-Id'] = call.game;
  const body = call.rawBody ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const stats = byKind.get(call.kind) ?? { count: 0, errors: 0 };
  byKind.set(call.kind, stats);
  stats.count += 1;
  const started = performance.now();
  try {
    const res = await fetch(`${url}${call.path}`, { method: call.method, headers, body });
    const text = await res.text();
    latencies.push(performance.now() - started);
    if (!call.expect.includes(res.status)) {
      errors += 1;
      stats.errors += 1;
      if (errorSamples.length < 10)
        errorSamples.push(`${call.method} ${call.path} → ${res.status} ${text.slice(0, 200)}`);
      return;
    }
    if (call.kind === 'create' && res.status === 201) {
      madeBans.push({
        publisher: call.publisher,
        device: (call.body as { device_id: string }).device_id,
        banId: JSON.parse(text).ban_id,
      });
      // Bounded: the revoke pool keeps the latest ones.
      if (madeBans.length > 1000) madeBans.splice(0, madeBans.length - 1000);
    }
  } catch (error) {
    latencies.push(performance.now() - started);
    errors += 1;
    stats.errors += 1;
    if (errorSamples.length < 10)
      errorSamples.push(`${call.method} ${call.path} → ${(error as Error).message}`);
  }
  if (idempotencyKeys.length > 5000) idempotencyKeys.splice(0, idempotencyKeys.length - 5000);
};

const drive = async (seconds: number) => {
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) await run(nextCall());
    }),
  );
};

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number);
const showMemory = (label: string, m: Memory) =>
  console.log(
    `soak: server memory ${label}: rss ${mb(m.rss)}, heap used ${mb(m.heapUsed)} of ${mb(m.heapTotal)}`,
  );

console.log(`soak: ${SECONDS} s of mixed traffic, ${CONCURRENCY} in flight, API ${url}, store ${storeUrl}`);
showMemory('at start', startMemory);
const began = Date.now();
await drive(WARM_UP_SECONDS);
const warmMemory = await serverMemory();
showMemory(`after ${WARM_UP_SECONDS} s warm-up`, warmMemory);
await drive(SECONDS - WARM_UP_SECONDS);
const elapsed = (Date.now() - began) / 1000;
const endMemory = await serverMemory();
showMemory('at end', endMemory);

stopping = true;
const exited = new Promise((done) => server.once('exit', done));
server.send({ type: 'stop' });
await exited;
await closeStore();

const sorted = [...latencies].sort((a, b) => a - b);
const total = latencies.length;
console.log(
  `soak: requests ${total} (${(total / elapsed).toFixed(0)}/s), errors ${errors}, ` +
    `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms`,
);
console.log(
  `soak: by kind: ${[...byKind.entries()].map(([kind, s]) => `${kind} ${s.count}${s.errors ? ` (${s.errors} errors)` : ''}`).join(', ')}`,
);
const heapGrowth = endMemory.heapUsed - warmMemory.heapUsed;
console.log(
  `soak: server heap ${heapGrowth >= 0 ? '+' : ''}${mb(heapGrowth)} and rss ${endMemory.rss >= warmMemory.rss ? '+' : ''}${mb(endMemory.rss - warmMemory.rss)} from warm-up to end (limit +${mb(HEAP_GROWTH_LIMIT)} heap)`,
);
for (const sample of errorSamples) console.log(`soak: error: ${sample}`);

const leaked = heapGrowth > HEAP_GROWTH_LIMIT;
if (leaked) console.log('soak: FAILED: the server heap grew past the limit');
if (errors > 0) console.log('soak: FAILED: errors seen');
if (!leaked && errors === 0) console.log('soak: OK: 0 errors, no memory growth past the limit');
process.exit(leaked || errors > 0 ? 1 : 0);
