import { createReadStream } from 'node:fs';

/**
 * Reads an import file as a stream of records, never the whole file: the JSON lines of a `.jsonl`,
 * or the records of a CSV (RFC 4180: fields quoted with `"`, a `""` inside a quoted field, commas
 * and line breaks inside quotes, LF or CRLF line ends). Each record knows the physical line it
 * starts on (the first line of the file is 1) and the byte offset just after it, which is where a
 * resumed run seeks to (./state.ts).
 */

/** One physical line: its text without the line end, its number, the byte offset after its line end. */
export interface PhysicalLine {
  text: string;
  line: number;
  end: number;
}

export interface Position {
  /** Byte offset to start reading at (the start of a line). */
  offset: number;
  /** The number of the line at that offset. */
  line: number;
}

const NEWLINE = 0x0a;
const CR = '\r';

/**
 * The lines of `file` from `from`, each decoded on its own (a line is whole UTF-8, so no character
 * is split), without its LF or CRLF. A UTF-8 byte order mark at the very start is dropped.
 */
export async function* readLines(
  file: string,
  from: Position = { offset: 0, line: 1 },
): AsyncGenerator<PhysicalLine> {
  let offset = from.offset;
  let line = from.line;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let atStart = from.offset === 0;
  const decode = (bytes: Buffer) => {
    let text = bytes.toString('utf8');
    if (atStart && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    atStart = false;
    return text.endsWith(CR) ? text.slice(0, -1) : text;
  };
  for await (const chunk of createReadStream(file, { start: from.offset, highWaterMark: 256 * 1024 })) {
    const bytes = chunk as Buffer;
    let start = 0;
    for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, start)) {
      const piece = bytes.subarray(start, at);
      const whole =
        pending.length > 0 ? Buffer.concat([...pending, piece], pendingBytes + piece.length) : piece;
      pending = [];
      pendingBytes = 0;
      offset += whole.length + 1;
      yield { text: decode(whole), line, end: offset };
      line += 1;
      start = at + 1;
    }
    if (start < bytes.length) {
      pending.push(Buffer.from(bytes.subarray(start)));
      pendingBytes += bytes.length - start;
    }
  }
  if (pendingBytes > 0) {
    const whole = Buffer.concat(pending, pendingBytes);
    offset += whole.length;
    yield { text: decode(whole), line, end: offset };
  }
}

/** A record of the file: its fields (CSV) or its text (JSONL), or why it could not be read. */
export interface CsvRecord {
  line: number;
  end: number;
  /** The number of the line after the record's last. */
  nextLine: number;
  fields: string[] | null;
  /** Set when `fields` is null: the record is not valid CSV. */
  problem?: { issue: string; message: string };
}

/** A CSV record longer than this (an unclosed quote, most likely) is refused rather than held. */
export const CSV_RECORD_MAX_BYTES = 1024 * 1024;

/** Whether a `"` count leaves a record open: an odd number of quotes so far means inside a quoted field. */
const quotesIn = (text: string) => {
  let count = 0;
  for (let at = text.indexOf('"'); at !== -1; at = text.indexOf('"', at + 1)) count += 1;
  return count;
};

/**
 * The fields of one whole CSV record (its physical lines joined by the line ends they had inside
 * quotes). A quote may only open a field and close it (then a comma or the end follows); a quote
 * inside an unquoted field is refused, as RFC 4180 has it.
 */
export const parseCsvRecord = (text: string): { fields: string[] } | { issue: string; message: string } => {
  const fields: string[] = [];
  let at = 0;
  for (;;) {
    if (text[at] === '"') {
      let value = '';
      let from = at + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote === -1) return { issue: 'unclosed_quote', message: 'a quoted field is not closed' };
        value += text.slice(from, quote);
        if (text[quote + 1] === '"') {
          value += '"';
          from = quote + 2;
          continue;
        }
        at = quote + 1;
        break;
      }
      fields.push(value);
      if (at === text.length) return { fields };
      if (text[at] !== ',')
        return {
          issue: 'bad_quote',
          message: `a quoted field must end at a comma (column ${fields.length})`,
        };
      at += 1;
    } else {
      const comma = text.indexOf(',', at);
      const value = comma === -1 ? text.slice(at) : text.slice(at, comma);
      if (value.includes('"'))
        return {
          issue: 'bad_quote',
          message: `a quote inside an unquoted field (column ${fields.length + 1})`,
        };
      fields.push(value);
      if (comma === -1) return { fields };
      at = comma + 1;
    }
  }
};

/**
 * The CSV records of a stream of physical lines. A record goes on over the next line while a
 * quoted field is open; blank lines between records are skipped. A record that stays open past
 * CSV_RECORD_MAX_BYTES or to the end of the file is refused at the line it starts on, and reading
 * goes on after the lines it took.
 */
export async function* csvRecords(lines: AsyncIterable<PhysicalLine>): AsyncGenerator<CsvRecord> {
  let open: { line: number; parts: string[]; bytes: number; quotes: number } | null = null;
  const finish = (text: string, line: number, last: PhysicalLine): CsvRecord => {
    const parsed = parseCsvRecord(text);
    const at = { line, end: last.end, nextLine: last.line + 1 };
    return 'fields' in parsed ? { ...at, fields: parsed.fields } : { ...at, fields: null, problem: parsed };
  };
  let previous: PhysicalLine | null = null;
  for await (const physical of lines) {
    previous = physical;
    if (open === null) {
      if (physical.text === '') continue;
      const quotes = quotesIn(physical.text);
      if (quotes % 2 === 0) {
        yield finish(physical.text, physical.line, physical);
        continue;
      }
      open = { line: physical.line, parts: [physical.text], bytes: physical.text.length, quotes };
      continue;
    }
    open.parts.push(physical.text);
    open.bytes += physical.text.length + 1;
    open.quotes += quotesIn(physical.text);
    if (open.quotes % 2 === 0) {
      // The line ends inside quotes are the data's: LF as written (a CRLF's CR was taken off with it).
      yield finish(open.parts.join('\n'), open.line, physical);
      open = null;
    } else if (open.bytes > CSV_RECORD_MAX_BYTES) {
      yield {
        line: open.line,
        end: physical.end,
        nextLine: physical.line + 1,
        fields: null,
        problem: {
          issue: 'too_long',
          message: `a record over ${CSV_RECORD_MAX_BYTES} bytes (an unclosed quote?)`,
        },
      };
      open = null;
    }
  }
  if (open !== null && previous !== null)
    yield {
      line: open.line,
      end: previous.end,
      nextLine: previous.line + 1,
      fields: null,
      problem: {
        issue: 'unclosed_quote',
        message: 'a quoted field is not closed before the end of the file',
      },
    };
}
