import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { mapWithConcurrency } from '../lib/concurrency';
import { connectionConfig } from '../lib/storage/connection';
import { CHANGE_ENTRY_PREFIX, CHANGE_LOG_PARTITION } from '../lib/storage/keys';
import { LOCAL_TABLE_NAME } from '../lib/storage/table';
import { startLocalServer } from './local-server';

/**
 * Part 13: `npm run import` of IMPORT_BENCH_ROWS (default 5,000) generated JSON lines, in batches of
 * IMPORT_BENCH_BATCH (default 250, the CLI's) with IMPORT_BENCH_CONCURRENCY (default 2) in flight, against
 * `npm start` on a fresh DATA_DIR (both child processes, as an operator runs them): rows per second,
 * and the resident memory of the CLI and of the server sampled through the run. The CLI streams
 * the file, so its memory should not grow with the rows: its RSS a quarter of the way through
 * against its RSS at the end says so. The server's is read from half way (its first minutes are its
 * warm-up).
 *
 * Then what bounds it: the seconds the events took to catch up after the last row was answered
 * (the change log empty), the items the import left in the store per row (a count of the table
 * before and after), and the embedded store's own ceiling on the same store once idle: copies of
 * the import's items written again in batch writes (25 a call, 4 in flight: the most a client can
 * ask of it) and in conditional single puts (8 in flight). Items a row over items a second in
 * batch writes is the least time a million rows could take on this store, with every write batched
 * and nothing read. Alone: `npx tsx bench/import.ts`.
 */

export interface ImportFigures {
  rows: number;
  batch: number;
  concurrency: number;
  file_mb: number;
  seconds: number;
  rows_per_second: number;
  exit_code: number | null;
  counts: Record<string, number> | null;
  /** The CLI's last line when it failed. */
  error: string | null;
  cli_peak_rss_mb: number;
  server_peak_rss_mb: number;
  /** The CLI's RSS when a quarter of the rows were answered, and at the end. */
  cli_rss_quarter_mb: number;
  cli_rss_end_mb: number;
  server_rss_quarter_mb: number;
  server_rss_half_mb: number;
  server_rss_end_mb: number;
  /** Seconds from the CLI's exit until the dispatcher had handed on every change (null: not within the wait). */
  events_caught_up_seconds: number | null;
  /** Items the import left in the table per row, once the events caught up. */
  items_per_row: number;
  /** The embedded store's ceiling, measured on the same store once idle. */
  store_batch_items_per_second: number;
  store_single_puts_per_second: number;
  /** items_per_row × 1,000,000 over store_batch_items_per_second. */
  floor_seconds_per_million: number;
}

const GAME = 'bench-import';
const START = Date.parse('2021-01-01T00:00:00Z');

/** A year of history per 200,000 rows: most rows a second of their own, as a real export's. */
const rowOf = (i: number) => {
  const created = START + i * 157_000;
  const row: Record<string, unknown> = {
    external_id: `bench-${i}`,
    device_id: `bench-device-${i % 50_000}`,
    ban_type: i % 4 === 0 ? 'social' : 'cheat',
    scope: 'game',
    reason_code: i % 4 === 0 ? 'toxicity' : 'aimbot',
    created_at: new Date(created).toISOString(),
  };
  if (i % 3 === 0) row.expires_at = new Date(created + 7 * 86_400_000).toISOString();
  if (i % 10 === 0) {
    row.revoked_at = new Date(created + 86_400_000).toISOString();
    row.revoke_reason_code = 'appeal_upheld';
  }
  return JSON.stringify(row);
};

const writeRows = async (file: string, rows: number) => {
  const out = createWriteStream(file);
  for (let i = 0; i < rows; i++) if (!out.write(`${rowOf(i)}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
};

/** Resident memory of a live process in MB, from /proc (Linux); 0 once it has gone. */
const rssMb = (pid: number | undefined) => {
  if (pid === undefined) return 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

const mb = (n: number) => Number(n.toFixed(1));

type Item = Record<string, AttributeValue>;

/** The embedded store `npm start` serves from `dataDir` (it publishes its endpoint for the tools). */
const storeClient = (dataDir: string) =>
  new DynamoDBClient({
    ...connectionConfig(
      (JSON.parse(readFileSync(join(dataDir, 'store.json'), 'utf8')) as { endpoint: string }).endpoint,
    ),
    maxAttempts: 1,
  });

const countItems = async (client: DynamoDBClient) => {
  let count = 0;
  let start: Item | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: LOCAL_TABLE_NAME, Select: 'COUNT', ExclusiveStartKey: start }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
};

/** Waits (up to `limitMs`) until the change log is empty: every change handed on and pruned. */
const caughtUp = async (client: DynamoDBClient, limitMs: number): Promise<number | null> => {
  const from = Date.now();
  while (Date.now() - from < limitMs) {
    const { Count } = await client.send(
      new QueryCommand({
        TableName: LOCAL_TABLE_NAME,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :entry)',
        ExpressionAttributeValues: {
          ':pk': { S: CHANGE_LOG_PARTITION },
          ':entry': { S: CHANGE_ENTRY_PREFIX },
        },
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    if (Count === 0) return (Date.now() - from) / 1000;
    await new Promise((done) => setTimeout(done, 500));
  }
  return null;
};

const SAMPLE_ITEMS = 5_000;
const SINGLE_PUTS = 1_000;

/** Copies of items the import left, each under a key of its own that nothing else uses. */
const copiesOf = async (client: DynamoDBClient, count: number, tag: string): Promise<Item[]> => {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: LOCAL_TABLE_NAME, Limit: 1_000, ExclusiveStartKey: start }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start && items.length < count);
  return items
    .slice(0, count)
    .map((item, i) => ({ ...item, pk: { S: `BENCHCOPY#${tag}#${i}#${item.pk?.S}` } }));
};

/** Items a second the store takes in batch writes, and conditional single puts a second. */
const storeCeiling = async (client: DynamoDBClient) => {
  const batch = await copiesOf(client, SAMPLE_ITEMS, 'batch');
  const chunks = Array.from({ length: Math.ceil(batch.length / 25) }, (_, i) =>
    batch.slice(i * 25, i * 25 + 25),
  );
  let started = Date.now();
  await mapWithConcurrency(chunks, 4, async (chunk) => {
    let requests = chunk.map((Item) => ({ PutRequest: { Item } }));
    while (requests.length > 0) {
      const { UnprocessedItems } = await client.send(
        new BatchWriteItemCommand({ RequestItems: { [LOCAL_TABLE_NAME]: requests } }),
      );
      requests = (UnprocessedItems?.[LOCAL_TABLE_NAME] ?? []) as typeof requests;
    }
  });
  const batchRate = batch.length / ((Date.now() - started) / 1000);
  const singles = await copiesOf(client, SINGLE_PUTS, 'single');
  started = Date.now();
  await mapWithConcurrency(singles, 8, (Item) =>
    client.send(
      new PutItemCommand({
        TableName: LOCAL_TABLE_NAME,
        Item,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
  return { batchRate, singleRate: singles.length / ((Date.now() - started) / 1000) };
};

export const measureImport = async (
  rows = Number(process.env.IMPORT_BENCH_ROWS ?? 5_000),
  // Not the CLI's 500 and 4 for now: the local route takes about 20 ms a row, so 500 rows pass
  // its 10 s deadline (503 on every attempt); docs/performance.md, part 13.
  batch = Number(process.env.IMPORT_BENCH_BATCH ?? 250),
  concurrency = Number(process.env.IMPORT_BENCH_CONCURRENCY ?? 2),
): Promise<ImportFigures> => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-import-'));
  const file = join(dir, 'bans.jsonl');
  try {
    await writeRows(file, rows);
    const dataDir = join(dir, 'data');
    const server = await startLocalServer({ env: { DATA_DIR: dataDir } });
    const store = storeClient(dataDir);
    try {
      const itemsBefore = await countItems(store);
      const started = Date.now();
      const cli = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'infra/import-cli.ts',
          '--file',
          file,
          '--url',
          server.url,
          '--key',
          server.key,
          '--game',
          GAME,
          '--batch',
          String(batch),
          '--concurrency',
          String(concurrency),
        ],
        {
          env: {
            ...process.env,
            LOG_LEVEL: 'silent',
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      cli.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      const statePath = `${file}.import-state.json`;
      const samples: Array<{ rows: number; cli: number; server: number }> = [];
      const sample = () => {
        let done = 0;
        try {
          done = (JSON.parse(readFileSync(statePath, 'utf8')) as { rows: number }).rows;
        } catch {
          // not written yet, or being replaced
        }
        const cliRss = rssMb(cli.pid);
        if (cliRss > 0) samples.push({ rows: done, cli: cliRss, server: rssMb(server.child.pid) });
      };
      const timer = setInterval(sample, 200);
      const [code] = (await once(cli, 'exit')) as [number | null];
      clearInterval(timer);
      const seconds = (Date.now() - started) / 1000;
      // A failed run is a row that fails its target, with what the CLI said, not the end of the bench.
      let counts: Record<string, number> | null = null;
      try {
        counts = (JSON.parse(readFileSync(statePath, 'utf8')) as { counts: Record<string, number> }).counts;
      } catch {
        // no batch was answered
      }
      const error = code === 0 ? null : (stderr.trim().split('\n').at(-1)?.slice(0, 500) ?? `exit ${code}`);
      const quarter = samples.find((s) => s.rows >= rows / 4) ?? samples[0];
      const half = samples.find((s) => s.rows >= rows / 2) ?? samples[0];
      const end = samples.at(-1);
      const eventsCaughtUp = await caughtUp(store, 60 * 60_000);
      const itemsPerRow = ((await countItems(store)) - itemsBefore) / rows;
      const { batchRate, singleRate } = await storeCeiling(store);
      return {
        rows,
        batch,
        concurrency,
        file_mb: mb(statSync(file).size / 1024 / 1024),
        seconds: Number(seconds.toFixed(2)),
        rows_per_second: Math.round(rows / seconds),
        exit_code: code,
        counts,
        error,
        cli_peak_rss_mb: mb(Math.max(0, ...samples.map((s) => s.cli))),
        server_peak_rss_mb: mb(Math.max(0, ...samples.map((s) => s.server))),
        cli_rss_quarter_mb: mb(quarter?.cli ?? 0),
        cli_rss_end_mb: mb(end?.cli ?? 0),
        server_rss_quarter_mb: mb(quarter?.server ?? 0),
        server_rss_half_mb: mb(half?.server ?? 0),
        server_rss_end_mb: mb(end?.server ?? 0),
        events_caught_up_seconds: eventsCaughtUp === null ? null : Number(eventsCaughtUp.toFixed(1)),
        items_per_row: Number(itemsPerRow.toFixed(2)),
        store_batch_items_per_second: Math.round(batchRate),
        store_single_puts_per_second: Math.round(singleRate),
        floor_seconds_per_million: Math.round((itemsPerRow * 1_000_000) / batchRate),
      };
    } finally {
      store.destroy();
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** The CLI's memory may move by this much from a quarter of the way to the end and still be flat. */
const FLAT_MB = 32;
/** The server's, from half way (its warm-up done) to the end. */
const SERVER_FLAT_MB = 64;
/** The goal: a million rows in ten minutes. */
const GOAL_SECONDS_PER_MILLION = 600;

const duration = (seconds: number) =>
  seconds >= 3_600
    ? `${Math.floor(seconds / 3_600)} h ${Math.round((seconds % 3_600) / 60)} min`
    : `${Math.round(seconds / 60)} min`;

export const importRows = (f: ImportFigures) => [
  {
    part: '13 import',
    subject: `npm run import of ${f.rows.toLocaleString('en')} JSON lines (${f.file_mb} MB) into npm start, ${f.batch} a batch, ${f.concurrency} in flight`,
    value: f.error
      ? `failed: ${f.error}`
      : `${f.rows_per_second.toLocaleString('en')} rows/s (${f.seconds} s)`,
    baseline: `a million rows at this rate: ${duration(1_000_000 / Math.max(f.rows_per_second, 1))}`,
    ratio: null,
    target: 'every row created',
    ok: f.exit_code === 0 && f.counts?.created === f.rows,
  },
  {
    part: '13 import',
    subject: "the CLI's memory as the rows go by (a quarter of the way → the end)",
    value: `CLI ${f.cli_rss_quarter_mb} → ${f.cli_rss_end_mb} MB`,
    baseline: `peak ${f.cli_peak_rss_mb} MB`,
    ratio: f.cli_rss_quarter_mb > 0 ? Number((f.cli_rss_end_mb / f.cli_rss_quarter_mb).toFixed(2)) : null,
    target: `flat (≤ +${FLAT_MB} MB)`,
    ok: f.cli_rss_end_mb - f.cli_rss_quarter_mb <= FLAT_MB,
  },
  {
    part: '13 import',
    subject: "the server's memory (half way → the end; its first minutes are its warm-up)",
    value: `server ${f.server_rss_half_mb} → ${f.server_rss_end_mb} MB`,
    baseline: `a quarter of the way ${f.server_rss_quarter_mb} MB, peak ${f.server_peak_rss_mb} MB`,
    ratio: f.server_rss_half_mb > 0 ? Number((f.server_rss_end_mb / f.server_rss_half_mb).toFixed(2)) : null,
    target: `flat (≤ +${SERVER_FLAT_MB} MB)`,
    ok: f.server_rss_end_mb - f.server_rss_half_mb <= SERVER_FLAT_MB,
  },
  {
    part: '13 import',
    subject: 'the events (feed, live set, rollups) caught up after the last row was answered',
    value:
      f.events_caught_up_seconds === null ? 'not within an hour' : `after ${f.events_caught_up_seconds} s`,
    baseline: `${f.items_per_row} items left in the store a row`,
    ratio: null,
    target: 'caught up',
    ok: f.events_caught_up_seconds !== null,
  },
  {
    part: '13 import',
    subject:
      "the embedded store's floor: items a row over its batch-write rate, every write batched and nothing read",
    value: `a million rows ≥ ${duration(f.floor_seconds_per_million)} (${f.store_batch_items_per_second.toLocaleString('en')} items/s in batch writes)`,
    baseline: `${f.store_single_puts_per_second.toLocaleString('en')} conditional single puts/s`,
    // How far the import is from what the store could take at best.
    ratio: Number(
      (f.rows_per_second / (f.store_batch_items_per_second / Math.max(f.items_per_row, 1))).toFixed(2),
    ),
    target: `≤ ${duration(GOAL_SECONDS_PER_MILLION)} (the goal for a million rows)`,
    ok: f.floor_seconds_per_million <= GOAL_SECONDS_PER_MILLION,
  },
];

if (import.meta.url === `file://${process.argv[1]}`) {
  process.env.LOG_LEVEL ??= 'silent';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const figures = await measureImport();
  console.log(JSON.stringify(figures, null, 2));
  console.table(importRows(figures));
  process.exit(0);
}
