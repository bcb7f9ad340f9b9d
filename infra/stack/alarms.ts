import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { type ITable, Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { allowedMethods } from '../../lib/http/gateway-answers';
import {
  AUTHORIZER_FAILURE_MESSAGE,
  DELIVERY_ATTEMPT_FAILED_MESSAGE,
  SENDER_FAILURE_MESSAGE,
} from '../../lib/log';
import { type Route, routes, type ThrottleClass, throttleClasses } from '../../lib/routes';

/**
 * The alarms an operator needs to know the service is hurting, each paging only on real trouble:
 * the API answering 5xx to a share of its requests, a function crashing or being throttled, the
 * authorizer unable to read keys, DynamoDB throttling, events that stall or are given up on (the
 * dispatcher behind the stream, a message in either failure queue, deliveries waiting in their
 * queue), and the webhook sender failing on messages. Not the dispatcher's Errors: a batch that
 * fails is retried and usually heals; if it does not, its iterator age and the stream-failure
 * queue say so. All notify one SNS topic (a stack output). Missing data is "not breaching": no
 * traffic is not an outage. The dashboard beside them shows the same signals and the traffic.
 *
 * Not the authorizer's Errors metric: a refused key is thrown as an error ("Unauthorized" is how a
 * token authorizer says 401), so anyone sending `Bearer x` would page. Its real trouble, storage
 * failing, is the log line lib/http/authorizer.ts writes for it, counted by a metric filter.
 *
 * Our own metrics (from log lines) are in the stage's namespace, `DeviceBans/<stage>`: with two
 * stages in one account, each stage's alarms count only its own functions' lines.
 */

const PERIOD = Duration.minutes(5);
/** Handlers turn their own errors into responses, so any Lambda error is a crash or a timeout. */
const LAMBDA_ERROR_THRESHOLD = 1;
/** The share of requests answered 5xx, in percent, that pages. */
export const API_5XX_RATE_THRESHOLD = 1;
/** Fewer requests than this in a period never page on their rate: two 5xx of ten are not an outage. */
export const API_5XX_MIN_REQUESTS = 50;
/** The oldest message on the deliveries queue, in seconds: retries are re-sent at most 15 minutes apart. */
export const DELIVERIES_AGE_THRESHOLD_S = 30 * 60;
/** Queue messages the sender failed on in five minutes (each is retried by SQS) before it pages. */
export const SENDER_FAILURES_THRESHOLD = 5;
/**
 * The dispatcher's oldest unread change, in ms: past a minute, the feed and the webhooks are late
 * (the stream keeps records 24 hours, so a dispatcher stuck that long loses them).
 */
export const ITERATOR_AGE_THRESHOLD_MS = 60_000;

/**
 * A function's errors plus its throttles, each read as 0 where it has no data point (Lambda sends
 * no Errors for a period whose invocations were all throttled), so either alone reaches the sum.
 */
export const FUNCTION_FAILURES_EXPRESSION = 'FILL(errors, 0) + FILL(throttles, 0)';

const functionFailures = (errors: IMetric, throttles: IMetric) =>
  new MathExpression({
    expression: FUNCTION_FAILURES_EXPRESSION,
    usingMetrics: { errors, throttles },
    period: PERIOD,
    label: 'errors + throttles',
  });

/** The operations our code sends, for DynamoDB's per-operation ThrottledRequests metric. */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.QUERY,
];

/** The namespace of the stage's own metrics: one per stage, so stages in one account stay apart. */
export const metricNamespace = (stage: string) => `DeviceBans/${stage}`;

/** Our metrics, counted from log lines by metric filters. */
export const METRIC_NAMES = {
  authorizerFailures: 'AuthorizerStorageFailures',
  deliveryAttemptsFailed: 'DeliveryAttemptsFailed',
  senderFailures: 'DeliverySenderFailures',
} as const;

/** `Read4xx`, `Write5xx`, ...: the API's answers by route class, from the access log. */
export const classMetricName = (throttle: ThrottleClass, kind: '4xx' | '5xx') =>
  `${throttle[0]?.toUpperCase()}${throttle.slice(1)}${kind}`;

export interface AlarmTargets {
  readonly stage: string;
  readonly api: RestApi;
  /** The API's access log (one JSON line per request, infra/stack/service-stack.ts). */
  readonly accessLogs: ILogGroup;
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
    readonly sender: { readonly logGroup: ILogGroup };
    readonly deliveries: IQueue;
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

/** A metric filter counting `message` lines of a log group, reading 0 when there are none. */
const countLines = (
  scope: Construct,
  id: string,
  logGroup: ILogGroup,
  namespace: string,
  metricName: string,
  message: string,
) =>
  new MetricFilter(scope, id, {
    logGroup,
    filterPattern: FilterPattern.stringValue('$.message', '=', message),
    metricNamespace: namespace,
    metricName,
    metricValue: '1',
    // No line, no failure: the metric reads 0 rather than missing.
    defaultValue: 0,
  }).metric({ period: PERIOD, statistic: Stats.SUM });

/**
 * The access-log pattern of one route class's answers of one kind: its methods (HEAD beside GET)
 * grouped with their paths, and the status's first digit. Filters take at most 1,024 characters
 * (a test holds each under it).
 */
export const classPattern = (classRoutes: readonly Route[], kind: '4xx' | '5xx') => {
  const byMethod = new Map<string, string[]>();
  for (const route of classRoutes) {
    const methods = allowedMethods([route.method]).join(' ');
    byMethod.set(methods, [...(byMethod.get(methods) ?? []), route.path]);
  }
  const clauses = [...byMethod].map(([methods, paths]) => {
    const method = methods
      .split(' ')
      .map((m) => `$.httpMethod = "${m}"`)
      .join(' || ');
    const path = paths.map((p) => `$.resourcePath = "${p}"`).join(' || ');
    return `((${method}) && (${path}))`;
  });
  return `{ ($.status = ${kind[0]}*) && (${clauses.join(' || ')}) }`;
};

export const addAlarms = (
  scope: Construct,
  { stage, api, accessLogs, functions, authorizer, table, topic, events }: AlarmTargets,
): Alarm[] => {
  const namespace = metricNamespace(stage);
  const storageFailures = countLines(
    scope,
    'AuthorizerStorageFailureFilter',
    authorizer.logGroup,
    namespace,
    METRIC_NAMES.authorizerFailures,
    AUTHORIZER_FAILURE_MESSAGE,
  );
  const attemptsFailed = countLines(
    scope,
    'DeliveryAttemptsFailedFilter',
    events.sender.logGroup,
    namespace,
    METRIC_NAMES.deliveryAttemptsFailed,
    DELIVERY_ATTEMPT_FAILED_MESSAGE,
  );
  const senderFailures = countLines(
    scope,
    'DeliverySenderFailuresFilter',
    events.sender.logGroup,
    namespace,
    METRIC_NAMES.senderFailures,
    SENDER_FAILURE_MESSAGE,
  );
  const byClass = (kind: '4xx' | '5xx') =>
    (Object.keys(throttleClasses) as ThrottleClass[]).map((throttle) =>
      new MetricFilter(scope, `${classMetricName(throttle, kind)}Filter`, {
        logGroup: accessLogs,
        filterPattern: FilterPattern.literal(
          classPattern(
            routes.filter((route) => route.throttle === throttle),
            kind,
          ),
        ),
        metricNamespace: namespace,
        metricName: classMetricName(throttle, kind),
        metricValue: '1',
        defaultValue: 0,
      }).metric({ period: PERIOD, statistic: Stats.SUM, label: `${throttle} ${kind}` }),
    );
  const requests = api.metricCount({ period: PERIOD, statistic: Stats.SUM });
  const serverErrorRate = new MathExpression({
    expression: `IF(requests >= ${API_5XX_MIN_REQUESTS}, 100 * errors / requests, 0)`,
    usingMetrics: { requests, errors: api.metricServerError({ period: PERIOD, statistic: Stats.SUM }) },
    period: PERIOD,
    label: '5xx, % of requests',
  });
  const deliveriesAge = events.deliveries.metricApproximateAgeOfOldestMessage({
    period: PERIOD,
    statistic: Stats.MAXIMUM,
  });
  const iteratorAge = events.dispatcher.metric('IteratorAge', { period: PERIOD, statistic: Stats.MAXIMUM });
  const alarms = [
    alarm(
      scope,
      'Api5xxRateAlarm',
      serverErrorRate,
      API_5XX_RATE_THRESHOLD,
      `The API answered 5xx to ${API_5XX_RATE_THRESHOLD}% or more of its requests (internal errors, authorizer or DynamoDB unavailability)`,
    ),
    alarm(
      scope,
      'AuthorizerStorageFailureAlarm',
      storageFailures,
      1,
      'The authorizer could not read API keys (DynamoDB unavailable): callers get 503',
    ),
    alarm(
      scope,
      'DeliverySenderFailuresAlarm',
      senderFailures,
      SENDER_FAILURES_THRESHOLD,
      `webhookSender failed on ${SENDER_FAILURES_THRESHOLD} or more queue messages in 5 minutes (its "${SENDER_FAILURE_MESSAGE}" lines): deliveries are not being attempted`,
    ),
    alarm(
      scope,
      'DeliveriesAgeAlarm',
      deliveriesAge,
      DELIVERIES_AGE_THRESHOLD_S,
      'A delivery has waited over 30 minutes on the deliveries queue: the sender is not keeping up (throttled, at its concurrency cap, or failing)',
      ComparisonOperator.GREATER_THAN_THRESHOLD,
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
      iteratorAge,
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
  // One alarm per function, on its errors and throttles together: each pages at 1, so their sum
  // at 1 pages exactly when either would, with one alarm (one resource) instead of two. The
  // dashboard shows the two apart, per function.
  const functionErrors: IMetric[] = [];
  const functionThrottles: IMetric[] = [];
  for (const [id, fn] of functions) {
    const errors = fn.metricErrors({ period: PERIOD, statistic: Stats.SUM, label: id });
    const throttles = fn.metricThrottles({ period: PERIOD, statistic: Stats.SUM, label: id });
    functionThrottles.push(throttles);
    // The dispatcher's failed batches are retried and usually heal: its iterator age and the
    // stream-failure queue page when they do not, so only its throttles page.
    if (fn === events.dispatcher) {
      alarms.push(
        alarm(
          scope,
          `${id}ThrottlesAlarm`,
          fn.metricThrottles({ period: PERIOD, statistic: Stats.SUM }),
          1,
          `${id}: invocations were throttled (concurrency limit)`,
        ),
      );
      continue;
    }
    functionErrors.push(errors);
    alarms.push(
      alarm(
        scope,
        `${id}FailuresAlarm`,
        functionFailures(errors.with({ label: 'errors' }), throttles.with({ label: 'throttles' })),
        LAMBDA_ERROR_THRESHOLD,
        `${id}: the function failed (crash or timeout) or its invocations were throttled (concurrency limit)`,
      ),
    );
  }
  const action = new SnsAction(topic);
  for (const a of alarms) a.addAlarmAction(action);

  const queueDepth = (queue: IQueue, label: string) =>
    queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: Stats.MAXIMUM, label });
  const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
    new GraphWidget({ title, left, right, width: 12, height: 6 });
  new Dashboard(scope, 'Dashboard', {
    dashboardName: `DeviceBans-${stage}`,
    widgets: [
      [graph('Requests', [requests]), graph('5xx, % of requests (alarm at 1%)', [serverErrorRate])],
      [graph('4xx by route class', byClass('4xx')), graph('5xx by route class', byClass('5xx'))],
      [
        graph('Latency p50 / p99 (ms)', [
          api.metricLatency({ period: PERIOD, statistic: 'p50', label: 'p50' }),
          api.metricLatency({ period: PERIOD, statistic: 'p99', label: 'p99' }),
        ]),
        graph('Authorizer failures and throttles', [
          storageFailures,
          authorizer.function.metricThrottles({ period: PERIOD, statistic: Stats.SUM, label: 'throttles' }),
        ]),
      ],
      [
        graph('Dispatcher iterator age (ms)', [iteratorAge]),
        graph(
          'Deliveries queue: depth and oldest message (s)',
          [queueDepth(events.deliveries, 'depth')],
          [deliveriesAge],
        ),
      ],
      [
        graph('Deliveries failed', [attemptsFailed, senderFailures]),
        graph('Failure queues', [
          queueDepth(events.streamFailures, 'stream failures'),
          queueDepth(events.deliveryDeadLetters, 'delivery dead letters'),
        ]),
      ],
      // What each function's one alarm adds up, apart: a line per function.
      [
        graph('Function errors (crashes, timeouts)', functionErrors),
        graph('Function throttles (concurrency limit)', functionThrottles),
      ],
    ],
  });
  return alarms;
};
