import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { IMPORT_MAX_ROWS } from '../../lib/model/imports';
import { gameIdSchema } from '../../lib/model/requests';
import { apiTarget, type CommandParse, parseCommand, refuse } from '../command-line';
import { exportBansFile } from './export-dir';
import type { ImportOptions } from './run';

/**
 * What `npm run import -- …` was asked to do, read from its arguments and environment alone
 * (infra/import-cli.ts runs it): the import's options, or the usage error it exits 1 with before
 * reading the file or calling the API.
 */

/** The most rows `POST /v1/imports` takes in one request. */
export const IMPORT_BATCH_MAX = IMPORT_MAX_ROWS;
/**
 * Rows per request and requests in flight by default: what npm start's one store answers well
 * inside the import's 28 s (a 500-row request takes some 10 s there alone). Deployed, DynamoDB
 * takes more at once: --batch 500 --concurrency 8 (docs/import-export.md).
 */
export const IMPORT_BATCH_DEFAULT = 250;
export const IMPORT_CONCURRENCY_DEFAULT = 2;

export const IMPORT_USAGE = `Usage:
  npm run import -- --file <bans.jsonl|bans.csv> [options]
  npm run import -- --from-export <dir> [options]

Options:
  --from-export <dir>    a directory npm run export wrote: its reasons and policy (with trust) are
                         put first, then its bans.jsonl imported with their appeals (keys,
                         webhooks and the audit trail are not carried over)
  --url <url>            the API (default: the npm start serving DATA_DIR, else http://localhost:3000)
  --key <key>            an API key with the bans:import scope (default: env BAN_API_KEY)
  --game <game_id>       X-Game-Id: the game of rows that name none
  --dry-run              the server checks every row and stores nothing
  --format jsonl|csv     (default: by the file's extension)
  --map <col=field,...>  CSV: which row field a column fills (col= leaves a column out)
  --preset sourcebans    CSV: a SourceBans++ sb_bans export (docs/import-export.md)
  --batch <n>            rows per request, 1-${IMPORT_BATCH_MAX} (default ${IMPORT_BATCH_DEFAULT})
  --concurrency <n>      requests in flight, 1-16 (default ${IMPORT_CONCURRENCY_DEFAULT})
  --report <file>        default <file>.import-report.jsonl (a dry run: <file>.dry-run-report.jsonl)
  --state <file>         default <file>.import-state.json
  --restart              start from the top of the file, whatever the state file says

Exit codes: 0 every row created (or already imported); 2 some rows refused or changed (see the
report); 1 the run failed (usage, the file, the network, a key the API refuses).`;

export interface ImportCommandTarget {
  env: NodeJS.ProcessEnv;
  /** The URL of a running local server (infra/local/store.ts runningApiUrl), if any. */
  localUrl: string | undefined;
}

export type ImportCommand =
  | { command: 'help' }
  | { command: 'import'; options: ImportOptions; url: string; key: string };

export type ImportParse = CommandParse<ImportCommand>;

export const parseImportCommand = (argv: readonly string[], target: ImportCommandTarget): ImportParse =>
  parseCommand(() => commandOf(argv, target));

const whole = (flag: string, raw: string | undefined, fallback: number, max: number) => {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= max
    ? n
    : refuse(`--${flag} must be a whole number from 1 to ${max}`);
};

const mapOf = (raw: string | undefined) => {
  const map = new Map<string, string>();
  if (raw === undefined) return map;
  for (const pair of raw.split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) refuse(`--map takes column=field pairs separated by commas, not "${pair}"`);
    const column = pair.slice(0, at).trim();
    if (map.has(column)) refuse(`--map names the column ${column} twice`);
    map.set(column, pair.slice(at + 1).trim());
  }
  return map;
};

const commandOf = (argv: readonly string[], { env, localUrl }: ImportCommandTarget): ImportCommand => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      file: { type: 'string' },
      'from-export': { type: 'string' },
      url: { type: 'string' },
      key: { type: 'string' },
      game: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      format: { type: 'string' },
      map: { type: 'string' },
      preset: { type: 'string' },
      batch: { type: 'string' },
      concurrency: { type: 'string' },
      report: { type: 'string' },
      state: { type: 'string' },
      restart: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { command: 'help' };
  if (positionals.length > 0) refuse(`unexpected argument: ${positionals[0]} (the file goes after --file)`);
  const fromExport = values['from-export'] === undefined ? undefined : resolve(values['from-export']);
  if (fromExport !== undefined && values.file !== undefined)
    refuse('--file and --from-export do not go together (the export names its file)');
  if (fromExport !== undefined && (values.format ?? 'jsonl') !== 'jsonl')
    refuse("--from-export reads the export's JSON lines");
  let file: string;
  if (fromExport !== undefined) {
    try {
      file = exportBansFile(fromExport);
    } catch (error) {
      return refuse((error as Error).message);
    }
  } else if (values.file === undefined) return refuse('--file or --from-export is required');
  else file = resolve(values.file);
  const format =
    values.format ?? (/\.jsonl?$/i.test(file) ? 'jsonl' : /\.csv$/i.test(file) ? 'csv' : undefined);
  if (format === undefined)
    return refuse('--format jsonl|csv: the file name ends in neither .jsonl nor .csv');
  if (format !== 'jsonl' && format !== 'csv') return refuse(`--format must be jsonl or csv, not ${format}`);
  if (values.preset !== undefined && values.preset !== 'sourcebans')
    refuse(`unknown --preset ${values.preset} (presets: sourcebans)`);
  if (format !== 'csv' && (values.map !== undefined || values.preset !== undefined))
    refuse('--map and --preset read a CSV');
  if (values.map !== undefined && values.preset !== undefined)
    refuse('--map and --preset do not go together');
  if (values.game !== undefined && !gameIdSchema.safeParse(values.game).success)
    refuse(`--game ${values.game} is not a valid game id`);
  const { key, url } = apiTarget(values, env, localUrl);
  const dryRun = values['dry-run'];
  return {
    command: 'import',
    url,
    key,
    options: {
      file,
      format,
      map: mapOf(values.map),
      preset: values.preset as 'sourcebans' | undefined,
      game: values.game,
      dryRun,
      batch: whole('batch', values.batch, IMPORT_BATCH_DEFAULT, IMPORT_BATCH_MAX),
      concurrency: whole('concurrency', values.concurrency, IMPORT_CONCURRENCY_DEFAULT, 16),
      report: resolve(values.report ?? `${file}.${dryRun ? 'dry-run' : 'import'}-report.jsonl`),
      state: resolve(values.state ?? `${file}.import-state.json`),
      restart: values.restart,
      ...(fromExport === undefined ? {} : { fromExport }),
    },
  };
};
