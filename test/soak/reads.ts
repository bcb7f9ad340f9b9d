import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, GetItemCommand, QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { connectionConfig } from '../../lib/storage/connection';
import { devicePartition, policyKey, publisherPartition } from '../../lib/storage/keys';

/**
 * `npm run soak:reads`: the memory of the local API over its own embedded store, as `npm start`
 * runs it (dynalite over LevelDB on disk, in the same process), held flat over many reads.
 *
 *   SOAK_READS        storage reads to make (default 100,000)
 *   SOAK_CONCURRENCY  reads in flight at once (default 8)
 *   SOAK_STORE        `disk` (default, a temporary folder, as npm start's ./.data) or `memory`
 *
 * Makes a few bans through the API, then reads the server's embedded store: 19 reads in 20
 * straight at the endpoint the server publishes for its store (as `npm run keys` does), a Query
 * stopped by its limit, a Query read to its end, a Scan page, a GetItem; one in 20 through the
 * API's reading routes (the device's bans, one type with a limit, enforcement, the feed, the
 * policy), each of which reads the store several times. Measures the server's RSS and heap after
 * a full GC at the start, after a warm-up (a tenth of the reads, at least 1,000) and at each
 * further tenth. Exits 1 on any unexpected answer, or when from the warm-up to the end the heap
 * grew by more than 16 MB, or over the second half of the reads the RSS grew by more than 64 MB
 * (it climbs to a plateau first: LevelDB's caches, the allocator's arenas). While the store never
 * closed its LevelDB iterators, each read kept about 4 kB of heap and 14 kB of RSS (20,000 reads:
 * heap +78 MB, RSS +270 MB), some 1.4 GB over the default run. It takes 10 to 30 minutes for
 * 100,000 on a shared 2-core machine, too slow for the suite: test/unit/local-store.test.ts
 * holds the cause there, failing if a read leaves an iterator open.
 */

const READS = Number(process.env.SOAK_READS ?? 100_000);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 8);
const STORE = process.env.SOAK_STORE ?? 'disk';
const HEAP_GROWTH_LIMIT = 16 * 1024 * 1024;
const RSS_GROWTH_LIMIT = 64 * 1024 * 1024;

if (!Number.isInteger(READS) || READS < 1000 || !Number.isInteger(CONCURRENCY) || CONCURRENCY < 1) {
  console.error('SOAK_READS must be a whole number of at least 1000 and SOAK_CONCURRENCY a positive integer');
  process.exit(2);
}
if (STORE !== 'disk' && STORE !== 'memory') {
  console.error('SOAK_STORE must be disk or memory');
  process.exit(2);
}

type Memory = { rss: number; heapUsed: number; heapTotal: number; external: number };
type Message =
  | {
      type: 'ready';
      url: string;
      keys: Record<string, string>;
      store: { endpoint: string | undefined; tableName: string };
    }
  | { type: 'memory'; memory: Memory };

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const signed = (bytes: number) => `${bytes >= 0 ? '+' : ''}${mb(bytes)}`;

const folder = STORE === 'disk' ? mkdtempSync(join(tmpdir(), 'soak-reads-')) : undefined;
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: folder ? join(folder, 'data') : ':memory:',
  // Reads only: no publisher is to be throttled here.
  RATE_LIMIT_RPS: '1000000',
  RATE_LIMIT_BURST: '1000000',
  LOG_LEVEL: '',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};
// The embedded store, never another one named in the caller's environment.
delete env.DYNAMODB_ENDPOINT;
delete env.TABLE_NAME;

const server: ChildProcess = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), [], {
  execArgv: ['--expose-gc', '--import', 'tsx'],
  // Request logs on (they are part of what a read costs) but not shown; errors reach stderr.
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  env,
});
let stopping = false;
const removeFolder = () => folder && rmSync(folder, { recursive: true, force: true });
const fail = (message: string) => {
  console.error(`soak:reads: ${message}`);
  if (server.exitCode === null) server.kill('SIGKILL');
  removeFolder();
  process.exit(1);
};
process.on('SIGINT', () => fail('interrupted'));
server.once('exit', (code) => {
  if (!stopping) fail(`the server exited with ${code}`);
});

const pending = new Map<string, (message: Message) => void>();
server.on('message', (message: Message) => pending.get(message.type)?.(message));
const next = <T extends Message['type']>(type: T) =>
  new Promise<Extract<Message, { type: T }>>((done) => {
    pending.set(type, (message) => done(message as Extract<Message, { type: T }>));
  });
const serverMemory = async () => {
  const reply = next('memory');
  server.send({ type: 'memory' });
  return (await reply).memory;
};

const { url, keys, store } = await next('ready');
if (!store.endpoint) fail('the server has no embedded store to read');
const publishers = Object.keys(keys);
const storage = new DynamoDBClient(connectionConfig(store.endpoint));
const TableName = store.tableName;
const attribute = (value: string) => ({ S: value });
const call = async (method: string, path: string, publisher: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${keys[publisher]}`,
      'X-Game-Id': 'game-1',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text };
};

/* What there is to read: each publisher's bans on 20 devices, some with several. */
const devices = Array.from({ length: 20 }, (_, i) => `soak-reads-device-${i}`);
for (const publisher of publishers)
  for (const [i, device] of devices.entries())
    for (const ban_type of i % 2 ? ['social', 'cheat'] : ['social']) {
      const made = await call('POST', '/v1/bans', publisher, {
        device_id: device,
        ban_type,
        scope: i % 3 ? 'game' : 'publisher',
        reason_code: 'soak',
      });
      if (made.status !== 201) fail(`a ban to read was not made: ${made.status} ${made.text.slice(0, 200)}`);
    }

const apiReads = [
  (device: string) => `/v1/device/${device}/bans?status=all`,
  (device: string) => `/v1/device/${device}/bans/social?limit=1`,
  (device: string) => `/v1/device/${device}/enforcement`,
  () => '/v1/events?limit=10',
  () => '/v1/policy',
];
const storeReads = [
  // A device's bans: one Query stopped by its limit, one read to the end of the partition.
  (device: string) =>
    storage.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': attribute(devicePartition(device)) },
        Limit: 1,
      }),
    ),
  (device: string) =>
    storage.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': attribute(devicePartition(device)) },
      }),
    ),
  (_: string, publisher: string) =>
    storage.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': attribute(publisherPartition(publisher)) },
        ScanIndexForward: false,
        Limit: 5,
      }),
    ),
  () => storage.send(new ScanCommand({ TableName, Limit: 20 })),
  (_: string, publisher: string) => {
    const { pk, sk } = policyKey(publisher);
    return storage.send(new GetItemCommand({ TableName, Key: { pk: attribute(pk), sk: attribute(sk) } }));
  },
];
/** One read: through the API one time in twenty, else straight at the store. */
const read = async (n: number) => {
  const publisher = publishers[n % publishers.length] as string;
  if (n % 20 === 0) {
    const device = devices[(n / 20) % devices.length] as string;
    const path = (apiReads[(n / 20) % apiReads.length] as (device: string) => string)(device);
    const res = await call('GET', path, publisher);
    return res.status === 200 ? undefined : `GET ${path} → ${res.status} ${res.text.slice(0, 200)}`;
  }
  const device = devices[n % devices.length] as string;
  await (storeReads[n % storeReads.length] as (device: string, publisher: string) => Promise<unknown>)(
    device,
    publisher,
  );
  return undefined;
};
let made = 0;
let errors = 0;
const samples: string[] = [];
const drive = async (count: number) => {
  const until = made + count;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (made < until) {
        const n = made++;
        try {
          const problem = await read(n);
          if (problem) {
            errors += 1;
            if (samples.length < 10) samples.push(problem);
          }
        } catch (error) {
          errors += 1;
          if (samples.length < 10)
            samples.push(`read ${n} → ${(error as Error).name}: ${(error as Error).message}`);
        }
      }
    }),
  );
};

const show = (label: string, m: Memory) =>
  console.log(`soak:reads: ${label}: rss ${mb(m.rss)}, heap used ${mb(m.heapUsed)} (after GC)`);

console.log(
  `soak:reads: ${READS} reads (one in twenty through the API), ${CONCURRENCY} in flight, embedded store on ${STORE}, API ${url}`,
);
show('at start', await serverMemory());
const began = performance.now();
const warmUp = Math.max(1000, Math.floor(READS / 10));
await drive(warmUp);
const warm = await serverMemory();
show(`after ${warmUp} reads (warm-up)`, warm);
const step = Math.max(1000, Math.floor(READS / 10));
let end = warm;
// The RSS climbs to a plateau (LevelDB's caches, the allocator's arenas) over the first reads,
// some 10-40 thousand: its growth is judged over the second half of the run.
let half = warm;
while (made < READS) {
  await drive(Math.min(step, READS - made));
  end = await serverMemory();
  if (made <= READS / 2) half = end;
  show(`after ${made} reads`, end);
}
const seconds = (performance.now() - began) / 1000;

storage.destroy();
stopping = true;
const exited = new Promise((done) => server.once('exit', done));
server.send({ type: 'stop' });
await exited;
removeFolder();

const heapGrowth = end.heapUsed - warm.heapUsed;
const rssGrowth = end.rss - half.rss;
console.log(
  `soak:reads: ${made} reads in ${seconds.toFixed(0)} s (${(made / seconds).toFixed(0)}/s), errors ${errors}; ` +
    `heap from warm-up to end ${signed(heapGrowth)} (limit +${mb(HEAP_GROWTH_LIMIT)}), ` +
    `rss over the second half ${signed(rssGrowth)} (limit +${mb(RSS_GROWTH_LIMIT)})`,
);
for (const sample of samples) console.log(`soak:reads: error: ${sample}`);
const failures = [
  ...(errors > 0 ? ['errors seen'] : []),
  ...(heapGrowth > HEAP_GROWTH_LIMIT ? ['the heap grew past its limit'] : []),
  ...(rssGrowth > RSS_GROWTH_LIMIT ? ['the RSS grew past its limit'] : []),
];
console.log(failures.length ? `soak:reads: FAILED: ${failures.join('; ')}` : 'soak:reads: OK: memory flat');
process.exit(failures.length ? 1 : 0);
