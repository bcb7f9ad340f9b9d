import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CSV_RECORD_MAX_BYTES, csvRecords, parseCsvRecord, readLines } from '../../infra/import/records';

/** `npm run import`'s reading of a file: lines with their numbers and byte offsets, and CSV records. */

const dir = mkdtempSync(join(tmpdir(), 'import-records-'));
let files = 0;
const fileOf = (content: string | Buffer) => {
  const file = join(dir, `f${files++}`);
  writeFileSync(file, content);
  return file;
};
const collect = async <T>(items: AsyncIterable<T>) => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

describe('reading lines', () => {
  it('gives each line its number and the byte offset after it, LF or CRLF, without the line end', async () => {
    const file = fileOf('a\r\nbé\n\nlast');
    expect(await collect(readLines(file))).toEqual([
      { text: 'a', line: 1, end: 3 },
      { text: 'bé', line: 2, end: 7 },
      { text: '', line: 3, end: 8 },
      { text: 'last', line: 4, end: 12 },
    ]);
  });

  it('drops a byte order mark at the start of the file only', async () => {
    const file = fileOf('\ufeffx\n\ufeffy\n');
    expect((await collect(readLines(file))).map((l) => l.text)).toEqual(['x', '\ufeffy']);
  });

  it('goes on from an offset and line number as a resumed run does', async () => {
    const file = fileOf('one\ntwo\nthree\n');
    expect(await collect(readLines(file, { offset: 4, line: 2 }))).toEqual([
      { text: 'two', line: 2, end: 8 },
      { text: 'three', line: 3, end: 14 },
    ]);
  });

  it('keeps a multi-byte character whole across the stream chunks', async () => {
    const long = `${'é'.repeat(200_000)}\nz\n`;
    const lines = await collect(readLines(fileOf(long)));
    expect(lines[0]?.text).toBe('é'.repeat(200_000));
    expect(lines[1]).toEqual({ text: 'z', line: 2, end: Buffer.byteLength(long) });
  });
});

describe('CSV records (RFC 4180)', () => {
  it('reads quoted fields with commas, doubled quotes and empty fields', () => {
    expect(parseCsvRecord('a,"b,c","say ""hi""",,""')).toEqual({ fields: ['a', 'b,c', 'say "hi"', '', ''] });
  });

  it('refuses a quote inside an unquoted field and text after a closing quote', () => {
    expect(parseCsvRecord('a,b"c')).toMatchObject({ issue: 'bad_quote' });
    expect(parseCsvRecord('"a"b,c')).toMatchObject({ issue: 'bad_quote' });
  });

  it('joins the lines of a quoted field and says the line the record starts on', async () => {
    const file = fileOf('h1,h2\r\n1,"two\r\nlines"\r\n\r\n3,x\r\n');
    expect(await collect(csvRecords(readLines(file)))).toEqual([
      { line: 1, end: 7, nextLine: 2, fields: ['h1', 'h2'] },
      { line: 2, end: 23, nextLine: 4, fields: ['1', 'two\nlines'] },
      { line: 5, end: 30, nextLine: 6, fields: ['3', 'x'] },
    ]);
  });

  it('refuses a quote left open to the end of the file at the line it opened on', async () => {
    const file = fileOf('h\n"open\nstill\n');
    const records = await collect(csvRecords(readLines(file)));
    expect(records[1]).toMatchObject({ line: 2, fields: null, problem: { issue: 'unclosed_quote' } });
  });

  it('refuses a record that stays open past its limit and reads on after it', async () => {
    const filler = `${'x'.repeat(64 * 1024)}\n`.repeat(Math.ceil(CSV_RECORD_MAX_BYTES / (64 * 1024)) + 1);
    const file = fileOf(`h\n"open\n${filler}last\n`);
    const records = await collect(csvRecords(readLines(file)));
    expect(records[1]).toMatchObject({ line: 2, fields: null, problem: { issue: 'too_long' } });
    expect(records.at(-1)?.fields).toEqual(['last']);
  });
});
