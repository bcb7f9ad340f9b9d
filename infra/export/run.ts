import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExportKind } from '@kernel/exports';
import { describeAnswer, describeNoAnswer, retryAfterMs, sleep } from '../api-answers';

/**
 * `npm run export`'s work: each kind read page after page from `GET /v1/exports/{kind}` and
 * written as it comes to `<kind>.jsonl` (one item a line), then `manifest.json`. Only one page is
 * held at a time, so memory stays flat however large the export. A page is a read: a 429, a 503,
 * a 5xx or a lost connection is asked again with backoff (a first page asked again starts a new
 * export, with its own as_of); anything else fails the run.
 */

export interface ExportOptions {
  url: string;
  key: string;
  out: string;
  kinds: readonly ExportKind[];
  /** Items per page (the API's limit, 1-1000). */
  limit?: number;
  /** Attempts per page before the run fails (default 8). */
  attempts?: number;
  /** First backoff in ms, doubled per attempt up to 30 s (default 500). */
  backoffMs?: number;
  /** Where progress goes (default: stderr). */
  progress?: (line: string) => void;
}

export interface KindSummary {
  file: string;
  as_of: string;
  items: number;
}

export interface Manifest {
  /** The API's version, as its OpenAPI description states it. */
  service_version: string;
  url: string;
  kinds: Partial<Record<ExportKind, KindSummary>>;
}

/** A failure of the whole run (exit 1), with what the server said. */
export class ExportFailure extends Error {}

interface Page {
  kind: string;
  as_of: string;
  items: unknown[];
  next_cursor: string | null;
}

/** The API's address with `path` under it, keeping a stage's base path (`…/prod`). */
const endpoint = (url: string, path: string) => `${url.replace(/\/+$/, '')}${path}`;

const getJson = async (options: ExportOptions, path: string, auth: boolean): Promise<unknown> => {
  const attempts = options.attempts ?? 8;
  let wait = options.backoffMs ?? 500;
  let last = '';
  const target = endpoint(options.url, path);
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let response: Response;
    try {
      response = await fetch(target, auth ? { headers: { authorization: `Bearer ${options.key}` } } : {});
    } catch (error) {
      last = describeNoAnswer(target, error);
      await sleep(wait);
      wait = Math.min(wait * 2, 30_000);
      continue;
    }
    const text = await response.text();
    if (response.ok) return JSON.parse(text);
    last = describeAnswer(response.status, text);
    if (response.status !== 429 && response.status < 500) throw new ExportFailure(`${target}: ${last}`);
    // A Retry-After of 0 (or none) waits the backoff.
    await sleep(retryAfterMs(response.headers.get('retry-after')) || wait);
    wait = Math.min(wait * 2, 30_000);
  }
  throw new ExportFailure(`${target}: gave up after ${attempts} attempts: ${last}`);
};

const isPage = (value: unknown): value is Page => {
  const page = value as Partial<Page> | null;
  return (
    typeof page === 'object' &&
    page !== null &&
    typeof page.as_of === 'string' &&
    Array.isArray(page.items) &&
    (page.next_cursor === null || typeof page.next_cursor === 'string')
  );
};

/** One kind to `<out>/<kind>.jsonl`: written to a temporary name, renamed once whole. */
const exportKind = async (options: ExportOptions, kind: ExportKind): Promise<KindSummary> => {
  const file = `${kind}.jsonl`;
  const partial = join(options.out, `${file}.partial`);
  const stream = createWriteStream(partial);
  const closed = once(stream, 'close');
  let items = 0;
  let asOf: string | undefined;
  let cursor: string | null = null;
  try {
    do {
      const query = new URLSearchParams({ limit: String(options.limit ?? 500) });
      if (cursor !== null) query.set('cursor', cursor);
      const page = await getJson(options, `/v1/exports/${kind}?${query}`, true);
      if (!isPage(page) || page.kind !== kind)
        throw new ExportFailure(`/v1/exports/${kind}: the answer is not a page of ${kind}`);
      asOf ??= page.as_of;
      for (const item of page.items) {
        // Wait for the file to take the line when its buffer is full: memory stays flat.
        if (!stream.write(`${JSON.stringify(item)}\n`)) await once(stream, 'drain');
        items += 1;
      }
      options.progress?.(`export: ${kind}: ${items} items`);
      cursor = page.next_cursor;
    } while (cursor !== null);
  } catch (error) {
    // A kind not read whole leaves no file behind.
    stream.end();
    await closed;
    await rm(partial, { force: true });
    throw error;
  }
  stream.end();
  await closed;
  await rename(partial, join(options.out, file));
  return { file, as_of: asOf as string, items };
};

/** Exports every kind asked for into `out`, then writes the manifest; answers it. */
export const runExport = async (options: ExportOptions): Promise<Manifest> => {
  await mkdir(options.out, { recursive: true });
  const description = (await getJson(options, '/openapi.json', false)) as { info?: { version?: unknown } };
  const manifest: Manifest = {
    service_version: String(description.info?.version ?? 'unknown'),
    url: options.url,
    kinds: {},
  };
  for (const kind of options.kinds) manifest.kinds[kind] = await exportKind(options, kind);
  await writeFile(join(options.out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
};
