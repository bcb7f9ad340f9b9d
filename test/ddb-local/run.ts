import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir, registryPackage } from '../support/registry-package';

/**
 * `npm run test:ddb-local`: the integration and robustness suites against AWS's own DynamoDB Local.
 *
 *   1. fetch DynamoDB Local once from the npm registry (`amplify-dynamodb-simulator` carries the jar)
 *      into a cache outside the tracked tree, checking the tarball against its pinned integrity;
 *   2. start it in memory on a free loopback port;
 *   3. run `vitest run test/integration test/robustness` with TEST_DYNAMODB_ENDPOINT pointing at it
 *      (extra arguments are passed to vitest; files or folders named replace the two suites);
 *   4. stop it, whatever happened (failure, Ctrl-C, SIGTERM), and exit with vitest's code.
 *
 * Without Java it fails: a reference run that silently skips would prove nothing.
 */

const PACKAGE = 'amplify-dynamodb-simulator';
const VERSION = '2.9.30';
// From `npm view amplify-dynamodb-simulator@2.9.30 dist.integrity`: the cache holds exactly this.
const INTEGRITY =
  'sha512-xTeeRLvzEfqyd5lh3bH4c0kHvSHHmmhD5ZDsHFKAQ5g2Zl6JqlFdutaQhCLHzxEp6Ry1o7TB6niIoXuQAnSewQ==';
const SUITES = ['test/integration', 'test/robustness'];
const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
const READY_TIMEOUT_MS = 60_000;

const say = (line: string) => console.log(`[ddb-local] ${line}`);
const fail = (line: string): never => {
  console.error(`[ddb-local] ${line}`);
  process.exit(1);
};

const requireJava = () => {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    fail(
      'Java is required to run DynamoDB Local (Java 17 or later), and `java` was not found on PATH.\n' +
        '  Install it (e.g. `apt-get install openjdk-17-jre-headless`) and run `npm run test:ddb-local` again.\n' +
        '  The reference-backend run is not skipped without Java: it fails, on purpose.',
    );
  }
  say(`using ${(probe.stderr || probe.stdout).split('\n')[0]?.trim()}`);
};

/** The unpacked `emulator/` folder (DynamoDBLocal.jar + DynamoDBLocal_lib), fetched on first use. */
const emulatorDir = (): string => {
  try {
    return registryPackage(cacheDir('dynamodb-local', process.env.DDB_LOCAL_CACHE), {
      name: PACKAGE,
      version: VERSION,
      integrity: INTEGRITY,
      folder: 'package/emulator',
      expect: 'DynamoDBLocal.jar',
      say,
    });
  } catch (error) {
    return fail((error as Error).message);
  }
};

const freePort = () =>
  new Promise<number>((done, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });

/** Ready when it answers a ListTables call (signed or not, any JSON answer means it is serving). */
const waitUntilServing = async (endpoint: string, java: ChildProcess) => {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (java.exitCode !== null)
      throw new Error(`DynamoDB Local exited with ${java.exitCode} before it was ready`);
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-amz-json-1.0',
          'X-Amz-Target': 'DynamoDB_20120810.ListTables',
          Authorization:
            'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
        },
        body: '{}',
      });
      await res.text();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${READY_TIMEOUT_MS / 1000} s`);
};

const children = new Set<ChildProcess>();
const stopAll = () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
};
process.on('exit', stopAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    say(`${signal}: stopping DynamoDB Local and the tests`);
    stopAll();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

const main = async () => {
  requireJava();
  const dir = emulatorDir();
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const startedAt = Date.now();
  const java = spawn(
    'java',
    [
      // The quick compiler only and one GC thread: a test run is short and the machine has two
      // cores; this cut the emulator's CPU time by about 30 % at the same wall time.
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(dir, 'DynamoDBLocal.jar'),
      '-inMemory',
      // One database whatever credentials and region a client signs with.
      '-sharedDb',
      '-port',
      String(port),
      '-disableTelemetry',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  children.add(java);
  let javaOutput = '';
  java.stdout?.on('data', (chunk) => {
    javaOutput += chunk;
  });
  java.stderr?.on('data', (chunk) => {
    javaOutput += chunk;
  });
  java.once('error', (error) => fail(`could not start java: ${error.message}`));
  await waitUntilServing(endpoint, java).catch((error: Error) => fail(`${error.message}\n${javaOutput}`));
  say(`DynamoDB Local ${VERSION} serving in memory on ${endpoint} (ready in ${Date.now() - startedAt} ms)`);

  // Files or folders named after `--` run instead of the two suites (vitest ORs its filters, so
  // naming both would run everything); options (`-t`, `--reporter`) go along with either.
  const extra = process.argv.slice(2);
  const named = extra.some((arg) => !arg.startsWith('-'));
  const vitestArgs = ['run', ...(named ? [] : SUITES), ...extra];
  say(`TEST_DYNAMODB_ENDPOINT=${endpoint} vitest ${vitestArgs.join(' ')}`);
  const testsStartedAt = Date.now();
  const vitest = spawn(process.execPath, [VITEST, ...vitestArgs], {
    stdio: 'inherit',
    env: { ...process.env, TEST_DYNAMODB_ENDPOINT: endpoint },
    detached: true,
  });
  children.add(vitest);
  const code = await new Promise<number>((done) =>
    vitest.once('exit', (exitCode, signal) => done(exitCode ?? (signal ? 1 : 0))),
  );
  children.delete(vitest);
  say(`suites finished with code ${code} in ${((Date.now() - testsStartedAt) / 1000).toFixed(1)} s`);
  if (java.exitCode !== null) {
    // It should still be up; if it died mid-run the failures above are its fault, not the code's.
    console.error(`[ddb-local] DynamoDB Local exited early with ${java.exitCode}:\n${javaOutput}`);
    process.exit(code || 1);
  }
  const stopped = new Promise((done) => java.once('exit', done));
  stopAll();
  await stopped;
  children.delete(java);
  say('DynamoDB Local stopped');
  process.exit(code);
};

main().catch((error: unknown) => {
  console.error(error);
  stopAll();
  process.exit(1);
});
