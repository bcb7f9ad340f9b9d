import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalServer } from './local-server';

/**
 * Part 13: `npm run import` of IMPORT_BENCH_ROWS (default 5,000) generated JSON lines, in batches of
 * IMPORT_BENCH_BATCH (default 250, the CLI's) with IMPORT_BENCH_CONCURRENCY (default 2) in flight, against
 * `npm start` on a fresh DATA_DIR (both child processes, as an operator runs them): rows per second,
 * and the resident memory of the CLI and of the server sampled through the run. The CLI streams
 * the file, so its memory should not grow with the rows: its RSS a quarter of the way through
 * against its RSS at the end says so. Alone: `npx tsx bench/import.ts`.
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
  server_rss_end_mb: number;
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
    const server = await startLocalServer({ env: { DATA_DIR: join(dir, 'data') } });
    try {
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
      const end = samples.at(-1);
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
        server_rss_end_mb: mb(end?.server ?? 0),
      };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** The CLI's memory may move by this much from a quarter of the way to the end and still be flat. */
const FLAT_MB = 32;

export const importRows = (f: ImportFigures) => [
  {
    part: '13 import',
    subject: `npm run import of ${f.rows.toLocaleString('en')} JSON lines (${f.file_mb} MB) into npm start, ${f.batch} a batch, ${f.concurrency} in flight`,
    value: f.error
      ? `failed: ${f.error}`
      : `${f.rows_per_second.toLocaleString('en')} rows/s (${f.seconds} s)`,
    baseline: `peak RSS: CLI ${f.cli_peak_rss_mb} MB, server ${f.server_peak_rss_mb} MB`,
    ratio: null,
    target: 'every row created',
    ok: f.exit_code === 0 && f.counts?.created === f.rows,
  },
  {
    part: '13 import',
    subject: "the CLI's memory as the rows go by (a quarter of the way → the end)",
    value: `CLI ${f.cli_rss_quarter_mb} → ${f.cli_rss_end_mb} MB`,
    baseline: `server ${f.server_rss_quarter_mb} → ${f.server_rss_end_mb} MB`,
    ratio: f.cli_rss_quarter_mb > 0 ? Number((f.cli_rss_end_mb / f.cli_rss_quarter_mb).toFixed(2)) : null,
    target: `flat (≤ +${FLAT_MB} MB)`,
    ok: f.cli_rss_end_mb - f.cli_rss_quarter_mb <= FLAT_MB,
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
