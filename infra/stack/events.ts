import { Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import {
  FilterCriteria,
  FilterRule,
  type Function as LambdaFunction,
  StartingPosition,
} from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { changeSources } from '../../lib/domain/change-sources';
import { DELIVERY_QUEUE_ENV, eventsDispatcherFunction, webhookSenderFunction } from '../../lib/routes';
import { TABLE_KEYS } from '../../lib/storage/table';
import { deadLetterQueue, serviceQueue } from './queues';

/**
 * Events and webhooks on AWS: the table's stream (the outbox) → the dispatcher, which appends the
 * events to the feed and records their deliveries → the deliveries queue → the sender, one HTTPS
 * attempt per message. What either side gives up on lands in a queue of its own, alarmed
 * (alarms.ts) and described for operators in docs/deploy.md.
 */

/**
 * The stream records the dispatcher is invoked for: one Lambda filter per item kind whose changes
 * are events (lib/domain/change-sources.ts), its partition key's prefix AND its sort key's prefix.
 * Every other change (audit events, keys, the feed and deliveries the dispatcher itself writes)
 * is dropped by Lambda before it costs an invocation.
 */
/**
 * The most sender instances the queue's event source runs at once (10 × 10 messages in flight):
 * its share of the account's Lambda concurrency (1,000 by default) stays small, whatever the burst.
 */
export const SENDER_MAX_CONCURRENCY = 10;

export const changeStreamFilters = (
  sources: readonly { pkPrefix: string; skPrefix: string }[] = changeSources,
) =>
  sources.map(({ pkPrefix, skPrefix }) =>
    FilterCriteria.filter({
      dynamodb: {
        Keys: {
          [TABLE_KEYS.partitionKey]: { S: FilterRule.beginsWith(pkPrefix) },
          [TABLE_KEYS.sortKey]: { S: FilterRule.beginsWith(skPrefix) },
        },
      },
    }),
  );

/** A batch of up to 100 records: a few Queries and writes per event, well inside a minute. */
export const DISPATCHER_TIMEOUT = Duration.seconds(60);
/** Ten attempts at once, each with its 10 s HTTP timeout (lib/outbound), plus the table and queue calls. */
export const SENDER_TIMEOUT = Duration.seconds(30);
/** What Lambda asks of a queue it polls: six times the function's timeout, room for its retries. */
export const DELIVERY_VISIBILITY_TIMEOUT = Duration.seconds(6 * SENDER_TIMEOUT.toSeconds());
/** A message the sender fails on (not a failed delivery: a crash, or storage down) five times. */
export const DELIVERY_MAX_RECEIVES = 5;
/** A batch the dispatcher fails on is retried (halved each time) this often, then handed to the queue. */
export const STREAM_RETRY_ATTEMPTS = 10;

type EventsFunction = typeof eventsDispatcherFunction | typeof webhookSenderFunction;

export interface EventsProps {
  /** The table, with its stream (NEW_AND_OLD_IMAGES: the dispatcher compares before and after). */
  readonly table: ITable;
  /** The stack's way to make a function from its row (service-stack.ts): bundling, logs, table IAM. */
  readonly makeFunction: (
    fn: EventsFunction,
    options: { readonly timeout: Duration; readonly scope: Construct },
  ) => LambdaFunction;
}

export class Events extends Construct {
  readonly dispatcher: LambdaFunction;
  readonly sender: LambdaFunction;
  readonly deliveries: Queue;
  /** Messages the sender failed on DELIVERY_MAX_RECEIVES times. */
  readonly deliveryDeadLetters: Queue;
  /** The dispatcher's stream mapping's on-failure destination: the shard ranges it gave up on. */
  readonly streamFailures: Queue;

  constructor(scope: Construct, id: string, { table, makeFunction }: EventsProps) {
    super(scope, id);

    this.deliveryDeadLetters = deadLetterQueue(this, 'DeliveryDeadLetters');
    this.deliveries = serviceQueue(this, 'Deliveries', {
      visibilityTimeout: DELIVERY_VISIBILITY_TIMEOUT,
      deadLetterQueue: { queue: this.deliveryDeadLetters, maxReceiveCount: DELIVERY_MAX_RECEIVES },
    });
    this.streamFailures = deadLetterQueue(this, 'StreamFailures');
    Validations.of(this.streamFailures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is itself a dead-letter queue (the on-failure destination of the dispatcher's stream mapping, which cdk-nag does not recognise as one); nothing consumes it but an operator",
    });

    this.dispatcher = makeFunction(eventsDispatcherFunction, { timeout: DISPATCHER_TIMEOUT, scope: this });
    this.sender = makeFunction(webhookSenderFunction, { timeout: SENDER_TIMEOUT, scope: this });
    // Both hand deliveries to the queue (lib/storage/delivery-queue.ts); only the sender consumes
    // it, through its event source.
    for (const fn of [this.dispatcher, this.sender]) {
      fn.addEnvironment(DELIVERY_QUEUE_ENV, this.deliveries.queueUrl);
      this.deliveries.grantSendMessages(fn);
    }

    this.dispatcher.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        // Latency over batching: a change reaches the feed and the webhooks as soon as it is read.
        maxBatchingWindow: Duration.seconds(0),
        // One batch at a time per shard: a ban's created and revoked arrive in order.
        parallelizationFactor: 1,
        // The handler throws on any failure (each step is repeatable): halve the batch to isolate
        // a bad record, retry, then give its shard range to the failure queue and go on.
        bisectBatchOnError: true,
        retryAttempts: STREAM_RETRY_ATTEMPTS,
        reportBatchItemFailures: false,
        filters: changeStreamFilters(),
        onFailure: new SqsDlq(this.streamFailures),
      }),
    );
    Validations.of(this.dispatcher).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "dynamodb:ListStreams, which Lambda's stream polling needs and DynamoEventSource grants, takes no resource ARN; the stream reads are on this table's stream ARN only",
    });
    this.sender.addEventSource(
      new SqsEventSource(this.deliveries, {
        batchSize: 10,
        // A burst of deliveries must not take the account's Lambda concurrency from the API.
        maxConcurrency: SENDER_MAX_CONCURRENCY,
        maxBatchingWindow: Duration.seconds(0),
        // The handler reports the messages it failed on; the others are done.
        reportBatchItemFailures: true,
      }),
    );
  }
}
