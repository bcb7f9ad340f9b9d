import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { IMPORT_MAX_BODY_BYTES, type ImportRowResult } from '../../lib/model/imports';
import { BODY_OVERHEAD_BYTES, type ImportAnswer, type ImportBatch, ImportFailure } from './client';
import { mapExportLine } from './export-dir';
import {
  csvColumns,
  type Mapped,
  mapCsvRecord,
  mapJsonLine,
  mapSourcebansRecord,
  sourcebansColumns,
} from './mapping';
import type { Progress } from './progress';
import { csvRecords, type Position, readLines } from './records';
import { openReport, type ReportLine } from './report';
import { type ImportCounts, type ImportState, noCounts, readState, writeState } from './state';

/**
 * `npm run import`'s work, apart from its arguments and its process: reads the file as a stream
 * of records, maps each to a row (./mapping.ts), sends them in batches of `batch` rows with up to
 * `concurrency` batches in flight, writes the report in the file's order, and after each batch
 * that completes the answered prefix, the state a resumed run starts from.
 */

export type ImportFormat = 'jsonl' | 'csv';

export interface ImportOptions {
  file: string;
  format: ImportFormat;
  /** CSV: column → row field (`--map`); empty: the header names the fields. */
  map: ReadonlyMap<string, string>;
  preset: 'sourcebans' | undefined;
  game: string | undefined;
  dryRun: boolean;
  batch: number;
  concurrency: number;
  report: string;
  state: string;
  restart: boolean;
  /** `--from-export`: the export directory the file is the bans of (lines read by ./export-dir.ts). */
  fromExport?: string;
  /** Stops as an interruption would after this many batches are answered (a test's hook). */
  stopAfterBatches?: number;
}

export interface ImportOutcome {
  /** 0: every row created (or would be); 2: some refused or changed; 1: the run failed. */
  code: 0 | 1 | 2;
  rows: number;
  counts: ImportCounts;
  /** What to tell the operator at the end. */
  message: string;
}

export type SendBatch = (batch: ImportBatch) => Promise<ImportAnswer>;

/** One record of the file, mapped (a row with its JSON text), with where the next one starts. */
interface Item {
  line: number;
  next: Position;
  mapped: Mapped;
  json?: string;
}

/** The most a row's JSON may take: a request of it alone must fit the API's body limit. */
const ROW_MAX_BYTES = IMPORT_MAX_BODY_BYTES - BODY_OVERHEAD_BYTES;

/** Serialises a mapped row, refusing one too large to send (the API would refuse its whole request). */
const serialised = (item: Item): Item => {
  if (!item.mapped.ok) return item;
  const json = JSON.stringify(item.mapped.row);
  if (Buffer.byteLength(json) <= ROW_MAX_BYTES) return { ...item, json };
  return {
    ...item,
    mapped: {
      ok: false,
      externalId: item.mapped.externalId,
      refusal: {
        field: 'row',
        issue: 'too_big',
        message: `a row over ${ROW_MAX_BYTES} bytes of JSON cannot be sent`,
      },
    },
  };
};

/**
 * The requests of one batch: its rows in order, cut where a request would pass the API's body
 * limit. The cut depends on the rows alone, so a resumed run cuts a batch the same way and sends
 * each request under the same id (its first row's line).
 */
const requestsOf = (items: readonly Item[]) => {
  const requests: Array<{ line: number; rows: string[] }> = [];
  let bytes = 0;
  for (const item of items) {
    if (item.json === undefined) continue;
    const size = Buffer.byteLength(item.json) + 1;
    const last = requests.at(-1);
    if (last && bytes + size <= ROW_MAX_BYTES) {
      last.rows.push(item.json);
      bytes += size;
    } else {
      requests.push({ line: item.line, rows: [item.json] });
      bytes = size;
    }
  }
  return requests;
};

const existsWithAtLeast = (path: string, bytes: number) => {
  try {
    return statSync(path).size >= bytes;
  } catch {
    return false;
  }
};

const fileDigest = async (file: string) => {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 }))
    hash.update(chunk as Buffer);
  return hash.digest('hex');
};

/** The records of the file from `from`, mapped; for a CSV, its header is read first (always from the top). */
const openItems = async (
  options: ImportOptions,
  from: Position | undefined,
): Promise<{ items: AsyncGenerator<Item>; notes: string[] }> => {
  if (options.format === 'jsonl') {
    const start = from ?? { offset: 0, line: 1 };
    return {
      notes: [],
      items: (async function* () {
        for await (const physical of readLines(options.file, start)) {
          if (physical.text.trim() === '') continue;
          yield {
            line: physical.line,
            next: { offset: physical.end, line: physical.line + 1 },
            mapped: options.fromExport ? mapExportLine(physical.text) : mapJsonLine(physical.text),
          };
        }
      })(),
    };
  }
  let header: { fields: string[]; next: Position } | undefined;
  for await (const record of csvRecords(readLines(options.file))) {
    if (record.fields === null)
      throw new ImportFailure(`line ${record.line}: the header is not CSV: ${record.problem?.message}`);
    header = { fields: record.fields, next: { offset: record.end, line: record.nextLine } };
    break;
  }
  if (header === undefined) throw new ImportFailure(`${options.file} has no header line`);
  const notes: string[] = [];
  let map: (cells: readonly string[]) => Mapped;
  try {
    if (options.preset === 'sourcebans') {
      const columns = sourcebansColumns(header.fields);
      map = (cells) => mapSourcebansRecord(columns, cells);
    } else {
      const columns = csvColumns(header.fields, options.map);
      if (columns.ignored.length > 0)
        notes.push(`columns left out (no row field of that name; --map them): ${columns.ignored.join(', ')}`);
      map = (cells) => mapCsvRecord(columns, cells);
    }
  } catch (error) {
    throw new ImportFailure((error as Error).message);
  }
  // A state written before any batch was answered points at the top: the records start after the header.
  const start = from && from.offset > 0 ? from : header.next;
  return {
    notes,
    items: (async function* () {
      for await (const record of csvRecords(readLines(options.file, start))) {
        const next = { offset: record.end, line: record.nextLine };
        yield {
          line: record.line,
          next,
          mapped:
            record.fields === null
              ? {
                  ok: false,
                  refusal: { field: 'csv', ...(record.problem as { issue: string; message: string }) },
                  externalId: null,
                }
              : map(record.fields),
        };
      }
    })(),
  };
};

/** What decides the batches and their rows: a resumed run must be the same import. */
const settingsOf = (o: ImportOptions) =>
  JSON.stringify({
    format: o.format,
    preset: o.preset ?? null,
    map: [...o.map],
    game: o.game ?? null,
    batch: o.batch,
  });

const reportLinesOf = (items: readonly Item[], answer: ImportAnswer | null, counts: ImportCounts) => {
  const lines: ReportLine[] = [];
  let sent = 0;
  for (const item of items) {
    if (!item.mapped.ok) {
      counts.refused += 1;
      lines.push({
        line: item.line,
        external_id: item.mapped.externalId,
        status: 'refused',
        ...item.mapped.refusal,
      });
      continue;
    }
    const outcome = answer?.rows[sent++];
    if (!outcome) throw new ImportFailure(`line ${item.line}: no outcome in the answer`);
    counts[outcome.status] += 1;
    if (outcome.status === 'created') continue;
    const line: ReportLine = {
      line: item.line,
      external_id: outcome.external_id ?? item.mapped.externalId,
      status: outcome.status,
    };
    if (outcome.error) Object.assign(line, outcome.error);
    if (outcome.changed_fields) line.changed_fields = outcome.changed_fields;
    lines.push(line);
  }
  return lines;
};

const totals = (counts: ImportCounts) =>
  `created ${counts.created}, already imported ${counts.already_imported}, changed ${counts.changed}, refused ${counts.refused}`;

export const runImport = async (
  options: ImportOptions,
  send: SendBatch,
  progress: Progress,
  say: (line: string) => void,
): Promise<ImportOutcome> => {
  const began = Date.now();
  const size = statSync(options.file).size;
  const digest = await fileDigest(options.file);
  const settings = settingsOf(options);
  const saved = options.dryRun || options.restart ? null : readState(options.state);
  if (saved) {
    if (saved.digest !== digest)
      throw new ImportFailure(
        `${options.state} was written for another version of ${options.file}: --restart to import the file from its start`,
      );
    if (saved.settings !== settings)
      throw new ImportFailure(
        `${options.state} was written with other options (${saved.settings}): run with those, or --restart`,
      );
  }
  const now = () => new Date().toISOString();
  const state: ImportState = saved ?? {
    version: 1,
    digest,
    run: randomBytes(6).toString('base64url'),
    settings,
    next: { offset: 0, line: 1 },
    report_bytes: 0,
    counts: noCounts(),
    rows: 0,
    started_at: now(),
    updated_at: now(),
  };
  const { items, notes } = await openItems(options, saved ? saved.next : undefined);
  for (const note of notes) say(note);
  if (saved && saved.next.offset >= size)
    say(
      `${options.file} was imported to its end before (${options.state}): nothing is sent; --restart to send it again`,
    );
  else if (saved)
    say(`resuming at line ${saved.next.line} (${saved.rows} rows answered before; ${options.state})`);
  if (saved && saved.report_bytes > 0 && !existsWithAtLeast(options.report, saved.report_bytes))
    throw new ImportFailure(
      `${options.report} lacks the report of the rows answered before: resume with the report it wrote, or --restart`,
    );
  const report = openReport(options.report, saved ? saved.report_bytes : 0);
  const bytesAtStart = saved ? saved.next.offset : 0;
  const rowsAtStart = state.rows;
  const figures = () => ({
    rows: state.rows,
    rowsThisRun: state.rows - rowsAtStart,
    seconds: (Date.now() - began) / 1000,
    bytesRead: state.next.offset,
    bytesAtStart,
    size,
  });
  const prefix = `${digest.slice(0, 16)}:${state.run}`;
  // Written before the first batch: a run stopped during it resumes under the same run name.
  if (!options.dryRun && !saved) writeState(options.state, state);

  interface InFlight {
    items: Item[];
    answer: Promise<ImportAnswer | null>;
  }
  const inFlight: InFlight[] = [];
  let batches = 0;
  let stopped = false;

  /** Takes the answer of the oldest batch in flight: its report lines, its counts, then the state. */
  const commitOldest = async () => {
    const oldest = inFlight.shift() as InFlight;
    const answer = await oldest.answer;
    const lines = reportLinesOf(oldest.items, answer, state.counts);
    state.report_bytes = report.write(lines);
    state.rows += oldest.items.length;
    state.next = (oldest.items.at(-1) as Item).next;
    state.updated_at = now();
    if (!options.dryRun) writeState(options.state, state);
    progress.update(figures());
    batches += 1;
    if (options.stopAfterBatches !== undefined && batches >= options.stopAfterBatches) stopped = true;
  };

  const dispatch = (batch: Item[]) => {
    const requests = requestsOf(batch);
    const answer: Promise<ImportAnswer | null> =
      requests.length === 0
        ? Promise.resolve(null)
        : Promise.all(
            requests.map(({ line, rows }) =>
              send({ batch_id: `${prefix}:${line}`, ...(options.dryRun ? { dry_run: true } : {}), rows }),
            ),
          ).then((answers) => ({
            ...(answers[0] as ImportAnswer),
            rows: answers.flatMap((a) => a.rows as ImportRowResult[]),
          }));
    // Settled in order by commitOldest; a failure meanwhile must not be an unhandled rejection.
    answer.catch(() => {});
    inFlight.push({ items: batch, answer });
  };

  try {
    let batch: Item[] = [];
    for await (const item of items) {
      batch.push(serialised(item));
      if (batch.length < options.batch) continue;
      dispatch(batch);
      batch = [];
      while (inFlight.length >= options.concurrency && !stopped) await commitOldest();
      if (stopped) break;
    }
    if (!stopped && batch.length > 0) dispatch(batch);
    while (inFlight.length > 0 && !stopped) await commitOldest();
  } catch (error) {
    // What was committed stays committed (the state says so); the rest is sent again on resume.
    await Promise.allSettled(inFlight.map((f) => f.answer));
    report.close();
    progress.done(figures());
    if (error instanceof ImportFailure)
      return { code: 1, rows: state.rows, counts: state.counts, message: `import failed: ${error.message}` };
    throw error;
  }
  if (stopped) {
    await Promise.allSettled(inFlight.map((f) => f.answer));
    report.close();
    progress.done(figures());
    return {
      code: 1,
      rows: state.rows,
      counts: state.counts,
      message: `stopped after ${batches} batches, at line ${state.next.line}: run again to resume`,
    };
  }
  report.write([
    {
      summary: true,
      file: options.file,
      dry_run: options.dryRun,
      rows: state.rows,
      counts: state.counts,
      started_at: state.started_at,
      finished_at: now(),
    },
  ]);
  report.close();
  progress.done(figures());
  const failedRows = state.counts.refused + state.counts.changed;
  return {
    code: failedRows > 0 ? 2 : 0,
    rows: state.rows,
    counts: state.counts,
    message: `${options.dryRun ? 'dry run (nothing stored): would have ' : ''}${state.rows} rows: ${totals(state.counts)}. Report: ${options.report}`,
  };
};
