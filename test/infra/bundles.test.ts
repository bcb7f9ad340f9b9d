import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bundlePaths } from '../../infra/local/bundles';
import { type LocalApi, startLocalApi } from '../../infra/local/server';
import { PROJECT_ROOT } from '../../infra/stack/service-function';
import { stackFunctions } from '../../infra/stack/table-access';
import { type Route, routes } from '../../lib/routes';

/**
 * The one real, bundled synth: `cdk synth` exactly as an operator runs it (local esbuild, no
 * Docker, no network), then the bundles it made are measured and served. `API_BUNDLES=<dir>`
 * reuses an assembly synthesized beforehand instead (npm test synthesizes once for this file and
 * the integration suite).
 */

/** Minified size budget per function: 28–289 KB today (the people routes carry the Cognito client) (docs/deploy.md); a jump means a dependency crept in. */
const BUNDLE_BUDGET_BYTES = 400 * 1024;
/**
 * The export job and its status route carry the S3 client (a PutObject, a pre-signed GET): about
 * 410 and 440 KB. Neither is on a hot path: the job runs behind its queue for minutes, the status
 * is polled now and then while a job runs.
 */
const S3_FUNCTIONS = ['export-job', 'get-export-job'];
const S3_BUNDLE_BUDGET_BYTES = 480 * 1024;
/** A string only the S3 client's code holds (its service's name): which bundles carry it. */
const S3_CLIENT_MARK = 'AmazonS3';

const handlers = stackFunctions.map((fn) => fn.handler);

let cdkOut: string;
const ownAssembly = !process.env.API_BUNDLES;

beforeAll(async () => {
  if (!ownAssembly) {
    cdkOut = process.env.API_BUNDLES as string;
    return;
  }
  cdkOut = mkdtempSync(join(tmpdir(), 'cdk-out-'));
  await promisify(execFile)(join(PROJECT_ROOT, 'node_modules/.bin/cdk'), ['synth', '-q', '-o', cdkOut], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
}, 180_000);

afterAll(() => {
  if (ownAssembly && cdkOut) rmSync(cdkOut, { recursive: true, force: true });
});

describe('bundles', () => {
  test('one ESM bundle per function, each within the size budget', () => {
    const paths = bundlePaths(cdkOut);
    expect([...paths.keys()].sort()).toEqual([...handlers].sort());
    const sizes: Record<string, string> = {};
    for (const [handler, file] of paths) {
      const bytes = statSync(file).size;
      sizes[handler] = `${(bytes / 1024).toFixed(1)} KB`;
      expect(bytes, `${handler} bundle`).toBeLessThanOrEqual(
        S3_FUNCTIONS.includes(handler) ? S3_BUNDLE_BUDGET_BYTES : BUNDLE_BUDGET_BYTES,
      );
      const code = readFileSync(file, 'utf8');
      // The createRequire banner, which CommonJS code inside an ESM bundle needs.
      expect(code.startsWith('import { createRequire }'), handler).toBe(true);
      // Its source map beside it (names and lines, not the sources), for readable stack traces.
      const map = JSON.parse(readFileSync(`${file}.map`, 'utf8'));
      expect(
        map.sources.some((source: string) => source.includes('lib/')) || handler === 'health',
        handler,
      ).toBe(true);
      expect(map.sourcesContent ?? null, handler).toBeNull();
    }
    console.log('bundle sizes (minified):', sizes);
  });

  test("the events functions stay within 1.25x the authorizer's bundle (the bench floor's size, within 3%)", () => {
    // The dispatcher once carried zod for its ban reads: 1.29x the bench's floor bundle against a
    // 1.25 budget (docs/performance.md). The authorizer is the nearest thing to the floor here.
    const paths = bundlePaths(cdkOut);
    const authorizer = statSync(paths.get('authorizer') as string).size;
    for (const handler of ['events-dispatcher', 'webhook-sender']) {
      const ratio = statSync(paths.get(handler) as string).size / authorizer;
      expect(ratio, handler).toBeLessThanOrEqual(1.25);
    }
  });

  test("holds each route's data files beside its bundle, byte for byte, and nothing beside the others", () => {
    const paths = bundlePaths(cdkOut);
    for (const [handler, file] of paths) {
      const wanted = (routes as readonly Route[]).find((route) => route.handler === handler)?.files ?? [];
      const beside = readdirSync(dirname(file)).filter((name) => !name.startsWith('index.mjs'));
      expect(beside.sort(), handler).toEqual(wanted.map((data) => data.name).sort());
      for (const data of wanted)
        expect(
          readFileSync(join(dirname(file), data.name)).equals(readFileSync(join(PROJECT_ROOT, data.source))),
          handler,
        ).toBe(true);
    }
    // The one route that reads a file today: a deployed put-publisher finds its confusables.
    expect(existsSync(join(dirname(paths.get('put-publisher') as string), 'confusables.json'))).toBe(true);
  });

  test('only the export job and its status route carry the S3 client', () => {
    const carriers = [...bundlePaths(cdkOut)]
      .filter(([, file]) => readFileSync(file, 'utf8').includes(S3_CLIENT_MARK))
      .map(([handler]) => handler)
      .sort();
    expect(carriers).toEqual([...S3_FUNCTIONS].sort());
  });

  test('the SDK is in the bundle, minus the credential chain Lambda never reaches', () => {
    const code = readFileSync(bundlePaths(cdkOut).get('get-policy') as string, 'utf8');
    expect(code).toContain('DynamoDB_20120810');
    expect(code).not.toMatch(/from\s*["']@aws-sdk\//);
    expect(code).not.toContain('credential-provider-sso');
    expect(code).not.toContain('AWS_CONTAINER_CREDENTIALS');
  });
});

describe('the bundled handlers behind the local gateway', () => {
  let api: LocalApi;
  let key: string;

  beforeAll(async () => {
    api = await startLocalApi({
      port: 0,
      env: { DATA_DIR: ':memory:', TABLE_NAME: '', DYNAMODB_ENDPOINT: '' },
      bundles: cdkOut,
    });
    // After startLocalApi: the storage client reads the store's settings at import.
    const { createApiKey } = await import('../../lib/domain/api-keys');
    key = (await createApiKey('p1')).api_key;
  });

  afterAll(async () => {
    await api?.close();
  });

  const call = async (
    method: string,
    path: string,
    init: { key?: string; game?: string; body?: unknown } = {},
  ) => {
    const headers: Record<string, string> = {};
    if (init.key) headers.Authorization = `Bearer ${init.key}`;
    if (init.game) headers['X-Game-Id'] = init.game;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${api.url}${path}`, {
      method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  test('GET /health', async () => {
    const res = await call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  test('GET /v1/policy with a key: the bundled authorizer and handler read the table', async () => {
    const res = await call('GET', '/v1/policy', { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ publisher_id: 'p1', enforce_game: true, enforce_social_global: false });
  });

  test('GET /v1/policy without a key is 401 in the envelope', async () => {
    const res = await call('GET', '/v1/policy');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  test('writes: PUT /v1/policy, POST /v1/bans, then the listing sees the ban', async () => {
    const put = await call('PUT', '/v1/policy', { key, body: { enforce_social_global: true } });
    expect(put.status).toBe(200);
    expect(put.body.enforce_social_global).toBe(true);

    const ban = {
      device_id: 'dev-1',
      ban_type: 'social',
      scope: 'game',
      reason_code: 'spam',
      idempotency_key: 'k1',
    };
    const created = await call('POST', '/v1/bans', { key, game: 'g1', body: ban });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'created', device_id: 'dev-1', game_id: 'g1' });
    const again = await call('POST', '/v1/bans', { key, game: 'g1', body: ban });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'idempotent_ok', ban_id: created.body.ban_id });

    const list = await call('GET', '/v1/device/dev-1/bans/social', { key, game: 'g1' });
    expect(list.status).toBe(200);
    expect(list.body.counts).toEqual({ active: 1, inactive: 0, total: 1 });
    expect(list.body.items[0]).toMatchObject({ ban_id: created.body.ban_id, game_id: 'g1' });
  });
});
