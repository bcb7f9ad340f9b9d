import {
  CfnOutput,
  Duration,
  NestedStack,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  AwsIntegration,
  EndpointType,
  IdentitySource,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
  type ThrottlingPerMethod,
  TokenAuthorizer,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { allowedMethods } from '../../lib/http/gateway-answers';
import type { BundledFile } from '../../lib/model/bundled-files';
import {
  authorizerFunction,
  DELIVERY_QUEUE_ENV,
  type Route,
  routes as routeTable,
  type TableAccess,
  throttleClasses,
  tokenClaimsFunction,
} from '../../lib/routes';
import { TABLE_KEYS, TIME_TO_LIVE_ATTRIBUTE } from '../../lib/storage/table';
import { addAlarms, allowAlarmsToPublish } from './alarms';
import { ModeratorConsole } from './console';
import { Events } from './events';
import { ExportJobs } from './export-jobs';
import { Firewall } from './firewall';
import { addGatewayResponses } from './gateway-responses';
import { addMethodNotAllowed } from './method-not-allowed';
import { People } from './people';
import {
  checkRouteClasses,
  PLAN_WIDE_CLASSES,
  publisherLimits,
  USAGE_PLAN_ENTRY_QUOTA,
  usagePlanEntryRoutes,
} from './route-classes';
import { type RouteDomain, routeDomainOf, routeStackId } from './route-stacks';
import { LOG_RETENTION, ServiceFunction } from './service-function';
import type { Settings } from './settings';
import { type FunctionHandler, grantTableAccess, touchesEvents } from './table-access';

/**
 * `Bearer <key>` with the scheme in any case, as lib/authorizer.ts accepts it. API Gateway
 * answers anything else 401 itself, without invoking (or paying for) the authorizer.
 */
export const BEARER_VALIDATION_REGEX = '^[Bb][Ee][Aa][Rr][Ee][Rr] [^\\s]+$';

export interface ServiceStackProps extends StackProps {
  readonly settings: Settings;
  /** The route table; lib/routes.ts's unless a test hands it a copy with probe routes added. */
  readonly routes?: readonly Route[];
}

/**
 * The whole service for one stage, as one parent stack and its nested stacks (one `cdk deploy`):
 *  - the parent: what holds data or is shared, each under the logical id it always had: the table,
 *    the user pool, the REST API with its stage, methods, authorizer and usage plan, the web ACL,
 *    the alarm topic and the console;
 *  - `Routes<Domain>` (route-stacks.ts): the routes' functions, by domain;
 *  - `EventsStack`: the events path (events.ts), the dispatcher, the sender and their queues;
 *  - `ExportsStack`: export jobs (export-jobs.ts): their bucket, queue and function;
 *  - `Monitoring`: the metric filters, the stage's alarms and the dashboard (alarms.ts).
 * Every physical name is left to CloudFormation so that stages (and re-creations) never collide.
 */
export class ServiceStack extends Stack {
  readonly api: RestApi;
  /** The one usage plan: each publisher's API key on it gets the per-publisher limits. */
  readonly usagePlan: UsagePlan;
  /** The web ACL on the stage; undefined with `-c waf=false`. */
  readonly firewall: Firewall | undefined;
  readonly table: Table;
  readonly functions: ReadonlyMap<string, IFunction>;
  readonly events: Events;
  /** Export jobs: their bucket, queue and function (export-jobs.ts). */
  readonly exportJobs: ExportJobs;
  /** The moderator console: its bucket, and the distribution in front of it and of the API. */
  readonly moderatorConsole: ModeratorConsole;
  /** Who signs in to the console: the Cognito pool, or a publisher's own provider. */
  readonly people: People;
  /** The SNS topic every alarm notifies. */
  readonly alarmTopic: Topic;
  /** The nested stacks, by construct id: `Routes<Domain>`, `EventsStack`, `Monitoring`. */
  readonly nestedStacks: ReadonlyMap<string, NestedStack>;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    // The prod stack holds the bans publishers rely on: deleting it takes a deliberate extra step.
    const { settings, routes = routeTable, ...stackProps } = props;
    super(scope, id, { terminationProtection: settings.stage === 'prod', ...stackProps });
    checkRouteClasses(routes);
    const nestedStacks = new Map<string, NestedStack>();
    const nested = (nestedId: string, description: string) => {
      let found = nestedStacks.get(nestedId);
      if (!found) {
        found = new NestedStack(this, nestedId, { description: `${this.stackName}: ${description}` });
        nestedStacks.set(nestedId, found);
      }
      return found;
    };
    this.nestedStacks = nestedStacks;

    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_KEYS.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // Bans and keys outlive any stack: deleting the table takes two deliberate steps (README).
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      // The outbox of events and webhooks (events.ts): both images, since a revocation is a change
      // of an existing ban item.
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
      // Index entries that say when they stop being useful (lib/storage/table.ts).
      timeToLiveAttribute: TIME_TO_LIVE_ATTRIBUTE,
    });

    const functions = new Map<string, LambdaFunction>();
    const makeFunction = (
      {
        id: fnId,
        handler,
        table,
        files,
      }: {
        id: string;
        handler: FunctionHandler;
        table?: TableAccess;
        files?: readonly BundledFile[];
      },
      options: { timeout?: Duration; memorySize?: number; scope?: Construct } = {},
    ) => {
      const fn = new ServiceFunction(options.scope ?? this, fnId, {
        handler,
        // A function that never touches storage is not even told the table's name; those that
        // touch the feed or deliveries are told how long events are kept (lib/domain/retention.ts).
        environment: {
          ...(table ? { TABLE_NAME: this.table.tableName } : {}),
          ...(touchesEvents(table) ? { EVENT_RETENTION_DAYS: String(settings.eventRetentionDays) } : {}),
        },
        logLevel: settings.logLevel,
        sourceMaps: settings.sourceMaps,
        timeout: options.timeout,
        memorySize: options.memorySize,
        files,
      }).function;
      grantTableAccess(fn, this.table.tableArn, table);
      functions.set(fnId, fn);
      return fn;
    };

    const authorizerFn = makeFunction(authorizerFunction);
    functions.delete(authorizerFunction.id);
    const authorizer = new TokenAuthorizer(this, 'Authorizer', {
      handler: authorizerFn,
      identitySource: IdentitySource.header('Authorization'),
      validationRegex: BEARER_VALIDATION_REGEX,
      resultsCacheTtl: Duration.seconds(settings.authorizerCacheSeconds),
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api = new RestApi(this, 'Api', {
      restApiName: `${this.stackName}-api`,
      description: `Device ban service (${settings.stage})`,
      // Callers are publishers' servers, not browsers worldwide: no CloudFront hop in front of
      // them. (The moderator console's distribution, console.ts, passes its page's API calls on to
      // this same regional endpoint.)
      endpointTypes: [EndpointType.REGIONAL],
      // Access and execution logs need the account's API Gateway CloudWatch role. Retained, since
      // the setting is account-wide and other stages (or other APIs) rely on it.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      defaultMethodOptions: { authorizer },
      // The authorizer names the usage plan API key of each request (the publisher's quota key,
      // lib/domain/quotas.ts): clients send no x-api-key, and every key of a publisher counts once.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      deployOptions: {
        stageName: settings.stage,
        throttlingRateLimit: settings.throttleRateLimit,
        throttlingBurstLimit: settings.throttleBurstLimit,
        // The group's ARN without the ":*" that LogGroup.logGroupArn ends in (cdk.json's
        // logGroupDestinationArnWithoutWildcard): API Gateway stores the destination without it,
        // so the template would otherwise drift from the deployed stage.
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: accessLogFormat(),
        // Errors only, and never request data: headers would put API keys in the log.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        tracingEnabled: false,
        // Each method at its route's class (lib/routes.ts); the stage-wide limits above are the
        // default for what no route names (the 405 fallbacks).
        methodOptions: Object.fromEntries(
          routes.flatMap((route) => {
            const { rateLimit, burstLimit } = throttleClasses[route.throttle];
            const limits = {
              throttlingRateLimit: rateLimit,
              throttlingBurstLimit: burstLimit,
              // A method's settings replace the stage's: repeat the logging choice.
              loggingLevel: MethodLoggingLevel.ERROR,
              dataTraceEnabled: false,
            };
            return allowedMethods([route.method]).map((method) => [`${route.path}/${method}`, limits]);
          }),
        ),
      },
    });
    // API Gateway would create this group itself, on the first error it logs, kept forever.
    const executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${settings.stage}`,
      retention: LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api.deploymentStage.node.addDependency(executionLogs);

    const publisherThrottles: ThrottlingPerMethod[] = [];
    const entryRoutes = new Set(usagePlanEntryRoutes(routes).map((route) => route.id));
    /** Routes that queue a delivery themselves (a webhook's test event): granted the queue below. */
    const deliverySenders: LambdaFunction[] = [];
    /** Routes that queue an export job, and those that sign its files' URLs: granted below. */
    const exportQueuers: LambdaFunction[] = [];
    const exportSigners: LambdaFunction[] = [];
    for (const route of routes) {
      const domain: RouteDomain = routeDomainOf(route);
      const { timeoutSeconds } = route as Route;
      const fn = makeFunction(route as Route & { handler: FunctionHandler }, {
        scope: nested(routeStackId(domain), `the functions of the ${domain} routes`),
        ...(timeoutSeconds === undefined ? {} : { timeout: Duration.seconds(timeoutSeconds) }),
      });
      if ('sendsDeliveries' in route && route.sendsDeliveries) deliverySenders.push(fn);
      if ('queuesExportJobs' in route && route.queuesExportJobs) exportQueuers.push(fn);
      if ('signsExportFiles' in route && route.signsExportFiles) exportSigners.push(fn);
      // The Lambda proxy integration LambdaIntegration builds, without the permission it adds per
      // method: one permission per function, below, covers all of its methods (GET and HEAD).
      const integration = new AwsIntegration({
        proxy: true,
        service: 'lambda',
        path: `2015-03-31/functions/${fn.functionArn}/invocations`,
      });
      const httpMethods = allowedMethods([route.method]);
      fn.addPermission('ApiInvoke', {
        principal: new ServicePrincipal('apigateway.amazonaws.com'),
        // The stage by its name, not by a reference to the stage resource: the stage waits on
        // the deployment, which waits on the methods, which wait on this function's stack.
        sourceArn: this.api.arnForExecuteApi(
          invokeSourceMethod(httpMethods),
          pathForArn(route.path),
          settings.stage,
        ),
      });
      // HEAD wherever GET is (load balancers probe with it): the same function and authorizer;
      // API Gateway drops the body.
      for (const httpMethod of httpMethods) {
        const operationName = httpMethod === 'HEAD' ? `${route.id}Head` : route.id;
        const method = this.api.root
          .resourceForPath(route.path)
          .addMethod(
            httpMethod,
            integration,
            route.auth
              ? { operationName, apiKeyRequired: true }
              : { operationName, authorizationType: AuthorizationType.NONE },
          );
        // Reads and writes ride the plan-wide throttle; only the batch and the feed need an entry
        // of their own (and GET's HEAD twin is a read, the feed's included: servers poll with
        // GET), which keeps the plan's entries independent of the number of routes.
        if (entryRoutes.has(route.id) && httpMethod !== 'HEAD')
          publisherThrottles.push({ method, throttle: publisherLimits(route) });
        if (!route.auth) {
          Validations.of(method).acknowledge({
            id: 'AwsSolutions-APIG4',
            reason: `${httpMethod} ${route.path} is public by contract (auth: false in lib/routes.ts, e.g. load balancer health checks)`,
          });
        }
      }
    }
    if (publisherThrottles.length > USAGE_PLAN_ENTRY_QUOTA)
      throw new Error(
        `the usage plan would hold ${publisherThrottles.length} method throttles, over API Gateway's quota of ${USAGE_PLAN_ENTRY_QUOTA}`,
      );
    addMethodNotAllowed(this.api, routes);

    // Usage plan throttles apply per API key (one per publisher, made by npm run keys): the
    // plan-wide throttle is one bucket for a publisher's reads and writes, at those classes'
    // per-publisher limits; the batch and the feed have per-method limits of their own (far lower
    // for the batch, far higher for the polled feed: AWS applies a plan's per-method limits before
    // its plan-wide one, docs/deploy.md#quotas). API Gateway allows 20 method-level throttling
    // settings per stage in a usage plan (29 entries failed to deploy), so entries are kept to
    // those two classes, whatever the number of routes. No period quota.
    const [planWide] = PLAN_WIDE_CLASSES;
    this.usagePlan = this.api.addUsagePlan('UsagePlan', {
      description: `Per-publisher rate limits of ${this.stackName}, one API key per publisher (npm run keys)`,
      throttle: throttleClasses[planWide].publisher,
      apiStages: [{ api: this.api, stage: this.api.deploymentStage, throttle: publisherThrottles }],
    });

    addGatewayResponses(this.api);
    this.firewall = settings.waf ? new Firewall(this, 'Firewall', { api: this.api }) : undefined;

    this.events = new Events(nested('EventsStack', 'events and webhooks'), 'Events', {
      table: this.table,
      makeFunction,
    });
    for (const fn of deliverySenders) {
      fn.addEnvironment(DELIVERY_QUEUE_ENV, this.events.deliveries.queueUrl);
      this.events.deliveries.grantSendMessages(fn);
    }
    this.people = new People(this, 'People', {
      own: settings.identity,
      tokenClaims: () => makeFunction(tokenClaimsFunction),
    });
    // The people routes: exactly their row's Cognito actions, on the stack's pool and nothing else,
    // and the pool named. With a publisher's own provider there is no pool: they answer 404.
    if (this.people.pool)
      for (const route of routes) {
        const fn = functions.get(route.id);
        const actions = (route as Route).userPool;
        if (!actions || !fn) continue;
        fn.addToRolePolicy(
          new PolicyStatement({ actions: [...actions], resources: [this.people.pool.userPoolArn] }),
        );
        fn.addEnvironment('PEOPLE_DIRECTORY', `cognito:${this.people.pool.userPoolId}`);
      }

    this.moderatorConsole = new ModeratorConsole(this, 'Console', {
      api: this.api,
      stage: settings.stage,
      tokenOrigin: this.people.tokenOrigin,
    });
    // The export jobs' bucket, queue and function in a nested stack of their own; the bucket's
    // access logs beside the console's.
    this.exportJobs = new ExportJobs(nested('ExportsStack', 'export jobs'), 'ExportJobs', {
      logBucket: this.moderatorConsole.logBucket,
      makeFunction,
    });
    for (const fn of exportQueuers) this.exportJobs.grantQueue(fn);
    for (const fn of exportSigners) this.exportJobs.grantSign(fn);

    this.alarmTopic = new Topic(this, 'AlarmTopic', { enforceSSL: true });
    allowAlarmsToPublish(this.alarmTopic);
    addAlarms(nested('Monitoring', 'metric filters, alarms and the dashboard'), {
      stage: settings.stage,
      api: this.api,
      accessLogs,
      routes,
      functions,
      authorizer: { function: authorizerFn, logGroup: authorizerFn.logGroup },
      table: this.table,
      topic: this.alarmTopic,
      events: this.events,
      exportDeadLetters: this.exportJobs.deadLetters,
    });
    this.functions = new Map<string, IFunction>([...functions, [authorizerFunction.id, authorizerFn]]);

    // The pool's app client returns to the console's address; then the authorizer and the page
    // learn the provider's settings.
    const signIn = this.people.addConsoleClient(this.moderatorConsole.url);
    authorizerFn.addEnvironment('IDENTITY_PROVIDER', this.toJsonString(signIn.authorizer));
    this.moderatorConsole.addSignIn({ ...signIn.console, idle_minutes: settings.consoleIdleMinutes });

    // RestApi adds an unnamed-looking "ApiEndpoint<hash>" output of its own; ApiUrl replaces it.
    this.api.node.tryRemoveChild('Endpoint');
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'DynamoDB table (TABLE_NAME for npm run keys)',
    });
    new CfnOutput(this, 'UsagePlanId', {
      value: this.usagePlan.usagePlanId,
      description: 'Usage plan of the per-publisher limits (USAGE_PLAN_ID for npm run keys)',
    });
    new CfnOutput(this, 'ConsoleUrl', {
      value: this.moderatorConsole.url,
      description: 'The moderator console (its distribution also serves the API, under /v1/)',
    });
    if (this.people.pool)
      new CfnOutput(this, 'UserPoolId', {
        value: this.people.pool.userPoolId,
        description: 'The Cognito pool of the people who sign in (USER_POOL_ID for npm run users)',
      });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarmTopic.topicArn,
      description: 'SNS topic of every alarm; subscribe to be notified',
    });

    acknowledgeNagFindings(this, settings.waf);
  }
}

/**
 * The method part of a function's invoke permission: its one method, or `*` for GET with its HEAD
 * twin (a permission has one source ARN). Only methods integrated with the function invoke it, and
 * the ARN also names the API, the stage and the function's own path.
 */
export const invokeSourceMethod = (httpMethods: readonly string[]) =>
  httpMethods.length === 1 ? (httpMethods[0] as string) : '*';

/** A resource path as execute-api ARNs write it: each `{parameter}` is `*` (as Method.methodArn). */
export const pathForArn = (path: string) => path.replace(/\{[^}]*\}/g, '*');

/** One JSON object per request. No headers: the Authorization header must never reach a log. */
const accessLogFormat = () =>
  AccessLogFormat.custom(
    JSON.stringify({
      requestId: AccessLogField.contextRequestId(),
      extendedRequestId: AccessLogField.contextExtendedRequestId(),
      requestTime: AccessLogField.contextRequestTime(),
      ip: AccessLogField.contextIdentitySourceIp(),
      userAgent: AccessLogField.contextIdentityUserAgent(),
      httpMethod: AccessLogField.contextHttpMethod(),
      resourcePath: AccessLogField.contextResourcePath(),
      path: AccessLogField.contextPath(),
      status: AccessLogField.contextStatus(),
      protocol: AccessLogField.contextProtocol(),
      responseLength: AccessLogField.contextResponseLength(),
      responseLatency: AccessLogField.contextResponseLatency(),
      integrationLatency: AccessLogField.contextIntegrationLatency(),
      publisherId: AccessLogField.contextAuthorizer('publisherId'),
      keyId: AccessLogField.contextAuthorizer('keyId'),
      authorizerError: AccessLogField.contextAuthorizerError(),
      errorType: AccessLogField.contextErrorResponseType(),
      errorMessage: AccessLogField.contextErrorMessage(),
    }),
  );

/** cdk-nag AwsSolutions findings we accept, each with the reason it does not apply here. */
const acknowledgeNagFindings = (stack: ServiceStack, waf: boolean) => {
  Validations.of(stack.api).acknowledge({
    id: 'AwsSolutions-APIG2',
    reason:
      'Every handler validates its whole request (zod, strict bodies) and answers in the API error envelope; a gateway request validator would answer in its own shape',
  });
  if (!waf)
    Validations.of(stack.api).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'The web ACL was turned off for this stage with -c waf=false (infra/stack/firewall.ts): callers are still authenticated publishers behind a Bearer-key authorizer with stage and per-publisher throttling',
    });
  Validations.of(stack.api).acknowledge({
    id: 'AwsSolutions-COG4',
    reason:
      'One Lambda TOKEN authorizer takes both kinds of Bearer: API keys (servers) and people’s access tokens, which it verifies against the pool’s (or own provider’s) JWKS (lib/domain/people.ts); a Cognito authorizer would refuse every API key',
  });
  Validations.of(stack.api).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    reason: "The AWS-managed policy is the documented minimum for API Gateway's account-level logging role",
  });
};
