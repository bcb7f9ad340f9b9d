import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { BrowserServer } from 'playwright-core';
import { CONSOLE_JS_BUDGET_GZIP } from '../../console/build';
import { connectChromium, launchChromiumServer, packagedChromiumRuns } from '../../infra/chromium';
import { ARTIFACTS, artifact, median, ROOT, SCREENSHOTS_DOCS } from './support/artifacts';
import { CURATED_SCREENSHOTS } from './support/screenshots';

/**
 * `npm run test:browser`: the moderator console in a real Chromium, against `npm start`.
 *
 *   1. empty `.artifacts/console/`;
 *   2. start the pass's one Chromium, which every test file connects to (CHROMIUM_WS_ENDPOINT), and
 *      see that it runs: on linux-x64 (this project's machines and CI) a
 *      Chromium that cannot start fails the run; elsewhere, where the packaged Chromium does not
 *      exist, the suite is SKIPPED with a banner saying so, unless CHROMIUM_PATH (or a `chromium`
 *      on PATH) gives one that starts;
 *   3. `vitest run --config test/browser/vitest.config.ts` (extra arguments go to vitest);
 *   4. collect the timings into `.artifacts/console/timings.json` and print them, with the
 *      accessibility scans' summary and the wall time;
 *   5. with UPDATE_SCREENSHOTS=1, copy the curated screenshots (support/screenshots.ts) to
 *      docs/screenshots/, once the run took every one of them (saying so if the run failed).
 */

const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const say = (line: string) => console.log(`[browser] ${line}`);

const skip = (why: string): never => {
  const bar = '!'.repeat(100);
  console.warn(
    `\n${bar}\n[browser] SKIPPED: the console's browser tests did not run. ${why}\n` +
      '[browser] Nothing about the console was checked on this machine. CI (linux-x64) runs them.\n' +
      `${bar}\n`,
  );
  process.exit(0);
};

/** Starts the pass's one Chromium (every test file connects to it) and answers its version. */
const probe = async (): Promise<{ version: string; server: BrowserServer }> => {
  if (!packagedChromiumRuns && !process.env.CHROMIUM_PATH) {
    const onPath = spawnSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], {
      encoding: 'utf8',
    }).stdout.trim();
    if (!onPath)
      skip(
        `The packaged Chromium (@sparticuz/chromium) exists for linux-x64 only (this is ${process.platform}-${process.arch}), ` +
          'and no CHROMIUM_PATH or chromium on PATH was found.',
      );
    process.env.CHROMIUM_PATH = onPath;
  }
  try {
    const server = await launchChromiumServer();
    const browser = await connectChromium(server.wsEndpoint());
    const version = browser.version();
    await browser.close();
    return { version, server };
  } catch (error) {
    const message = (error as Error).message.split('\n').slice(0, 6).join('\n');
    if (packagedChromiumRuns) {
      console.error(
        `[browser] Chromium did not start on linux-x64, where it must:\n${message}\n` +
          '[browser] The packaged Chromium uses the system libnss3, libnspr4 and libexpat1 (Debian: ' +
          'apt-get install libnss3, which Java 17, needed for DynamoDB Local, already brings).',
      );
      process.exit(1);
    }
    return skip(`Chromium (${process.env.CHROMIUM_PATH}) could not start:\n${message}`);
  }
};

interface TimingRecord {
  name: string;
  samples_ms: number[];
}

const report = (version: string) => {
  const timingsFile = artifact('timings.jsonl');
  if (existsSync(timingsFile)) {
    const records = readFileSync(timingsFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TimingRecord);
    const rows = records.map((r) => ({
      name: r.name,
      median_ms: Math.round(median(r.samples_ms) * 10) / 10,
      samples_ms: r.samples_ms.map((s) => Math.round(s * 10) / 10),
    }));
    writeFileSync(
      artifact('timings.json'),
      `${JSON.stringify(
        {
          measured_at: new Date().toISOString(),
          chromium: version,
          node: process.version,
          cpus: cpus().length,
          rows,
        },
        null,
        2,
      )}\n`,
    );
    say('timings (in the browser, median of the samples):');
    for (const row of rows)
      say(
        `  ${row.name.padEnd(44)} ${String(row.median_ms).padStart(8)} ms   [${row.samples_ms.join(', ')}]`,
      );
  }
  const sizesFile = artifact('sizes.json');
  if (existsSync(sizesFile)) {
    const { files } = JSON.parse(readFileSync(sizesFile, 'utf8')) as {
      files: { name: string; bytes: number; gzipBytes: number }[];
    };
    say(
      `console build: ${files.map((f) => `${f.name} ${(f.gzipBytes / 1024).toFixed(1)} KB gzipped`).join(', ')} (app.js budget ${CONSOLE_JS_BUDGET_GZIP / 1024} KB)`,
    );
  }
  const axeFile = artifact('axe.jsonl');
  if (existsSync(axeFile)) {
    const scans = readFileSync(axeFile, 'utf8')
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { name: string; axe: string; violations: { id: string; impact: string }[] },
      );
    const count = (impact: string) =>
      scans.reduce((n, s) => n + s.violations.filter((v) => v.impact === impact).length, 0);
    say(
      `axe-core ${scans[0]?.axe}: ${scans.length} scans; violations: critical ${count('critical')}, ` +
        `serious ${count('serious')}, moderate ${count('moderate')}, minor ${count('minor')}`,
    );
  }
};

const main = async () => {
  const startedAt = Date.now();
  rmSync(ARTIFACTS, { recursive: true, force: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  const { version, server } = await probe();
  say(`Chromium ${version} (${process.env.CHROMIUM_PATH ?? '@sparticuz/chromium'}), one for the whole pass`);
  const args = [VITEST, 'run', '--config', 'test/browser/vitest.config.ts', ...process.argv.slice(2)];
  const vitest = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, CHROMIUM_WS_ENDPOINT: server.wsEndpoint() },
  });
  const stop = (signal: NodeJS.Signals) => vitest.kill(signal);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const code = await new Promise<number>((done) =>
    vitest.once('exit', (exitCode, signal) => done(exitCode ?? (signal ? 1 : 0))),
  );
  await server.close();
  report(version);
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    const missing = CURATED_SCREENSHOTS.filter((name) => !existsSync(artifact(`${name}.png`)));
    if (missing.length > 0) {
      console.error(`[browser] docs/screenshots/ NOT updated: this run took no ${missing.join(', ')}`);
    } else {
      mkdirSync(SCREENSHOTS_DOCS, { recursive: true });
      for (const name of CURATED_SCREENSHOTS)
        copyFileSync(artifact(`${name}.png`), join(SCREENSHOTS_DOCS, `${name}.png`));
      say(`docs/screenshots/ updated: ${CURATED_SCREENSHOTS.length} screenshots`);
      if (code !== 0) console.warn('[browser] (from a run that FAILED: look at them before committing)');
    }
  }
  say(
    `artifacts in .artifacts/console/; wall time ${((Date.now() - startedAt) / 1000).toFixed(1)} s; exit ${code}`,
  );
  process.exit(code);
};

await main();
