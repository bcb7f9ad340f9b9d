import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as clock from '../clock';
import { storage } from './client';

/**
 * The deliveries queue on AWS (SQS): each message names one delivery and when it is due. SQS
 * delays a message by 15 minutes at most, so a later retry is handed on again until it is due
 * (functions/webhook-sender.ts). Module-scope client, reused across invocations; the queue's URL
 * is the bound storage's (./client.ts), read at call time.
 */
const sqs = new SQSClient({ maxAttempts: 3 });

/** What a queue message names: one delivery (lib/domain/deliveries.ts) to attempt. */
export interface DeliveryRef {
  publisher_id: string;
  webhook_id: string;
  sk: string;
}

/** The longest delay SQS takes on one message. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

export interface DeliveryMessage {
  ref: DeliveryRef;
  /**
   * Which attempt of the delivery this message is for (1 = the first): an attempt runs only while
   * the delivery has made exactly `attempt - 1`, so a duplicate or stale message is dropped and a
   * delivery has one chain of attempts.
   */
  attempt: number;
  /** When the attempt is due, in ms since the epoch. */
  due_at: number;
}

export const parseDeliveryMessage = (body: string): DeliveryMessage => {
  const message = JSON.parse(body) as DeliveryMessage;
  const { ref, attempt, due_at } = message ?? {};
  if (
    typeof ref?.publisher_id !== 'string' ||
    typeof ref.webhook_id !== 'string' ||
    typeof ref.sk !== 'string' ||
    !Number.isSafeInteger(attempt) ||
    attempt < 1 ||
    typeof due_at !== 'number'
  ) {
    throw new Error('malformed delivery message');
  }
  return { ref, attempt, due_at };
};

export type LocalDeliveryQueue = (
  refs: readonly DeliveryRef[],
  dueAt: number,
  attempt: number,
) => Promise<void>;

/**
 * `npm start` has no SQS: its queue is the local events thread's timers (infra/local/events.ts),
 * which the local server installs here for the API's handlers that queue a delivery. A global
 * symbol, so bundled handlers (each with its own copy of this module) find it too.
 */
const LOCAL_QUEUE = Symbol.for('device-ban-service.localDeliveryQueue');
export const useLocalDeliveryQueue = (queue: LocalDeliveryQueue | undefined) => {
  (globalThis as { [LOCAL_QUEUE]?: LocalDeliveryQueue })[LOCAL_QUEUE] = queue;
};

/**
 * Queues attempt `attempt` (the first by default) of these deliveries at `dueAt` (now by
 * default), ten messages a request.
 */
export const queueDeliveries = async (
  refs: readonly DeliveryRef[],
  dueAt = clock.now(),
  attempt = 1,
): Promise<void> => {
  const local = (globalThis as { [LOCAL_QUEUE]?: LocalDeliveryQueue })[LOCAL_QUEUE];
  if (local) return local(refs, dueAt, attempt);
  const { queueUrl } = storage().config;
  if (!queueUrl) throw new Error('DELIVERY_QUEUE_URL is not set');
  const delay = Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.ceil((dueAt - clock.now()) / 1000)));
  for (let start = 0; start < refs.length; start += 10) {
    const chunk = refs.slice(start, start + 10);
    const { Failed } = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: chunk.map((ref, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify({ ref, attempt, due_at: dueAt } satisfies DeliveryMessage),
          DelaySeconds: delay,
        })),
      }),
    );
    // The caller fails and its input is handed on again: recording deliveries is repeatable.
    if (Failed && Failed.length > 0) throw new Error(`SQS refused ${Failed.length} delivery messages`);
  }
};
