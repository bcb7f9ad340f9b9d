import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layers run one way: functions → http → domain → storage (and outbound), with lib/model (the zod
 * vocabulary) below all of them and lib/openapi (build time) beside http. These tests read the
 * import statements of lib/ and fail on an import that runs the wrong way, or on any loop.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));

const sourcesUnder = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourcesUnder(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );

/** The project files a module imports (relative specifiers only), as root-relative paths. */
const importsOf = (file: string): string[] => {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/gm)].map(
    (m) => m[1],
  );
  return specifiers.map((s) => {
    const target = relative(root, resolve(root, dirname(file), s as string));
    return target.endsWith('.json') ? target : `${target}.ts`;
  });
};

const lib = sourcesUnder('lib');
const graph = new Map(lib.map((file) => [file, importsOf(file)]));

/** What each layer may import, by folder prefix. */
const allowed: Array<[layer: string, mayImport: string[]]> = [
  ['lib/model/', ['lib/model/']],
  // The storage client is bound by the settings (lib/config.ts), which import nothing of lib/.
  ['lib/storage/', ['lib/storage/', 'lib/config.ts', 'lib/clock.ts']],
  ['lib/clock.ts', []],
  ['lib/config.ts', []],
  // Outbound HTTP (webhooks): like storage, a way out that knows nothing of the domain.
  ['lib/outbound/', ['lib/outbound/']],
  [
    'lib/domain/',
    [
      'lib/domain/',
      'lib/storage/',
      'lib/outbound/',
      'lib/model/',
      'lib/concurrency.ts',
      'lib/log.ts',
      'lib/config.ts',
      'lib/clock.ts',
    ],
  ],
  ['lib/routes.ts', ['lib/model/', 'lib/storage/keys.ts']],
  [
    'lib/http/',
    [
      'lib/http/',
      'lib/domain/',
      'lib/storage/failures.ts',
      'lib/model/',
      'lib/routes.ts',
      'lib/log.ts',
      'lib/config.ts',
      'lib/clock.ts',
    ],
  ],
];

describe('layers', () => {
  it.each(allowed)('%s imports only %j', (layer, mayImport) => {
    const wrong = [...graph]
      .filter(([file]) => file.startsWith(layer))
      .flatMap(([file, imports]) =>
        imports.filter((i) => !mayImport.some((ok) => i.startsWith(ok))).map((i) => `${file} → ${i}`),
      );
    expect(wrong).toEqual([]);
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
