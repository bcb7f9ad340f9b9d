import { resolve } from 'node:path';
import { importClient } from './import/client';
import { IMPORT_USAGE, parseImportCommand } from './import/command';
import { applyExportSettings, headerGameOf, NOT_CARRIED } from './import/export-dir';
import { stderrProgress } from './import/progress';
import { runImport } from './import/run';
import { runningApiUrl } from './local/store';

/**
 * `npm run import -- --file bans.jsonl|bans.csv [options]` (or `--from-export <dir>`: an export's
 * reasons and policy first, through their routes, then its bans with their appeals): imports a file of past bans through
 * `POST /v1/imports`, in batches, resumably (docs/import-export.md). It only reads and maps the
 * file; the server validates every row. Progress goes to stderr, a line per row that was not
 * created to the report file; the exit code says whether every row was made (0), some were
 * refused or changed (2), or the run failed (1).
 *
 * IMPORT_STOP_AFTER_BATCHES (tests only) stops the run as an interruption would, after that many
 * batches are answered.
 */

const dataDir = process.env.DATA_DIR && process.env.DATA_DIR !== ':memory:' ? process.env.DATA_DIR : '.data';
const parsed = parseImportCommand(process.argv.slice(2), {
  env: process.env,
  localUrl: runningApiUrl(resolve(dataDir)),
});
if (!parsed.ok) {
  console.error(`import: ${parsed.message}\n\n${IMPORT_USAGE}`);
  process.exit(1);
}
if (parsed.run.command === 'help') {
  console.log(IMPORT_USAGE);
  process.exit(0);
}
const { options, url, key } = parsed.run;
const stopAfter = Number(process.env.IMPORT_STOP_AFTER_BATCHES);
if (Number.isInteger(stopAfter) && stopAfter > 0) options.stopAfterBatches = stopAfter;

console.error(`import: ${options.file} → ${url}${options.dryRun ? ' (dry run)' : ''}`);
// The state file is replaced whole after each answered batch: stopping at any moment loses nothing.
process.once('SIGINT', () => {
  console.error(
    `\nimport: interrupted${options.dryRun ? '' : `: run the same command again to resume (${options.state})`}`,
  );
  process.exit(1);
});
try {
  if (options.fromExport !== undefined) {
    const say = (line: string) => console.error(`import: ${line}`);
    say(`from the export in ${options.fromExport}: ${NOT_CARRIED}`);
    options.game ??= headerGameOf(options.file);
    if (options.dryRun)
      say('dry run: the reasons and policy are not put, the bans are checked against those here');
    else await applyExportSettings(options.fromExport, { url, key }, say);
  }
  const outcome = await runImport(
    options,
    importClient({ url, key, game: options.game }),
    stderrProgress(),
    (line) => console.error(`import: ${line}`),
  );
  console.error(`import: ${outcome.message}`);
  process.exit(outcome.code);
} catch (error) {
  console.error(`import: ${(error as Error).message}`);
  process.exit(1);
}
