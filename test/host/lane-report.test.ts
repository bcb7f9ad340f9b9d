import { describe, expect, it } from 'vitest';
import { FAILURE_LINES, failureReport, TAIL_LINES } from '../support/lane-report';

describe("npm test's account of a failed stage", () => {
  it("gives vitest's Failed Tests block, colours and all, up to its summary", () => {
    const lines = [
      ' \x1b[32m✓\x1b[39m test/browser/start.test.ts (15 tests) 74269ms',
      '\x1b[31m⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\x1b[39m',
      ' FAIL  test/browser/people.test.ts > shows when a key was last used',
      'AssertionError: expected "not yet" to match /\\d{2}:\\d{2}/',
      '\x1b[2m Test Files \x1b[22m \x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m (22)',
      '      Tests  1 failed | 131 passed (132)',
    ];
    expect(failureReport(lines)).toEqual(lines.slice(1, 4));
  });

  it('gives the last lines of a stage that failed before any test ran', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`);
    expect(failureReport(lines)).toEqual(lines.slice(-TAIL_LINES));
  });

  it('keeps a long failure block to its first lines', () => {
    const lines = ['⎯⎯ Failed Tests 9 ⎯⎯', ...Array.from({ length: 500 }, (_, i) => `detail ${i}`)];
    const report = failureReport(lines);
    expect(report).toHaveLength(FAILURE_LINES);
    expect(report[0]).toBe(lines[0]);
  });
});
