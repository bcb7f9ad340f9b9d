import { afterEach, beforeEach, vi } from 'vitest';

/**
 * Captures what lib/log.ts writes (stdout and stderr), at `level`, for each test of the calling
 * file: `const logs = captureLogs();` then `logs.lines` (raw) and `logs.entries()` (parsed).
 */
export const captureLogs = (level = 'info') => {
  const captured = { lines: [] as string[], entries: () => captured.lines.map((line) => JSON.parse(line)) };
  beforeEach(() => {
    captured.lines = [];
    vi.stubEnv('LOG_LEVEL', level);
    const capture = (chunk: unknown) => {
      captured.lines.push(String(chunk));
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });
  return captured;
};
