import type { DynamoDBStreamHandler } from 'aws-lambda';
import { configureFromEnvironment } from '../lib/config';
import { dispatchChanges } from '../lib/domain/dispatch';
import { queueDeliveries } from '../lib/storage/delivery-queue';

/**
 * The table's stream in (ban and policy items only: the event source's filter), the feed and the
 * deliveries out. A failure throws, so Lambda hands the batch on again (every step is repeatable)
 * and, after its retries, to the stack's dead-letter queue with an alarm.
 */
export const handler: DynamoDBStreamHandler = async (event) => {
  configureFromEnvironment(process.env);
  await dispatchChanges(event.Records, (refs) => queueDeliveries(refs));
};
