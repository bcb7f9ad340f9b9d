import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption, type QueueProps } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** The longest SQS keeps a message: what a dead-letter queue holds for an operator to look at. */
export const DEAD_LETTER_RETENTION = Duration.days(14);

/**
 * Every queue's defaults, in one place: SQS-managed encryption at rest (no key to manage or grant)
 * and a queue policy that denies any request not made over TLS. CloudFormation names the queue.
 */
export const serviceQueue = (scope: Construct, id: string, props: QueueProps = {}) =>
  new Queue(scope, id, { ...props, encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true });

/** A queue that holds what failed, for an operator: kept as long as SQS keeps anything. */
export const deadLetterQueue = (scope: Construct, id: string) =>
  serviceQueue(scope, id, { retentionPeriod: DEAD_LETTER_RETENTION });
