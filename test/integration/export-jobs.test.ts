import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportKinds } from '@kernel/exports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../../infra/local/server';
import { startTestApi, type TestApi } from '../support/api';
import { expectUnavailable, injectFaults } from '../support/faults';

/**
 * Export jobs: `POST /v1/export-jobs` starts one, the local runner writes its part files (as the
 * stack's queue and function do deployed), `GET /v1/export-jobs/{export_id}` answers its state and,
 * once done, a signed URL per file. Each file's lines are what the paged export lists at the
 * job's `as_of`; another publisher sees no job and no file; a URL altered or expired is refused;
 * a run that fails between two parts resumes from the last checkpoint without a line twice.
 * Parts of 2 lines (EXPORT_PART_ITEMS), so a few bans make several parts.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ events: false, env: { EXPORT_PART_ITEMS: '2' } });
});
afterAll(() => api?.close());

let n = 0;
const unique = (prefix: string) => {
  n += 1;
  return `${prefix}-${Date.now().toString(36)}-${n}`;
};

const publisher = async (testApi = api) => {
  const id = unique('xj');
  const made = await testApi.createKey(id, 'export job test');
  return { id, key: made.api_key };
};

/** Bans of one publisher on fresh devices, one revoked. */
const someBans = async (key: string, count: number, testApi = api) => {
  const ids: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const device = unique('dev');
    const res = await testApi.request('POST', '/v1/bans', {
      key,
      game: 'g1',
      body: { device_id: device, ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids.push(res.body.ban_id);
    if (i === 1) {
      const revoked = await testApi.request('POST', `/v1/device/${device}/bans/${res.body.ban_id}/revoke`, {
        key,
        game: 'g1',
        body: { reason_code: 'mistake' },
      });
      expect(revoked.status).toBe(200);
    }
  }
  return ids;
};

/** Every item of a paged export of `kind`. */
const pagedItems = async (key: string, kind: string, testApi = api) => {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: any } = await testApi.request(
      'GET',
      `/v1/exports/${kind}?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      {
        key,
      },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    items.push(...res.body.items);
    cursor = res.body.next_cursor;
  } while (cursor);
  return items;
};

const start = async (key: string, body: unknown = {}, testApi = api) => {
  const res = await testApi.request('POST', '/v1/export-jobs', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body as { export_id: string; as_of: string; kinds: string[] };
};

const finished = async (key: string, exportId: string, testApi = api) => {
  await testApi.exportsSettled();
  const res = await testApi.request('GET', `/v1/export-jobs/${exportId}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    status: string;
    as_of: string;
    kinds: string[];
    finished_at: string | null;
    error?: { code: string; message: string };
    files: Array<{
      kind: string;
      part: number;
      items: number;
      bytes: number;
      url: string;
      url_expires_at: string;
    }>;
  };
};

const download = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
};

/** Each kind's lines, read from the job's files in order. */
const linesOf = async (job: Awaited<ReturnType<typeof finished>>) => {
  const byKind = new Map<string, any[]>();
  for (const file of job.files) {
    const { status, text } = await download(file.url);
    expect(status, file.url).toBe(200);
    expect(Buffer.byteLength(text)).toBe(file.bytes);
    const lines =
      text === ''
        ? []
        : text
            .trimEnd()
            .split('\n')
            .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(file.items);
    byKind.set(file.kind, [...(byKind.get(file.kind) ?? []), ...lines]);
  }
  return byKind;
};

/** What the paged export lists now, of what was made before the job's `as_of` (the trail goes on). */
const pagedAsOf = async (key: string, kind: string, asOf: string, testApi = api) =>
  (await pagedItems(key, kind, testApi)).filter(
    (item) => kind !== 'audit' || (item as { occurred_at: string }).occurred_at < asOf,
  );

describe('an export job', () => {
  it('writes every kind into parts whose lines are the paged export items, and answers their URLs once done', async () => {
    const owner = await publisher();
    await someBans(owner.key, 5);
    const started = await start(owner.key);
    expect(started).toEqual({
      export_id: expect.stringMatching(/^exp_[A-Za-z0-9_-]{22}$/),
      status: 'running',
      kinds: [...exportKinds],
      as_of: expect.any(String),
      created_at: started.as_of,
    });
    const job = await finished(owner.key, started.export_id);
    expect(job).toMatchObject({ status: 'done', as_of: started.as_of, kinds: [...exportKinds] });
    expect(job.error).toBeUndefined();
    expect(job.finished_at).not.toBeNull();
    // Five bans in parts of two: three parts, numbered in order; every other kind at least one part.
    expect(job.files.filter((file) => file.kind === 'bans').map((file) => [file.part, file.items])).toEqual([
      [1, 2],
      [2, 2],
      [3, 1],
    ]);
    expect(new Set(job.files.map((file) => file.kind))).toEqual(new Set(exportKinds));
    for (const file of job.files) {
      expect(file.url).toMatch(
        new RegExp(
          `^${api.url}/export-files/${owner.id}/${started.export_id}/${file.kind}-\\d{5}\\.jsonl\\?`,
        ),
      );
      expect(Date.parse(file.url_expires_at) - Date.now()).toBeGreaterThan(14 * 60_000);
    }
    const lines = await linesOf(job);
    for (const kind of exportKinds)
      expect(lines.get(kind), kind).toEqual(await pagedAsOf(owner.key, kind, started.as_of));
    expect(lines.get('bans')).toHaveLength(5);
    // The job is recorded once, with its id and kinds.
    const trail = await api.request('GET', '/v1/audit?type=data.exported', { key: owner.key });
    expect(trail.body.items.filter((event: { kind: string }) => event.kind === 'job')).toEqual([
      expect.objectContaining({
        kind: 'job',
        export_id: started.export_id,
        kinds: [...exportKinds],
        as_of: started.as_of,
      }),
    ]);
  });

  it('writes only the kinds asked for, in their order, and an empty part for a kind with nothing', async () => {
    const owner = await publisher();
    const started = await start(owner.key, { kinds: ['webhooks', 'bans'] });
    expect(started.kinds).toEqual(['webhooks', 'bans']);
    const job = await finished(owner.key, started.export_id);
    expect(job.files.map((file) => [file.kind, file.part, file.items, file.bytes])).toEqual([
      ['webhooks', 1, 0, 0],
      ['bans', 1, 0, 0],
    ]);
    expect((await download(job.files[0]?.url as string)).text).toBe('');
  });

  it('is the publisher’s own: another publisher gets 404, and a URL altered to its files is refused', async () => {
    const owner = await publisher();
    const other = await publisher();
    await someBans(owner.key, 1);
    await someBans(other.key, 1);
    const mine = await start(owner.key, { kinds: ['bans'] });
    const theirs = await start(other.key, { kinds: ['bans'] });
    const job = await finished(owner.key, mine.export_id);
    const res = await api.request('GET', `/v1/export-jobs/${mine.export_id}`, { key: other.key });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    const url = job.files[0]?.url as string;
    // The owner's signature on the other publisher's file (its id and its job's) opens nothing.
    const foreign = url.replace(`/${owner.id}/${mine.export_id}/`, `/${other.id}/${theirs.export_id}/`);
    expect((await download(foreign)).status).toBe(403);
    expect((await download(url)).status).toBe(200);
    // The other publisher's own file holds only its ban.
    const otherJob = await finished(other.key, theirs.export_id);
    const [line] = (await download(otherJob.files[0]?.url as string)).text.trimEnd().split('\n');
    expect(JSON.parse(line as string).external_id).toBe(
      `ban:${(await pagedItems(other.key, 'bans'))[0].ban_id}`,
    );
  });

  it('answers no URL that was tampered with or has expired', async () => {
    const owner = await publisher();
    const started = await start(owner.key, { kinds: ['policy'] });
    const job = await finished(owner.key, started.export_id);
    const url = new URL(job.files[0]?.url as string);
    const signature = url.searchParams.get('signature') as string;
    const expires = Number(url.searchParams.get('expires'));
    const altered = (change: (u: URL) => void) => {
      const copy = new URL(url);
      change(copy);
      return copy.href;
    };
    for (const tampered of [
      altered((u) =>
        u.searchParams.set('signature', `${signature[0] === 'a' ? 'b' : 'a'}${signature.slice(1)}`),
      ),
      altered((u) => u.searchParams.set('expires', String(expires + 60_000))),
      altered((u) => u.searchParams.delete('signature')),
      altered((u) => {
        u.pathname = u.pathname.replace('policy-00001', 'policy-00002');
      }),
      altered((u) => {
        u.pathname = u.pathname.replace(started.export_id, `${started.export_id.slice(0, -1)}x`);
      }),
    ]) {
      const res = await download(tampered);
      expect(res.status, tampered).toBe(403);
      expect(JSON.parse(res.text).error.code).toBe('forbidden');
    }
    expect((await download(url.href)).status).toBe(200);
    // Fifteen minutes later the URL is refused; the job answers a fresh one.
    api.setClockOffset(15 * 60_000 + 1_000);
    try {
      expect((await download(url.href)).status).toBe(403);
      const again = await finished(owner.key, started.export_id);
      expect((await download(again.files[0]?.url as string)).status).toBe(200);
    } finally {
      api.setClockOffset(0);
    }
  });

  it('refuses a bound key, a key without data:export, and a bad body or id, storing nothing', async () => {
    const owner = await publisher();
    const bound = (await api.createKey(owner.id, 'bound', { games: ['g1'] })).api_key;
    const reader = (await api.createKey(owner.id, 'reader', { scopes: ['bans:read'] })).api_key;
    const before = await api.items();
    for (const key of [bound, reader]) {
      const res = await api.request('POST', '/v1/export-jobs', { key, body: {} });
      expect(res.status).toBe(403);
    }
    for (const body of [{ kinds: [] }, { kinds: ['nope'] }, { kinds: ['bans', 'bans'] }, { other: 1 }]) {
      const res = await api.request('POST', '/v1/export-jobs', { key: owner.key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    expect(await api.items()).toEqual(before);
    expect((await api.request('GET', '/v1/export-jobs/not-an-id', { key: owner.key })).status).toBe(400);
    expect(
      (await api.request('GET', '/v1/export-jobs/exp_AAAAAAAAAAAAAAAAAAAAAA', { key: owner.key })).status,
    ).toBe(404);
    expect(
      (await api.request('GET', '/v1/export-jobs/exp_AAAAAAAAAAAAAAAAAAAAAA', { key: bound })).status,
    ).toBe(403);
  });
});

// The faults are injected into the sources' storage client: the bundles (API_BUNDLES) have their own.
describe.skipIf(Boolean(process.env.API_BUNDLES))('an export job under store faults', () => {
  it.each([
    ['PutItem', 'EXPORTJOB#'],
    ['PutItem', 'AUDIT#'],
  ] as const)(
    'answers 503 when the store fails a %s of %s, and leaves no job',
    async (operation, keyPrefix) => {
      const owner = await publisher();
      const { dynamo } = await import('../../lib/storage/client');
      const faults = injectFaults(dynamo);
      try {
        const before = await api.items();
        faults.fail({ operation, keyPrefix, error: 'InternalServerError' });
        expectUnavailable(await api.request('POST', '/v1/export-jobs', { key: owner.key, body: {} }));
        expect(faults.injected).toHaveLength(1);
        faults.clear();
        await api.exportsSettled();
        expect(await api.items()).toEqual(before);
      } finally {
        faults.remove();
      }
    },
  );

  it.each([
    // The first part is written, its checkpoint is not: the next run writes it again, whole.
    ['the first checkpoint', { operation: 'UpdateItem', keyPrefix: 'EXPORTJOB#' }],
    // The second part's read fails after the first part's checkpoint: the next run starts there.
    ['a read of the second part', { operation: 'Query', keyPrefix: 'BANNED#', nth: 2 }],
  ] as const)('resumes after %s from the checkpoint, each line once', async (_what, rule) => {
    const owner = await publisher();
    await someBans(owner.key, 5);
    const { dynamo } = await import('../../lib/storage/client');
    const faults = injectFaults(dynamo);
    try {
      faults.fail({ ...rule, error: 'InternalServerError' });
      const started = await start(owner.key, { kinds: ['bans'] });
      const job = await finished(owner.key, started.export_id);
      expect(faults.injected).toHaveLength(1);
      expect(job.status).toBe('done');
      expect(job.files.map((file) => [file.part, file.items])).toEqual([
        [1, 2],
        [2, 2],
        [3, 1],
      ]);
      const lines = (await linesOf(job)).get('bans');
      expect(lines).toEqual(await pagedItems(owner.key, 'bans'));
      expect(new Set(lines?.map((ban) => ban.ban_id)).size).toBe(5);
    } finally {
      faults.remove();
    }
  });

  it('is failed, with its error, once every receipt of its message failed', async () => {
    const owner = await publisher();
    await someBans(owner.key, 1);
    const { dynamo } = await import('../../lib/storage/client');
    const faults = injectFaults(dynamo);
    try {
      faults.fail({
        operation: 'Query',
        keyPrefix: 'BANNED#',
        times: Infinity,
        error: 'InternalServerError',
      });
      const started = await start(owner.key, { kinds: ['bans'] });
      await api.exportsSettled();
      faults.clear();
      const job = await finished(owner.key, started.export_id);
      expect(faults.injected).toHaveLength(5);
      expect(job).toMatchObject({
        status: 'failed',
        files: [],
        error: { code: 'export_failed', message: expect.stringContaining('start another') },
      });
      expect(job.finished_at).not.toBeNull();
    } finally {
      faults.remove();
    }
  });
});

describe('an export job whose runs are short', () => {
  let short: TestApi;
  beforeAll(async () => {
    // Every run is told it has no time: it writes one part, then queues the job again.
    short = await startTestApi({ events: false, env: { EXPORT_PART_ITEMS: '2' }, exportRunMs: 0 });
  });
  afterAll(() => short?.close());

  it('goes on from its checkpoint in run after run until every part is written', async () => {
    const owner = await publisher(short);
    await someBans(owner.key, 5, short);
    const started = await start(owner.key, { kinds: ['bans', 'policy'] }, short);
    const job = await finished(owner.key, started.export_id, short);
    expect(job.status).toBe('done');
    expect(job.files.map((file) => [file.kind, file.part, file.items])).toEqual([
      ['bans', 1, 2],
      ['bans', 2, 2],
      ['bans', 3, 1],
      ['policy', 1, 1],
    ]);
    const lines = await linesOf(job);
    expect(lines.get('bans')).toEqual(await pagedItems(owner.key, 'bans', short));
    expect(lines.get('policy')).toEqual(await pagedItems(owner.key, 'policy', short));
  });
});

// The fault holds the first server's run back (the sources' client: not the bundles').
describe.skipIf(Boolean(process.env.API_BUNDLES))('an export job left running by a stopped server', () => {
  it('goes on from its checkpoint when the server starts again on the same store', async () => {
    const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
    const dir = endpoint ? undefined : mkdtempSync(join(tmpdir(), 'export-restart-'));
    const storeEnv = endpoint
      ? {
          DYNAMODB_ENDPOINT: endpoint,
          TABLE_NAME: `test-${randomUUID()}`,
          DYNAMODB_REQUEST_TIMEOUT_MS: '10000',
        }
      : { DYNAMODB_ENDPOINT: '', TABLE_NAME: '', DATA_DIR: dir };
    const start = () =>
      startLocalApi({
        port: 0,
        env: { ...process.env, ...storeEnv, EXPORT_PART_ITEMS: '2', LOG_LEVEL: 'silent' },
        events: false,
        identityPort: false,
        console: false,
      });
    const call = async (url: string, method: string, path: string, key: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${key}`,
          'X-Game-Id': 'g1',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const first = await start();
    let exportId: string;
    let key: string;
    const { dynamo } = await import('../../lib/storage/client');
    const faults = injectFaults(dynamo);
    try {
      const { createApiKey } = await import('../../lib/domain/api-keys');
      key = (await createApiKey('xj-restart', 'restart')).api_key;
      for (let i = 0; i < 3; i += 1) {
        const made = await call(first.url, 'POST', '/v1/bans', key, {
          device_id: `restart-dev-${i}`,
          ban_type: 'cheat',
          scope: 'game',
          reason_code: 'aimbot',
        });
        expect(made.status).toBe(201);
      }
      // Every read of the bans fails: the job cannot end before the server stops.
      faults.fail({
        operation: 'Query',
        keyPrefix: 'BANNED#',
        times: Infinity,
        error: 'InternalServerError',
      });
      const started = await call(first.url, 'POST', '/v1/export-jobs', key, { kinds: ['bans'] });
      expect(started.status).toBe(202);
      exportId = started.body.export_id;
      expect((await call(first.url, 'GET', `/v1/export-jobs/${exportId}`, key)).body.status).toBe('running');
    } finally {
      faults.remove();
      await first.close();
    }
    const second = await start();
    try {
      await second.exportJobs.drain();
      const job = await call(second.url, 'GET', `/v1/export-jobs/${exportId}`, key);
      expect(job.body.status).toBe('done');
      expect(job.body.files.map((file: { part: number; items: number }) => [file.part, file.items])).toEqual([
        [1, 2],
        [2, 1],
      ]);
      const lines: unknown[] = [];
      for (const file of job.body.files as Array<{ url: string }>) {
        const text = await (await fetch(file.url)).text();
        lines.push(
          ...text
            .trimEnd()
            .split('\n')
            .map((line) => JSON.parse(line)),
        );
      }
      const paged = await call(second.url, 'GET', '/v1/exports/bans?limit=10', key);
      expect(lines).toEqual(paged.body.items);
    } finally {
      await second.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  });
});
