import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { bundlePaths } from '../infra/local/bundles';
import { median } from './storage-probe';

/**
 * Bundle size and cold import of every function, each as a ratio to the floor bundle (a handler
 * that only creates the DocumentClient and sends one GetItem), all built by the stack's own
 * bundling through a real `cdk synth`.
 */

export const FLOOR_HANDLER = 'bench-floor';
const OUT_DIR = 'cdk.out/bench';

export const synthesizeBundles = () => {
  rmSync(OUT_DIR, { recursive: true, force: true });
  execFileSync('npx', ['cdk', 'synth', '-q', '-a', 'node --import tsx bench/bench-app.ts', '-o', OUT_DIR], {
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
    // The synth's per-asset chatter is dropped; a failed synth still throws with its output.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return bundlePaths(OUT_DIR);
};

export const measureSizes = (paths: ReadonlyMap<string, string>) => {
  const sizeOf = (file: string) => {
    const bytes = readFileSync(file);
    return { minified: bytes.byteLength, gzipped: gzipSync(bytes).byteLength };
  };
  const floor = sizeOf(paths.get(FLOOR_HANDLER) as string);
  return [...paths]
    .filter(([handler]) => handler !== FLOOR_HANDLER)
    .map(([handler, file]) => {
      const size = sizeOf(file);
      return {
        bundle: handler,
        minified_kb: size.minified / 1024,
        gzipped_kb: size.gzipped / 1024,
        ratio_minified: size.minified / floor.minified,
        ratio_gzipped: size.gzipped / floor.gzipped,
      };
    })
    .concat([
      {
        bundle: 'floor',
        minified_kb: floor.minified / 1024,
        gzipped_kb: floor.gzipped / 1024,
        ratio_minified: 1,
        ratio_gzipped: 1,
      },
    ]);
};

/**
 * Imports a bundle in a fresh node process (what Lambda does at INIT) and returns the milliseconds
 * it took; `flags` are node's (`--enable-source-maps`, as `-c sourceMaps=true` deploys it).
 */
const importOnce = (file: string, flags: readonly string[] = []): number => {
  const script = `const t = performance.now(); await import(${JSON.stringify(`file://${file}`)}); console.log(performance.now() - t);`;
  const run = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH,
      TABLE_NAME: 'bench',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'x',
    },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`importing ${file} failed: ${run.stderr}`);
  return Number(run.stdout.trim());
};

/**
 * Median import time over `runs` fresh processes per bundle, each run paired with a run of the
 * floor right before or after it, so that both see the same machine load.
 */
export const measureColdImports = (paths: ReadonlyMap<string, string>, runs: number) => {
  const floorFile = paths.get(FLOOR_HANDLER) as string;
  return [...paths]
    .filter(([handler]) => handler !== FLOOR_HANDLER)
    .map(([handler, file]) => {
      const own: number[] = [];
      const floor: number[] = [];
      for (let i = 0; i < runs; i++) {
        // Alternate which goes first, so neither always gets the warmer file cache.
        if (i % 2) {
          own.push(importOnce(file));
          floor.push(importOnce(floorFile));
        } else {
          floor.push(importOnce(floorFile));
          own.push(importOnce(file));
        }
      }
      return {
        bundle: handler,
        median_ms: median(own),
        floor_median_ms: median(floor),
        // The median of each run's ratio to its paired floor run: machine drift between pairs
        // cancels, where a ratio of two medians would carry it.
        ratio: median(own.map((ms, i) => ms / (floor[i] as number))),
      };
    });
};

/** The bundles whose cold import with source maps enabled the bench reports: the largest route and the stream's. */
export const SOURCE_MAP_BUNDLES = ['create-ban', 'events-dispatcher'];

/**
 * What `-c sourceMaps=true` (NODE_OPTIONS=--enable-source-maps) costs at INIT: each bundle's
 * import with the flag, paired with its import without it, alternating; the median ratio, and the
 * ratio to the floor (without the flag), which the cold import target applies to.
 */
export const measureSourceMapCost = (paths: ReadonlyMap<string, string>, runs: number) => {
  const floorFile = paths.get(FLOOR_HANDLER) as string;
  return SOURCE_MAP_BUNDLES.map((handler) => {
    const file = paths.get(handler) as string;
    const on: number[] = [];
    const off: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < runs; i++) {
      const order = [
        () => on.push(importOnce(file, ['--enable-source-maps'])),
        () => off.push(importOnce(file)),
        () => floor.push(importOnce(floorFile)),
      ];
      for (let k = 0; k < order.length; k++) order[(i + k) % order.length]?.();
    }
    return {
      bundle: handler,
      on_median_ms: median(on),
      off_median_ms: median(off),
      ratio_to_off: median(on.map((ms, i) => ms / (off[i] as number))),
      ratio_to_floor: median(on.map((ms, i) => ms / (floor[i] as number))),
    };
  });
};
