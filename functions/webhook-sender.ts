import type { SQSBatchResponse, SQSHandler } from 'aws-lambda';
import { attemptDelivery } from '../lib/domain/deliveries';
import { parseDeliveryMessage, queueDeliveries } from '../lib/storage/delivery-queue';

/**
 * One attempt per message, all of a batch at once; a retry is queued for when it is due. A
 * message that fails here is reported, so SQS hands it on again and, after five receipts, to the
 * dead-letter queue (alarmed).
 */
export const handler: SQSHandler = async (event): Promise<SQSBatchResponse> => {
  const failures = await Promise.all(
    event.Records.map(async (record) => {
      try {
        const { ref, due_at } = parseDeliveryMessage(record.body);
        if (due_at > Date.now() + 1000) {
          await queueDeliveries([ref], due_at);
          return undefined;
        }
        const outcome = await attemptDelivery(ref);
        if (!outcome.settled) await queueDeliveries([ref], outcome.retryAt);
        return undefined;
      } catch {
        return { itemIdentifier: record.messageId };
      }
    }),
  );
  return { batchItemFailures: failures.filter((failure) => failure !== undefined) };
};
