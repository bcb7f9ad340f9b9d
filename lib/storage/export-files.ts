import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { settings } from '../config';

/**
 * Where export jobs put their files (lib/domain/export-job-run.ts) and how a caller downloads one
 * (lib/domain/export-job-status.ts). Deployed: the stack's export bucket (EXPORT_BUCKET), one
 * PutObject a file, and a GET URL pre-signed by the SDK for EXPORT_URL_SECONDS. `npm start`: the
 * local server's files and its own signed URLs (infra/local/export-files.ts), installed here.
 *
 * A file's name is `<publisher>/<export_id>/<kind>-<part>.jsonl`: the object key in the bucket,
 * the path under the local server's exports folder.
 */

/** How long a download URL works: 15 minutes, then ask the job's status again for a new one. */
export const EXPORT_URL_SECONDS = 15 * 60;

/** The file of `kind`'s part `part` of a job. */
export const exportFileName = (publisherId: string, exportId: string, kind: string, part: number) =>
  `${publisherId}/${exportId}/${kind}-${String(part).padStart(5, '0')}.jsonl`;

/** `npm start`'s stand-in for the bucket (infra/local/export-files.ts). */
export interface LocalExportFiles {
  put(name: string, body: string): Promise<void>;
  /** A URL of the local server that serves the file until `expiresAt` (ms since the epoch). */
  url(name: string, expiresAt: number): string;
}

/** A global symbol, so the bundled handlers (each with its own copy of this module) find it too. */
const LOCAL_FILES = Symbol.for('device-ban-service.localExportFiles');
export const useLocalExportFiles = (files: LocalExportFiles | undefined) => {
  (globalThis as { [LOCAL_FILES]?: LocalExportFiles })[LOCAL_FILES] = files;
};
const localFiles = () => (globalThis as { [LOCAL_FILES]?: LocalExportFiles })[LOCAL_FILES];

/** Made on first use and kept, so Lambda reuses its connections across invocations. */
let s3: S3Client | undefined;
const client = () => {
  s3 ??= new S3Client({ maxAttempts: 3 });
  return s3;
};

const bucket = () => {
  const name = settings().exportJobs.bucket;
  if (!name) throw new Error('EXPORT_BUCKET is not set');
  return name;
};

/** Writes one file whole (a part written again replaces the one before). */
export const putExportFile = async (name: string, body: string): Promise<void> => {
  const local = localFiles();
  if (local) return local.put(name, body);
  await client().send(
    new PutObjectCommand({
      Bucket: bucket(),
      Key: name,
      Body: body,
      ContentType: 'application/jsonl; charset=utf-8',
    }),
  );
};

/** A URL that downloads the file, without a key, until `expiresAt` (EXPORT_URL_SECONDS from `now`). */
export const exportFileUrl = async (
  name: string,
  now: number,
): Promise<{ url: string; expiresAt: number }> => {
  const expiresAt = now + EXPORT_URL_SECONDS * 1000;
  const local = localFiles();
  if (local) return { url: local.url(name, expiresAt), expiresAt };
  const url = await getSignedUrl(client(), new GetObjectCommand({ Bucket: bucket(), Key: name }), {
    expiresIn: EXPORT_URL_SECONDS,
  });
  return { url, expiresAt };
};
