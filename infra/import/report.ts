import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import type { ImportCounts } from './state';

/**
 * The report file (`<file>.import-report.jsonl` by default): one JSON line per row that was not
 * `created` (refused here or by the server, already imported, changed), in the file's order, and
 * a last line with the totals. Lines are appended batch by batch in order; a resumed run goes on
 * from the length its state file recorded.
 */

export interface ReportLine {
  line: number;
  external_id: string | null;
  status: 'already_imported' | 'changed' | 'refused';
  field?: string;
  issue?: string;
  message?: string;
  changed_fields?: string[];
}

export interface ReportSummary {
  summary: true;
  file: string;
  dry_run: boolean;
  rows: number;
  counts: ImportCounts;
  started_at: string;
  finished_at: string;
}

export interface Report {
  /** Appends lines; returns the report's length after them. */
  write(lines: ReadonlyArray<ReportLine | ReportSummary>): number;
  close(): void;
}

/** Opens the report at `path`, cut to `keepBytes` (0: a fresh report). */
export const openReport = (path: string, keepBytes: number): Report => {
  const fd = openSync(path, keepBytes > 0 ? 'r+' : 'w');
  ftruncateSync(fd, keepBytes);
  let length = keepBytes;
  return {
    write: (lines) => {
      if (lines.length === 0) return length;
      const text = Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
      let written = 0;
      while (written < text.length)
        written += writeSync(fd, text, written, text.length - written, length + written);
      length += text.length;
      return length;
    },
    close: () => closeSync(fd),
  };
};
