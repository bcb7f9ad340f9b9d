import type { SQSBatchResponse, SQSHandler } from 'aws-lambda';
import { now } from '../lib/clock';
import { configureFromEnvironment } from '../lib/config';
import { attemptDelivery } from '../lib/domain/deliveries';
import { describeError, log, SENDER_FAILURE_MESSAGE } from '../lib/log';
import { parseDeliveryMessage, queueDeliveries } from '../lib/storage/delivery-queue';

/**
 * One attempt per message, all of a batch at once; the next attempt is queued for when it is due.
 * A message that fails here is logged (the line the stack counts as DeliverySenderFailures) and
 * reported, so SQS hands it on again and, after five receipts, to the dead-letter queue (alarmed).
 */
export const handler: SQSHandler = async (event): Promise<SQSBatchResponse> => {
  configureFromEnvironment(process.env);
  const failures = await Promise.all(
    event.Records.map(async (record) => {
      let ids: Record<string, unknown> = {};
      try {
        const { ref, attempt, due_at } = parseDeliveryMessage(record.body);
        ids = { publisher_id: ref.publisher_id, webhook_id: ref.webhook_id, attempt };
        if (due_at > now() + 1000) {
          await queueDeliveries([ref], due_at, attempt);
          return undefined;
        }
        const outcome = await attemptDelivery(ref, attempt);
        if (!outcome.settled) await queueDeliveries([ref], outcome.retryAt, outcome.attempt);
        return undefined;
      } catch (error) {
        log('error', SENDER_FAILURE_MESSAGE, {
          message_id: record.messageId,
          receive_count: Number(record.attributes?.ApproximateReceiveCount) || undefined,
          ...ids,
          ...describeError(error),
        });
        return { itemIdentifier: record.messageId };
      }
    }),
  );
  return { batchItemFailures: failures.filter((failure) => failure !== undefined) };
};
