import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Commit messages as docs/testing.md (Commits) asks: a subject of 72 characters or less,
 * no full stop, then a blank line and the detail in the body. The rules are `.commitlintrc.json`'s
 * (commitlint's own format, so the tool reads them too), checked on every commit from its
 * `baseline` on; a clone without history (a shallow one) checks the commits it has.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const config = JSON.parse(readFileSync(`${root}.commitlintrc.json`, 'utf8')) as {
  baseline: string;
  rules: { 'header-max-length': [number, string, number] };
};
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });

const hasBaseline = (() => {
  try {
    git('cat-file', '-e', `${config.baseline}^{commit}`);
    return true;
  } catch {
    return false;
  }
})();

interface Commit {
  hash: string;
  message: string;
}

const commits = (): Commit[] =>
  git(
    'log',
    '--no-merges',
    '--format=%h%x00%B%x1e',
    ...(hasBaseline ? [`${config.baseline}..HEAD`] : ['-n', '20']),
  )
    .split('\x1e')
    .map((entry) => entry.replace(/^\n/, ''))
    .filter((entry) => entry.includes('\0'))
    .map((entry) => {
      const [hash = '', message = ''] = entry.split('\0');
      return { hash, message: message.trimEnd() };
    });

describe('commit messages since the baseline', () => {
  const max = config.rules['header-max-length'][2];

  it(`have a subject of at most ${max} characters, without a full stop`, () => {
    const long = commits()
      .map(({ hash, message }) => ({ hash, subject: message.split('\n')[0] ?? '' }))
      .filter(({ subject }) => subject.length === 0 || subject.length > max || subject.endsWith('.'));
    expect(long).toEqual([]);
  });

  it('leave a blank line between the subject and the body', () => {
    const crowded = commits()
      .filter(({ message }) => message.includes('\n') && message.split('\n')[1] !== '')
      .map(({ hash }) => hash);
    expect(crowded).toEqual([]);
  });
});
