import { resolve } from 'node:path';
import { EXPORT_USAGE, parseExportCommand } from './export/command';
import { ExportFailure, runExport } from './export/run';
import { runningApiUrl } from './local/store';

/**
 * `npm run export -- --out <dir>`: everything the key's publisher holds, one file per kind, from
 * the API (GET /v1/exports/{kind}): a running `npm start` over DATA_DIR by default, any deployed
 * stage with --url. docs/import-export.md#export.
 */

const dataDir = process.env.DATA_DIR && process.env.DATA_DIR !== ':memory:' ? process.env.DATA_DIR : '.data';
const parsed = parseExportCommand(process.argv.slice(2), {
  env: process.env,
  localUrl: runningApiUrl(resolve(dataDir)),
});
if (!parsed.ok) {
  console.error(`export: ${parsed.message}\n\n${EXPORT_USAGE}`);
  process.exit(2);
}
if (parsed.run.command === 'help') {
  console.log(EXPORT_USAGE);
  process.exit(0);
}
const { out, kinds, url, key, limit } = parsed.run;
console.error(`export: ${url} → ${out}`);
runExport({ url, key, out, kinds, limit, progress: (line) => console.error(line) }).then(
  (manifest) => {
    for (const [kind, summary] of Object.entries(manifest.kinds))
      console.error(`export: ${kind}: ${summary?.items} items as of ${summary?.as_of}`);
    process.exit(0);
  },
  (error: unknown) => {
    console.error(`export: ${error instanceof ExportFailure ? error.message : String(error)}`);
    process.exit(1);
  },
);
