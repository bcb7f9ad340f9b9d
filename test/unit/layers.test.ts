import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layers run one way: functions → http → domain → storage (and outbound), with lib/model (the zod
 * vocabulary) below all of them and lib/openapi (build time) beside http. Below lib/model is the
 * shared kernel (kernel/, imported as `@kernel/…`): the pure rules and constants the service, the
 * console and the client package all run, importing nothing. These tests read the import
 * statements of lib/, kernel/, client/src and console/ and fail on an import that runs the wrong
 * way, or on any loop in lib/.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));

const sourcesUnder = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourcesUnder(join(dir, entry.name))
      : /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')
        ? [join(dir, entry.name)]
        : [],
  );

/** Every specifier a module imports: static, re-exported, side-effect only and dynamic. */
const specifiersOf = (file: string): string[] => {
  const text = readFileSync(join(root, file), 'utf8');
  return [
    ...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm),
    ...text.matchAll(/^\s*import\s+'([^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1] as string);
};

/** A project file's path, root-relative, from an import's target without its extension (or with `.js`). */
const projectFile = (target: string): string => {
  if (target.endsWith('.json')) return target;
  const bare = target.replace(/\.js$/, '');
  return [`${bare}.ts`, `${bare}.tsx`].find((candidate) => existsSync(join(root, candidate))) ?? `${bare}.ts`;
};

/** The project files a module imports (relative specifiers and `@kernel/…`), as root-relative paths. */
const importsOf = (file: string): string[] =>
  specifiersOf(file).flatMap((s) =>
    s.startsWith('@kernel/')
      ? [projectFile(`kernel/${s.slice('@kernel/'.length)}`)]
      : s.startsWith('.')
        ? [projectFile(relative(root, resolve(root, dirname(file), s)))]
        : [],
  );

/** The packages (and Node built-ins) a module imports. */
const packagesOf = (file: string): string[] =>
  specifiersOf(file).filter((s) => !s.startsWith('.') && !s.startsWith('@kernel/'));

const lib = sourcesUnder('lib');
const graph = new Map(lib.map((file) => [file, importsOf(file)]));

/** What each layer may import, by folder prefix. */
const allowed: Array<[layer: string, mayImport: string[]]> = [
  ['lib/model/', ['lib/model/', 'kernel/']],
  // The storage client is bound by the settings (lib/config.ts), which import nothing of lib/;
  // batch calls run a few at once (lib/concurrency.ts, which imports nothing either).
  ['lib/storage/', ['lib/storage/', 'lib/config.ts', 'lib/clock.ts', 'lib/concurrency.ts', 'kernel/']],
  ['lib/clock.ts', []],
  ['lib/concurrency.ts', []],
  ['lib/config.ts', []],
  // Outbound HTTP (webhooks): like storage, a way out that knows nothing of the domain.
  ['lib/outbound/', ['lib/outbound/', 'kernel/']],
  [
    'lib/domain/',
    [
      'lib/domain/',
      'lib/storage/',
      'lib/outbound/',
      'lib/model/',
      'kernel/',
      'lib/concurrency.ts',
      'lib/log.ts',
      'lib/config.ts',
      'lib/clock.ts',
    ],
  ],
  ['lib/routes.ts', ['lib/model/', 'kernel/', 'lib/storage/keys.ts']],
  [
    'lib/http/',
    [
      'lib/http/',
      'lib/domain/',
      'lib/storage/failures.ts',
      'lib/model/',
      'kernel/',
      'lib/routes.ts',
      'lib/log.ts',
      'lib/config.ts',
      'lib/clock.ts',
    ],
  ],
];

/**
 * Beside lib/: the kernel imports only itself; the client package's code, itself and the kernel
 * (esbuild inlines it into dist/index.js); the console's page (console/src, with its transport
 * console/client.ts), itself, the kernel and the client's generated API types, never lib/; and
 * that transport, the client package's own (one fetch for both), and the types.
 */
const shared: Array<[layer: string, mayImport: string[]]> = [
  ['kernel/', ['kernel/']],
  ['client/src/', ['client/src/', 'kernel/']],
  ['console/src/', ['console/src/', 'console/client.ts', 'client/src/api-types.ts', 'kernel/']],
  ['console/client.ts', ['client/src/api-types.ts', 'client/src/transport.ts']],
];
const sharedGraph = new Map(
  ['kernel', 'client/src', 'console'].flatMap(sourcesUnder).map((file) => [file, importsOf(file)]),
);

describe('layers', () => {
  it.each(allowed)('%s imports only %j', (layer, mayImport) => {
    const wrong = [...graph]
      .filter(([file]) => file.startsWith(layer))
      .flatMap(([file, imports]) =>
        imports.filter((i) => !mayImport.some((ok) => i.startsWith(ok))).map((i) => `${file} → ${i}`),
      );
    expect(wrong).toEqual([]);
  });

  it.each(shared)('%s imports only %j', (layer, mayImport) => {
    const files = [...sharedGraph].filter(([file]) => file.startsWith(layer));
    expect(files.length).toBeGreaterThan(0);
    const wrong = files.flatMap(([file, imports]) =>
      imports.filter((i) => !mayImport.some((ok) => i.startsWith(ok))).map((i) => `${file} → ${i}`),
    );
    expect(wrong).toEqual([]);
  });

  it('the kernel imports no package: no Node built-in, no SDK, no zod', () => {
    const kernel = sourcesUnder('kernel');
    expect(kernel.length).toBeGreaterThan(5);
    expect(kernel.flatMap((file) => packagesOf(file).map((p) => `${file} → ${p}`))).toEqual([]);
  });

  it("the client package's code imports only Node's built-ins (it has no dependencies)", () => {
    const wrong = sourcesUnder('client/src').flatMap((file) =>
      packagesOf(file)
        .filter((p) => !p.startsWith('node:'))
        .map((p) => `${file} → ${p}`),
    );
    expect(wrong).toEqual([]);
  });

  it("the console's page imports no Node built-in, and nothing of console/ imports lib/", () => {
    const page = sourcesUnder('console/src');
    expect(
      page.flatMap((file) =>
        packagesOf(file)
          .filter((p) => p.startsWith('node:'))
          .map((p) => `${file} → ${p}`),
      ),
    ).toEqual([]);
    const toLib = sourcesUnder('console').flatMap((file) =>
      importsOf(file)
        .filter((i) => i.startsWith('lib/'))
        .map((i) => `${file} → ${i}`),
    );
    expect(toLib).toEqual([]);
  });

  it('no domain, storage or model file imports anything of HTTP or OpenAPI', () => {
    const below = [...graph].filter(([file]) => /^lib\/(domain|storage|model)\//.test(file));
    expect(below.length).toBeGreaterThan(10);
    for (const [file, imports] of below) {
      expect(
        imports.filter((i) => /^lib\/(http|openapi)\//.test(i)),
        file,
      ).toEqual([]);
    }
  });

  it('lib/ has no import loop', () => {
    const loops: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        loops.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(loops).toEqual([]);
  });

  it('reads process.env only in lib/http and lib/config.ts: settings are bound at call time', () => {
    const readers = lib.filter(
      (file) =>
        !file.startsWith('lib/http/') &&
        file !== 'lib/config.ts' &&
        /\bprocess\.env\b/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(readers).toEqual([]);
  });
});
