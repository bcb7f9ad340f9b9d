import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildSync } from 'esbuild';

/**
 * Builds the moderator console into `outdir`: index.html, app.js (console/src bundled with Preact,
 * minified) and app.css. Synchronous and self-contained (esbuild and node only), so `npm start`
 * and the stack at synth can both call it. The page's budget is 72 KB of gzipped JavaScript: one
 * file, read once and cached, for every view of a team's console (sign-in, people, claims, the
 * audit's filters). Past it, the views would be split into chunks loaded when opened.
 */

export const CONSOLE_JS_BUDGET_GZIP = 72 * 1024;
/**
 * The player's page (console/src/player, served at /player/): a page a player opens on a phone
 * from a link in the game, so a budget of its own, a fraction of the console's.
 */
export const PLAYER_JS_BUDGET_GZIP = 16 * 1024;
export const consoleFiles = [
  'index.html',
  'app.js',
  'app.css',
  'player.html',
  'player.js',
  'player.css',
] as const;
const budgets: Partial<Record<(typeof consoleFiles)[number], number>> = {
  'app.js': CONSOLE_JS_BUDGET_GZIP,
  'player.js': PLAYER_JS_BUDGET_GZIP,
};

const here = fileURLToPath(new URL('.', import.meta.url));

export const buildConsole = (
  outdir: string,
): { files: Array<{ name: string; bytes: number; gzipBytes: number }> } => {
  const script = (entry: string) =>
    buildSync({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: 'esm',
      target: ['chrome120', 'firefox120', 'safari17'],
      platform: 'browser',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      legalComments: 'none',
      define: { 'process.env.NODE_ENV': '"production"' },
      write: false,
      logLevel: 'silent',
    }).outputFiles[0]?.contents ?? new Uint8Array();
  const stylesheet = (entry: string) =>
    buildSync({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      target: ['chrome120', 'firefox120', 'safari17'],
      write: false,
      logLevel: 'silent',
    }).outputFiles[0]?.contents ?? new Uint8Array();
  const contents: Record<(typeof consoleFiles)[number], Uint8Array> = {
    'index.html': readFileSync(join(here, 'index.html')),
    'app.js': script(join(here, 'src', 'main.tsx')),
    'app.css': stylesheet(join(here, 'app.css')),
    'player.html': readFileSync(join(here, 'player.html')),
    'player.js': script(join(here, 'src', 'player', 'main.tsx')),
    'player.css': stylesheet(join(here, 'player.css')),
  };
  for (const name of ['app.js', 'player.js'] as const)
    if (contents[name].length === 0) throw new Error(`the console build made no ${name}`);
  mkdirSync(outdir, { recursive: true });
  const files = consoleFiles.map((name) => {
    writeFileSync(join(outdir, name), contents[name]);
    return { name, bytes: contents[name].length, gzipBytes: gzipSync(contents[name], { level: 9 }).length };
  });
  for (const file of files) {
    const budget = budgets[file.name as keyof typeof budgets];
    if (budget !== undefined && file.gzipBytes > budget)
      throw new Error(`console ${file.name} is ${file.gzipBytes} bytes gzipped, over its ${budget}`);
  }
  return { files };
};
