import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseImportCommand } from '../../infra/import/command';

/**
 * `npm run import`'s arguments, read in-process: every refusal the tool exits 1 with before it
 * reads the file or calls the API, and the defaults. The tool as a process against the API is
 * test/host/import-cli.test.ts.
 */

const TARGET = { env: { BAN_API_KEY: 'bsk_env' }, localUrl: undefined };

describe('npm run import arguments', () => {
  it.each([
    [[], '--file or --from-export is required'],
    [['--from-export', 'dir', '--file', 'bans.jsonl'], '--file and --from-export do not go together'],
    [['--from-export', 'dir', '--format', 'csv'], "--from-export reads the export's JSON lines"],
    [['--from-export', '/nonexistent-export-dir'], 'has no manifest.json'],
    [['--file', 'bans.txt'], 'ends in neither .jsonl nor .csv'],
    [['--file', 'bans.csv', '--format', 'xml'], '--format must be jsonl or csv'],
    [['--file', 'bans.csv', '--preset', 'banmanager'], 'unknown --preset banmanager'],
    [['--file', 'bans.jsonl', '--map', 'a=device_id'], '--map and --preset read a CSV'],
    [['--file', 'bans.csv', '--map', 'a=device_id', '--preset', 'sourcebans'], 'do not go together'],
    [['--file', 'bans.csv', '--map', 'device_id'], '--map takes column=field pairs'],
    [['--file', 'bans.csv', '--map', 'a=device_id,a=external_id'], 'names the column a twice'],
    [['--file', 'bans.csv', '--batch', '501'], '--batch must be a whole number from 1 to 500'],
    [['--file', 'bans.csv', '--concurrency', '0'], '--concurrency must be a whole number from 1 to 16'],
    [['--file', 'bans.csv', '--game', 'bad#game'], '--game bad#game is not a valid game id'],
    [['--file', 'bans.csv', '--url', 'not a url'], '--url not a url is not a URL'],
    [['--file', 'bans.csv', 'extra'], 'unexpected argument: extra'],
    [['--file', 'bans.csv', '--bogus'], "Unknown option '--bogus'"],
  ])('refuses %j, saying %j', (argv, says) => {
    const parsed = parseImportCommand(argv, TARGET);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.message).toContain(says);
  });

  it('needs a key, from --key or BAN_API_KEY', () => {
    expect(parseImportCommand(['--file', 'b.csv'], { env: {}, localUrl: undefined })).toEqual({
      ok: false,
      message: 'an API key is needed: --key or BAN_API_KEY',
    });
    const parsed = parseImportCommand(['--file', 'b.csv', '--key', 'bsk_flag'], TARGET);
    expect(parsed.ok && parsed.run.command === 'import' && parsed.run.key).toBe('bsk_flag');
  });

  it('defaults to the running local server, the file beside report and state, 250 rows, 2 in flight', () => {
    const parsed = parseImportCommand(['--file', 'data/bans.jsonl'], {
      ...TARGET,
      localUrl: 'http://127.0.0.1:4567',
    });
    const file = resolve('data/bans.jsonl');
    expect(parsed).toEqual({
      ok: true,
      run: {
        command: 'import',
        url: 'http://127.0.0.1:4567',
        key: 'bsk_env',
        options: {
          file,
          format: 'jsonl',
          map: new Map(),
          preset: undefined,
          game: undefined,
          dryRun: false,
          batch: 250,
          concurrency: 2,
          report: `${file}.import-report.jsonl`,
          state: `${file}.import-state.json`,
          restart: false,
        },
      },
    });
  });

  it('falls back to http://localhost:3000, reads --map, and gives a dry run a report of its own', () => {
    const parsed = parseImportCommand(
      ['--file', 'b.CSV', '--map', 'steam=device_id, note=', '--dry-run', '--batch', '100'],
      TARGET,
    );
    expect(parsed.ok && parsed.run.command === 'import' && parsed.run).toMatchObject({
      url: 'http://localhost:3000',
      options: {
        format: 'csv',
        map: new Map([
          ['steam', 'device_id'],
          ['note', ''],
        ]),
        dryRun: true,
        batch: 100,
        report: `${resolve('b.CSV')}.dry-run-report.jsonl`,
      },
    });
  });
});
