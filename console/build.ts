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
export const consoleFiles = ['index.html', 'app.js', 'app.css'] as const;

const here = fileURLToPath(new URL('.', import.meta.url));

export const buildConsole = (
  outdir: string,
): { files: Array<{ name: string; bytes: number; gzipBytes: number }> } => {
  const js = buildSync({
    entryPoints: [join(here, 'src', 'main.tsx')],
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
  });
  const css = buildSync({
    entryPoints: [join(here, 'app.css')],
    bundle: true,
    minify: true,
    target: ['chrome120', 'firefox120', 'safari17'],
    write: false,
    logLevel: 'silent',
  });
  const contents: Record<(typeof consoleFiles)[number], Uint8Array> = {
    'index.html': readFileSync(join(here, 'index.html')),
    'app.js': js.outputFiles[0]?.contents ?? new Uint8Array(),
    'app.css': css.outputFiles[0]?.contents ?? new Uint8Array(),
  };
  if (contents['app.js'].length === 0) throw new Error('the console build made no app.js');
  mkdirSync(outdir, { recursive: true });
  const files = consoleFiles.map((name) => {
    writeFileSync(join(outdir, name), contents[name]);
    return { name, bytes: contents[name].length, gzipBytes: gzipSync(contents[name], { level: 9 }).length };
  });
  const script = files.find((f) => f.name === 'app.js');
  if (script && script.gzipBytes > CONSOLE_JS_BUDGET_GZIP)
    throw new Error(
      `console app.js is ${script.gzipBytes} bytes gzipped, over its ${CONSOLE_JS_BUDGET_GZIP}`,
    );
  return { files };
};
