import { readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type BuildOptions, buildSync } from 'esbuild';

/**
 * Every handler's bundle from one esbuild pass over functions/: a few seconds for the stack, where
 * an esbuild process per function (NodejsFunction's way) takes most of a minute. service-function.ts
 * hands each bundle to CDK through its asset's local bundling, so CDK still decides whether a stack
 * is bundled at all and still stages one asset per function.
 */

/** Where every handler lives (lib/routes.ts's handlerEntry): one pass builds them all. */
const HANDLERS_DIR = 'functions';

/** One entry's output files (`index.mjs`, `index.mjs.map`) by name. */
type Bundle = ReadonlyMap<string, Uint8Array>;

/**
 * Builds `entries` (relative to `options.absWorkingDir`) in one esbuild pass, each as though
 * alone into `<outdir>/<its base name>/index.mjs`; kept in memory, not written.
 */
const build = (options: BuildOptions, entries: readonly string[], outdir: string) => {
  const names = entries.map((entry) => basename(entry).replace(/\.[^.]+$/, ''));
  if (new Set(names).size !== names.length) throw new Error(`entries share a name: ${entries.join(', ')}`);
  // Throws on any error, with esbuild's messages.
  const { outputFiles = [] } = buildSync({
    ...options,
    entryPoints: entries.map((entry, i) => ({ in: entry, out: `${names[i]}/index` })),
    outdir,
    outExtension: { '.js': '.mjs' },
    write: false,
  });
  return new Map(
    entries.map((entry, i): [string, Bundle] => {
      const dir = join(outdir, names[i] ?? '');
      const files = outputFiles.filter((file) => dirname(file.path) === dir);
      if (!files.some((file) => basename(file.path) === 'index.mjs')) {
        throw new Error(`esbuild made no index.mjs for ${entry}`);
      }
      return [entry, new Map(files.map((file) => [basename(file.path), file.contents]))];
    }),
  );
};

/** Bundles built so far, by the options and the folder they were built for. */
const built = new Map<string, Map<string, Bundle>>();

/**
 * Writes the bundle of `entry` (relative to `options.absWorkingDir`) into `outputDir`, the folder
 * CDK bundles one asset in. The first handler asked for builds every handler under functions/ in
 * one pass; any other entry (the benchmark's floor) is built alone. A map names its sources
 * relative to where its bundle was built, so each pass builds as though beside `outputDir`, in the
 * assembly's folder: the paths then hold from the staged asset, wherever the assembly is written.
 */
export const writeFunctionBundle = (options: BuildOptions, entry: string, outputDir: string) => {
  const outdir = dirname(outputDir);
  const key = JSON.stringify([options, outdir]);
  const bundles = built.get(key) ?? new Map<string, Bundle>();
  built.set(key, bundles);
  if (!bundles.has(entry)) {
    const root = options.absWorkingDir ?? process.cwd();
    const entries =
      dirname(entry) === HANDLERS_DIR
        ? readdirSync(join(root, HANDLERS_DIR))
            .filter((file) => file.endsWith('.ts'))
            .map((file) => `${HANDLERS_DIR}/${file}`)
        : [entry];
    for (const [each, bundle] of build(options, entries, outdir)) bundles.set(each, bundle);
  }
  const bundle = bundles.get(entry);
  if (!bundle) throw new Error(`no bundle for ${entry}`);
  for (const [name, contents] of bundle) writeFileSync(join(outputDir, name), contents);
};
