import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { settings } from '../config';

/**
 * The export jobs' queue: each message names one job to carry on from its checkpoint
 * (lib/domain/export-job-run.ts). Deployed: the stack's export queue (EXPORT_QUEUE_URL), which
 * runs the job function; `npm start`: the local server's runner (infra/local/export-jobs.ts),
 * installed here on a global symbol, as lib/storage/delivery-queue.ts's local queue.
 */

/** What a message names: a job. Its state, and where it goes on, is the job item's. */
export interface ExportJobRef {
  publisher_id: string;
  export_id: string;
}

export const parseExportJobMessage = (body: string): ExportJobRef => {
  const message = JSON.parse(body) as Partial<ExportJobRef> | null;
  if (typeof message?.publisher_id !== 'string' || typeof message.export_id !== 'string')
    throw new Error('malformed export job message');
  return { publisher_id: message.publisher_id, export_id: message.export_id };
};

export type LocalExportQueue = (ref: ExportJobRef) => void;

const LOCAL_QUEUE = Symbol.for('device-ban-service.localExportQueue');
export const useLocalExportQueue = (queue: LocalExportQueue | undefined) => {
  (globalThis as { [LOCAL_QUEUE]?: LocalExportQueue })[LOCAL_QUEUE] = queue;
};

let sqs: SQSClient | undefined;

/** Hands the job to its runner: it starts (or goes on) from the job item's checkpoint. */
export const queueExportJob = async (ref: ExportJobRef): Promise<void> => {
  const local = (globalThis as { [LOCAL_QUEUE]?: LocalExportQueue })[LOCAL_QUEUE];
  if (local) return local(ref);
  const { queueUrl } = settings().exportJobs;
  if (!queueUrl) throw new Error('EXPORT_QUEUE_URL is not set');
  sqs ??= new SQSClient({ maxAttempts: 3 });
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(ref) }));
};
