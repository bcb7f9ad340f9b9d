import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { ImportCounts } from '../../lib/model/imports';
import type { Position } from './records';

/**
 * The state file of an import (`<file>.import-state.json` by default): how far the file has been
 * answered, so an interrupted run goes on from there. Written after each batch whose answer
 * completes the contiguous prefix of answered batches (with several in flight, a later batch
 * answered first waits for the ones before it), by a rename, so it is always whole. A resumed run
 * resends at most the batches that were in flight, and the server answers a repeated batch as it
 * did the first time, so every row is still made exactly once.
 */

export type { ImportCounts };

export const noCounts = (): ImportCounts => ({ created: 0, already_imported: 0, changed: 0, refused: 0 });

export interface ImportState {
  version: 1;
  /** The file's sha256 (hex): a state is only used for the very file it was written for. */
  digest: string;
  /**
   * This import's name in its batch ids (`<digest 16>:<run>:<first line>`): the same for every
   * resumption, new for a run from the top (--restart, or no state), so a re-import is told from a
   * retry: the server answers a repeated batch `created`, a row imported by another batch `already_imported`.
   */
  run: string;
  /** What decides the batches and the rows (format, mapping, batch size, game): a resumed run must match. */
  settings: string;
  /** Where the first unanswered batch starts. */
  next: Position;
  /** The report file's length at that point: a resumed run cuts off what a lost batch wrote after. */
  report_bytes: number;
  counts: ImportCounts;
  /** Rows answered (every record sent or refused here). */
  rows: number;
  started_at: string;
  updated_at: string;
}

export const readState = (path: string): ImportState | null => {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const state = JSON.parse(text) as ImportState;
  if (state.version !== 1)
    throw new Error(`${path}: not a state file of this tool (version ${state.version})`);
  return state;
};

export const writeState = (path: string, state: ImportState) => {
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state)}\n`);
  renameSync(temporary, path);
};
