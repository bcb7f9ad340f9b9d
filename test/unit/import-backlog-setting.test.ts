import { describe, expect, it } from 'vitest';
import { DEFAULT_IMPORT_BACKLOG_ROWS, parseImportBacklogRows, settingsFrom } from '../../lib/config';

/** IMPORT_BACKLOG_ROWS (lib/config.ts): how far an import may run ahead of its events. */
describe('IMPORT_BACKLOG_ROWS', () => {
  it('is 1,000 rows when not set, and 0 turns the wait off', () => {
    expect(DEFAULT_IMPORT_BACKLOG_ROWS).toBe(1_000);
    expect(settingsFrom({}).importBacklogRows).toBe(1_000);
    expect(settingsFrom({ IMPORT_BACKLOG_ROWS: ' ' }).importBacklogRows).toBe(1_000);
    expect(settingsFrom({ IMPORT_BACKLOG_ROWS: '0' }).importBacklogRows).toBe(0);
    expect(parseImportBacklogRows('500')).toBe(500);
  });

  it('refuses what is not a whole number of rows, naming the variable', () => {
    for (const bad of ['-1', '1.5', 'many', '10000001'])
      expect(() => settingsFrom({ IMPORT_BACKLOG_ROWS: bad })).toThrow(
        `IMPORT_BACKLOG_ROWS must be an integer from 0 to 10000000, got ${bad}`,
      );
  });
});
