import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type ExportKind, exportKinds } from '@kernel/exports';
import * as clock from '../clock';
import type { Actor, ExportJobStarted } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { queueExportJob } from '../storage/export-queue';
import { exportJobKey } from '../storage/keys';
import { TIME_TO_LIVE_ATTRIBUTE } from '../storage/table';
import { eventKeysOf, recordEvent, undoUnrecorded } from './audit';
import { IntegrityError } from './errors';

/**
 * Export jobs (`POST /v1/export-jobs`, docs/import-export.md#export-jobs-large-exports): a large
 * export the service writes itself, kind by kind, into part files of JSON lines, for the caller
 * to download. This module starts one and reads its item; the job's runner is
 * ./export-job-run.ts, the status with its download URLs ./export-job-status.ts (the only two that
 * touch the files: the start route's bundle carries no S3 client).
 *
 * The job item (`EXPORTJOB#<publisher>` / `JOB#<export_id>`) holds the job's fixed `as_of`, its
 * state, and its checkpoint: the kind and cursor the next part starts at, that part's number, and
 * `seq`, how many parts are checkpointed (each checkpoint is conditional on it, so two runners of
 * one job never both move it). Files and item are kept EXPORT_KEEP_DAYS.
 */

/** How long a job's item and files are kept: the bucket's lifecycle rule, and the item's time to live. */
export const EXPORT_KEEP_DAYS = 7;

/** A job as its item holds it. */
export interface StoredExportJob {
  publisher_id: string;
  export_id: string;
  status: 'running' | 'done' | 'failed';
  kinds: ExportKind[];
  as_of: string;
  created_at: string;
  created_by: Actor;
  finished_at?: string;
  error?: string;
  /** The checkpoint: the index in `kinds` of the next part's kind, its cursor (null: the kind's start), its number. */
  next_kind: number;
  next_cursor: string | null;
  next_part: number;
  /** Parts checkpointed so far (the condition of the next checkpoint). */
  seq: number;
  files: Array<{ kind: ExportKind; part: number; items: number; bytes: number }>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The job, read consistently; undefined if there is none of that id for the publisher. */
export const readExportJob = async (
  publisherId: string,
  exportId: string,
): Promise<StoredExportJob | undefined> => {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName(),
      Key: exportJobKey(publisherId, exportId),
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  if (
    Item.publisher_id !== publisherId ||
    typeof Item.status !== 'string' ||
    !Array.isArray(Item.kinds) ||
    !Array.isArray(Item.files) ||
    typeof Item.seq !== 'number'
  )
    throw new IntegrityError(`export job ${exportId} is not an export job item`);
  return Item as unknown as StoredExportJob;
};

/**
 * Starts a job: its item (`as_of` = now, fixed for every page it reads), its `data.exported`
 * event (kind `job`), then its first message. If the event or the queue fails, the item and the
 * event are deleted again: a failed start leaves nothing (and no runner).
 */
export const startExportJob = async (
  publisherId: string,
  kinds: readonly ExportKind[] | undefined,
  actor: Actor,
): Promise<ExportJobStarted> => {
  const now = clock.now();
  const createdAt = iso(now);
  // 16 random bytes: 22 characters of base64url, an id no two jobs share (hence no condition).
  const exportId = `exp_${randomBytes(16).toString('base64url')}`;
  const chosen = [...(kinds ?? exportKinds)];
  const key = exportJobKey(publisherId, exportId);
  const job: StoredExportJob = {
    publisher_id: publisherId,
    export_id: exportId,
    status: 'running',
    kinds: chosen,
    as_of: createdAt,
    created_at: createdAt,
    created_by: actor,
    next_kind: 0,
    next_cursor: null,
    next_part: 1,
    seq: 0,
    files: [],
  };
  await dynamo.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...key,
        ...job,
        [TIME_TO_LIVE_ATTRIBUTE]: Math.floor(now / 1000) + EXPORT_KEEP_DAYS * 86_400,
      },
    }),
  );
  const subject = `job:${exportId}`;
  try {
    await recordEvent(publisherId, subject, createdAt, actor, {
      type: 'data.exported',
      kind: 'job',
      as_of: createdAt,
      export_id: exportId,
      kinds: chosen,
    });
    await queueExportJob({ publisher_id: publisherId, export_id: exportId });
  } catch (error) {
    await undoUnrecorded(
      [key, ...eventKeysOf(publisherId, 'data.exported', subject, createdAt, actor)],
      `export job ${exportId}`,
    );
    throw error;
  }
  return { export_id: exportId, status: 'running', kinds: chosen, as_of: createdAt, created_at: createdAt };
};
