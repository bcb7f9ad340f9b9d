/**
 * What a failed stage said about its failure, printed again after the summary: a log that keeps
 * only its tail (CI's shows about 120 lines) still shows which test failed and why. Vitest's "Failed Tests" block
 * where there is one (up to FAILURE_LINES of it), else the stage's last TAIL_LINES lines.
 */
export const FAILURE_LINES = 80;
export const TAIL_LINES = 40;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the colours' escape codes are what it removes.
const plain = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, '');
export const failureReport = (lines: string[]): string[] => {
  const from = lines.findIndex((line) => /Failed Tests \d+|Failed Suites \d+/.test(plain(line)));
  if (from === -1) return lines.slice(-TAIL_LINES);
  const to = lines.findIndex((line, i) => i > from && /^\s*Test Files\s/.test(plain(line)));
  return lines.slice(from, to === -1 ? undefined : to).slice(0, FAILURE_LINES);
};
