import { afterEach, beforeEach, vi } from 'vitest';
import { stubSettings, unstubSettings } from './settings';

/**
 * Captures what lib/log.ts writes (stdout and stderr), at `level`, for each test of the calling
 * file: `const logs = captureLogs();` then `logs.lines` (raw) and `logs.entries()` (parsed).
 */
export const captureLogs = (level = 'info') => {
  const captured = { lines: [] as string[], entries: () => captured.lines.map((line) => JSON.parse(line)) };
  beforeEach(() => {
    captured.lines = [];
    stubSettings({ LOG_LEVEL: level });
    const capture = (chunk: unknown) => {
      captured.lines.push(String(chunk));
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    unstubSettings();
  });
  return captured;
};
