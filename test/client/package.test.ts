import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../lib/routes';
import { createBan, startWithPublisher, type TestApi } from '../support/fixtures';

/**
 * The client package as a publisher gets it: built by its own script (esbuild bundles dist/index.js
 * with the shared kernel inlined, tsc writes the declarations: type errors fail here, this is where
 * client/ is type-checked), packed with a plain npm pack (whose prepack builds it again), installed
 * from the tarball into an empty project with no registry, and a TypeScript login gate compiled
 * against its declarations (strict, NodeNext) and run against the local API.
 */

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const clientDir = join(root, 'client');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/** The login gate of client/README.md: a device may play unless a cheat ban is enforced on it. */
const gate = `import { ApiError, createBanClient } from 'device-ban-client';

const client = createBanClient({
  baseUrl: process.env.BAN_API_URL ?? '',
  apiKey: process.env.BAN_API_KEY ?? '',
  deadlineMs: 1_500,
});

/** May this device play this game now? Lets it in when the API cannot be reached (fail open). */
export async function mayPlay(gameId: string, deviceId: string): Promise<boolean> {
  try {
    const enforcement = await client.getEnforcement(gameId, deviceId);
    return !enforcement.restricted.cheat;
  } catch (error) {
    if (error instanceof ApiError && error.status === 0) return true;
    throw error;
  }
}

const [gameId = '', ...devices] = process.argv.slice(2);
for (const device of devices) console.log(device, (await mayPlay(gameId, device)) ? 'allowed' : 'refused');
`;

const tsconfig = (files: string[]) =>
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2022'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      outDir: 'out',
      // The game server's own Node types; the package brings none and needs none.
      typeRoots: [join(root, 'node_modules', '@types')],
      types: ['node'],
    },
    files,
  });

let api: TestApi;
let key: string;
let scratch: string;
let tarball: string;

beforeAll(async () => {
  ({ api, key } = await startWithPublisher('package-pub'));
  scratch = await mkdtemp(join(tmpdir(), 'device-ban-client-'));
}, 60_000);
afterAll(async () => {
  await api?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the device-ban-client package', () => {
  it('builds without a type error, into dist/index.js with declarations', async () => {
    await rm(join(clientDir, 'dist'), { recursive: true, force: true });
    const built = await run('npm', ['run', 'build', '--silent', '--', '--pretty', 'false'], {
      cwd: clientDir,
    }).then(
      () => '',
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    expect(built).toBe('');
    const entry = await import(pathToFileURL(join(clientDir, 'dist/index.js')).href);
    const client = entry.createBanClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' });
    const methods = Object.keys(client).filter((name) => typeof client[name] === 'function');
    // Every route that takes a key (the public /health and /openapi.json are left out), and the iterators.
    for (const route of routes.filter((r) => r.auth)) expect(methods).toContain(route.id);
    const iterators = methods.filter((name) => !routes.some((r) => r.id === name));
    expect(iterators.sort()).toEqual(
      [
        'apiKeys',
        'appeals',
        'auditEvents',
        'bans',
        'deliveries',
        'devices',
        'events',
        'expiringBans',
        'exportItems',
        'publishers',
        'snapshot',
      ].sort(),
    );
    console.log(
      `device-ban-client: ${methods.length} methods (${methods.length - iterators.length} routes, ${iterators.length} iterators)`,
    );
  }, 60_000);

  it('packs into a tarball of dist/, the relay bin, README.md and package.json only', async () => {
    // No dist/ to start from: a plain npm pack builds the package itself (prepack).
    await rm(join(clientDir, 'dist'), { recursive: true, force: true });
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', scratch], {
      cwd: clientDir,
    });
    const [packed] = JSON.parse(stdout) as Array<{
      filename: string;
      size: number;
      unpackedSize: number;
      files: Array<{ path: string }>;
    }>;
    if (!packed) throw new Error(`npm pack said: ${stdout}`);
    tarball = join(scratch, packed.filename);
    const paths = packed.files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/api-types.d.ts',
        'dist/relay.d.ts',
        'bin/device-ban-relay.js',
      ]),
    );
    expect(
      paths.filter(
        (p) =>
          !p.startsWith('dist/') &&
          p !== 'bin/device-ban-relay.js' &&
          p !== 'README.md' &&
          p !== 'package.json',
      ),
    ).toEqual([]);
    // One file of code, the kernel inlined: it imports Node's built-ins and nothing else.
    const code = await readFile(join(clientDir, 'dist', 'index.js'), 'utf8');
    const imported = [...code.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/gm)].map(
      (m) => m[1],
    );
    expect(imported.filter((specifier) => !specifier?.startsWith('node:'))).toEqual([]);
    const manifest = JSON.parse(await readFile(join(clientDir, 'package.json'), 'utf8'));
    expect(manifest.dependencies ?? {}).toEqual({});
    console.log(
      `device-ban-client tarball ${packed.filename}: ${packed.size} bytes gzipped, ${packed.unpackedSize} bytes unpacked, ${paths.length} files`,
    );
  }, 60_000);

  it('installs offline into a new project, where a strict NodeNext login gate compiles and runs against the API', async () => {
    expect(tarball).toBeDefined();
    const project = join(scratch, 'game-server');
    await mkdir(project);
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'game-server', private: true, type: 'module' }),
    );
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project });

    await writeFile(join(project, 'gate.ts'), gate);
    await writeFile(join(project, 'tsconfig.json'), tsconfig(['gate.ts']));
    const compiled = await run(process.execPath, [tsc, '-p', project, '--pretty', 'false']).then(
      () => '',
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    expect(compiled).toBe('');

    await createBan(api, key, 'game-1', {
      device_id: 'dev-cheater',
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'x',
    });
    const login = (url: string) =>
      run(process.execPath, ['out/gate.js', 'game-1', 'dev-cheater', 'dev-clean'], {
        cwd: project,
        env: { ...process.env, BAN_API_URL: url, BAN_API_KEY: key },
      });
    expect((await login(api.url)).stdout).toBe('dev-cheater refused\ndev-clean allowed\n');
    // Nothing listens on port 1: no answer within the deadline, and the gate fails open.
    expect((await login('http://127.0.0.1:1')).stdout).toBe('dev-cheater allowed\ndev-clean allowed\n');
  }, 60_000);

  it("compiles docs/game-servers.md's mirror gate as written, and runs it: from the mirror, from its state file, through an outage, and failing open", async () => {
    const project = join(scratch, 'game-server');
    const docs = await readFile(join(root, 'docs', 'game-servers.md'), 'utf8');
    const block = /## A login gate[\s\S]*?```ts\n([\s\S]*?)```/.exec(docs)?.[1];
    if (!block) throw new Error('docs/game-servers.md has no login gate block');
    // The docs' gate, and three lines that drive it: each device named, then a clean stop.
    await writeFile(
      join(project, 'mirror-gate.ts'),
      `${block}\nfor (const device of process.argv.slice(2)) console.log(device, (await mayPlay(device)) ? 'allowed' : 'refused');\nawait mirror.stop();\n`,
    );
    await writeFile(join(project, 'tsconfig.json'), tsconfig(['mirror-gate.ts']));
    const compiled = await run(process.execPath, [tsc, '-p', project, '--pretty', 'false']).then(
      () => '',
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    expect(compiled).toBe('');

    await createBan(api, key, 'game-2', {
      device_id: 'dev-mirrored',
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'x',
    });
    await api.settle();
    const stateFile = join(scratch, 'ban-mirror.json');
    const login = (url: string) =>
      run(process.execPath, ['out/mirror-gate.js', 'dev-mirrored', 'dev-clean'], {
        cwd: project,
        env: {
          ...process.env,
          BAN_API_URL: url,
          BAN_API_KEY: key,
          GAME_ID: 'game-2',
          BAN_MIRROR_FILE: stateFile,
        },
      });
    const first = await login(api.url);
    expect(first.stdout).toBe('dev-mirrored refused\ndev-clean allowed\n');
    expect(first.stderr).toContain('"type":"snapshot"');
    const saved = JSON.parse(await readFile(stateFile, 'utf8'));
    expect(saved).toMatchObject({
      format: 'device-ban-mirror/4',
      game_id: 'game-2',
      publisher_id: 'package-pub',
    });
    // Again: from the state file, no snapshot.
    const second = await login(api.url);
    expect(second.stdout).toBe('dev-mirrored refused\ndev-clean allowed\n');
    expect(second.stderr).toContain('"type":"state_loaded"');
    expect(second.stderr).not.toContain('"type":"snapshot"');
    // The API down, the state file there: the copy is stale, the API does not answer, and what
    // the copy knows still holds (the old gate let everyone in here).
    const outage = await login('http://127.0.0.1:1');
    expect(outage.stdout).toBe('dev-mirrored refused\ndev-clean allowed\n');
    expect(outage.stderr).toContain('"type":"fallback_failed"');
    // No API and no state file: nothing is known, and failing open restricts nobody.
    await rm(stateFile);
    expect((await login('http://127.0.0.1:1')).stdout).toBe('dev-mirrored allowed\ndev-clean allowed\n');
  }, 90_000);

  it('installs the device-ban-relay bin, which hashes a key and relays the API to a game server key', async () => {
    const project = join(scratch, 'game-server');
    const bin = join(project, 'node_modules', '.bin', 'device-ban-relay');
    const serverKey = 'studio-server-key';
    const hashed = await new Promise<string>((resolve, reject) => {
      const child = spawn(bin, ['hash-key'], { stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
      });
      child.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}`))));
      child.stdin.end(`${serverKey}\n`);
    });
    expect(hashed).toBe(createHash('sha256').update(serverKey).digest('hex'));

    const relay = spawn(bin, ['--port', '0', '--host', '127.0.0.1', '--game', 'game-1'], {
      env: {
        ...process.env,
        BAN_RELAY_UPSTREAM: api.url,
        BAN_RELAY_UPSTREAM_KEY: key,
        BAN_RELAY_KEY_HASHES: hashed,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const port = await new Promise<string>((resolve, reject) => {
        let out = '';
        relay.stdout.on('data', (chunk) => {
          out += chunk;
          const found = /listening on port (\d+)/.exec(out);
          if (found) resolve(found[1] as string);
        });
        relay.once('exit', (code) => reject(new Error(`the relay exited (${code}): ${out}`)));
      });
      const ready = new Promise<void>((resolve) => {
        let err = '';
        relay.stderr.on('data', (chunk) => {
          err += chunk;
          if (err.includes('"type":"ready"')) resolve();
        });
      });
      await ready;
      const read = await fetch(`http://127.0.0.1:${port}/v1/events`, {
        headers: { Authorization: `Bearer ${serverKey}`, 'X-Game-Id': 'game-1' },
      });
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ items: expect.any(Array), next_cursor: expect.any(String) });
      const refused = await fetch(`http://127.0.0.1:${port}/v1/events`, {
        headers: { Authorization: `Bearer ${key}`, 'X-Game-Id': 'game-1' },
      });
      expect(refused.status).toBe(401);
    } finally {
      const exited = new Promise((resolve) => relay.once('exit', resolve));
      relay.kill('SIGTERM');
      await exited;
    }
  }, 60_000);

  it("gives the installed project the API's types: a wrong field or argument does not compile", async () => {
    const project = join(scratch, 'game-server');
    await writeFile(
      join(project, 'wrong.ts'),
      `import { createBanClient } from 'device-ban-client';
const client = createBanClient({ baseUrl: 'http://x', apiKey: 'k' });
const answer = await client.getEnforcement('game-1', 'device-1');
console.log(answer.restricted.toxic);
await client.createBan('game-1', { device_id: 'd', ban_type: 'cheat', scope: 'galaxy', reason_code: 'r' });
`,
    );
    await writeFile(join(project, 'tsconfig.json'), tsconfig(['wrong.ts']));
    // --pretty false: tsc colours and reshapes its messages when it thinks a terminal reads them
    // (as under npm test's lanes), and this test reads them.
    const compiled = await run(process.execPath, [tsc, '-p', project, '--noEmit', '--pretty', 'false']).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? '',
    );
    expect(compiled).toMatch(/wrong\.ts\(4,\d+\): error TS2339: Property 'toxic' does not exist/);
    expect(compiled).toMatch(/wrong\.ts\(5,\d+\): error TS2322: Type '"galaxy"' is not assignable/);
  }, 60_000);
});
