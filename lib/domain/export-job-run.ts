import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { EXPORT_PAGE_MAX } from '@kernel/exports';
import * as clock from '../clock';
import { settings } from '../config';
import { describeError, EXPORT_JOB_FAILURE_MESSAGE, log } from '../log';
import { dynamo, tableName } from '../storage/client';
import { exportFileName, putExportFile } from '../storage/export-files';
import { type ExportJobRef, parseExportJobMessage, queueExportJob } from '../storage/export-queue';
import { isConditionFailure } from '../storage/failures';
import { exportJobKey } from '../storage/keys';
import { readExportJob } from './export-jobs';
import { exportCursor, exportPage } from './exports';

/**
 * The export job's runner (functions/export-job.ts deployed, infra/local/export-jobs.ts locally):
 * it carries a job on from its checkpoint, part by part. A part is the next items of the kind,
 * read in pages of ./exports.ts `exportPage` at the job's fixed `as_of`, up to the part's size
 * (settings' EXPORT_PART_ITEMS lines, default 100,000, or EXPORT_PART_MAX_BYTES), written whole in
 * one put, then checkpointed: the cursor the next part starts at and the file, appended to the
 * job's list, in one conditional update. So a runner that dies (or a store that fails) between two
 * checkpoints leaves at most one part written and not checkpointed, which the next run writes
 * again, whole, from the same cursor: no line is lost or written twice, and the job's list names
 * each part once. When the time left runs low, the runner stops between parts and queues the job
 * again, so an export of any size finishes in as many runs as it takes.
 */

/** A part's size in bytes, at most about this (a page's items more): one PutObject each. */
export const EXPORT_PART_MAX_BYTES = 50 * 1024 * 1024;
/**
 * The time a run keeps in hand: no new page is read, and no new part begun, with less than this
 * left, so the part's put and checkpoint finish well before the function's deadline.
 */
export const EXPORT_TIME_MARGIN_MS = 90_000;
/** A message the runner failed on this many times marks its job failed (else it is handed on again). */
export const EXPORT_JOB_MAX_RECEIVES = 5;

/** What a run did: the job is no longer running, it must be queued again, or another runner moved it on. */
export type ExportRunOutcome = 'finished' | 'continue' | 'taken';

/**
 * Runs the job from its checkpoint until it is done, or until `remainingMs()` (the time this run
 * has left) is under EXPORT_TIME_MARGIN_MS between two parts. At least one part is written per
 * run, so every run moves the job on.
 */
export const runExportJob = async (
  ref: ExportJobRef,
  remainingMs: () => number,
): Promise<ExportRunOutcome> => {
  const { publisher_id: publisherId, export_id: exportId } = ref;
  const job = await readExportJob(publisherId, exportId);
  // Gone (its start was undone, or it expired) or ended: nothing to do.
  if (job?.status !== 'running') return 'finished';
  const partItems = settings().exportJobs.partItems;
  let { next_kind: kindIndex, next_cursor: cursor, next_part: part, seq } = job;
  let first = true;
  while (kindIndex < job.kinds.length) {
    if (!first && remainingMs() < EXPORT_TIME_MARGIN_MS) return 'continue';
    first = false;
    const kind = job.kinds[kindIndex] as (typeof job.kinds)[number];
    const lines: string[] = [];
    let bytes = 0;
    let next: string | null = cursor ?? exportCursor(publisherId, kind, { as_of: job.as_of, after: '' });
    do {
      const page = await exportPage(
        publisherId,
        kind,
        next,
        Math.min(EXPORT_PAGE_MAX, partItems - lines.length),
        job.created_by,
      );
      for (const item of page.items) {
        const line = `${JSON.stringify(item)}\n`;
        lines.push(line);
        bytes += Buffer.byteLength(line);
      }
      next = page.next_cursor;
    } while (
      next !== null &&
      lines.length < partItems &&
      bytes < EXPORT_PART_MAX_BYTES &&
      remainingMs() >= EXPORT_TIME_MARGIN_MS
    );
    await putExportFile(exportFileName(publisherId, exportId, kind, part), lines.join(''));
    const after =
      next === null
        ? { kindIndex: kindIndex + 1, cursor: null, part: 1 }
        : { kindIndex, cursor: next, part: part + 1 };
    const finished = after.kindIndex >= job.kinds.length;
    try {
      await dynamo.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: exportJobKey(publisherId, exportId),
          UpdateExpression: `SET next_kind = :kind, next_cursor = :cursor, next_part = :part, seq = :next, files = list_append(files, :file)${finished ? ', #status = :done, finished_at = :at' : ''}`,
          ConditionExpression: 'seq = :seq AND #status = :running',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':kind': after.kindIndex,
            ':cursor': after.cursor,
            ':part': after.part,
            ':seq': seq,
            ':next': seq + 1,
            ':file': [{ kind, part, items: lines.length, bytes }],
            ':running': 'running',
            ...(finished ? { ':done': 'done', ':at': new Date(clock.now()).toISOString() } : {}),
          },
        }),
      );
    } catch (error) {
      // Another run of the job checkpointed this part first (a message handed on twice): it goes on.
      if (isConditionFailure(error)) return 'taken';
      throw error;
    }
    ({ kindIndex, cursor, part } = after);
    seq += 1;
  }
  return 'finished';
};

/** Marks a running job failed, with a message for its caller (the details are in the log). */
export const failExportJob = async (ref: ExportJobRef, message: string): Promise<void> => {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: exportJobKey(ref.publisher_id, ref.export_id),
        UpdateExpression: 'SET #status = :failed, finished_at = :at, #error = :message',
        ConditionExpression: '#status = :running',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':running': 'running',
          ':at': new Date(clock.now()).toISOString(),
          ':message': message,
        },
      }),
    );
  } catch (error) {
    // Gone, or ended meanwhile: nothing to mark.
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * One queue message (`receiveCount`: its receipts so far, 1 the first): the job is run on, and
 * queued again when its time ran low. A failure is thrown, so the message is handed on again and
 * the job resumes from its checkpoint, until its EXPORT_JOB_MAX_RECEIVES-th receipt, which marks
 * the job failed instead.
 */
export const handleExportJobMessage = async (
  body: string,
  receiveCount: number,
  remainingMs: () => number,
): Promise<void> => {
  const ref = parseExportJobMessage(body);
  try {
    if ((await runExportJob(ref, remainingMs)) === 'continue') await queueExportJob(ref);
  } catch (error) {
    log('error', EXPORT_JOB_FAILURE_MESSAGE, {
      ...ref,
      receive_count: receiveCount,
      ...describeError(error),
    });
    if (receiveCount < EXPORT_JOB_MAX_RECEIVES) throw error;
    await failExportJob(
      ref,
      `the export could not be written (${EXPORT_JOB_MAX_RECEIVES} attempts failed); start another`,
    );
  }
};
