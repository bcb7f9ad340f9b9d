import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { measureColdImports, measureSizes, measureSourceMapCost, synthesizeBundles } from './bundles';
import { runPart } from './children';
import { consoleRows, type measureConsole } from './console';
import { eventsRows, type measureEvents } from './delivery';
import { feedPollingRows, type measureFeedPolling } from './feed-polling';
import { gameServerRows, type measureGameServers } from './game-servers';
import { hotItemRows } from './hot-item';
import { importRows, type measureImport } from './import';
import type { measureInProcessParts } from './in-process-part';
import { type measurePolicyReach, policyReachRows } from './policy-reach';
import { type measureRelay, relayRows } from './relay';
import type { measureThroughput } from './throughput';

type FiguresOf<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
type InProcessFigures = FiguresOf<typeof measureInProcessParts>;
type ThroughputFigures = FiguresOf<typeof measureThroughput>;
type EventsFigures = FiguresOf<typeof measureEvents>;
type GameServerFigures = FiguresOf<typeof measureGameServers>;
type FeedPollingResult = FiguresOf<typeof measureFeedPolling>;
type ConsoleFigures = FiguresOf<typeof measureConsole>;
type RelayFigures = FiguresOf<typeof measureRelay>;
type PolicyReachFigures = FiguresOf<typeof measurePolicyReach>;
type ImportFigures = FiguresOf<typeof measureImport>;

/**
 * `npm run bench`: every figure as a ratio to a baseline measured in the same run, because these
 * machines are shared and noisy. Prints one table and writes bench/results.json.
 *
 * BENCH_SECONDS (default 20): load duration per endpoint and side; BENCH_IMPORT_RUNS (default 15):
 * fresh processes per bundle for cold import; BENCH_INVOCATIONS (default 1000): warm invocations
 * per operation for handler overhead; BENCH_DELIVERY_EVENTS (default 1000): bans written per load in
 * part 7 (events). Part 7 alone, with the round trips: `npx tsx bench/delivery.ts`. CONSOLE_BENCH_RUNS
 * (default 7): cold visits of the console in Chromium in part 8; alone: `npx tsx bench/console.ts`.
 * Part 3 (the round trips, the feed page and the appeals included) alone: `npx tsx bench/round-trips.ts`.
 * Part 9 (a login by the client's mirror against the API, a ban's way to the mirror, its memory, a
 * snapshot of SNAPSHOT_BANS, default 100,000) alone: `npx tsx bench/game-servers.ts`.
 * Part 10 (game servers polling the feed, without and with its cache; FEED_BENCH_SERVERS, default 200,
 * FEED_BENCH_SECONDS, default 10) alone: `npx tsx bench/feed-polling.ts`.
 * Part 11 (RELAY_BENCH_MIRRORS, default 10,000, readers behind one relay, 200 of them real mirrors and
 * the rest light pollers, or all mirrors with RELAY_BENCH_FULL_MIRRORS=1: the service's polls per
 * second, a change's way to every reader, the relay's memory and CPU) alone: `npx tsx bench/relay.ts`.
 * Part 12 (the reach of a policy change over POLICY_REACH_BANS, default 100,000, live bans, against
 * the store's Queries of the same items) alone: `npx tsx bench/policy-reach.ts`.
 * Part 13 (`npm run import` of IMPORT_BENCH_ROWS, default 5,000, generated JSON lines into `npm start`
 * on a fresh store: rows/s, the CLI's and the server's memory) alone: `npx tsx bench/import.ts`.
 *
 * Each part that starts a store or an API runs in a process of its own (bench/part.ts). BENCH_SHORT=1
 * runs every part at a token size (seconds, not minutes; figures meaningless) and writes its results
 * to BENCH_RESULTS instead, to check the bench itself still runs.
 */

process.env.LOG_LEVEL = 'silent';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const short = process.env.BENCH_SHORT === '1';
if (short) {
  // Defaults only: a variable set by the caller still wins. The children inherit them.
  const tokenSizes = {
    BENCH_SECONDS: '1',
    BENCH_IMPORT_RUNS: '1',
    BENCH_INVOCATIONS: '20',
    BENCH_DELIVERY_EVENTS: '20',
    CONSOLE_BENCH_RUNS: '1',
    LOGIN_SECONDS: '1',
    FRESHNESS_SAMPLES: '2',
    SNAPSHOT_BANS: '500',
    FEED_BENCH_SERVERS: '5',
    FEED_BENCH_SECONDS: '1',
    RELAY_BENCH_MIRRORS: '40',
    RELAY_BENCH_CHANGES: '2',
    RELAY_BENCH_TAIL_MS: '3000',
    POLICY_REACH_BANS: '500',
    POLICY_REACH_RUNS: '1',
    IMPORT_BENCH_ROWS: '500',
  };
  for (const [name, value] of Object.entries(tokenSizes)) process.env[name] ??= value;
}
const resultsFile = process.env.BENCH_RESULTS ?? (short ? undefined : 'bench/results.json');
if (!resultsFile) throw new Error('BENCH_SHORT=1 writes its results to BENCH_RESULTS: set it');
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const importRuns = Number(process.env.BENCH_IMPORT_RUNS ?? 15);
const invocations = Number(process.env.BENCH_INVOCATIONS ?? 1000);
const deliveryEvents = Number(process.env.BENCH_DELIVERY_EVENTS ?? 1000);
const SCALE_SIZES = short ? [10, 100] : [10, 100, 1_000, 10_000];
const CONNECTIONS = 10;

const started = Date.now();
const step = (name: string) => console.error(`[${((Date.now() - started) / 1000).toFixed(0)} s] ${name}`);

step('synthesizing the stack and the floor bundle (cdk synth)');
const paths = synthesizeBundles();
step('bundle sizes');
const sizes = measureSizes(paths);
step(`cold imports (${importRuns} fresh processes per bundle, alternating with the floor)`);
const coldImports = measureColdImports(paths, importRuns);
step(`cold imports with source maps enabled (${importRuns} runs each)`);
const sourceMaps = measureSourceMapCost(paths, importRuns);

step('in-process: round trips (and a feed page, and the appeals), hot item, handler overhead, scale');
const { roundTrips, hotItem, overhead, personAuth, scale } = await runPart<InProcessFigures>(
  'bench/in-process-part.ts',
  'measureInProcessParts',
  [invocations, SCALE_SIZES],
);

step(`throughput (${seconds} s per endpoint and side, ${CONNECTIONS} connections)`);
const throughput = await runPart<ThroughputFigures>('bench/throughput.ts', 'measureThroughput', [
  seconds,
  CONNECTIONS,
]);

step(`events (${deliveryEvents} bans per load: store calls, delivery latency, write throughput)`);
const events = await runPart<EventsFigures>('bench/delivery.ts', 'measureEvents', [deliveryEvents]);

step('game servers (the mirror against the API, freshness, memory, a snapshot of 100,000 bans)');
const gameServers = await runPart<GameServerFigures>('bench/game-servers.ts', 'measureGameServers');
step('feed polling (servers polling GET /v1/events each second, without and with the cache)');
const feedPolling = await runPart<FeedPollingResult>('bench/feed-polling.ts', 'measureFeedPolling');
step("relay (10,000 readers behind one relay: the service's polls, a change's way to every reader)");
const relay = await runPart<RelayFigures>('bench/relay.ts', 'measureRelay');

step('policy reach (POST /v1/policy/preview over 100,000 live bans, against the same Queries)');
const policyReach = await runPart<PolicyReachFigures>('bench/policy-reach.ts', 'measurePolicyReach');

const importRowCount = Number(process.env.IMPORT_BENCH_ROWS ?? 5_000);
step(`import (npm run import of ${importRowCount} JSON lines into npm start on a fresh store)`);
const importRun = await runPart<ImportFigures>('bench/import.ts', 'measureImport');

step('console (first load, sign-in and a device lookup in Chromium)');
const consoleTimings = await runPart<ConsoleFigures>('bench/console.ts', 'measureConsole');

// A figure that is not a number (a short run's 0 / 0) reaches here as null, through JSON.
const fixed = (n: number | null, digits = 2) => (n === null ? Number.NaN : Number(n.toFixed(digits)));
type Row = {
  part: string;
  subject: string;
  value: string;
  baseline: string;
  ratio: number | null;
  target: string;
  ok: boolean;
};
const rows: Row[] = [
  ...sizes
    .filter((s) => s.bundle !== 'floor')
    .map((s) => ({
      part: '1 bundle size',
      subject: s.bundle,
      value: `${fixed(s.minified_kb, 1)} KB min / ${fixed(s.gzipped_kb, 1)} KB gz`,
      baseline: `floor ${fixed(sizes.at(-1)?.minified_kb ?? 0, 1)} / ${fixed(sizes.at(-1)?.gzipped_kb ?? 0, 1)} KB`,
      ratio: fixed(s.ratio_minified),
      target: '≤ 1.25',
      ok: s.ratio_minified <= 1.25,
    })),
  ...coldImports.map((c) => ({
    part: '2 cold import',
    subject: c.bundle,
    value: `${fixed(c.median_ms, 1)} ms`,
    baseline: `floor ${fixed(c.floor_median_ms, 1)} ms`,
    ratio: fixed(c.ratio),
    target: '≤ 1.15',
    ok: c.ratio <= 1.15,
  })),
  ...sourceMaps.map((m) => ({
    part: '2b source maps on',
    subject: m.bundle,
    value: `${fixed(m.on_median_ms, 1)} ms (${fixed(m.ratio_to_off)}x without)`,
    baseline: `floor, maps off`,
    ratio: fixed(m.ratio_to_floor),
    // -c sourceMaps=true stays opt-in unless enabling keeps the cold import within its target.
    target: 'reported (≤ 1.15 to enable by default)',
    ok: true,
  })),
  ...roundTrips.map((r) => ({
    part: '3 round trips',
    subject: r.operation,
    value: `${r.calls} (${
      Object.entries(r.by_command)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    })`,
    baseline: `floor ${r.floor}`,
    ratio: r.floor ? fixed(r.calls / r.floor) : null,
    target: '= floor',
    ok: r.calls === r.floor,
  })),
  ...hotItemRows(hotItem),
  ...overhead.map((o) => ({
    part: '4 handler overhead',
    subject: o.operation,
    value: `${fixed(o.median_ours_ms, 3)} ms ours`,
    baseline: `${fixed(o.median_total_ms, 2)} ms total`,
    ratio: null,
    target: '≤ 1 ms',
    ok: o.median_ours_ms <= 1,
  })),
  {
    part: '4b authorizer',
    subject: "a person's access token, warm",
    value: `${fixed(personAuth.warm_median_ms, 3)} ms, ${personAuth.warm_storage_calls} storage calls`,
    baseline: `key ${fixed(personAuth.key_median_ms, 3)} ms, ${personAuth.key_storage_calls} storage call`,
    ratio: fixed(personAuth.warm_median_ms / personAuth.key_median_ms),
    target: '≤ 1 ms, 0 calls',
    ok: personAuth.warm_median_ms <= 1 && personAuth.warm_storage_calls === 0,
  },
  {
    part: '4b authorizer',
    subject: "a person's access token, cold (fetches the provider's keys once)",
    value: `${fixed(personAuth.cold_ms, 2)} ms, ${personAuth.cold_storage_calls} storage calls`,
    baseline: `key warm ${fixed(personAuth.key_median_ms, 3)} ms`,
    ratio: null,
    target: '0 storage calls',
    ok: personAuth.cold_storage_calls === 0,
  },
  ...throughput.map((t) => ({
    part: '5 throughput',
    subject: t.operation,
    value: `${fixed(t.api_rps, t.api_rps < 10 ? 2 : 0)} req/s p50 ${t.api_p50_ms} p99 ${t.api_p99_ms} ms, ${t.api_errors} errors`,
    baseline:
      t.raw_rps === null
        ? 'no storage call'
        : `raw ${fixed(t.raw_rps, t.raw_rps < 10 ? 2 : 0)} ops/s p50 ${fixed(t.raw_p50_ms ?? 0, 1)} p99 ${fixed(t.raw_p99_ms ?? 0, 1)} ms`,
    ratio: t.ratio === null ? null : fixed(t.ratio),
    target: '≥ 0.7',
    ok: (t.ratio === null || t.ratio >= 0.7) && t.api_errors === 0,
  })),
  ...scale.rows.map((s) => ({
    part: '6 scale',
    subject: `${s.visible_bans} visible bans`,
    value: `${fixed(s.median_ms, 1)} ms, ${s.queries} Query`,
    baseline: `${fixed(s.ms_per_ban * 1000, 1)} µs per ban`,
    ratio: null,
    target: 'linear or better',
    ok: true,
  })),
  {
    part: '6 scale',
    subject: 'growth exponent k (latency ∝ bans^k)',
    value: fixed(scale.exponent).toString(),
    baseline: '1 = linear',
    ratio: null,
    target: 'k ≤ 1.1',
    ok: scale.exponent <= 1.1,
  },
  ...eventsRows(events),
  ...consoleRows(consoleTimings),
  ...gameServerRows(gameServers),
  ...feedPollingRows(feedPolling),
  ...relayRows(relay),
  ...policyReachRows(policyReach),
  ...importRows(importRun),
];

console.table(rows);
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(
  resultsFile,
  `${JSON.stringify({ measured_at: new Date().toISOString(), node: process.version, seconds, importRuns, invocations, deliveryEvents, sizes, coldImports, sourceMaps, roundTrips, hotItem, overhead, personAuthorization: personAuth, throughput, scale, events, gameServers, feedPolling, relay, policyReach, import: importRun, console: consoleTimings, summary: rows }, null, 2)}\n`,
);
const failed = rows.filter((r) => !r.ok);
step(`done: ${rows.length - failed.length} of ${rows.length} rows meet their target; ${resultsFile} written`);
