import * as clock from '../clock';
import type { ExportJob } from '../model/responses';
import { exportFileName, exportFileUrl } from '../storage/export-files';
import { NotFoundError } from './errors';
import { readExportJob } from './export-jobs';

/**
 * `GET /v1/export-jobs/{export_id}`: the publisher's own job (another's id is not found), its
 * files so far, and once it is done a download URL per file, good for 15 minutes
 * (lib/storage/export-files.ts: pre-signed by the SDK deployed, signed by the local server locally).
 */
export const getExportJob = async (publisherId: string, exportId: string): Promise<ExportJob> => {
  const job = await readExportJob(publisherId, exportId);
  if (!job) throw new NotFoundError(`no export job ${exportId}`);
  const now = clock.now();
  const done = job.status === 'done';
  const files = await Promise.all(
    job.files.map(async (file) => {
      const signed = done
        ? await exportFileUrl(exportFileName(publisherId, exportId, file.kind, file.part), now)
        : undefined;
      return {
        kind: file.kind,
        part: file.part,
        items: file.items,
        bytes: file.bytes,
        url: signed?.url ?? null,
        url_expires_at: signed ? new Date(signed.expiresAt).toISOString() : null,
      };
    }),
  );
  return {
    export_id: job.export_id,
    status: job.status,
    kinds: job.kinds,
    as_of: job.as_of,
    created_at: job.created_at,
    finished_at: job.finished_at ?? null,
    files,
    ...(job.status === 'failed'
      ? { error: { code: 'export_failed' as const, message: job.error ?? 'the export failed' } }
      : {}),
  };
};
