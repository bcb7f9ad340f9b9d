import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importClient } from '../../infra/import/client';
import { type Progress, progressLine } from '../../infra/import/progress';
import { type ImportOptions, runImport } from '../../infra/import/run';
import type { ImportRequest, ImportResult, ImportRowResult } from '../../lib/model/imports';

/**
 * `npm run import`'s run (infra/import/run.ts) against a small server that answers
 * `POST /v1/imports` as the contract says (lib/model/imports.ts): batching, the report in the file's
 * order, local refusals by line, the dry run, the state file and an exact resume, retries and
 * failures. The CLI against the real API is test/host/import-cli.test.ts.
 */

const KEY = 'bsk_test';

/** The contract, in memory: a row needs a device_id; reason `unknown` is not in the catalogue. */
const fakeImports = () => {
  const imported = new Map<string, { batch_id: string; digest: string; ban_id: number }>();
  const requests: Array<{ body: ImportRequest; game: string | undefined }> = [];
  const before: Array<{ status: number; retryAfter?: string }> = [];
  let delays: number[] = [];
  let nextBan = 1;
  const answer = (body: ImportRequest): ImportResult => {
    const seen = new Set<string>();
    const rows = body.rows.map((raw, index): ImportRowResult => {
      const row = raw as Record<string, unknown>;
      const external_id = typeof row.external_id === 'string' ? row.external_id : null;
      const device_id = typeof row.device_id === 'string' ? row.device_id : null;
      const refused = (field: string, issue: string): ImportRowResult => ({
        index,
        external_id,
        status: 'refused',
        ban_id: null,
        device_id,
        error: { field, issue, message: `${field} ${issue}` },
      });
      if (external_id === null) return refused('external_id', 'required');
      if (device_id === null) return refused('device_id', 'required');
      if (row.reason_code === 'unknown') return refused('reason_code', 'unknown_reason');
      if (seen.has(external_id)) return refused('external_id', 'duplicate_in_batch');
      seen.add(external_id);
      const digest = createHash('sha256').update(JSON.stringify(row)).digest('hex');
      const stored = imported.get(external_id);
      if (stored) {
        const status =
          stored.batch_id === body.batch_id
            ? 'created'
            : stored.digest === digest
              ? 'already_imported'
              : 'changed';
        return {
          index,
          external_id,
          status,
          ban_id: stored.ban_id,
          device_id,
          ...(status === 'changed' ? { changed_fields: ['reason_code'] } : {}),
        };
      }
      const ban_id = nextBan++;
      if (!body.dry_run) imported.set(external_id, { batch_id: body.batch_id, digest, ban_id });
      return { index, external_id, status: 'created', ban_id, device_id };
    });
    const counts = { created: 0, already_imported: 0, changed: 0, refused: 0 };
    for (const row of rows) counts[row.status] += 1;
    return { batch_id: body.batch_id, dry_run: body.dry_run === true, counts, rows };
  };
  const server: Server = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/v1/imports')
      return send(404, { error: { code: 'not_found' } });
    if (req.headers.authorization !== `Bearer ${KEY}`)
      return send(401, { error: { code: 'unauthorized', message: 'a valid API key is required' } });
    const body = JSON.parse(text) as ImportRequest;
    requests.push({ body, game: req.headers['x-game-id'] as string | undefined });
    const early = before.shift();
    if (early)
      return send(
        early.status,
        { error: { code: 'service_unavailable', message: 'try again' } },
        early.retryAfter ? { 'retry-after': early.retryAfter } : {},
      );
    const delay = delays.shift() ?? 0;
    if (delay > 0) await new Promise((done) => setTimeout(done, delay));
    send(200, answer(body));
  });
  return {
    server,
    imported,
    requests,
    /** Statuses to answer the next requests with before answering normally. */
    failFirst: (...statuses: Array<{ status: number; retryAfter?: string }>) => before.push(...statuses),
    /** Delays (ms) of the next answers, in arrival order. */
    delay: (ms: number[]) => {
      delays = [...ms];
    },
    reset: () => {
      imported.clear();
      requests.length = 0;
      before.length = 0;
      delays = [];
    },
  };
};

const fake = fakeImports();
let url = '';
beforeAll(async () => {
  await new Promise<void>((done) => fake.server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => fake.server.close(() => done())));
beforeEach(() => fake.reset());

const dir = mkdtempSync(join(tmpdir(), 'import-run-'));
let files = 0;
const silent: Progress = { update: () => {}, done: () => {} };

const setUp = (name: string, content: string, options: Partial<ImportOptions> = {}) => {
  const file = join(dir, `${files++}-${name}`);
  writeFileSync(file, content);
  const all: ImportOptions = {
    file,
    format: name.endsWith('.csv') ? 'csv' : 'jsonl',
    map: new Map(),
    preset: undefined,
    game: 'game-1',
    dryRun: false,
    batch: 500,
    concurrency: 4,
    report: `${file}.import-report.jsonl`,
    state: `${file}.import-state.json`,
    restart: false,
    ...options,
  };
  const notes: string[] = [];
  const run = (more: Partial<ImportOptions> = {}, key = KEY) =>
    runImport({ ...all, ...more }, importClient({ url, key, game: all.game, backoffMs: 1 }), silent, (line) =>
      notes.push(line),
    );
  const report = (path = all.report) =>
    readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
  return { file, all, run, report, notes };
};

const row = (n: number, more: Record<string, unknown> = {}) =>
  JSON.stringify({
    external_id: `ext-${n}`,
    device_id: `device-${n}`,
    ban_type: 'cheat',
    scope: 'game',
    reason_code: 'aimbot',
    created_at: '2024-01-01T00:00:00Z',
    ...more,
  });

const digest16 = (content: string) => createHash('sha256').update(content).digest('hex').slice(0, 16);

describe('npm run import against the contract', () => {
  it('sends the rows, reports each refused row by its line, and exits 2', async () => {
    const content = [
      row(1),
      '{"external_id": "ext-2",',
      '',
      row(3, { reason_code: 'unknown' }),
      row(4),
      '[]',
    ].join('\n');
    const { run, report, file } = setUp('mixed.jsonl', content);
    const outcome = await run();
    expect(outcome).toMatchObject({
      code: 2,
      rows: 5,
      counts: { created: 2, already_imported: 0, changed: 0, refused: 3 },
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.game).toBe('game-1');
    expect(fake.requests[0]?.body.batch_id).toMatch(new RegExp(`^${digest16(content)}:[A-Za-z0-9_-]{8}:1$`));
    expect(fake.requests[0]?.body.rows.map((r) => (r as { external_id: string }).external_id)).toEqual([
      'ext-1',
      'ext-3',
      'ext-4',
    ]);
    expect([...fake.imported.keys()].sort()).toEqual(['ext-1', 'ext-4']);
    const lines = report();
    expect(lines.slice(0, -1)).toEqual([
      {
        line: 2,
        external_id: null,
        status: 'refused',
        field: 'json',
        issue: 'invalid_json',
        message: expect.any(String),
      },
      {
        line: 4,
        external_id: 'ext-3',
        status: 'refused',
        field: 'reason_code',
        issue: 'unknown_reason',
        message: 'reason_code unknown_reason',
      },
      {
        line: 6,
        external_id: null,
        status: 'refused',
        field: 'json',
        issue: 'invalid_type',
        message: 'a line must be one JSON object',
      },
    ]);
    expect(lines.at(-1)).toMatchObject({
      summary: true,
      file,
      dry_run: false,
      rows: 5,
      counts: { created: 2, refused: 3 },
    });
  });

  it('reads a CSV with its mapping, refusing a record of the wrong width at the line it starts on', async () => {
    const csv = [
      'id,device,ban_type,scope,reason_code,created_at,details',
      'c1,dev-1,cheat,game,aimbot,2024-01-01T00:00:00Z,"{""note"": ""a, b"",',
      '""more"": 2}"',
      'c2,dev-2,cheat,game',
      'c3,dev-3,cheat,game,aimbot,2024-01-02T00:00:00Z,',
    ].join('\r\n');
    const { run, report } = setUp('bans.csv', csv, {
      map: new Map([
        ['id', 'external_id'],
        ['device', 'device_id'],
      ]),
    });
    expect(await run()).toMatchObject({ code: 2, counts: { created: 2, refused: 1 } });
    expect(fake.requests[0]?.body.rows[0]).toEqual({
      external_id: 'c1',
      device_id: 'dev-1',
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'aimbot',
      created_at: '2024-01-01T00:00:00Z',
      details: { note: 'a, b', more: 2 },
    });
    expect(report()[0]).toEqual({
      line: 4,
      external_id: null,
      status: 'refused',
      field: 'csv',
      issue: 'column_count',
      message: 'has 4 fields where the header has 7',
    });
  });

  it('exits 0 when every row is created, and a re-import answers already_imported for each', async () => {
    const { run, report } = setUp('good.jsonl', [row(1), row(2), row(3)].join('\n'));
    expect(await run()).toMatchObject({ code: 0, counts: { created: 3 } });
    expect(report()).toHaveLength(1);
    const again = await run({ restart: true });
    expect(again).toMatchObject({ code: 0, counts: { created: 0, already_imported: 3 } });
    expect(
      report()
        .slice(0, -1)
        .map((l) => [l.line, l.status]),
    ).toEqual([
      [1, 'already_imported'],
      [2, 'already_imported'],
      [3, 'already_imported'],
    ]);
  });

  it('reports a row imported before with other content as changed, with its fields, and exits 2', async () => {
    const first = setUp('first.jsonl', row(1));
    await first.run();
    const second = setUp('second.jsonl', row(1, { reason_code: 'wallhack' }));
    expect(await second.run()).toMatchObject({ code: 2, counts: { changed: 1 } });
    expect(second.report()[0]).toEqual({
      line: 1,
      external_id: 'ext-1',
      status: 'changed',
      changed_fields: ['reason_code'],
    });
  });

  it('a dry run asks the server with dry_run, stores nothing, keeps no state and says what would be made', async () => {
    const { run, report, all } = setUp('dry.jsonl', [row(1), 'nope', row(2)].join('\n'), { dryRun: true });
    const dryReport = join(dir, 'dry-report.jsonl');
    const outcome = await run({ report: dryReport });
    expect(outcome).toMatchObject({ code: 2, counts: { created: 2, refused: 1 } });
    expect(outcome.message).toContain('dry run (nothing stored): would have 3 rows');
    expect(fake.requests[0]?.body.dry_run).toBe(true);
    expect(fake.imported.size).toBe(0);
    expect(existsSync(all.state)).toBe(false);
    expect(report(dryReport).at(-1)).toMatchObject({ summary: true, dry_run: true });
  });

  it('keeps the report in the file order when a later batch is answered first', async () => {
    fake.delay([150, 0, 0]);
    const rows = [row(1), 'x', row(2), 'y', row(3), 'z'];
    const { run, report } = setUp('order.jsonl', rows.join('\n'), { batch: 2, concurrency: 3 });
    expect(await run()).toMatchObject({ code: 2, counts: { created: 3, refused: 3 } });
    expect(
      report()
        .slice(0, -1)
        .map((l) => l.line),
    ).toEqual([2, 4, 6]);
  });

  it('resumes an interrupted import from its state file: every row made once, reported once', async () => {
    const content = Array.from({ length: 10 }, (_, i) => (i === 4 ? 'bad' : row(i + 1))).join('\n');
    const { run, report, all } = setUp('resume.jsonl', content, { batch: 3, concurrency: 2 });
    const stopped = await run({ stopAfterBatches: 2 });
    expect(stopped).toMatchObject({ code: 1, rows: 6 });
    expect(stopped.message).toContain('at line 7');
    const state = JSON.parse(readFileSync(all.state, 'utf8'));
    expect(state).toMatchObject({ next: { line: 7 }, rows: 6, counts: { created: 5, refused: 1 } });
    const sentBefore = fake.requests.length;
    const resumed = await run();
    expect(resumed).toMatchObject({
      code: 2,
      rows: 10,
      counts: { created: 9, already_imported: 0, refused: 1 },
    });
    // The batch in flight at the stop (lines 7-9) may be sent again: the server answers it the same.
    // Two in flight: they arrive in either order, and none before line 7 is sent again.
    const batchIds = fake.requests.slice(sentBefore).map((r) => r.body.batch_id.split(':').at(-1));
    expect(new Set(batchIds)).toEqual(new Set(['7', '10']));
    expect([...fake.imported.keys()]).toHaveLength(9);
    const lines = report();
    expect(lines.slice(0, -1)).toEqual([expect.objectContaining({ line: 5, status: 'refused' })]);
    expect(lines.at(-1)).toMatchObject({ summary: true, rows: 10, counts: { created: 9, refused: 1 } });
  });

  it('sends nothing again for a file imported to its end, and refuses a state of another file', async () => {
    const { run, file, notes } = setUp('done.jsonl', [row(1), row(2)].join('\n'));
    await run();
    const sent = fake.requests.length;
    expect(await run()).toMatchObject({ code: 0, rows: 2, counts: { created: 2 } });
    expect(fake.requests.length).toBe(sent);
    expect(notes.at(-1)).toContain('imported to its end before');
    writeFileSync(file, [row(1), row(2), row(3)].join('\n'));
    await expect(run()).rejects.toThrow('was written for another version of');
  });

  it('will not resume into a report that lacks what was answered before', async () => {
    const { run, all } = setUp('moved.jsonl', [row(1), 'bad', row(3)].join('\n'), { batch: 1 });
    await run({ stopAfterBatches: 2 });
    await expect(run({ report: join(dir, 'elsewhere.jsonl') })).rejects.toThrow(
      'lacks the report of the rows answered before',
    );
    expect(await run()).toMatchObject({ code: 2, rows: 3, counts: { created: 2, refused: 1 } });
    expect(readFileSync(all.report, 'utf8').split('\n')[0]).toContain('"line":2');
  });

  it('cuts a batch where a request would pass the body limit, and refuses a row too large to send', async () => {
    const big = (n: number, kb: number) => row(n, { details: { note: 'x'.repeat(kb * 1024) } });
    const content = [big(1, 300), big(2, 300), big(3, 300), big(4, 300), big(5, 1100), row(6)].join('\n');
    const { run, report } = setUp('large.jsonl', content);
    expect(await run()).toMatchObject({ code: 2, counts: { created: 5, refused: 1 } });
    // Two requests in flight arrive in either order.
    const sent = fake.requests.map((r) => [r.body.batch_id.split(':').at(-1), r.body.rows.length]);
    expect(sent.sort()).toEqual([
      ['1', 3],
      ['4', 2],
    ]);
    expect(report()[0]).toMatchObject({
      line: 5,
      external_id: 'ext-5',
      status: 'refused',
      field: 'row',
      issue: 'too_big',
    });
  });

  it('retries a 503 and a 429 (after Retry-After) and answers as if they had not happened', async () => {
    fake.failFirst({ status: 503, retryAfter: '0' }, { status: 429, retryAfter: '0' });
    const { run } = setUp('retry.jsonl', row(1));
    expect(await run()).toMatchObject({ code: 0, counts: { created: 1 } });
    expect(fake.requests).toHaveLength(3);
  });

  it('waits out any number of 429s without spending its attempts', async () => {
    const send = importClient({ url, key: KEY, game: 'game-1', attempts: 2, backoffMs: 1 });
    fake.failFirst(...Array.from({ length: 5 }, () => ({ status: 429, retryAfter: '0' })));
    const answer = await send({ batch_id: 'waited', rows: [row(1)] });
    expect(answer.counts.created).toBe(1);
    expect(fake.requests).toHaveLength(6);
    // Other failures still spend them: two 503s are two attempts, and the batch gives up.
    fake.failFirst({ status: 503, retryAfter: '0' }, { status: 503, retryAfter: '0' });
    await expect(send({ batch_id: 'failed', rows: [row(2)] })).rejects.toThrow(/gave up after 2 attempts/);
  });

  it('fails the run when the service asks a batch to wait past the limit, saying what it said', async () => {
    const send = importClient({ url, key: KEY, game: 'game-1', backoffMs: 1, waitLimitMs: 0 });
    fake.failFirst({ status: 429, retryAfter: '0' });
    await expect(send({ batch_id: 'too-long', rows: [row(1)] })).rejects.toThrow(
      /batch too-long: the service asked to wait for 0 minutes on end: 429/,
    );
    expect(fake.imported.size).toBe(0);
  });

  it('fails the run (exit 1) on a key the API refuses, saying what it said', async () => {
    const { run, all } = setUp('unauthorized.jsonl', row(1));
    const outcome = await run({}, 'bsk_wrong');
    expect(outcome.code).toBe(1);
    expect(outcome.message).toContain('401 unauthorized: a valid API key is required');
    // Nothing was answered: the state still points at the top of the file.
    expect(JSON.parse(readFileSync(all.state, 'utf8'))).toMatchObject({
      next: { offset: 0, line: 1 },
      rows: 0,
    });
  });
});

describe('the progress line', () => {
  it('says rows, the share of the file, the rate of this run and the time left by bytes', () => {
    expect(
      progressLine({
        rows: 150_000,
        rowsThisRun: 100_000,
        seconds: 50,
        bytesRead: 60,
        bytesAtStart: 20,
        size: 100,
      }),
    ).toBe('150,000 rows, 60.0% of the file, 2,000 rows/s, 0:50 left');
    expect(
      progressLine({ rows: 0, rowsThisRun: 0, seconds: 0, bytesRead: 0, bytesAtStart: 0, size: 10 }),
    ).toBe('0 rows, 0.0% of the file, 0 rows/s, ? left');
  });
});
