import {
  type CfnElement,
  Duration,
  Names,
  type NestedStack,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EXPORT_JOB_MAX_RECEIVES } from '../../lib/domain/export-job-run';
import { EXPORT_KEEP_DAYS } from '../../lib/domain/export-jobs';
import { EXPORT_BUCKET_ENV, EXPORT_QUEUE_ENV, exportJobFunction } from '../../lib/routes';
import { deadLetterQueue, serviceQueue } from './queues';

/**
 * Export jobs on AWS (lib/domain/export-jobs.ts, docs/import-export.md#export-jobs-large-exports):
 * the start route queues a job → the export queue → the job function, which writes the job's part
 * files into the export bucket and queues the job again when its time runs low → the status route
 * pre-signs a GET per file. Least privilege: the job function may only put objects of the files'
 * name pattern, the status route only read them (to sign), the start route only send to the queue.
 */

/** The job function's time: Lambda's most. It stops between parts with EXPORT_TIME_MARGIN_MS left. */
export const EXPORT_JOB_TIMEOUT = Duration.minutes(15);
/** A part is built in memory (up to ~50 MB of lines, twice over while joined): room, and the CPU that comes with it. */
export const EXPORT_JOB_MEMORY_MB = 1024;
/** What Lambda asks of a queue it polls: six times the function's timeout. */
export const EXPORT_VISIBILITY_TIMEOUT = Duration.minutes(6 * EXPORT_JOB_TIMEOUT.toMinutes());
/**
 * The most jobs run at once (across publishers): each reads the table steadily, so a burst of
 * exports neither takes the account's Lambda concurrency nor the table's capacity from the API.
 */
export const EXPORT_MAX_CONCURRENCY = 5;
/** The key pattern of every export file: `<publisher>/<export_id>/<kind>-<part>.jsonl`. */
export const EXPORT_OBJECT_PATTERN = '*/exp_*/*.jsonl';

export interface ExportJobsProps {
  /** The log bucket the bucket's access logs go to (the console's: one log bucket per stage). */
  readonly logBucket: IBucket;
  /** The stack's way to make a function from its row (service-stack.ts): bundling, logs, table IAM. */
  readonly makeFunction: (
    fn: typeof exportJobFunction,
    options: { readonly timeout: Duration; readonly memorySize: number; readonly scope: Construct },
  ) => LambdaFunction;
}

export class ExportJobs extends Construct {
  /** The files, kept EXPORT_KEEP_DAYS. */
  readonly bucket: Bucket;
  readonly queue: Queue;
  /** Messages the job function crashed on (a timeout, out of memory) more often than it may fail. */
  readonly deadLetters: Queue;
  readonly runner: LambdaFunction;

  constructor(scope: Construct, id: string, { logBucket, makeFunction }: ExportJobsProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      // Each part is written once (or again, whole, on a resume): nothing to version.
      versioned: false,
      lifecycleRules: [
        {
          expiration: Duration.days(EXPORT_KEEP_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      serverAccessLogsBucket: logBucket,
      serverAccessLogsPrefix: 'exports/',
      // Kept like the other buckets when the stack is deleted (docs/deploy.md); its objects expire
      // anyway. In the export jobs' nested stack: its files live a week, they are not the data the
      // parent keeps (and the parent's template stays small).
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.deadLetters = deadLetterQueue(this, 'DeadLetters');
    this.queue = serviceQueue(this, 'Queue', {
      visibilityTimeout: EXPORT_VISIBILITY_TIMEOUT,
      // One receipt more than the runner fails on: at its last, the runner marks the job failed
      // itself; only a run that crashes then (timeout, memory) leaves the message here.
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: EXPORT_JOB_MAX_RECEIVES + 1 },
    });
    this.runner = makeFunction(exportJobFunction, {
      timeout: EXPORT_JOB_TIMEOUT,
      memorySize: EXPORT_JOB_MEMORY_MB,
      scope: this,
    });
    this.runner.addEnvironment(EXPORT_BUCKET_ENV, this.bucket.bucketName);
    this.runner.addEnvironment(EXPORT_QUEUE_ENV, this.queue.queueUrl);
    this.runner.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects(EXPORT_OBJECT_PATTERN)],
      }),
    );
    // It queues its job again when its time runs low.
    this.queue.grantSendMessages(this.runner);
    this.runner.addEventSource(
      new SqsEventSource(this.queue, {
        // A job a run: each may take the whole 15 minutes.
        batchSize: 1,
        maxConcurrency: EXPORT_MAX_CONCURRENCY,
        reportBatchItemFailures: true,
      }),
    );
    Validations.of(this.runner).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${arnAsNagNamesIt(this.bucket, this.runner)}/${EXPORT_OBJECT_PATTERN}]`,
      reason:
        'PutObject only, on the export files’ key pattern <publisher>/<export_id>/<kind>-<part>.jsonl: which publisher and job is data, not known at deploy time',
    });
  }

  /** The start route: it queues jobs. */
  grantQueue(fn: LambdaFunction) {
    fn.addEnvironment(EXPORT_QUEUE_ENV, this.queue.queueUrl);
    this.queue.grantSendMessages(fn);
  }

  /** The status route: it pre-signs GETs of the files, which needs GetObject on them (and nothing else). */
  grantSign(fn: LambdaFunction) {
    fn.addEnvironment(EXPORT_BUCKET_ENV, this.bucket.bucketName);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects(EXPORT_OBJECT_PATTERN)],
      }),
    );
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${arnAsNagNamesIt(this.bucket, fn)}/${EXPORT_OBJECT_PATTERN}]`,
      reason:
        'GetObject only, on the export files’ key pattern, and only to pre-sign a publisher’s download URLs (the route answers only its own job’s files)',
    });
  }
}

/**
 * The bucket's ARN as cdk-nag names it in a finding of `user`'s policy: `<logical id.Arn>` in the
 * bucket's own stack, else the reference CDK makes of it in the user's stack: a parameter of the
 * bucket's ARN, passed on from the output of the bucket's nested stack when it is in one.
 */
const arnAsNagNamesIt = (bucket: Bucket, user: Construct) => {
  const resource = bucket.node.defaultChild as CfnElement;
  const home = Stack.of(bucket);
  if (Stack.of(user) === home) return `<${home.getLogicalId(resource)}.Arn>`;
  const nestedIn = home.nested ? (home as NestedStack).nestedStackResource : undefined;
  return nestedIn
    ? `<referenceto${Names.uniqueId(nestedIn)}Outputs${Names.uniqueId(resource)}Arn>`
    : `<referenceto${Names.uniqueId(resource)}Arn>`;
};
