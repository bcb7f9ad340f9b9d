import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type ExportKind, exportKinds, isExportKind } from '@kernel/exports';
import { apiTarget, type CommandParse, parseCommand, refuse } from '../command-line';

export const EXPORT_USAGE = `Usage:
  npm run export -- --out <dir> [--kinds bans,appeals,...] [--url <url>] [--key <key>] [--limit <n>]

Writes everything the key's publisher holds, one <kind>.jsonl per kind (one item a line), and
manifest.json (each kind's as_of and item count, the service version) into <dir>.
  --out <dir>     where to write (made if missing; files of the same names are replaced)
  --kinds <list>  which kinds, comma-separated (default all: ${exportKinds.join(',')})
  --url <url>     the API (default: the npm start serving DATA_DIR, else http://localhost:3000)
  --key <key>     an API key with the data:export scope for every game (default: env BAN_API_KEY)
  --limit <n>     items per page, 1-1000 (default 500)
Exit code: 0 done; 1 the run failed (the network, a key the API refuses); 2 usage.`;

export interface ExportCommandTarget {
  env: NodeJS.ProcessEnv;
  /** The URL of the npm start serving DATA_DIR, if one runs. */
  localUrl: string | undefined;
}

export type ExportCommand =
  | { command: 'help' }
  | { command: 'export'; out: string; kinds: ExportKind[]; url: string; key: string; limit: number };

export type ExportParse = CommandParse<ExportCommand>;

/** Reads the command line; never exits. */
export const parseExportCommand = (argv: readonly string[], target: ExportCommandTarget): ExportParse =>
  parseCommand(() => commandOf(argv, target));

const commandOf = (argv: readonly string[], { env, localUrl }: ExportCommandTarget): ExportCommand => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      kinds: { type: 'string' },
      url: { type: 'string' },
      key: { type: 'string' },
      limit: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { command: 'help' };
  if (positionals.length > 0) refuse(`unexpected argument: ${positionals[0]}`);
  if (values.out === undefined) return refuse('--out is required');
  const kinds = values.kinds === undefined ? [...exportKinds] : values.kinds.split(',').map((k) => k.trim());
  const unknown = kinds.find((kind) => !isExportKind(kind));
  if (unknown !== undefined) refuse(`unknown kind ${unknown} (kinds: ${exportKinds.join(', ')})`);
  if (kinds.length === 0) refuse('--kinds names no kind');
  const limit = values.limit === undefined ? 500 : Number(values.limit);
  if (!/^\d+$/.test(values.limit ?? '500') || limit < 1 || limit > 1000) refuse('--limit must be 1-1000');
  const { key, url } = apiTarget(values, env, localUrl);
  return {
    command: 'export',
    out: resolve(values.out),
    kinds: [...new Set(kinds)] as ExportKind[],
    url,
    key,
    limit,
  };
};
