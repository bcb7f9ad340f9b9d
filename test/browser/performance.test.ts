import { writeFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type ConsoleTimings,
  consoleRows,
  measureConsoleTimings,
  seedConsoleDevice,
  seedConsoleGames,
  seedConsoleStart,
} from '../../bench/console';
import { appendRecord, artifact, median } from './support/artifacts';
import { launchChromium } from './support/chromium';
import { type LocalServer, startServer } from './support/server';

/**
 * Performance: first load to interactive (navigation start to the sign-in form usable),
 * sign-in, and a device lookup (click to bans listed); and the start page (signed in to
 * its first panel and to all four filled) and a device in three games (its address opened to the
 * first game's row and to all three answered), measured inside the page over cold runs in
 * fresh contexts (bench/console.ts, which `npm run bench` runs as part 8). Reported, never
 * asserted (docs/testing.md: no timing assertions); the run prints them and writes
 * .artifacts/console/timings.json.
 */

// One cold run proves the measurement and shows a figure; the figures to compare are `npm run
// bench`'s (part 8: seven runs, medians). CONSOLE_TIMING_RUNS takes more here.
const RUNS = Number(process.env.CONSOLE_TIMING_RUNS ?? 1);
const GAME = 'game-1';
const DEVICE = 'device-timed';
const GAMES_DEVICE = 'device-in-three-games';

let server: LocalServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  await seedConsoleDevice(server.url, server.devKey, GAME, DEVICE);
  await seedConsoleGames(server.url, server.devKey, GAME, GAMES_DEVICE);
  await seedConsoleStart(server.url, server.devKey, GAME);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

it(`measures first load, sign-in, a device lookup, the start page and a device in three games in the browser (cold runs: ${RUNS}, medians reported)`, async () => {
  const timings: ConsoleTimings = await measureConsoleTimings(
    browser,
    { url: server.url, key: server.devKey, game: GAME, deviceId: DEVICE, gamesDeviceId: GAMES_DEVICE },
    RUNS,
  );
  for (const samples of Object.values(timings).filter(Array.isArray) as number[][]) {
    expect(samples).toHaveLength(RUNS);
    for (const ms of samples) expect(ms).toBeGreaterThan(0);
  }
  const records: Array<[string, number[]]> = [
    ['first load to sign-in form usable', timings.first_load_ms],
    ['  baseline: GET /health page load', timings.health_load_ms],
    ['sign-in: click to signed in', timings.sign_in_ms],
    ['  baseline: its 3 API reads from the page', timings.sign_in_api_ms],
    ['device lookup: click to bans listed', timings.lookup_ms],
    ['  baseline: its API calls from the page', timings.lookup_api_ms],
    ['start page: signed in to first panel filled', timings.start_first_panel_ms],
    ['start page: signed in to all 4 panels filled', timings.start_all_panels_ms],
    ["  baseline: its panels' API reads from the page", timings.start_api_ms],
    ['device in 3 games: address to first game row', timings.games_first_row_ms],
    ['device in 3 games: address to all 3 rows', timings.games_all_rows_ms],
    ['  baseline: its API calls from the page', timings.games_api_ms],
  ];
  for (const [name, samples] of records) appendRecord('timings.jsonl', { name, samples_ms: samples });
  writeFileSync(artifact('bench-rows.json'), `${JSON.stringify(consoleRows(timings), null, 2)}\n`);
  console.log(
    records.map(([name, samples]) => `${name}: median ${median(samples).toFixed(1)} ms`).join('\n'),
  );
}, 120_000);
