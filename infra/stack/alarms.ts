import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, type IMetric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { type ITable, Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { AUTHORIZER_FAILURE_MESSAGE } from '../../lib/log';

/**
 * The alarms an operator needs to know the service is hurting: the API answering 5xx, a function
 * failing or being throttled, the authorizer unable to read keys, DynamoDB throttling, and events
 * that stall or are given up on (the dispatcher falling behind the stream, a message in either
 * failure queue). All notify one SNS topic (a stack output) that operators subscribe to. Missing
 * data is "not breaching": no traffic is not an outage.
 *
 * Not the authorizer's Errors metric: a refused key is thrown as an error ("Unauthorized" is how a
 * token authorizer says 401), so anyone sending `Bearer x` would page. Its real trouble, storage
 * failing, is the log line lib/http/authorizer.ts writes for it, counted by a metric filter.
 */

const PERIOD = Duration.minutes(5);
/** Handlers turn their own errors into responses, so any Lambda error is a crash or a timeout. */
const LAMBDA_ERROR_THRESHOLD = 1;
/** A few 5xx in five minutes: more than a one-off, well before a whole publisher notices. */
const API_5XX_THRESHOLD = 5;
/**
 * The dispatcher's oldest unread change, in ms: past a minute, the feed and the webhooks are late
 * (the stream keeps records 24 hours, so a dispatcher stuck that long loses them).
 */
export const ITERATOR_AGE_THRESHOLD_MS = 60_000;

/** The operations our code sends, for DynamoDB's per-operation ThrottledRequests metric. */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.QUERY,
];

export const AUTHORIZER_FAILURE_METRIC = { namespace: 'DeviceBans', name: 'AuthorizerStorageFailures' };

export interface AlarmTargets {
  readonly api: RestApi;
  /**
   * Every function but the authorizer: route handlers answer their own errors, the sender reports
   * failed messages, and the dispatcher throws only when a batch must be retried, so any Errors is
   * a crash, a timeout, or (the dispatcher) storage or the queue failing.
   */
  readonly functions: ReadonlyMap<string, IFunction>;
  readonly authorizer: { readonly function: IFunction; readonly logGroup: ILogGroup };
  readonly table: ITable;
  readonly topic: ITopic;
  /** Events and webhooks (events.ts): the stream's function and the two queues of what failed. */
  readonly events: {
    readonly dispatcher: IFunction;
    readonly deliveryDeadLetters: IQueue;
    readonly streamFailures: IQueue;
  };
}

const alarm = (
  scope: Construct,
  id: string,
  metric: IMetric,
  threshold: number,
  description: string,
  comparisonOperator = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
) =>
  new Alarm(scope, id, {
    metric,
    threshold,
    evaluationPeriods: 1,
    comparisonOperator,
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription: description,
  });

export const addAlarms = (
  scope: Construct,
  { api, functions, authorizer, table, topic, events }: AlarmTargets,
): Alarm[] => {
  const storageFailures = new MetricFilter(scope, 'AuthorizerStorageFailureFilter', {
    logGroup: authorizer.logGroup,
    filterPattern: FilterPattern.stringValue('$.message', '=', AUTHORIZER_FAILURE_MESSAGE),
    metricNamespace: AUTHORIZER_FAILURE_METRIC.namespace,
    metricName: AUTHORIZER_FAILURE_METRIC.name,
    metricValue: '1',
    // No line, no failure: the metric reads 0 rather than missing.
    defaultValue: 0,
  });
  const alarms = [
    alarm(
      scope,
      'Api5xxAlarm',
      api.metricServerError({ period: PERIOD, statistic: Stats.SUM }),
      API_5XX_THRESHOLD,
      'The API answered 5xx (internal errors, authorizer or DynamoDB unavailability)',
    ),
    alarm(
      scope,
      'AuthorizerStorageFailureAlarm',
      storageFailures.metric({ period: PERIOD, statistic: Stats.SUM }),
      1,
      'The authorizer could not read API keys (DynamoDB unavailable): callers get 503',
    ),
    alarm(
      scope,
      'AuthorizerThrottlesAlarm',
      authorizer.function.metricThrottles({ period: PERIOD, statistic: Stats.SUM }),
      1,
      'authorizer: invocations were throttled (concurrency limit): callers get 503',
    ),
    alarm(
      scope,
      'TableThrottleAlarm',
      table.metricThrottledRequestsForOperations({
        operations: TABLE_OPERATIONS,
        period: PERIOD,
      }),
      1,
      'DynamoDB throttled requests on the table',
    ),
    alarm(
      scope,
      'DispatcherIteratorAgeAlarm',
      events.dispatcher.metric('IteratorAge', { period: PERIOD, statistic: Stats.MAXIMUM }),
      ITERATOR_AGE_THRESHOLD_MS,
      'eventsDispatcher: over 60 s behind the table stream (failing batches being retried, or throttled): the feed and webhooks are late',
      ComparisonOperator.GREATER_THAN_THRESHOLD,
    ),
    alarm(
      scope,
      'StreamFailuresAlarm',
      events.streamFailures.metricApproximateNumberOfMessagesVisible({
        period: PERIOD,
        statistic: Stats.MAXIMUM,
      }),
      1,
      'eventsDispatcher gave up on stream records after its retries: their events may be missing from the feed and webhooks (docs/deploy.md, Events and webhooks)',
    ),
    alarm(
      scope,
      'DeliveryDeadLettersAlarm',
      events.deliveryDeadLetters.metricApproximateNumberOfMessagesVisible({
        period: PERIOD,
        statistic: Stats.MAXIMUM,
      }),
      1,
      'webhookSender failed on delivery messages five times: those deliveries are stalled (docs/deploy.md, Events and webhooks)',
    ),
  ];
  for (const [id, fn] of functions) {
    alarms.push(
      alarm(
        scope,
        `${id}ErrorsAlarm`,
        fn.metricErrors({ period: PERIOD, statistic: Stats.SUM }),
        LAMBDA_ERROR_THRESHOLD,
        `${id}: the function failed (crash or timeout)`,
      ),
      alarm(
        scope,
        `${id}ThrottlesAlarm`,
        fn.metricThrottles({ period: PERIOD, statistic: Stats.SUM }),
        1,
        `${id}: invocations were throttled (concurrency limit)`,
      ),
    );
  }
  const action = new SnsAction(topic);
  for (const a of alarms) a.addAlarmAction(action);
  return alarms;
};
