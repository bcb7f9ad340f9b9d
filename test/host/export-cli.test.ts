import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportKinds } from '@kernel/exports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { childEnv, runTs } from '../support/processes';

/**
 * `npm run export` as a process against the API (the test API over HTTP, on `npm start`'s embedded
 * store, as an operator runs it: the CLI is what it proves, the store's semantics are the
 * integration suite's): a file per kind holding what the pages API answers, the manifest, never a secret,
 * only the kinds asked for, and the exit codes of a refused key and a bad command line.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ events: false });
});
afterAll(() => api?.close());

let n = 0;
const unique = (prefix: string) => {
  n += 1;
  return `${prefix}-${Date.now().toString(36)}-${n}`;
};

const exportCli = (args: string[], env: Record<string, string> = {}) =>
  runTs('infra/export-cli.ts', ['--url', api.url, ...args], childEnv(env));

const linesOf = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));

/** Every item of a kind through the pages API. */
const exported = async (key: string, kind: string) => {
  const items: unknown[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: any } = await api.request(
      'GET',
      `/v1/exports/${kind}${cursor ? `?cursor=${cursor}` : ''}`,
      { key },
    );
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    cursor = res.body.next_cursor;
  } while (cursor);
  return items;
};

const publisherWithData = async () => {
  const id = unique('xc');
  const key = (await api.createKey(id, 'export cli')).api_key;
  const bans: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const res = await api.request('POST', '/v1/bans', {
      key,
      game: 'g1',
      body: {
        device_id: `${unique('cli')}-${i}`,
        ban_type: i % 2 ? 'social' : 'cheat',
        scope: i === 0 ? 'global' : 'game',
        reason_code: 'aimbot',
        details: { n: i },
      },
    });
    expect(res.status).toBe(201);
    bans.push(res.body.ban_id);
  }
  const hook = await api.request('POST', '/v1/webhooks', {
    key,
    body: { url: 'https://hooks.example.com/receive' },
  });
  expect(hook.status).toBe(201);
  return { id, key, bans, secret: hook.body.secret as string };
};

describe('npm run export', () => {
  it('writes a file per kind, as the pages API answers it, and the manifest; never a secret', async () => {
    const owner = await publisherWithData();
    const other = await publisherWithData();
    const out = mkdtempSync(join(tmpdir(), 'export-cli-'));
    const run = await exportCli(['--out', out, '--limit', '2'], { BAN_API_KEY: owner.key });
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(
      [...exportKinds.map((kind) => `${kind}.jsonl`), 'manifest.json'].sort(),
    );
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.service_version).toEqual(expect.any(String));
    expect(Object.keys(manifest.kinds).sort()).toEqual([...exportKinds].sort());

    const bans = linesOf(join(out, 'bans.jsonl'));
    expect(bans.map((ban) => ban.ban_id).sort()).toEqual([...owner.bans].sort());
    expect(bans).toEqual(await exported(owner.key, 'bans'));
    for (const kind of ['policy', 'trust', 'reasons', 'webhooks', 'keys'])
      expect(linesOf(join(out, `${kind}.jsonl`)), kind).toEqual(await exported(owner.key, kind));
    for (const kind of exportKinds) {
      const items = linesOf(join(out, `${kind}.jsonl`));
      expect(manifest.kinds[kind], kind).toEqual({
        file: `${kind}.jsonl`,
        as_of: expect.stringMatching(/^\d{4}-.*Z$/),
        items: items.length,
      });
    }
    // The audit file holds the trail up to its as_of: the exports of the kinds before it.
    const audit = linesOf(join(out, 'audit.jsonl'));
    expect(audit.filter((event) => event.type === 'data.exported').map((event) => event.kind)).toEqual([
      'bans',
      'appeals',
    ]);
    const everything = readdirSync(out)
      .map((name) => readFileSync(join(out, name), 'utf8'))
      .join('\n');
    expect(everything).not.toContain(owner.secret);
    expect(everything).not.toContain(owner.key);
    // Nothing of the other publisher.
    expect(everything).not.toContain(other.id);
    for (const banId of other.bans) expect(bans.map((ban) => ban.ban_id)).not.toContain(banId);
  });

  it('writes only the kinds asked for; a refused key fails the run (1), a bad command line is a 2', async () => {
    const owner = await publisherWithData();
    const out = mkdtempSync(join(tmpdir(), 'export-cli-'));
    const run = await exportCli(['--out', out, '--kinds', 'bans,keys', '--key', owner.key]);
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['bans.jsonl', 'keys.jsonl', 'manifest.json']);
    expect(linesOf(join(out, 'bans.jsonl'))).toHaveLength(5);

    const bound = (await api.createKey(owner.id, 'bound', { games: ['g1'] })).api_key;
    const refusedOut = mkdtempSync(join(tmpdir(), 'export-cli-'));
    const refused = await exportCli(['--out', refusedOut, '--key', bound]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('403');
    // Nothing is left of a run that failed: no manifest, no file of a kind not read whole.
    expect(readdirSync(refusedOut)).toEqual([]);

    const unknown = await exportCli(['--out', out, '--kinds', 'bans,secrets', '--key', owner.key]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown kind secrets');
    const keyless = await exportCli(['--out', out]);
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toContain('an API key is needed');
  });
});
