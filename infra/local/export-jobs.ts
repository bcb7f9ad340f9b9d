import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as clock from '../../lib/clock';
import { ApiError, errorResponse } from '../../lib/http/errors';
import { describeError, log } from '../../lib/log';
import { EXPORT_ID_PATTERN } from '../../lib/model/exports';
import { dynamo, tableName } from '../../lib/storage/client';
import { useLocalExportFiles } from '../../lib/storage/export-files';
import { type ExportJobRef, useLocalExportQueue } from '../../lib/storage/export-queue';
import { partitions } from '../../lib/storage/keys';

/**
 * Export jobs under `npm start` (docs/import-export.md#export-jobs-large-exports): what the stack's
 * bucket and queue do deployed, in this process.
 *
 * - Files: under `<DATA_DIR>/exports/<publisher>/<export_id>/<kind>-<part>.jsonl` (a folder of its
 *   own in the system's temp folder for `DATA_DIR=:memory:`, deleted on close).
 * - Download URLs: `<server>/export-files/<publisher>/<export_id>/<file>?expires=<ms>&signature=<hex>`,
 *   the HMAC-SHA256 of the file's name and the expiry under a secret made at each start (so a URL
 *   lasts at most as long as the process, or its 15 minutes). An expired, altered or foreign URL is
 *   refused (403); a file gone is a 404.
 * - The queue: jobs run here, one message at a time, each handed to the export job function (its
 *   source, or its bundle with `bundles`) as an SQS event, with the receive count SQS would give: a
 *   message it fails on is handed on again after a short wait, as SQS does after its visibility
 *   timeout, until the function marks the job failed at its last receipt. The queue dies with the
 *   process, so a start over a local store queues again the jobs a stopped server left running.
 */

/** The path the download URLs take on the local server. */
export const EXPORT_FILES_PATH = '/export-files/';

/** The time a run is told it has (a Lambda's `getRemainingTimeInMillis()`), by default the function's 15 minutes. */
export const LOCAL_RUN_MS = 15 * 60 * 1000;
/** The wait before a failed message is handed on again (deployed: the queue's visibility timeout). */
const RETRY_MS = 200;

export type ExportJobHandler = (
  event: SQSEvent,
  context: { getRemainingTimeInMillis(): number },
) => Promise<SQSBatchResponse>;

export interface LocalExportJobsOptions {
  /** The store's folder (exports go in its `exports/`); none: a temp folder of its own. */
  dataDir: string | undefined;
  /** The local server's address, as URLs name it. */
  baseUrl: () => string;
  /** The export job function's handler. */
  handler: ExportJobHandler;
  /** How long each run is told it has (tests shorten it, to make the job queue itself again between parts). */
  runMs?: number;
  /**
   * Whether to queue again the jobs a previous run of the server left running (its queue died
   * with it; SQS keeps a deployed one's): over a local store, never over a table on AWS, which
   * this would scan whole.
   */
  resume?: boolean;
}

export interface LocalExportJobs {
  /** Where the files are. */
  readonly dir: string;
  /** Resolves once no job is queued, running or waiting for a retry. */
  drain(): Promise<void>;
  /** Serves a download URL's request; false if the request is not one. */
  listener(req: IncomingMessage, res: ServerResponse): boolean;
  close(): Promise<void>;
}

/** The characters of a name segment: publisher ids, export ids and file names never hold others. */
const SEGMENT = /^[A-Za-z0-9._:-]{1,128}$/;
const FILE = /^[a-z]+-\d{5}\.jsonl$/;

export const startLocalExportJobs = async (options: LocalExportJobsOptions): Promise<LocalExportJobs> => {
  const temp = options.dataDir === undefined;
  const dir = temp
    ? await mkdtemp(join(tmpdir(), 'ban-exports-'))
    : join(options.dataDir as string, 'exports');
  await mkdir(dir, { recursive: true });
  const secret = randomBytes(32);
  const sign = (name: string, expires: number) =>
    createHmac('sha256', secret).update(`${name}\n${expires}`).digest('hex');

  useLocalExportFiles({
    put: async (name, body) => {
      const path = join(dir, ...name.split('/'));
      await mkdir(dirname(path), { recursive: true });
      // Written beside, then renamed over: a reader never sees half a part.
      const partial = `${path}.${randomUUID()}.partial`;
      await writeFile(partial, body);
      await rename(partial, path);
    },
    url: (name, expiresAt) =>
      `${options.baseUrl()}${EXPORT_FILES_PATH}${name}?expires=${expiresAt}&signature=${sign(name, expiresAt)}`,
  });

  // The queue: messages in order, one run at a time (a job's runs never overlap here).
  const queue: Array<{ ref: ExportJobRef; receipts: number }> = [];
  let running = false;
  let waiting = 0;
  let closed = false;
  let idle: Array<() => void> = [];
  let messages = 0;
  const settleIfIdle = () => {
    if (running || waiting > 0 || queue.length > 0) return;
    const done = idle;
    idle = [];
    for (const resolve of done) resolve();
  };
  const pump = async () => {
    if (running || closed) return;
    const next = queue.shift();
    if (!next) return settleIfIdle();
    running = true;
    messages += 1;
    const started = Date.now();
    const runMs = options.runMs ?? LOCAL_RUN_MS;
    let failed = false;
    try {
      const { batchItemFailures } = await options.handler(
        {
          Records: [
            {
              messageId: `local-export-${messages}`,
              body: JSON.stringify(next.ref),
              attributes: { ApproximateReceiveCount: String(next.receipts) },
            } as SQSEvent['Records'][number],
          ],
        },
        { getRemainingTimeInMillis: () => runMs - (Date.now() - started) },
      );
      failed = batchItemFailures.length > 0;
    } catch (error) {
      log('error', 'local export job run failed', { ...next.ref, ...describeError(error) });
      failed = true;
    }
    running = false;
    if (failed && !closed) {
      waiting += 1;
      setTimeout(() => {
        waiting -= 1;
        queue.push({ ref: next.ref, receipts: next.receipts + 1 });
        void pump();
      }, RETRY_MS).unref();
    }
    setImmediate(() => void pump());
  };
  useLocalExportQueue((ref) => {
    queue.push({ ref, receipts: 1 });
    setImmediate(() => void pump());
  });
  if (options.resume) {
    // In the background (a large store takes a while to scan), counted as waiting, so drain()
    // resolves after the jobs it finds have run.
    waiting += 1;
    void (async () => {
      try {
        let start: Record<string, unknown> | undefined;
        do {
          const page: ScanCommandOutput = await dynamo.send(
            new ScanCommand({
              TableName: tableName(),
              FilterExpression: 'begins_with(pk, :jobs) AND #status = :running',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':jobs': partitions.exportJob, ':running': 'running' },
              ConsistentRead: true,
              ...(start ? { ExclusiveStartKey: start } : {}),
            }),
          );
          for (const item of page.Items ?? [])
            queue.push({
              ref: { publisher_id: String(item.publisher_id), export_id: String(item.export_id) },
              receipts: 1,
            });
          start = page.LastEvaluatedKey;
        } while (start && !closed);
      } catch (error) {
        log('error', 'local export jobs: the running jobs could not be read', describeError(error));
      } finally {
        waiting -= 1;
        setImmediate(() => void pump());
      }
    })();
  }

  const refuse = (res: ServerResponse, status: 403 | 404, message: string) => {
    const error = new ApiError(status === 403 ? 'forbidden' : 'not_found', message);
    const answer = errorResponse(error, randomUUID());
    res.writeHead(answer.statusCode, answer.headers);
    res.end(answer.body);
  };

  const listener = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = new URL(req.url ?? '/', 'http://local');
    if (!url.pathname.startsWith(EXPORT_FILES_PATH)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' });
      res.end();
      return true;
    }
    const segments = url.pathname.slice(EXPORT_FILES_PATH.length).split('/');
    const [publisher, exportId, file] = segments;
    const expires = Number(url.searchParams.get('expires'));
    const signature = url.searchParams.get('signature') ?? '';
    if (
      segments.length !== 3 ||
      !publisher ||
      !SEGMENT.test(publisher) ||
      !exportId ||
      !EXPORT_ID_PATTERN.test(exportId) ||
      !file ||
      !FILE.test(file) ||
      !Number.isSafeInteger(expires) ||
      !/^[0-9a-f]{64}$/.test(signature)
    ) {
      refuse(res, 403, 'not a download URL of an export job');
      return true;
    }
    const name = `${publisher}/${exportId}/${file}`;
    if (!timingSafeEqual(Buffer.from(sign(name, expires), 'hex'), Buffer.from(signature, 'hex'))) {
      refuse(res, 403, 'the URL was altered, or signed by another run of the server');
      return true;
    }
    if (clock.now() >= expires) {
      refuse(res, 403, 'the URL has expired: ask the job for a new one');
      return true;
    }
    const path = join(dir, publisher, exportId, file);
    stat(path).then(
      (found) => {
        res.writeHead(200, {
          'Content-Type': 'application/jsonl; charset=utf-8',
          'Content-Length': String(found.size),
          'Cache-Control': 'no-store',
        });
        if (req.method === 'HEAD') res.end();
        else createReadStream(path).pipe(res);
      },
      () => refuse(res, 404, 'the file is gone'),
    );
    return true;
  };

  return {
    dir,
    drain: () =>
      new Promise<void>((resolve) => {
        idle.push(resolve);
        settleIfIdle();
      }),
    listener,
    close: async () => {
      closed = true;
      useLocalExportQueue(undefined);
      useLocalExportFiles(undefined);
      while (running) await new Promise((resolve) => setTimeout(resolve, 10));
      const done = idle;
      idle = [];
      for (const resolve of done) resolve();
      if (temp) await rm(dir, { recursive: true, force: true });
    },
  };
};
