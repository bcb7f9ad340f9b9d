import type { Context as LambdaContext, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { configureFromEnvironment } from '../lib/config';
import { handleExportJobMessage } from '../lib/domain/export-job-run';

/** The export jobs' queue: one job a message, carried on from its checkpoint (lib/domain/export-job-run.ts). */
export const handler = async (event: SQSEvent, context: LambdaContext): Promise<SQSBatchResponse> => {
  configureFromEnvironment(process.env);
  const failures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    const receipts = Number(record.attributes?.ApproximateReceiveCount) || 1;
    await handleExportJobMessage(record.body, receipts, () => context.getRemainingTimeInMillis()).catch(() =>
      failures.push({ itemIdentifier: record.messageId }),
    );
  }
  return { batchItemFailures: failures };
};
