import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../support/api';
import { startTwoPublishers } from '../support/fixtures';
import { childEnv, runTs } from '../support/processes';

/**
 * `npm run import` as a process against the API (the test API over HTTP, on `npm start`'s embedded
 * store, as an operator runs it: the CLI is what it proves, the store's semantics are the
 * integration suite's): JSON lines and CSV with good and bad rows, a dry run, an interrupted import resumed
 * from its state file, a re-import, and the SourceBans++ preset on a sample export. Each refused row
 * is reported by its line and nothing is stored for it; another publisher sees none of it.
 */

const GAME = 'import-cli-game';
const SAMPLE = fileURLToPath(new URL('../support/import/sb_bans.csv', import.meta.url));

let api: TestApi;
let keyA: string;
let keyB: string;
beforeAll(async () => ({ api, keyA, keyB } = await startTwoPublishers('import-cli-a', 'import-cli-b')));
afterAll(() => api?.close());

const dir = mkdtempSync(join(tmpdir(), 'import-cli-'));
const fileOf = (name: string, content: string) => {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
};

const importCli = (args: string[], env: Record<string, string> = {}) =>
  runTs(
    'infra/import-cli.ts',
    ['--url', api.url, '--game', GAME, ...args],
    childEnv({ BAN_API_KEY: keyA, ...env }),
  );

const reportOf = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

/** The device's bans in the game as `key` sees them, revoked and expired too. */
const bansOf = async (device: string, key = keyA) => {
  const res = await api.request('GET', `/v1/device/${device}/bans?status=all`, { key, game: GAME });
  expect(res.status).toBe(200);
  return res.body.items as Array<Record<string, unknown>>;
};

const row = (id: string, device: string, more: Record<string, unknown> = {}) =>
  JSON.stringify({
    external_id: id,
    device_id: device,
    ban_type: 'cheat',
    scope: 'game',
    reason_code: 'aimbot',
    created_at: '2024-03-01T10:00:00Z',
    ...more,
  });

describe('npm run import', () => {
  it('imports JSON lines, reports a bad line and a refused row by line, stores nothing for them, exits 2', async () => {
    const file = fileOf(
      'mixed.jsonl',
      [
        row('j-1', 'imp-j-1', { expires_at: '2024-03-08T10:00:00Z' }),
        '{"external_id": "j-2", "device_id": ',
        row('j-3', 'imp-j-3', { ban_type: 'sideways' }),
        row('j-4', 'imp-j-4'),
      ].join('\n'),
    );
    const run = await importCli(['--file', file]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('created 2, already imported 0, changed 0, refused 2');
    const report = reportOf(`${file}.import-report.jsonl`);
    expect(report.slice(0, -1)).toEqual([
      expect.objectContaining({
        line: 2,
        external_id: null,
        status: 'refused',
        field: 'json',
        issue: 'invalid_json',
      }),
      expect.objectContaining({ line: 3, external_id: 'j-3', status: 'refused', field: 'ban_type' }),
    ]);
    expect(report.at(-1)).toMatchObject({ summary: true, rows: 4, counts: { created: 2, refused: 2 } });
    expect(await bansOf('imp-j-1')).toEqual([
      expect.objectContaining({
        created_at: '2024-03-01T10:00:00.000Z',
        expires_at: '2024-03-08T10:00:00.000Z',
      }),
    ]);
    expect(await bansOf('imp-j-4')).toHaveLength(1);
    expect(await bansOf('imp-j-3')).toEqual([]);
    // Another publisher sees none of it.
    expect(await bansOf('imp-j-1', keyB)).toEqual([]);
  });

  it('imports a CSV through --map, refusing a record of the wrong width and a bad field by line', async () => {
    const file = fileOf(
      'mixed.csv',
      [
        'id,device,ban_type,scope,reason_code,created_at,player_message',
        'c-1,imp-c-1,cheat,game,aimbot,2024-04-01T00:00:00Z,"Banned for aimbot, see the rules"',
        'c-2,imp-c-2,cheat,game',
        'c-3,imp-c-3,cheat,nowhere,aimbot,2024-04-01T00:00:00Z,',
        'c-4,imp-c-4,social,game,toxicity,2024-04-02T00:00:00Z,',
      ].join('\r\n'),
    );
    const run = await importCli(['--file', file, '--map', 'id=external_id,device=device_id']);
    expect(run.code, run.stderr).toBe(2);
    const report = reportOf(`${file}.import-report.jsonl`);
    expect(report.slice(0, -1)).toEqual([
      expect.objectContaining({ line: 3, status: 'refused', field: 'csv', issue: 'column_count' }),
      expect.objectContaining({ line: 4, external_id: 'c-3', status: 'refused', field: 'scope' }),
    ]);
    expect(await bansOf('imp-c-1')).toEqual([
      expect.objectContaining({ player_message: 'Banned for aimbot, see the rules' }),
    ]);
    expect(await bansOf('imp-c-4')).toEqual([expect.objectContaining({ ban_type: 'social' })]);
    expect(await bansOf('imp-c-2')).toEqual([]);
    expect(await bansOf('imp-c-3')).toEqual([]);
  });

  it('a dry run stores nothing and reports what would be made and refused', async () => {
    const file = fileOf(
      'dry.jsonl',
      [row('d-1', 'imp-d-1'), row('d-2', 'imp-d-2', { reason_code: '' })].join('\n'),
    );
    const run = await importCli(['--file', file, '--dry-run']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('dry run (nothing stored): would have 2 rows: created 1');
    const report = reportOf(`${file}.dry-run-report.jsonl`);
    expect(report).toEqual([
      expect.objectContaining({ line: 2, external_id: 'd-2', status: 'refused', field: 'reason_code' }),
      expect.objectContaining({
        summary: true,
        dry_run: true,
        counts: expect.objectContaining({ created: 1, refused: 1 }),
      }),
    ]);
    expect(await bansOf('imp-d-1')).toEqual([]);
  });

  it('resumes an interrupted import from its state file: every ban made exactly once', async () => {
    const lines = Array.from({ length: 7 }, (_, i) => row(`r-${i + 1}`, `imp-r-${i + 1}`));
    const file = fileOf('resume.jsonl', lines.join('\n'));
    const stopped = await importCli(['--file', file, '--batch', '2', '--concurrency', '2'], {
      IMPORT_STOP_AFTER_BATCHES: '2',
    });
    expect(stopped.code, stopped.stderr).toBe(1);
    expect(stopped.stderr).toContain('stopped after 2 batches, at line 5');
    // Lines 5-6 were in flight when it stopped (made or not: they are sent again); line 7 never left.
    expect(await bansOf('imp-r-7')).toHaveLength(0);
    const resumed = await importCli(['--file', file, '--batch', '2', '--concurrency', '2']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('resuming at line 5');
    expect(resumed.stderr).toContain('7 rows: created 7, already imported 0');
    for (let i = 1; i <= 7; i++) expect(await bansOf(`imp-r-${i}`)).toHaveLength(1);
    expect(reportOf(`${file}.import-report.jsonl`)).toEqual([
      expect.objectContaining({
        summary: true,
        rows: 7,
        counts: { created: 7, already_imported: 0, changed: 0, refused: 0 },
      }),
    ]);

    // Imported again from the top: every row is found, none is made twice.
    const again = await importCli(['--file', file, '--restart']);
    expect(again.code, again.stderr).toBe(0);
    const report = reportOf(`${file}.import-report.jsonl`);
    expect(report.slice(0, -1).map((l) => l.status)).toEqual(Array(7).fill('already_imported'));
    expect(report.at(-1)).toMatchObject({ counts: { created: 0, already_imported: 7 } });
    for (let i = 1; i <= 7; i++) expect(await bansOf(`imp-r-${i}`)).toHaveLength(1);
  });

  it('maps a SourceBans++ sb_bans export to steam device ids, times and revocations', async () => {
    const file = join(dir, 'sb_bans.csv');
    writeFileSync(file, readFileSync(SAMPLE));
    const run = await importCli(['--file', file, '--preset', 'sourcebans']);
    expect(run.code, run.stderr).toBe(2);
    expect(reportOf(`${file}.import-report.jsonl`).slice(0, -1)).toEqual([
      expect.objectContaining({
        line: 5,
        external_id: 'sourcebans:4',
        status: 'refused',
        field: 'type',
        issue: 'ip_ban',
      }),
      expect.objectContaining({ line: 8, external_id: 'sourcebans:6', status: 'refused', field: 'authid' }),
    ]);
    const fields = [
      'reason_code',
      'created_at',
      'expires_at',
      'revoked_at',
      'revoke_reason_code',
      'player_message',
    ];
    const pick = (ban: Record<string, unknown> | undefined) =>
      Object.fromEntries(fields.map((field) => [field, ban?.[field]]));
    expect(pick((await bansOf('steam:76561197960290419'))[0])).toEqual({
      reason_code: 'sourcebans',
      created_at: '2020-01-01T00:00:00.000Z',
      expires_at: null,
      revoked_at: null,
      revoke_reason_code: null,
      player_message: 'Aimbot',
    });
    expect(pick((await bansOf('steam:76561197969896052'))[0])).toMatchObject({
      expires_at: '2020-02-02T00:00:00.000Z',
      revoked_at: null,
    });
    expect(pick((await bansOf('steam:76561197960265927'))[0])).toMatchObject({
      created_at: '2020-03-01T00:00:00.000Z',
      revoked_at: '2020-03-02T00:00:00.000Z',
      revoke_reason_code: 'sourcebans_unbanned',
    });
    const deleted = (await bansOf('steam:76561197960267282'))[0];
    expect(pick(deleted)).toMatchObject({
      revoke_reason_code: 'sourcebans_deleted',
      player_message: 'Spinbot reported twice',
    });
    expect(deleted?.details_json).toEqual({
      reason: 'Spinbot\nreported twice',
      ureason: 'Wrong player',
      name: 'Mr "Quote"',
      sid: '3',
      aid: '7',
    });
    expect(await bansOf('steam:76561197960290419', keyB)).toEqual([]);
  });
});
