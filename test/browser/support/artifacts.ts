import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What a run leaves behind, in `.artifacts/console/` (ignored by git): a screenshot of each task,
 * the accessibility scans, and the timings. `npm run test:browser` empties it first, collects the
 * timings into `timings.json` at the end, and with UPDATE_SCREENSHOTS=1 copies the curated
 * screenshots to docs/screenshots/.
 */

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const ARTIFACTS = join(ROOT, '.artifacts', 'console');
export const SCREENSHOTS_DOCS = join(ROOT, 'docs', 'screenshots');

export const artifact = (name: string): string => {
  const path = join(ARTIFACTS, name);
  mkdirSync(dirname(path), { recursive: true });
  return path;
};

/** One line of JSON appended to an artifact file (several test files write to one). */
export const appendRecord = (file: string, record: unknown) => {
  appendFileSync(artifact(file), `${JSON.stringify(record)}\n`);
};

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
