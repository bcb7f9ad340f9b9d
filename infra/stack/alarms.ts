import { Aws, Duration, Stack } from 'aws-cdk-lib';
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
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  AUTHORIZER_FAILURE_MESSAGE,
  DELIVERY_ATTEMPT_FAILED_MESSAGE,
  SENDER_FAILURE_MESSAGE,
} from '../../lib/log';
import { type Route, type ThrottleClass, throttleClasses } from '../../lib/routes';
import { classPattern } from './route-classes';

/**
 * The alarms an operator needs to know the service is hurting, all to one SNS topic (a stack
 * output), and the dashboard beside them. Invariant: each pages only on real trouble: missing data
 * is not breaching (no traffic is no outage), and metrics that count what is not trouble are not
 * alarmed (the authorizer's Errors count every refused key; the dispatcher's, batches that are
 * retried and usually heal). Our own metrics are in the stage's namespace, `DeviceBans/<stage>`,
 * so each stage counts only its own lines. Each alarm, and what to do: docs/deploy.md#alarms.
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
  Operation.BATCH_GET_ITEM,
  Operation.BATCH_WRITE_ITEM,
];

/** The namespace of the stage's own metrics: one per stage, so stages in one account stay apart. */
export const metricNamespace = (stage: string) => `DeviceBans/${stage}`;

/** Our metrics, counted from log lines by metric filters. */
export const METRIC_NAMES = {
  authorizerFailures: 'AuthorizerStorageFailures',
  deliveryAttemptsFailed: 'DeliveryAttemptsFailed',
  senderFailures: 'DeliverySenderFailures',
} as const;

/** What the access log is counted by, per route class: all requests, 429s, any 4xx, any 5xx. */
export type ClassMetricKind = 'Requests' | '429' | '4xx' | '5xx';

/** The status condition of each kind (the access log writes the status as a string). */
export const CLASS_METRIC_STATUS: Readonly<Record<ClassMetricKind, string | undefined>> = {
  Requests: undefined,
  '429': '"429"',
  '4xx': '4*',
  '5xx': '5*',
};

/** `ReadRequests`, `Write429`, `Read4xx`, `Batch5xx`, ...: the API's answers by route class, from the access log. */
export const classMetricName = (throttle: ThrottleClass, kind: ClassMetricKind) =>
  `${throttle[0]?.toUpperCase()}${throttle.slice(1)}${kind}`;

/** The share of a class's requests answered 429, in percent, that pages (in 2 of 3 periods). */
export const THROTTLED_SHARE_THRESHOLD = 5;
/** Fewer requests of a class than this in a period never page on their 429 share. */
export const THROTTLED_SHARE_MIN_REQUESTS = 50;

/** A class's 429s as a share of its requests, in percent; 0 under the minimum of requests. */
export const throttledShareExpression = (throttle: ThrottleClass) =>
  `IF(requests${throttle} >= ${THROTTLED_SHARE_MIN_REQUESTS}, 100 * throttled${throttle} / requests${throttle}, 0)`;

/**
 * Signals that a single bad period can raise and the next clears (a hot partition's moment, a
 * blip of the table): they page when 2 of 3 periods breach, so a person is called for trouble that
 * lasts, not for one that has passed by the time they look.
 */
export const SUSTAINED = { evaluationPeriods: 3, datapointsToAlarm: 2 } as const;

/**
 * The alarm topic's policy: CloudWatch alarms of this account may publish to it. An
 * `AWS::SNS::TopicPolicy` replaces SNS's default policy, which is what lets an account's own
 * services publish; with only the TLS Deny, no alarm would reach anyone. Bounded to this account
 * (`aws:SourceAccount`) and to the alarms of this stage's stacks, whose generated names start with
 * the stack's name (`aws:SourceArn`).
 */
export const allowAlarmsToPublish = (topic: Topic) => {
  const { stackName } = Stack.of(topic);
  topic.addToResourcePolicy(
    new PolicyStatement({
      sid: 'CloudWatchAlarmsPublish',
      principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        ArnLike: {
          'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:${stackName}-*`,
        },
      },
    }),
  );
};

export interface AlarmTargets {
  readonly stage: string;
  readonly api: RestApi;
  /** The API's access log (one JSON line per request, infra/stack/service-stack.ts). */
  readonly accessLogs: ILogGroup;
  /** The route table the stack was built from: the classes' access-log patterns. */
  readonly routes: readonly Route[];
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
  /** Export jobs (export-jobs.ts): the queue of the runs that crashed at a message's last receipt. */
  readonly exportDeadLetters: IQueue;
}

const alarm = (
  scope: Construct,
  id: string,
  metric: IMetric,
  threshold: number,
  description: string,
  comparisonOperator = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  periods: { evaluationPeriods: number; datapointsToAlarm?: number } = { evaluationPeriods: 1 },
) =>
  new Alarm(scope, id, {
    metric,
    threshold,
    ...periods,
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

export const addAlarms = (
  scope: Construct,
  {
    stage,
    api,
    accessLogs,
    routes,
    functions,
    authorizer,
    table,
    topic,
    events,
    exportDeadLetters,
  }: AlarmTargets,
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
  const classes = Object.keys(throttleClasses) as ThrottleClass[];
  // One filter per class and kind, matching the class by method (and its few exceptions by path,
  // route-classes.ts): the patterns do not grow with the routes.
  const classMetrics = Object.fromEntries(
    (Object.keys(CLASS_METRIC_STATUS) as ClassMetricKind[]).map((kind) => [
      kind,
      Object.fromEntries(
        classes.map((throttle) => [
          throttle,
          new MetricFilter(scope, `${classMetricName(throttle, kind)}Filter`, {
            logGroup: accessLogs,
            filterPattern: FilterPattern.literal(classPattern(routes, throttle, CLASS_METRIC_STATUS[kind])),
            metricNamespace: namespace,
            metricName: classMetricName(throttle, kind),
            metricValue: '1',
            defaultValue: 0,
          }).metric({ period: PERIOD, statistic: Stats.SUM, label: `${throttle} ${kind}` }),
        ]),
      ) as unknown as Record<ThrottleClass, IMetric>,
    ]),
  ) as Record<ClassMetricKind, Record<ThrottleClass, IMetric>>;
  const byClass = (kind: ClassMetricKind) => classes.map((throttle) => classMetrics[kind][throttle]);
  // Ids of their own per class, so that the dashboard can graph the five shares together.
  const throttledShare = (throttle: ThrottleClass) =>
    new MathExpression({
      expression: throttledShareExpression(throttle),
      usingMetrics: {
        [`requests${throttle}`]: classMetrics.Requests[throttle],
        [`throttled${throttle}`]: classMetrics['429'][throttle],
      },
      period: PERIOD,
      label: `${throttle}: 429, % of requests`,
    });
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
      'The authorizer could not read API keys (DynamoDB unavailable) in 2 of the last 3 periods: callers get 503',
      ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      SUSTAINED,
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
      'DynamoDB throttled requests on the table in 2 of the last 3 periods',
      ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      SUSTAINED,
    ),
    ...classes.map((throttle) =>
      alarm(
        scope,
        `${classMetricName(throttle, '429')}ShareAlarm`,
        throttledShare(throttle),
        THROTTLED_SHARE_THRESHOLD,
        `${THROTTLED_SHARE_THRESHOLD}% or more of the ${throttle} class's requests were answered 429 (a stage or per-publisher limit, or the web ACL) in 2 of the last 3 periods: callers are being refused (docs/deploy.md, Throttling)`,
        ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        SUSTAINED,
      ),
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
    alarm(
      scope,
      'ExportDeadLettersAlarm',
      exportDeadLetters.metricApproximateNumberOfMessagesVisible({
        period: PERIOD,
        statistic: Stats.MAXIMUM,
      }),
      1,
      'exportJob crashed on a job at its last receipt (a timeout or out of memory): that job stays running and will not finish (docs/deploy.md, Export jobs)',
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
          Stack.of(fn),
          `${id}ThrottlesAlarm`,
          fn.metricThrottles({ period: PERIOD, statistic: Stats.SUM }),
          1,
          `${id}: invocations were throttled (concurrency limit)`,
        ),
      );
      continue;
    }
    functionErrors.push(errors);
    // Beside its function (its route's nested stack): the alarms that grow with the routes grow
    // there, not here.
    alarms.push(
      alarm(
        Stack.of(fn),
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
        graph('429 by route class', byClass('429')),
        graph(
          `429, % of requests by route class (alarm at ${THROTTLED_SHARE_THRESHOLD}%)`,
          classes.map(throttledShare),
        ),
      ],
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
