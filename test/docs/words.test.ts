import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

/**
 * Code says why, not when: history belongs in commits (docs/testing.md, Commits), so no source file
 * names the issue that asked for it.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const sources = execFileSync('git', ['ls-files', '*.ts', '*.tsx', '*.mjs'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);

it('no source file names an issue by its number', () => {
  const found = sources.flatMap((file) =>
    readFileSync(`${root}${file}`, 'utf8')
      .split('\n')
      .flatMap((line, index) => (/\bissues? #?\d+/i.test(line) ? [`${file}:${index + 1}`] : [])),
  );
  expect(found).toEqual([]);
});
