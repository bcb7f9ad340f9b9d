import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SIGN_IN_FILE } from '@kernel/sign-in';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnMethod } from 'aws-cdk-lib/aws-apigateway';
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { CURRENTLY_RECOMMENDED_FLAGS } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, test } from 'vitest';
import { consoleFiles } from '../../console/build';
import { consoleHeaders, headersFor } from '../../console/headers';
import {
  API_5XX_MIN_REQUESTS,
  CLASS_METRIC_STATUS,
  type ClassMetricKind,
  classMetricName,
  FUNCTION_FAILURES_EXPRESSION,
  ITERATOR_AGE_THRESHOLD_MS,
  THROTTLED_SHARE_THRESHOLD,
  throttledShareExpression,
} from '../../infra/stack/alarms';
import {
  API_PATH_PATTERNS,
  CONSOLE_ROUTING_CODE,
  PLAYER_PATH_PATTERNS,
  responseHeadersFrom,
} from '../../infra/stack/console';
import {
  DELIVERY_MAX_RECEIVES,
  DELIVERY_VISIBILITY_TIMEOUT,
  DISPATCHER_TIMEOUT,
  SENDER_MAX_CONCURRENCY,
  SENDER_TIMEOUT,
  STREAM_RETRY_ATTEMPTS,
} from '../../infra/stack/events';
import {
  EXPORT_JOB_MEMORY_MB,
  EXPORT_JOB_TIMEOUT,
  EXPORT_MAX_CONCURRENCY,
  EXPORT_OBJECT_PATTERN,
  EXPORT_VISIBILITY_TIMEOUT,
} from '../../infra/stack/export-jobs';
import {
  COUNTED_COMMON_RULES,
  FEED_PATH,
  RATE_LIMITS,
  RATE_WINDOW_SECONDS,
  SHARE_WINDOW_SECONDS,
  SNAPSHOT_PATH,
} from '../../infra/stack/firewall';
import { HANDLER_METADATA_KEY } from '../../infra/stack/handler-metadata';
import { DEAD_LETTER_RETENTION } from '../../infra/stack/queues';
import {
  classCondition,
  classPattern,
  DEFAULT_CLASS_BY_METHOD,
  FILTER_PATTERN_MAX_CHARS,
  PLAN_WIDE_CLASSES,
  USAGE_PLAN_ENTRY_QUOTA,
} from '../../infra/stack/route-classes';
import { BUNDLE_TARGET, FUNCTION_TIMEOUT, PROJECT_ROOT, RUNTIME } from '../../infra/stack/service-function';
import {
  BEARER_VALIDATION_REGEX,
  invokeSourceMethod,
  pathForArn,
  ServiceStack,
} from '../../infra/stack/service-stack';
import { DEFAULT_SETTINGS, readSettings, stackName } from '../../infra/stack/settings';
import {
  AUTHORIZER_LEADING_KEYS,
  leadingKeysOf,
  SECRET_PARTITIONS,
  TABLE_ACTIONS,
  WRITE_ACTIONS,
} from '../../infra/stack/table-access';
import { changeSources, isChangeSource } from '../../lib/domain/change-sources';
import { CREDENTIAL_SHARES } from '../../lib/domain/quotas';
import { MAX_BODY_BYTES } from '../../lib/http/chain';
import { errorStatus } from '../../lib/http/errors';
import { allowedMethods } from '../../lib/http/gateway-answers';
import {
  AUTHORIZER_FAILURE_MESSAGE,
  DELIVERY_ATTEMPT_FAILED_MESSAGE,
  SENDER_FAILURE_MESSAGE,
} from '../../lib/log';
import { DETAILS_MAX_BYTES } from '../../lib/model/requests';
import {
  authorizerFunction,
  DELIVERY_QUEUE_ENV,
  EXPORT_BUCKET_ENV,
  EXPORT_QUEUE_ENV,
  eventsDispatcherFunction,
  exportJobFunction,
  getExportJobRoute,
  handlerEntry,
  type Route,
  routes,
  startExportJobRoute,
  type TableAction,
  testWebhookRoute,
  throttleClasses,
  tokenClaimsFunction,
  webhookSenderFunction,
} from '../../lib/routes';
import * as keys from '../../lib/storage/keys';
import { leadingKeyPattern } from '../../lib/storage/keys';
import {
  cdkJsonContext,
  defaultStage,
  dependencyCycle,
  flatTemplate,
  logicalIdOf,
  templateApp,
} from '../support/cdk';
import { matchesClass } from '../support/route-classes';

/**
 * Fast checks of the synthesized template, bundling skipped (test/infra/bundles.test.ts does the
 * one real, bundled synth).
 */

type Resource = {
  Type: string;
  Properties?: Record<string, any>;
  Metadata?: Record<string, unknown>;
} & Record<string, any>;

/**
 * Resources each template (the parent's, each nested stack's) may hold today: CloudFormation
 * refuses a template past 500. test/infra/scale.test.ts adds 60 probe routes and holds every
 * template under 500; this budget keeps today's stage far from it. The parent holds the API's
 * resources and methods, about four per route: 252 with the import and export-job routes, and
 * 492 with the 60 probes, so the parent is where the next split is due (its methods by domain).
 */
const TEMPLATE_RESOURCE_BUDGET = 260;

/** A stage of its own for the context given; without any, the worker's default stage (test/support/cdk.ts). */
const stageOf = (context: Record<string, unknown>) => {
  if (Object.keys(context).length === 0) return defaultStage();
  const app = templateApp(context);
  const settings = readSettings(app);
  const stack = new ServiceStack(app, stackName(settings.stage), { settings });
  return { app, stack, flat: flatTemplate(stack) };
};

const synthesize = (context: Record<string, unknown>) => {
  const { app, stack, flat } = stageOf(context);
  // The parent's and every nested stack's resources, read as one template (test/support/cdk.ts).
  const template = Template.fromJSON(flat);
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const logicalId = logicalIdOf;
  return { app, stack, template, resources, ofType, logicalId };
};

/** One synth per context (a synth is about a second): the cases only read what it made. */
const built = new Map<string, ReturnType<typeof synthesize>>();
const build = (context: Record<string, unknown> = {}) => {
  const key = JSON.stringify(context);
  const made = built.get(key) ?? synthesize(context);
  built.set(key, made);
  return made;
};

const { app, stack, template, resources, ofType, logicalId } = build();

const fnLogicalId = (id: string) => {
  const fn = stack.functions.get(id);
  if (!fn) throw new Error(`no function ${id}`);
  return logicalId(fn.node.defaultChild as CfnFunction);
};

/** Every statement of a function's role's policies. */
const roleStatementsOf = (id: string) => {
  const roleRef = resources[fnLogicalId(id)]?.Properties?.Role?.['Fn::GetAtt']?.[0];
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => p.Properties?.Roles?.some((r: { Ref?: string }) => r.Ref === roleRef))
    .flatMap(([, p]) => p.Properties?.PolicyDocument.Statement as Record<string, any>[]);
};

/** What Lambda needs to poll a table's stream (DynamoEventSource grants it). */
const STREAM_READ_ACTIONS = [
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:ListStreams',
];

const queueArn = (queue: { node: { defaultChild?: unknown } }) => ({
  'Fn::GetAtt': [logicalId(queue.node.defaultChild), 'Arn'],
});

/** The functions an API request waits for: each route's, and the authorizer. */
const apiFunctions = [
  ...routes.map((r) => ({ id: r.id, handler: r.handler, table: 'table' in r ? r.table : undefined })),
  authorizerFunction,
];
/** The functions of events and webhooks: the table stream's, and the deliveries queue's. */
const eventFunctions = [eventsDispatcherFunction, webhookSenderFunction];
const allFunctions = [...apiFunctions, ...eventFunctions, tokenClaimsFunction, exportJobFunction];

/** 10 s behind the API (under its 29 s); the stream's and the queue's functions have their own. */
const timeoutOf = (id: string) =>
  id === eventsDispatcherFunction.id
    ? 60
    : id === webhookSenderFunction.id
      ? 30
      : id === exportJobFunction.id
        ? 900
        : ((routes.find((route) => route.id === id) as Route | undefined)?.timeoutSeconds ?? 10);
/** 256 MB, but for the export job, which builds a part of up to ~50 MB in memory. */
const memoryOf = (id: string) => (id === exportJobFunction.id ? 1024 : 256);

describe('functions', () => {
  test("one per route plus the authorizer, the events dispatcher, the webhook sender, the pool's token trigger and the export job", () => {
    // Besides aws-cdk-lib's handler of the console's deployment (see 'moderator console').
    const own = ofType('AWS::Lambda::Function').filter(([id]) => !id.startsWith('CustomCDKBucketDeployment'));
    expect(own).toHaveLength(routes.length + 5);
    expect([...stack.functions.keys()].sort()).toEqual(allFunctions.map((f) => f.id).sort());
  });

  test('every handler module under functions/ is deployed: a route, the authorizer, an events function or the token trigger', () => {
    const modules = readdirSync(`${PROJECT_ROOT}functions`)
      .filter((file) => file.endsWith('.ts'))
      .map((file) => `functions/${file}`)
      .sort();
    expect(modules).toEqual(allFunctions.map((f) => handlerEntry(f.handler)).sort());
  });

  test('the timeouts: 10 s for the API but 28 s for an import, 60 s for the dispatcher, 30 s for the sender', () => {
    expect(FUNCTION_TIMEOUT.toSeconds()).toBe(10);
    expect(routes.filter((route) => (route as Route).timeoutSeconds !== undefined).map((r) => r.id)).toEqual([
      'importBans',
    ]);
    expect(timeoutOf('importBans')).toBe(28);
    expect(DISPATCHER_TIMEOUT.toSeconds()).toBe(60);
    expect(SENDER_TIMEOUT.toSeconds()).toBe(30);
  });

  test.each(allFunctions)(
    '$id: Node 24, arm64, its memory (256 MB, the export job 1 GB), its timeout, its own handler and log group, JSON logs at INFO',
    ({ id, handler }) => {
      const fn = resources[fnLogicalId(id)] as Resource;
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        MemorySize: memoryOf(id),
        Timeout: timeoutOf(id),
        Handler: 'index.handler',
      });
      if (apiFunctions.some((f) => f.id === id)) expect(fn.Properties?.Timeout).toBeLessThan(29);
      expect(fn.Metadata?.[HANDLER_METADATA_KEY]).toBe(handler);
      expect(fn.Properties?.TracingConfig).toBeUndefined();
      const logGroup = fn.Properties?.LoggingConfig?.LogGroup?.Ref as string;
      expect(resources[logGroup]?.Type).toBe('AWS::Logs::LogGroup');
      expect(fn.Properties?.LoggingConfig).toMatchObject({
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'WARN',
      });
    },
  );

  test("esbuild targets the runtime's Node major", () => {
    expect(RUNTIME.name).toBe('nodejs24.x');
    expect(BUNDLE_TARGET).toBe('node24');
  });

  test('the application log level is a context value, for every function', () => {
    const debug = build({ logLevel: 'debug' });
    for (const { id } of allFunctions) {
      const fn = debug.stack.functions.get(id)?.node.defaultChild as CfnFunction;
      expect(debug.resources[debug.logicalId(fn)]?.Properties?.LoggingConfig, id).toMatchObject({
        LogFormat: 'JSON',
        ApplicationLogLevel: 'DEBUG',
        SystemLogLevel: 'WARN',
      });
    }
  });

  test('only functions that touch storage are told the table name', () => {
    for (const fn of allFunctions) {
      const env = resources[fnLogicalId(fn.id)]?.Properties?.Environment?.Variables ?? {};
      if (!('table' in fn && fn.table)) expect(env.TABLE_NAME).toBeUndefined();
      else expect(env.TABLE_NAME).toEqual({ Ref: logicalId(stack.table.node.defaultChild) });
    }
  });

  test('stack traces are mapped through the shipped source maps only with -c sourceMaps=true', () => {
    for (const { id } of allFunctions)
      expect(
        resources[fnLogicalId(id)]?.Properties?.Environment?.Variables?.NODE_OPTIONS,
        id,
      ).toBeUndefined();
    const mapped = build({ sourceMaps: 'true' });
    const lambdas = mapped
      .ofType('AWS::Lambda::Function')
      .filter(([, r]) => String(r.Properties?.Runtime).startsWith('nodejs'));
    expect(lambdas.length).toBe(allFunctions.length);
    for (const [id, lambda] of lambdas)
      expect(lambda.Properties?.Environment?.Variables?.NODE_OPTIONS, id).toBe('--enable-source-maps');
  });

  // Two more stages synthesized, each with its nested stacks: slow on a busy machine.
  test('the functions that touch the feed or deliveries are told the events retention (30 days, or -c eventRetentionDays)', () => {
    const told = (built: ReturnType<typeof build>) =>
      Object.fromEntries(
        allFunctions.map(({ id }) => {
          const fn = built.stack.functions.get(id)?.node.defaultChild as CfnFunction;
          return [
            id,
            built.resources[built.logicalId(fn)]?.Properties?.Environment?.Variables?.EVENT_RETENTION_DAYS,
          ];
        }),
      );
    const touches = (fn: (typeof allFunctions)[number]) =>
      'table' in fn &&
      fn.table !== undefined &&
      Object.values(fn.table as Record<string, readonly string[]>).some((parts) =>
        parts.some((p) => p === 'feed' || p === 'delivery'),
      );
    const byDefault = told({ app, stack, template, resources, ofType, logicalId });
    for (const fn of allFunctions) expect(byDefault[fn.id], fn.id).toBe(touches(fn) ? '30' : undefined);
    // The feed's reader, the dispatcher that writes it, the sender that settles deliveries, their listing.
    for (const id of ['listEvents', 'eventsDispatcher', 'webhookSender', 'listWebhookDeliveries'])
      expect(byDefault[id], id).toBe('30');
    expect(told(build({ eventRetentionDays: '7' })).listEvents).toBe('7');
    expect(told(build({ eventRetentionDays: 0.5 })).eventsDispatcher).toBe('0.5');
    for (const bad of ['0', '-3', 'never', '3651'])
      expect(() => build({ eventRetentionDays: bad }), bad).toThrow(/context eventRetentionDays/);
    // Deployed, time to live deletes what carries `ttl`: feed entries, markers, settled deliveries.
    expect(DEFAULT_SETTINGS.eventRetentionDays).toBe(30);
  }, 120_000);

  test('only the dispatcher, the sender and the webhook test route are told the deliveries queue', () => {
    const queueUrl = { Ref: logicalId(stack.events.deliveries.node.defaultChild) };
    for (const { id } of allFunctions) {
      const env = resources[fnLogicalId(id)]?.Properties?.Environment?.Variables ?? {};
      if (eventFunctions.some((f) => f.id === id) || id === testWebhookRoute.id)
        expect(env[DELIVERY_QUEUE_ENV], id).toEqual(queueUrl);
      else expect(env[DELIVERY_QUEUE_ENV], id).toBeUndefined();
    }
  });
});

describe('API', () => {
  const methods = stack.api.methods.filter((m) => m.httpMethod !== 'OPTIONS');
  const authorizerId = ofType('AWS::ApiGateway::Authorizer')[0]?.[0];

  test('the token authorizer: Authorization header, Bearer validation, 300 s cache', () => {
    expect(ofType('AWS::ApiGateway::Authorizer')).toHaveLength(1);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      IdentityValidationExpression: BEARER_VALIDATION_REGEX,
      AuthorizerResultTtlInSeconds: 300,
    });
    const authorizerUri = JSON.stringify(resources[authorizerId as string]?.Properties?.AuthorizerUri);
    expect(authorizerUri).toContain(fnLogicalId(authorizerFunction.id));
  });

  test('the validation expression accepts what lib/authorizer.ts accepts', () => {
    const regex = new RegExp(BEARER_VALIDATION_REGEX);
    for (const ok of ['Bearer bsk_abc', 'bearer x', 'BEARER x']) expect(regex.test(ok)).toBe(true);
    for (const bad of ['Bearer', 'Bearer  x', 'Basic x', 'Bearer x y', 'x'])
      expect(regex.test(bad)).toBe(false);
  });

  test('the cache TTL is a context value', () => {
    const other = build({ authorizerCacheSeconds: 60 });
    other.template.hasResourceProperties('AWS::ApiGateway::Authorizer', { AuthorizerResultTtlInSeconds: 60 });
  });

  test('a change to the authorizer makes a new deployment, so it reaches the stage', () => {
    const deploymentId = (built: ReturnType<typeof build>) =>
      built.ofType('AWS::ApiGateway::Deployment')[0]?.[0];
    const stageDeployment = (built: ReturnType<typeof build>) =>
      built.ofType('AWS::ApiGateway::Stage')[0]?.[1].Properties?.DeploymentId;
    const other = build({ authorizerCacheSeconds: 60 });
    expect(deploymentId(other)).not.toBe(deploymentId({ ofType } as ReturnType<typeof build>));
    expect(stageDeployment(other)).toEqual({ Ref: deploymentId(other) });
  });

  test('cdk.json sets every feature flag a new CDK app gets', () => {
    expect(cdkJsonContext).toMatchObject(CURRENTLY_RECOMMENDED_FLAGS);
  });

  test('one method per route, wired to its own function, and HEAD beside every GET', () => {
    const paths = new Set(routes.map((r) => r.path));
    const gets = routes.filter((r) => r.method === 'GET');
    // Plus one ANY fallback per path (405 method_not_allowed).
    expect(ofType('AWS::ApiGateway::Method')).toHaveLength(routes.length + gets.length + paths.size);
    for (const route of routes) {
      for (const httpMethod of allowedMethods([route.method])) {
        const method = methods.find((m) => m.resource.path === route.path && m.httpMethod === httpMethod);
        expect(method, `${httpMethod} ${route.path}`).toBeDefined();
        const props = resources[logicalId(method?.node.defaultChild as CfnMethod)]?.Properties;
        expect(JSON.stringify(props?.Integration?.Uri)).toContain(fnLogicalId(route.id));
        expect(props?.Integration?.Type).toBe('AWS_PROXY');
        expect(props?.AuthorizationType).toBe(route.auth ? 'CUSTOM' : 'NONE');
      }
    }
  });

  test("each route's function has one invoke permission, for its own methods and path on this API's stage", () => {
    const apiRef = { Ref: logicalId(stack.api.node.defaultChild) };
    const permissions = ofType('AWS::Lambda::Permission').map(([, p]) => p.Properties ?? {});
    for (const route of routes) {
      const fnArn = { 'Fn::GetAtt': [fnLogicalId(route.id), 'Arn'] };
      const mine = permissions.filter((p) => JSON.stringify(p.FunctionName) === JSON.stringify(fnArn));
      expect(mine, route.id).toHaveLength(1);
      const methods = allowedMethods([route.method]);
      expect(mine[0], route.id).toEqual({
        Action: 'lambda:InvokeFunction',
        FunctionName: fnArn,
        Principal: 'apigateway.amazonaws.com',
        SourceArn: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':execute-api:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':',
              apiRef,
              // The stage by name: a reference to it would close a circle through the nested stacks.
              `/${DEFAULT_SETTINGS.stage}/${methods.length === 1 ? route.method : '*'}${pathForArn(route.path)}`,
            ],
          ],
        },
      });
    }
    expect(invokeSourceMethod(['POST'])).toBe('POST');
    expect(invokeSourceMethod(['GET', 'HEAD'])).toBe('*');
    expect(pathForArn('/v1/device/{device_id}/bans/{ban_id}/revoke')).toBe('/v1/device/*/bans/*/revoke');
    // Beside them only the authorizer's (from its own ARN) and the pool's trigger's: no test-invoke ones.
    expect(permissions).toHaveLength(routes.length + 2);
  });

  test('every method but the public ones (health) uses the custom authorizer', () => {
    expect(routes.find((r) => r.path === '/health')?.auth).toBe(false);
    for (const route of routes) {
      const method = methods.find((m) => m.resource.path === route.path && m.httpMethod === route.method);
      const props = resources[logicalId(method?.node.defaultChild as CfnMethod)]?.Properties;
      if (route.auth) {
        expect(props).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId } });
      } else {
        expect(props?.AuthorizationType).toBe('NONE');
        expect(props?.AuthorizerId).toBeUndefined();
      }
    }
  });

  test('stage: default throttling from context, JSON access log, error-only execution log, no X-Ray', () => {
    const stage = ofType('AWS::ApiGateway::Stage');
    expect(stage).toHaveLength(1);
    const props = stage[0]?.[1].Properties ?? {};
    expect(props.StageName).toBe(DEFAULT_SETTINGS.stage);
    expect(props.TracingEnabled).toBe(false);
    expect(props.MethodSettings).toContainEqual(
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        ThrottlingRateLimit: DEFAULT_SETTINGS.throttleRateLimit,
        ThrottlingBurstLimit: DEFAULT_SETTINGS.throttleBurstLimit,
        LoggingLevel: 'ERROR',
        DataTraceEnabled: false,
      }),
    );
    const format = JSON.parse(props.AccessLogSetting.Format);
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
    expect(props.AccessLogSetting.Format).not.toMatch(/authorization|header/i);
    const other = build({ throttleRateLimit: 7, throttleBurstLimit: 9 });
    const otherStage = other.ofType('AWS::ApiGateway::Stage')[0]?.[1].Properties;
    expect(otherStage?.MethodSettings).toContainEqual(
      expect.objectContaining({ ResourcePath: '/*', ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 }),
    );
  });

  test("throttles each method at its route's class: the batch far below a single read", () => {
    const settings = ofType('AWS::ApiGateway::Stage')[0]?.[1].Properties?.MethodSettings as Record<
      string,
      any
    >[];
    const limitsOf = (path: string, method: string) =>
      settings.find((s) => s.ResourcePath === `/${path.replaceAll('/', '~1')}` && s.HttpMethod === method);
    for (const route of routes) {
      const { rateLimit, burstLimit } = throttleClasses[route.throttle];
      for (const method of allowedMethods([route.method])) {
        expect(limitsOf(route.path, method), `${method} ${route.path}`).toMatchObject({
          ThrottlingRateLimit: rateLimit,
          ThrottlingBurstLimit: burstLimit,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        });
      }
    }
    const batch = limitsOf('/v1/enforcement/batch', 'POST');
    const read = limitsOf('/v1/device/{device_id}/enforcement', 'GET');
    expect(batch?.ThrottlingRateLimit * 10).toBeLessThanOrEqual(read?.ThrottlingRateLimit);
  });

  test("the change feed, polled by every game server, has the feed class: the account's default 10,000/s, burst 5,000; the snapshot stays a read", () => {
    expect(routes.find((r) => r.path === '/v1/events')?.throttle).toBe('feed');
    expect(routes.filter((r) => r.throttle === 'feed').map((r) => r.id)).toEqual(['listEvents']);
    expect(routes.find((r) => r.path === '/v1/enforcement/snapshot')?.throttle).toBe('read');
    const settings = ofType('AWS::ApiGateway::Stage')[0]?.[1].Properties?.MethodSettings as Record<
      string,
      any
    >[];
    for (const method of ['GET', 'HEAD'])
      expect(
        settings.find((s) => s.ResourcePath === '/~1v1~1events' && s.HttpMethod === method),
      ).toMatchObject({
        ThrottlingRateLimit: 10_000,
        ThrottlingBurstLimit: 5_000,
      });
    // API Gateway's default account throttle: a method limit above it is bounded by it anyway.
    expect(throttleClasses.feed.rateLimit).toBeLessThanOrEqual(10_000);
    expect(throttleClasses.feed.burstLimit).toBeLessThanOrEqual(5_000);
  });

  test('log groups are kept 30 days, the execution log group included', () => {
    const groups = ofType('AWS::Logs::LogGroup');
    // One per function, the access log, the execution log API Gateway writes to, and the console
    // deployment handler's.
    expect(groups).toHaveLength(allFunctions.length + 3);
    for (const [, group] of groups) expect(group.Properties?.RetentionInDays).toBe(30);
    const restApiId = { Ref: logicalId(stack.api.node.defaultChild) };
    const execution = groups.find(([, g]) =>
      JSON.stringify(g.Properties?.LogGroupName ?? '').includes('Execution'),
    );
    expect(execution?.[1].Properties?.LogGroupName).toEqual({
      'Fn::Join': ['', ['API-Gateway-Execution-Logs_', restApiId, `/${DEFAULT_SETTINGS.stage}`]],
    });
    const [stageId, stage] = ofType('AWS::ApiGateway::Stage')[0] ?? [];
    expect(stageId).toBeDefined();
    expect(stage?.DependsOn).toContain(execution?.[0]);
  });

  test('the access log destination is the group ARN without the ":*" API Gateway drops', () => {
    const stage = ofType('AWS::ApiGateway::Stage')[0]?.[1].Properties;
    const accessLogs = ofType('AWS::Logs::LogGroup').find(([id]) => id.startsWith('AccessLogs'))?.[0];
    expect(stage?.AccessLogSetting.DestinationArn).toEqual({
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':logs:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':log-group:',
          { Ref: accessLogs },
        ],
      ],
    });
  });

  test('termination protection on the prod stack only', () => {
    expect(stack.terminationProtection).toBe(false);
    expect(build({ stage: 'prod' }).stack.terminationProtection).toBe(true);
  });
});

describe('per-publisher limits', () => {
  const methods = stack.api.methods.filter((m) => m.httpMethod !== 'OPTIONS');
  const propsOf = (path: string, httpMethod: string) => {
    const method = methods.find((m) => m.resource.path === path && m.httpMethod === httpMethod);
    return resources[logicalId(method?.node.defaultChild as CfnMethod)]?.Properties;
  };
  const plans = ofType('AWS::ApiGateway::UsagePlan');

  test('the authorizer names the API key (key source AUTHORIZER); clients send none', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
  });

  test('every authorized method, HEAD included, requires an API key; public ones and the 405 fallbacks do not', () => {
    for (const route of routes) {
      for (const httpMethod of allowedMethods([route.method])) {
        const props = propsOf(route.path, httpMethod);
        expect(props?.ApiKeyRequired ?? false, `${httpMethod} ${route.path}`).toBe(route.auth);
      }
    }
    for (const path of new Set(routes.map((r) => r.path)))
      expect(propsOf(path, 'ANY')?.ApiKeyRequired).toBeFalsy();
  });

  test("one usage plan, on the API's stage: a publisher's reads and writes in one bucket, the batch and the feed at their own", () => {
    expect(plans).toHaveLength(1);
    const plan = plans[0]?.[1].Properties ?? {};
    const [stageId] = ofType('AWS::ApiGateway::Stage')[0] ?? [];
    expect(plan.ApiStages).toHaveLength(1);
    const [apiStage] = plan.ApiStages;
    expect(apiStage.ApiId).toEqual({ Ref: logicalId(stack.api.node.defaultChild) });
    expect(apiStage.Stage).toEqual({ Ref: stageId });
    const expected = Object.fromEntries(
      routes
        .filter((route) => route.auth && !(PLAN_WIDE_CLASSES as readonly string[]).includes(route.throttle))
        .map((route) => [
          `${route.path}/${route.method}`,
          {
            RateLimit: throttleClasses[route.throttle].publisher?.rateLimit,
            BurstLimit: throttleClasses[route.throttle].publisher?.burstLimit,
          },
        ]),
    );
    expect(apiStage.Throttle).toEqual(expected);
    expect(plan.Throttle).toEqual({
      RateLimit: throttleClasses.read.publisher.rateLimit,
      BurstLimit: throttleClasses.read.publisher.burstLimit,
    });
    // The plan-wide classes share that one bucket: their per-publisher limits are its.
    for (const throttle of PLAN_WIDE_CLASSES)
      expect(throttleClasses[throttle].publisher, throttle).toEqual(throttleClasses.read.publisher);
    // The feed's entry lets one publisher's fleet poll far above its reads: 2,500/s, a quarter of the stage's.
    expect(apiStage.Throttle['/v1/events/GET']).toEqual({ RateLimit: 2_500, BurstLimit: 2_500 });
    expect(apiStage.Throttle['/v1/events/HEAD']).toBeUndefined();
    expect(apiStage.Throttle['/v1/enforcement/batch/POST']).toEqual({ RateLimit: 5, BurstLimit: 10 });
    // Imports have their own entry, so a migration never takes a publisher's read and write bucket.
    expect(apiStage.Throttle['/v1/imports/POST']).toEqual({ RateLimit: 5, BurstLimit: 10 });
    expect(throttleClasses.feed.publisher.rateLimit * 4).toBe(throttleClasses.feed.rateLimit);
    // No period quota: limits are rates only.
    expect(plan.Quota).toBeUndefined();
  });

  test("the usage plan's entries are the batch class's, the feed's and the import's only, far within API Gateway's quota of 20", () => {
    // 29 entries (one per authorized method, HEAD included) failed the first deploy on a default
    // account; one per write method was 15. Read and write routes add none (test/infra/scale.test.ts).
    const plan = plans[0]?.[1].Properties ?? {};
    const entries = Object.keys(plan.ApiStages[0].Throttle ?? {});
    expect(entries.sort()).toEqual([
      '/v1/enforcement/batch/POST',
      '/v1/events/GET',
      '/v1/exports/{kind}/GET',
      '/v1/imports/POST',
    ]);
    expect(entries.length).toBeLessThanOrEqual(USAGE_PLAN_ENTRY_QUOTA);
    expect(USAGE_PLAN_ENTRY_QUOTA).toBe(20);
  });

  test("a publisher's limits never exceed its class's stage limits; every authorized route's class has them", () => {
    for (const [name, limits] of Object.entries(throttleClasses)) {
      // No key, no publisher to count: health checks, the document, the player's page.
      if (name === 'public' || name === 'player') {
        expect(limits.publisher, name).toBeNull();
        continue;
      }
      expect(limits.publisher, name).not.toBeNull();
      expect(limits.publisher?.rateLimit, name).toBeLessThanOrEqual(limits.rateLimit);
      expect(limits.publisher?.burstLimit, name).toBeLessThanOrEqual(limits.burstLimit);
      expect(limits.publisher?.burstLimit, name).toBeGreaterThanOrEqual(limits.publisher?.rateLimit ?? 0);
    }
    for (const route of routes.filter((r) => r.auth))
      expect(throttleClasses[route.throttle].publisher, route.id).not.toBeNull();
    for (const route of routes.filter((r) => !r.auth))
      expect(throttleClasses[route.throttle].publisher, route.id).toBeNull();
  });

  test('no API key is in the template: npm run keys makes one per publisher on the plan', () => {
    expect(ofType('AWS::ApiGateway::ApiKey')).toEqual([]);
    expect(ofType('AWS::ApiGateway::UsagePlanKey')).toEqual([]);
  });
});

describe('the templates', () => {
  const { templates } = defaultStage();

  test('a parent and its nested stacks: the routes by domain, the events path, the monitoring', () => {
    expect(templates.map((t) => t.stack.node.id).sort()).toEqual(
      [
        'DeviceBans-dev',
        'EventsStack',
        'ExportsStack',
        'Monitoring',
        'RoutesAppeals',
        'RoutesBans',
        'RoutesFeed',
        'RoutesOther',
        'RoutesPublishers',
      ].sort(),
    );
    const nested = ofType('AWS::CloudFormation::Stack');
    expect(nested).toHaveLength(templates.length - 1);
  });

  test('what holds data or is shared stays in the parent, under the logical id it always had', () => {
    const parent = templates[0]?.template.Resources as Record<string, Resource>;
    const idOf = (type: string) =>
      Object.entries(parent)
        .filter(([, r]) => r.Type === type)
        .map(([id]) => id);
    // The ids of the single-stack template every stage was synthesized with before the split.
    expect(idOf('AWS::DynamoDB::Table')).toEqual(['TableCD117FA1']);
    expect(idOf('AWS::Cognito::UserPool')).toEqual(['PeoplePoolC64A4D1E']);
    expect(idOf('AWS::ApiGateway::RestApi')).toEqual(['ApiF70053CD']);
    expect(idOf('AWS::ApiGateway::Stage')).toEqual(['ApiDeploymentStagedev51EE5D56']);
    expect(idOf('AWS::ApiGateway::UsagePlan')).toEqual(['ApiUsagePlanDBBE8AB1']);
    expect(idOf('AWS::ApiGateway::Authorizer')).toEqual(['AuthorizerBD825682']);
    expect(idOf('AWS::WAFv2::WebACL')).toEqual(['FirewallAclD0B8A356']);
    expect(idOf('AWS::SNS::Topic')).toEqual(['AlarmTopicD01E77F9']);
    expect(idOf('AWS::CloudFront::Distribution')).toEqual(['ConsoleDistribution022D3262']);
    expect(idOf('AWS::S3::Bucket').sort()).toEqual(['ConsoleBucket86B6957C', 'ConsoleLogs223D8CCD']);
  });

  test('no template depends on itself: no circle through Ref, GetAtt, Sub or DependsOn (CloudFormation refuses one)', () => {
    for (const { stack: s, template: t } of templates) expect(dependencyCycle(t), s.node.id).toBeUndefined();
    // The checker finds one.
    expect(
      dependencyCycle({
        Resources: { A: { Type: 'X', DependsOn: ['B'] }, B: { Type: 'X', Properties: { P: { Ref: 'A' } } } },
      }),
    ).toEqual(['A', 'B', 'A']);
  });

  test(`each holds at most ${TEMPLATE_RESOURCE_BUDGET} resources, far under CloudFormation's 500 per template`, () => {
    const counts = Object.fromEntries(
      templates.map((t) => [t.stack.node.id, Object.keys(t.template.Resources).length]),
    );
    console.log('resources per template:', counts);
    for (const [id, count] of Object.entries(counts))
      expect(count, id).toBeLessThanOrEqual(TEMPLATE_RESOURCE_BUDGET);
    expect(TEMPLATE_RESOURCE_BUDGET).toBeLessThan(500);
  });
});

describe('the web application firewall', () => {
  const acls = ofType('AWS::WAFv2::WebACL');

  test('one regional web ACL on the stage: rate rules (anonymous per address; with a credential per credential), then the common rule set', () => {
    expect(acls).toHaveLength(1);
    const acl = acls[0]?.[1].Properties ?? {};
    expect(acl.Scope).toBe('REGIONAL');
    expect(acl.DefaultAction).toEqual({ Allow: {} });
    const rules = acl.Rules as Record<string, any>[];
    expect(rules.map((r) => r.Name)).toEqual([
      'RateLimitAnonymousPerAddress',
      'RateLimitFeedPerCredential',
      'RateLimitSnapshotPerCredential',
      'RateLimitPerKey',
      'RateLimitPerPerson',
      'AWSManagedRulesCommonRuleSet',
    ]);
    for (const rule of rules.slice(0, 5))
      expect(rule, rule.Name).toMatchObject({
        Statement: {
          RateBasedStatement: {
            EvaluationWindowSec:
              rule.Name === 'RateLimitAnonymousPerAddress' ? RATE_WINDOW_SECONDS : SHARE_WINDOW_SECONDS,
          },
        },
        Action: { Block: { CustomResponse: { ResponseCode: 429 } } },
      });
    // The 429 speaks the API's error envelope.
    const body = Object.values(acl.CustomResponseBodies as Record<string, { Content: string }>)[0];
    expect(JSON.parse(body?.Content ?? '{}')).toMatchObject({ error: { code: 'rate_limited' } });
    expect(rules[5]).toMatchObject({
      Statement: { ManagedRuleGroupStatement: { VendorName: 'AWS', Name: 'AWSManagedRulesCommonRuleSet' } },
      OverrideAction: { None: {} },
    });
    const associations = ofType('AWS::WAFv2::WebACLAssociation').map(([, a]) => a.Properties ?? {});
    expect(associations).toHaveLength(1);
    expect(JSON.stringify(associations[0]?.ResourceArn)).toContain(
      logicalId(stack.api.deploymentStage.node.defaultChild),
    );
  });

  /** Which rate rules count a request, as WAF would evaluate their scope and keys. */
  const countedBy = (request: { path: string; authorization?: string }) => {
    const rules = acls[0]?.[1].Properties?.Rules.slice(0, 5) as Record<string, any>[];
    const evaluate = (st: Record<string, any>): boolean => {
      if (st.NotStatement) return !evaluate(st.NotStatement.Statement);
      if (st.AndStatement) return st.AndStatement.Statements.every(evaluate);
      const m = st.ByteMatchStatement;
      const field = m.FieldToMatch.UriPath ? request.path : (request.authorization ?? '');
      const value = field.toLowerCase();
      if (m.FieldToMatch.SingleHeader && request.authorization === undefined) return false;
      return m.PositionalConstraint === 'STARTS_WITH'
        ? value.startsWith(m.SearchString)
        : value.endsWith(m.SearchString);
    };
    return rules
      .filter((rule) => {
        const rate = rule.Statement.RateBasedStatement;
        // A request without one of the custom keys is not counted by that rule.
        const keyed = rate.AggregateKeyType === 'IP' || request.authorization !== undefined;
        return keyed && evaluate(rate.ScopeDownStatement);
      })
      .map((rule) => rule.Name);
  };

  test('each request is counted by one rate rule: keys and people by their credential, the feed and the snapshot apart', () => {
    expect(countedBy({ path: '/dev/health' })).toEqual(['RateLimitAnonymousPerAddress']);
    // Not a bearer credential (API Gateway answers it 401 itself): counted per address.
    expect(countedBy({ path: '/dev/v1/policy', authorization: 'Basic x' })).toEqual([
      'RateLimitAnonymousPerAddress',
    ]);
    expect(countedBy({ path: `/dev${FEED_PATH}`, authorization: 'Bearer bsk_1' })).toEqual([
      'RateLimitFeedPerCredential',
    ]);
    expect(countedBy({ path: `/dev${SNAPSHOT_PATH}`, authorization: 'BEARER bsk_1' })).toEqual([
      'RateLimitSnapshotPerCredential',
    ]);
    expect(countedBy({ path: '/dev/v1/bans', authorization: 'bearer bsk_1' })).toEqual(['RateLimitPerKey']);
    // A person's token (a JWT), in the console or anywhere: the people's rule.
    expect(countedBy({ path: '/v1/device/d/bans', authorization: 'Bearer eyJhbGciOi' })).toEqual([
      'RateLimitPerPerson',
    ]);
    // Through the console's distribution the stage is not in the path: the same rules.
    expect(countedBy({ path: FEED_PATH, authorization: 'Bearer eyJ' })).toEqual([
      'RateLimitFeedPerCredential',
    ]);
    const rules = (acls[0]?.[1].Properties?.Rules ?? []) as Record<string, any>[];
    const keys = (name: string) => rules.find((r) => r.Name === name)?.Statement?.RateBasedStatement;
    expect(keys('RateLimitAnonymousPerAddress')).toMatchObject({
      AggregateKeyType: 'IP',
      Limit: RATE_LIMITS.anonymous,
    });
    for (const [name, limit] of [
      ['RateLimitFeedPerCredential', RATE_LIMITS.feed],
      ['RateLimitSnapshotPerCredential', RATE_LIMITS.snapshot],
      ['RateLimitPerKey', RATE_LIMITS.key],
      ['RateLimitPerPerson', RATE_LIMITS.person],
    ] as const)
      expect(keys(name), name).toEqual({
        AggregateKeyType: 'CUSTOM_KEYS',
        // The credential alone, from any address: one key's fleet is one count wherever it runs.
        CustomKeys: [
          { Header: { Name: 'authorization', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } },
        ],
        EvaluationWindowSec: SHARE_WINDOW_SECONDS,
        Limit: limit,
        ScopeDownStatement: expect.anything(),
      });
  });

  test("each key's and each person's rule is its share of its publisher's limits, per minute", () => {
    const perMinute = (perSecond: number, share: number) => perSecond * share * SHARE_WINDOW_SECONDS;
    const plan = throttleClasses.read.publisher.rateLimit;
    expect(RATE_LIMITS.key).toBe(perMinute(plan, CREDENTIAL_SHARES.keys));
    expect(RATE_LIMITS.person).toBe(perMinute(plan, CREDENTIAL_SHARES.people));
    expect(RATE_LIMITS.feed).toBe(
      perMinute(throttleClasses.feed.publisher.rateLimit, CREDENTIAL_SHARES.keys),
    );
    // Below the publisher's own limit: one key or one person never spends the whole of it.
    expect(RATE_LIMITS.key / SHARE_WINDOW_SECONDS).toBeLessThan(plan);
    expect(RATE_LIMITS.person / SHARE_WINDOW_SECONDS).toBeLessThan(plan);
    expect(RATE_LIMITS.feed / SHARE_WINDOW_SECONDS).toBeLessThan(throttleClasses.feed.publisher.rateLimit);
  });

  test("a studio's 100 servers behind one address, each polling the feed every second with the studio's key, are far within the feed's limit", () => {
    const polls = 100 * SHARE_WINDOW_SECONDS;
    expect(polls).toBeLessThan(RATE_LIMITS.feed);
    // 1,000 servers of one key too, wherever they run: 1,000 polls a second within its 1,250.
    expect(1_000 * SHARE_WINDOW_SECONDS).toBeLessThan(RATE_LIMITS.feed);
  });

  test('the common rules that would refuse valid requests (bodies over 8 KB, URLs and free text in bodies, no User-Agent) only count', () => {
    const common = acls[0]?.[1].Properties?.Rules[5];
    const counted = common.Statement.ManagedRuleGroupStatement.RuleActionOverrides.map(
      (o: { Name: string; ActionToUse: unknown }) => {
        expect(o.ActionToUse).toEqual({ Count: {} });
        return o.Name;
      },
    );
    expect(counted).toEqual([...COUNTED_COMMON_RULES]);
    // What the API accepts, which the counted rules would block: a body past 8 KB, a URL in a body.
    expect(MAX_BODY_BYTES).toBeGreaterThan(8 * 1024);
    expect(DETAILS_MAX_BYTES).toBeGreaterThan(8 * 1024);
  });

  test('-c waf=false leaves it out, and the stack says why cdk-nag may pass without it', () => {
    const off = build({ waf: 'false' });
    expect(off.ofType('AWS::WAFv2::WebACL')).toEqual([]);
    expect(off.ofType('AWS::WAFv2::WebACLAssociation')).toEqual([]);
    expect(off.stack.firewall).toBeUndefined();
    expect(() => build({ waf: 'maybe' })).toThrow('context waf must be true or false, got maybe');
  });
});

describe('method not allowed', () => {
  test('every path answers other methods 405 in the envelope with Allow, from a mock, without a key', () => {
    for (const path of new Set(routes.map((r) => r.path))) {
      const allow = allowedMethods(routes.filter((r) => r.path === path).map((r) => r.method)).join(', ');
      const any = stack.api.methods.find((m) => m.resource.path === path && m.httpMethod === 'ANY');
      expect(any, path).toBeDefined();
      const props = resources[logicalId(any?.node.defaultChild as CfnMethod)]?.Properties;
      expect(props?.AuthorizationType).toBe('NONE');
      expect(props?.Integration?.Type).toBe('MOCK');
      const response = props?.Integration?.IntegrationResponses?.[0];
      expect(response?.StatusCode).toBe('405');
      expect(response?.ResponseParameters?.['method.response.header.Allow']).toBe(`'${allow}'`);
      expect(response?.ResponseParameters?.['method.response.header.X-Request-Id']).toBe('context.requestId');
      expect(JSON.parse(response?.ResponseTemplates?.['application/json'])).toEqual({
        error: {
          code: 'method_not_allowed',
          message: `$context.httpMethod is not allowed on ${path}; use ${allow}`,
        },
        request_id: '$context.requestId',
      });
    }
  });
});

describe('gateway responses', () => {
  const responses = Object.fromEntries(
    ofType('AWS::ApiGateway::GatewayResponse').map(([, r]) => [r.Properties?.ResponseType, r.Properties]),
  );
  const expected = [
    ['UNAUTHORIZED', '401', 'unauthorized'],
    ['ACCESS_DENIED', '403', 'forbidden'],
    ['MISSING_AUTHENTICATION_TOKEN', '404', 'not_found'],
    ['THROTTLED', '429', 'rate_limited'],
    // A publisher whose quota key is no API key of the usage plan.
    ['INVALID_API_KEY', '403', 'forbidden'],
    ['AUTHORIZER_FAILURE', '503', 'service_unavailable'],
    ['AUTHORIZER_CONFIGURATION_ERROR', '503', 'service_unavailable'],
    ['REQUEST_TOO_LARGE', '413', 'payload_too_large'],
    ['UNSUPPORTED_MEDIA_TYPE', '415', 'unsupported_media_type'],
    ['INTEGRATION_TIMEOUT', '503', 'service_unavailable'],
    ['INTEGRATION_FAILURE', '503', 'service_unavailable'],
    ['RESOURCE_NOT_FOUND', '404', 'not_found'],
    ['QUOTA_EXCEEDED', '429', 'rate_limited'],
    ['WAF_FILTERED', '403', 'forbidden'],
    ['DEFAULT_4XX', '400', 'invalid_request'],
    // A 5XX of the gateway's own is a function that did not answer (timed out, throttled, crashed).
    ['DEFAULT_5XX', '503', 'service_unavailable'],
  ] as const;

  test.each(expected)('%s answers %s in the error envelope', (type, status, code) => {
    const props = responses[type];
    expect(props).toBeDefined();
    expect(props.StatusCode).toBe(status);
    expect(errorStatus[code]).toBe(Number(status));
    const body = JSON.parse(props.ResponseTemplates['application/json']);
    expect(body).toEqual({ error: { code, message: expect.any(String) }, request_id: '$context.requestId' });
    expect(props.ResponseParameters).toMatchObject({
      'gatewayresponse.header.X-Request-Id': 'context.requestId',
      'gatewayresponse.header.Content-Type': "'application/json; charset=utf-8'",
    });
  });

  test('401 says how to authenticate; 429 and 503 say when to retry', () => {
    expect(responses.UNAUTHORIZED.ResponseParameters['gatewayresponse.header.WWW-Authenticate']).toBe(
      "'Bearer'",
    );
    expect(responses.THROTTLED.ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'1'");
    for (const type of [
      'QUOTA_EXCEEDED',
      'AUTHORIZER_FAILURE',
      'AUTHORIZER_CONFIGURATION_ERROR',
      'INTEGRATION_TIMEOUT',
      'INTEGRATION_FAILURE',
      'DEFAULT_5XX',
    ]) {
      expect(responses[type].ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'1'");
    }
  });

  test('no other gateway responses', () => {
    expect(Object.keys(responses).sort()).toEqual(expected.map(([type]) => type).sort());
  });
});

describe('table access: least privilege', () => {
  const tableArn = { 'Fn::GetAtt': [logicalId(stack.table.node.defaultChild), 'Arn'] };

  /** The function's DynamoDB statements on the table (its stream reads are tested below). */
  const statementsOf = (id: string) =>
    roleStatementsOf(id).filter(
      (s) =>
        [s.Action].flat().some((a: string) => a.startsWith('dynamodb:')) &&
        ![s.Action].flat().every((a: string) => STREAM_READ_ACTIONS.includes(a)),
    );

  test.each(allFunctions)(
    '$id gets exactly the actions its code sends, on the table only',
    ({ id, handler }) => {
      const statements = statementsOf(id);
      // A write to a secret's partition has a statement of its own, beside the action's others.
      const actions = [...new Set(statements.flatMap((s) => [s.Action].flat()))].sort();
      const expected: readonly string[] = (TABLE_ACTIONS as Record<string, readonly string[]>)[handler] ?? [];
      expect(actions).toEqual([...expected].sort());
      for (const s of statements) {
        expect(s.Effect).toBe('Allow');
        expect(s.Resource).toEqual(tableArn);
      }
    },
  );

  test.each(allFunctions)('$id sends each action only to the partitions it declares', (fn) => {
    const { id } = fn;
    const table = 'table' in fn ? fn.table : undefined;
    const granted = new Map<string, string[]>();
    for (const s of statementsOf(id)) {
      const keys: string[] = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
      for (const action of [s.Action].flat() as TableAction[])
        granted.set(action, [...(granted.get(action) ?? []), ...keys]);
    }
    for (const [action, keys] of granted) {
      const declared =
        (table as Partial<Record<string, readonly keys.Partition[]>> | undefined)?.[action] ?? [];
      expect(keys.sort(), `${id} ${action}`).toEqual(leadingKeysOf(declared).sort());
    }
  });

  test("a write to a webhook's secret may not ask for the item back (ReturnValues NONE), in a statement of its own", () => {
    const secret = leadingKeyPattern('webhookSecret');
    const writers: string[] = [];
    for (const { id } of allFunctions) {
      for (const s of statementsOf(id)) {
        const keys: string[] = s.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'];
        const writes = [s.Action]
          .flat()
          .filter((a: string) => (WRITE_ACTIONS as readonly string[]).includes(a));
        if (!keys.includes(secret) || writes.length === 0) continue;
        writers.push(id);
        expect(s.Condition, id).toEqual({
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [secret] },
          StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
        });
      }
    }
    // Both routes that write secrets (create puts it and withdraws it; delete deletes it).
    expect([...new Set(writers)].sort()).toEqual(['createWebhook', 'deleteWebhook']);
    expect(SECRET_PARTITIONS).toEqual(['webhookSecret']);
    // Only the sender reads it, with GetItem, which returns it by design.
    const readers = allFunctions.filter(({ id }) =>
      statementsOf(id).some(
        (s) =>
          [s.Action].flat().includes('dynamodb:GetItem') &&
          s.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'].includes(secret),
      ),
    );
    expect(readers.map((f) => f.id)).toEqual([webhookSenderFunction.id]);
  });

  test('only the functions that withdraw an unrecorded change may delete an audit event', () => {
    const deleters = allFunctions
      .filter(({ id }) =>
        statementsOf(id).some(
          (s) =>
            [s.Action].flat().includes('dynamodb:DeleteItem') &&
            s.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'].includes(
              leadingKeyPattern('audit'),
            ),
        ),
      )
      .map(({ id }) => id)
      .sort();
    // testWebhook withdraws its audit record when the delivery cannot be queued, startExportJob
    // when its job cannot be.
    expect(deleters).toEqual(['createBan', 'createKey', 'createWebhook', 'startExportJob', 'testWebhook']);
  });

  /**
   * The read routes that may write, and the one partition each may put into: the stats keep each
   * complete day as a rollup, the feed and the snapshot create the table's deployment id item
   * (both a conditional put).
   */
  const writingReads: Readonly<Record<string, keys.Partition>> = {
    appealStats: 'appealQueue',
    listEvents: 'deployment',
    getEnforcementSnapshot: 'deployment',
    // An export's first page and a device's data record their `data.exported` event.
    exportData: 'audit',
    deviceData: 'audit',
  };

  test("read-only routes cannot write, but for the stats' daily rollup, the deployment id and the exports' events; health cannot touch the table", () => {
    for (const route of routes) {
      const statements = statementsOf(route.id);
      const actions = statements.flatMap((s) => [s.Action].flat());
      if (!('table' in route)) expect(actions).toEqual([]);
      if (route.method !== 'GET') continue;
      const writes = statements.filter((s) =>
        [s.Action].flat().some((a: string) => !['dynamodb:GetItem', 'dynamodb:Query'].includes(a)),
      );
      const partition = writingReads[route.id];
      if (partition === undefined) {
        expect(writes, route.id).toEqual([]);
        continue;
      }
      expect(
        writes
          .flatMap((s) => [s.Action].flat())
          .filter((a: string) => !['dynamodb:GetItem', 'dynamodb:Query'].includes(a)),
        route.id,
      ).toEqual(['dynamodb:PutItem']);
      for (const s of writes)
        expect(s.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'], route.id).toEqual([
          leadingKeyPattern(partition),
        ]);
    }
  });

  test('docs/deploy.md names every read route that may write, and what it writes', () => {
    const deployDoc = readFileSync(join(PROJECT_ROOT, 'docs/deploy.md'), 'utf8').replace(/\s+/g, ' ');
    const writing = routes.filter(
      (route) =>
        route.method === 'GET' &&
        statementsOf(route.id).some((s) =>
          [s.Action].flat().some((a: string) => (WRITE_ACTIONS as readonly string[]).includes(a)),
        ),
    );
    expect(writing.map((r) => r.id).sort()).toEqual(Object.keys(writingReads).sort());
    const exception = /read-only routes cannot write, but for (.*?)(?:, `\/health`|$)/.exec(deployDoc)?.[1];
    for (const route of writing) expect(exception, route.id).toContain(`\`GET ${route.path}\``);
  });

  test('the events dispatcher deletes nothing: no DeleteItem, no queue message', () => {
    const actions = roleStatementsOf(eventsDispatcherFunction.id).flatMap((s) => [s.Action].flat());
    expect(actions.filter((a: string) => /delete|batchwrite|\*/i.test(a))).toEqual([]);
  });

  test('the webhook sender cannot touch device (ban) or audit items', () => {
    const statements = statementsOf(webhookSenderFunction.id);
    expect(statements.length).toBeGreaterThan(0);
    for (const s of statements) {
      const leadingKeys: string[] = s.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'];
      expect(leadingKeys).not.toContain(leadingKeyPattern('device'));
      expect(leadingKeys).not.toContain(leadingKeyPattern('audit'));
      for (const pattern of leadingKeys) {
        expect(`${keys.partitions.device}d1`).not.toMatch(new RegExp(`^${pattern.replace('*', '.*')}$`));
        expect(`${keys.partitions.audit}p1`).not.toMatch(new RegExp(`^${pattern.replace('*', '.*')}$`));
      }
    }
  });

  test("only the dispatcher reads the table's stream, and only that stream", () => {
    const streamArn = { 'Fn::GetAtt': [logicalId(stack.table.node.defaultChild), 'StreamArn'] };
    const streamStatements = (id: string) =>
      roleStatementsOf(id).filter((s) => [s.Action].flat().some((a) => STREAM_READ_ACTIONS.includes(a)));
    expect(streamStatements(eventsDispatcherFunction.id)).toEqual([
      // Takes no resource ARN (acknowledged for cdk-nag in infra/stack/events.ts).
      { Effect: 'Allow', Action: 'dynamodb:ListStreams', Resource: '*' },
      {
        Effect: 'Allow',
        Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        Resource: streamArn,
      },
    ]);
    for (const { id } of allFunctions.filter((f) => f.id !== eventsDispatcherFunction.id))
      expect(streamStatements(id), id).toEqual([]);
  });

  test('the authorizer reads API key items only, and writes only on them (a key last use)', () => {
    const [statement, ...rest] = statementsOf(authorizerFunction.id);
    expect(rest).toEqual([]);
    expect(statement?.Action).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    expect(statement?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': AUTHORIZER_LEADING_KEYS },
    });
  });

  test('the leading-key condition matches how lib/api-keys.ts keys the lookup item', async () => {
    const { apiKeyKey } = await import('../../lib/storage/keys');
    const pattern = new RegExp(`^${AUTHORIZER_LEADING_KEYS[0]?.replace('*', '.*')}$`);
    expect(apiKeyKey('0'.repeat(64)).pk).toMatch(pattern);
    expect('PUBLISHER#p1').not.toMatch(pattern);
  });

  test('nothing in the stack holds a DynamoDB wildcard', () => {
    const statements = ofType('AWS::IAM::Policy').flatMap(([, p]) => p.Properties?.PolicyDocument.Statement);
    for (const s of statements) {
      for (const action of [s.Action].flat()) expect(action).not.toMatch(/^dynamodb:.*\*/);
    }
  });
});

describe('events and webhooks', () => {
  const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties ?? {});
  const mappingOf = (id: string) => {
    const found = mappings.filter((m) => m.FunctionName?.Ref === fnLogicalId(id));
    expect(found, id).toHaveLength(1);
    return found[0] as Record<string, any>;
  };
  const { deliveries, deliveryDeadLetters, streamFailures } = stack.events;

  test('three event source mappings: the dispatcher on the stream, the sender on the deliveries queue, the export job on its queue', () => {
    expect(mappings).toHaveLength(3);
    expect(mappingOf(exportJobFunction.id).EventSourceArn).toEqual(queueArn(stack.exportJobs.queue));
    expect(mappingOf(eventsDispatcherFunction.id).EventSourceArn).toEqual({
      'Fn::GetAtt': [logicalId(stack.table.node.defaultChild), 'StreamArn'],
    });
    expect(mappingOf(webhookSenderFunction.id).EventSourceArn).toEqual(queueArn(deliveries));
  });

  test('the dispatcher reads from the trim horizon, 100 records at once, one batch per shard at a time', () => {
    const mapping = mappingOf(eventsDispatcherFunction.id);
    expect(mapping).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 0,
      ParallelizationFactor: 1,
    });
    // It throws for the whole batch: no partial batch responses.
    expect(mapping.FunctionResponseTypes).toBeUndefined();
  });

  test('a failing batch is halved and retried ten times, then its shard range goes to the stream-failure queue', () => {
    expect(STREAM_RETRY_ATTEMPTS).toBe(10);
    expect(mappingOf(eventsDispatcherFunction.id)).toMatchObject({
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      DestinationConfig: { OnFailure: { Destination: queueArn(streamFailures) } },
    });
  });

  test('the stream filter is lib/domain/change-sources.ts: pk prefix AND sk prefix, one filter per source', () => {
    const patterns = (mappingOf(eventsDispatcherFunction.id).FilterCriteria?.Filters ?? []).map(
      (f: { Pattern: string }) => JSON.parse(f.Pattern),
    );
    expect(patterns).toEqual(
      changeSources.map(({ pkPrefix, skPrefix }) => ({
        dynamodb: { Keys: { pk: { S: [{ prefix: pkPrefix }] }, sk: { S: [{ prefix: skPrefix }] } } },
      })),
    );
    // The filter passes exactly what the local change log records (isChangeSource), item by item.
    const passes = ({ pk, sk }: { pk: string; sk: string }) =>
      patterns.some(
        (p: any) =>
          pk.startsWith(p.dynamodb.Keys.pk.S[0].prefix) && sk.startsWith(p.dynamodb.Keys.sk.S[0].prefix),
      );
    const feed = keys.publisherFeedPartition('p1');
    const items = {
      ban: keys.banKey('d1', 7),
      policy: keys.policyKey('p1'),
      erasure: keys.erasureKey('d1', 'p1'),
      publisherKey: keys.publisherKeyKey('p1', 'key_1'),
      apiKey: keys.apiKeyKey('0'.repeat(64)),
      keyId: keys.keyIdKey('key_1'),
      counter: keys.counterKey(0),
      idempotency: keys.idempotencyKey('p1', 'g1', 'k1'),
      audit: keys.auditEventKey('p1', '2024-01-01T00:00:00.000Z', 'evt_1'),
      feedEntry: keys.feedEntryKey(feed, 1),
      feedMarker: keys.feedMarkerKey(feed, 'evt_1'),
      webhook: keys.webhookKey('p1', 0),
      delivery: keys.deliveryKey('p1', 'wh_1', '2024-01-01T00:00:00.000Z', 'evt_1'),
      changeEntry: keys.changeEntryKey(1),
    };
    for (const [name, key] of Object.entries(items))
      expect(passes(key), name).toBe(isChangeSource(key.pk, key.sk));
    expect(
      Object.entries(items)
        .filter(([, key]) => passes(key))
        .map(([name]) => name),
    ).toEqual(['ban', 'policy']);
  });

  test('the sender takes the deliveries queue ten messages at once and reports the ones it failed on', () => {
    expect(mappingOf(webhookSenderFunction.id)).toMatchObject({
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 0,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  test('a delivery burst runs at most ten senders at once, leaving the account concurrency to the API', () => {
    expect(SENDER_MAX_CONCURRENCY).toBe(10);
    expect(mappingOf(webhookSenderFunction.id).ScalingConfig).toEqual({ MaximumConcurrency: 10 });
  });

  test("the deliveries queue: visible again after six times the sender's timeout; dead letters after five receives", () => {
    expect(DELIVERY_VISIBILITY_TIMEOUT.toSeconds()).toBeGreaterThanOrEqual(6 * SENDER_TIMEOUT.toSeconds());
    expect(DELIVERY_MAX_RECEIVES).toBe(5);
    expect(resources[logicalId(deliveries.node.defaultChild)]?.Properties).toMatchObject({
      VisibilityTimeout: 180,
      RedrivePolicy: { deadLetterTargetArn: queueArn(deliveryDeadLetters), maxReceiveCount: 5 },
    });
  });

  test('both failure queues keep their messages 14 days and have no queue behind them', () => {
    expect(DEAD_LETTER_RETENTION.toDays()).toBe(14);
    for (const queue of [deliveryDeadLetters, streamFailures]) {
      const props = resources[logicalId(queue.node.defaultChild)]?.Properties;
      expect(props?.MessageRetentionPeriod).toBe(14 * 24 * 3600);
      expect(props?.RedrivePolicy).toBeUndefined();
    }
  });

  test("five queues (the export jobs' two too), each encrypted (SQS-managed) and refusing every request not made over TLS", () => {
    const queues = ofType('AWS::SQS::Queue');
    expect(queues.map(([id]) => id).sort()).toEqual(
      [deliveries, deliveryDeadLetters, streamFailures, stack.exportJobs.queue, stack.exportJobs.deadLetters]
        .map((q) => logicalId(q.node.defaultChild))
        .sort(),
    );
    const policies = ofType('AWS::SQS::QueuePolicy').map(([, p]) => p.Properties ?? {});
    for (const [id, queue] of queues) {
      expect(queue.Properties?.SqsManagedSseEnabled, id).toBe(true);
      const policy = policies.find((p) => p.Queues?.some((q: { Ref?: string }) => q.Ref === id));
      expect(policy?.PolicyDocument.Statement, id).toContainEqual({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'sqs:*',
        Resource: { 'Fn::GetAtt': [id, 'Arn'] },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      });
    }
  });

  /** The queues a function may do `action` on, by logical id. */
  const sqsResourcesOf = (id: string, action: string) =>
    roleStatementsOf(id)
      .filter((s) => s.Effect === 'Allow' && [s.Action].flat().includes(action))
      .flatMap((s) => [s.Resource].flat())
      .map((r: { 'Fn::GetAtt'?: [string, string] } | string) =>
        typeof r === 'string' ? r : r['Fn::GetAtt']?.[0],
      )
      .sort();

  test('both send to the deliveries queue only; the dispatcher also to its on-failure destination, which Lambda sends with its role', () => {
    const deliveriesId = logicalId(deliveries.node.defaultChild);
    expect(sqsResourcesOf(webhookSenderFunction.id, 'sqs:SendMessage')).toEqual([deliveriesId]);
    expect(sqsResourcesOf(eventsDispatcherFunction.id, 'sqs:SendMessage')).toEqual(
      [deliveriesId, logicalId(streamFailures.node.defaultChild)].sort(),
    );
    // A webhook's test event is queued by its route: that one sends to the deliveries queue, and
    // may do nothing else there.
    expect(sqsResourcesOf(testWebhookRoute.id, 'sqs:SendMessage')).toEqual([deliveriesId]);
    const testActions = roleStatementsOf(testWebhookRoute.id)
      .flatMap((s) => [s.Action].flat())
      .filter(
        (a: string) =>
          a.startsWith('sqs:') &&
          !['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].includes(a),
      );
    expect(testActions).toEqual([]);
    for (const { id } of apiFunctions.filter(
      (fn) => fn.id !== testWebhookRoute.id && fn.id !== startExportJobRoute.id,
    )) {
      const sqs = roleStatementsOf(id)
        .flatMap((s) => [s.Action].flat())
        .filter((a: string) => a.startsWith('sqs:'));
      expect(sqs, id).toEqual([]);
    }
  });

  test('only the sender consumes the deliveries queue, only the export job its queue; nothing consumes the failure queues', () => {
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']) {
      for (const { id } of allFunctions) {
        expect(sqsResourcesOf(id, action), `${id} ${action}`).toEqual(
          id === webhookSenderFunction.id
            ? [logicalId(deliveries.node.defaultChild)]
            : id === exportJobFunction.id
              ? [logicalId(stack.exportJobs.queue.node.defaultChild)]
              : [],
        );
      }
    }
  });
});

describe('export jobs', () => {
  const { bucket, queue, deadLetters } = stack.exportJobs;
  const bucketId = logicalId(bucket.node.defaultChild);
  const bucketArn = { 'Fn::GetAtt': [bucketId, 'Arn'] };
  const objects = { 'Fn::Join': ['', [bucketArn, `/${EXPORT_OBJECT_PATTERN}`]] };
  const s3StatementsOf = (id: string) =>
    roleStatementsOf(id).filter((st) => [st.Action].flat().some((a: string) => a.startsWith('s3:')));

  test('the bucket: public access blocked, S3-managed encryption, SSL only, access logged, objects gone after 7 days, kept', () => {
    const props = resources[bucketId]?.Properties;
    expect(props).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      LoggingConfiguration: {
        DestinationBucketName: { Ref: logicalId(stack.moderatorConsole.logBucket.node.defaultChild) },
        LogFilePrefix: 'exports/',
      },
    });
    expect(props?.LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({ Status: 'Enabled', ExpirationInDays: 7 }),
    ]);
    expect(resources[bucketId]?.DeletionPolicy).toBe('Retain');
    const [policy, ...more] = ofType('AWS::S3::BucketPolicy').filter(
      ([, p]) => p.Properties?.Bucket?.Ref === bucketId,
    );
    expect(more).toHaveLength(0);
    expect(policy?.[1].Properties?.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });

  test("the job function may only put objects of the files' key pattern; the status route only get them (to sign); no other function touches S3", () => {
    expect(s3StatementsOf(exportJobFunction.id)).toEqual([
      { Effect: 'Allow', Action: 's3:PutObject', Resource: objects },
    ]);
    expect(s3StatementsOf(getExportJobRoute.id)).toEqual([
      { Effect: 'Allow', Action: 's3:GetObject', Resource: objects },
    ]);
    for (const { id } of allFunctions.filter(
      (fn) => fn.id !== exportJobFunction.id && fn.id !== getExportJobRoute.id,
    ))
      expect(s3StatementsOf(id), id).toEqual([]);
    // The console's own deployment handler writes its own bucket, never this one.
    const everyS3Statement = ofType('AWS::IAM::Policy').flatMap(([, p]) =>
      ((p.Properties?.PolicyDocument.Statement ?? []) as Record<string, any>[]).filter((st) =>
        JSON.stringify(st.Resource).includes(bucketId),
      ),
    );
    expect(everyS3Statement).toHaveLength(2);
  });

  test('the start route and the job send to the export queue, and nothing else of SQS besides the job consuming it', () => {
    const queueId = logicalId(queue.node.defaultChild);
    const sqsOf = (id: string) =>
      roleStatementsOf(id)
        .filter((st) => [st.Action].flat().some((a: string) => a.startsWith('sqs:')))
        .flatMap((st) => [st.Action].flat().map((a: string) => `${a} ${JSON.stringify(st.Resource)}`))
        .sort();
    const send = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'].map(
      (a) => `${a} ${JSON.stringify(queueArn(queue))}`,
    );
    expect(sqsOf(startExportJobRoute.id)).toEqual(send);
    expect(sqsOf(exportJobFunction.id)).toEqual(
      [
        ...send,
        ...['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:ReceiveMessage'].map(
          (a) => `${a} ${JSON.stringify(queueArn(queue))}`,
        ),
      ].sort(),
    );
    expect(sqsOf(getExportJobRoute.id)).toEqual([]);
    expect(resources[queueId]?.Properties).toMatchObject({
      VisibilityTimeout: EXPORT_VISIBILITY_TIMEOUT.toSeconds(),
      RedrivePolicy: { deadLetterTargetArn: queueArn(deadLetters), maxReceiveCount: 6 },
    });
    expect(EXPORT_VISIBILITY_TIMEOUT.toSeconds()).toBe(6 * EXPORT_JOB_TIMEOUT.toSeconds());
  });

  test('a message on the dead-letter queue (a run that crashed at its last receipt) pages', () => {
    const [alarm, ...more] = ofType('AWS::CloudWatch::Alarm').filter(([id]) =>
      id.startsWith('ExportDeadLettersAlarm'),
    );
    expect(more).toHaveLength(0);
    expect(alarm?.[1].Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Threshold: 1,
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [logicalId(deadLetters.node.defaultChild), 'QueueName'] },
        },
      ],
    });
  });

  test('the job function: 15 minutes, 1 GB, one message a run, at most five jobs at once, told its bucket and queue', () => {
    const fn = resources[fnLogicalId(exportJobFunction.id)]?.Properties;
    expect(fn).toMatchObject({ Timeout: 900, MemorySize: EXPORT_JOB_MEMORY_MB });
    expect(fn?.Environment.Variables).toMatchObject({
      [EXPORT_BUCKET_ENV]: { Ref: bucketId },
      [EXPORT_QUEUE_ENV]: { Ref: logicalId(queue.node.defaultChild) },
    });
    const mapping = ofType('AWS::Lambda::EventSourceMapping')
      .map(([, m]) => m.Properties ?? {})
      .find((m) => m.FunctionName?.Ref === fnLogicalId(exportJobFunction.id));
    expect(mapping).toMatchObject({
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: EXPORT_MAX_CONCURRENCY },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // The routes are told only what they use: the queue to the start, the bucket to the status.
    const envOf = (id: string) => resources[fnLogicalId(id)]?.Properties?.Environment?.Variables ?? {};
    expect(envOf(startExportJobRoute.id)[EXPORT_QUEUE_ENV]).toBeDefined();
    expect(envOf(startExportJobRoute.id)[EXPORT_BUCKET_ENV]).toBeUndefined();
    expect(envOf(getExportJobRoute.id)[EXPORT_BUCKET_ENV]).toBeDefined();
    expect(envOf(getExportJobRoute.id)[EXPORT_QUEUE_ENV]).toBeUndefined();
  });
});

describe('table', () => {
  test('on demand, point-in-time recovery, deletion protection, retained', () => {
    const tables = ofType('AWS::DynamoDB::Table');
    expect(tables).toHaveLength(1);
    const [, table] = tables[0] as [string, Resource];
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    });
  });

  test('streams every change with both images (the outbox of events and webhooks)', () => {
    const [, table] = ofType('AWS::DynamoDB::Table')[0] as [string, Resource];
    expect(table.Properties?.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });

  test("lets DynamoDB's time to live delete the index entries that name their end", () => {
    const [, table] = ofType('AWS::DynamoDB::Table')[0] as [string, Resource];
    expect(table.Properties?.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
  });

  test('no hard-coded physical names anywhere', () => {
    // References to generated names (a permission's FunctionName, say) are fine; literals are not.
    const nameProps = [
      'TableName',
      'FunctionName',
      'RoleName',
      'LogGroupName',
      'TopicName',
      'AlarmName',
      'QueueName',
    ];
    for (const [id, resource] of Object.entries(resources)) {
      for (const prop of nameProps)
        expect(typeof resource.Properties?.[prop], `${id}.${prop}`).not.toBe('string');
    }
    // The API's name is required by CloudFormation; it is derived from the stage's stack name.
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: `${stack.stackName}-api` });
  });
});

describe('alarms and outputs', () => {
  const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties ?? {});
  const topicRef = { Ref: ofType('AWS::SNS::Topic')[0]?.[0] };

  test('API 5xx as a share of requests (1%), never on a handful of requests', () => {
    expect(alarms.some((a) => a.MetricName === '5XXError')).toBe(false);
    const rate = alarms.find((a) => JSON.stringify(a.Metrics ?? []).includes('5XXError'));
    const expression = rate?.Metrics?.find((m: { Expression?: string }) => m.Expression)?.Expression;
    expect(expression).toBe(`IF(requests >= ${API_5XX_MIN_REQUESTS}, 100 * errors / requests, 0)`);
    expect(rate).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    const metricNames = (rate?.Metrics ?? [])
      .map((m: any) => m.MetricStat?.Metric.MetricName)
      .filter(Boolean);
    expect(metricNames.sort()).toEqual(['5XXError', 'Count']);
  });

  test("no page for the dispatcher's errors, which heal on retry; its iterator age and failure queue page instead", () => {
    const dispatcher = [{ Name: 'FunctionName', Value: { Ref: fnLogicalId(eventsDispatcherFunction.id) } }];
    expect(alarms).not.toContainEqual(
      expect.objectContaining({ MetricName: 'Errors', Dimensions: dispatcher }),
    );
    // Nor inside a metric-math alarm.
    for (const alarm of alarms)
      for (const query of alarm.Metrics ?? [])
        expect(
          query.MetricStat?.Metric.MetricName === 'Errors' &&
            JSON.stringify(query.MetricStat.Metric.Dimensions) === JSON.stringify(dispatcher),
        ).toBe(false);
    expect(alarms).toContainEqual(
      expect.objectContaining({ MetricName: 'Throttles', Dimensions: dispatcher, Threshold: 1 }),
    );
  });

  test('the deliveries queue: its oldest message over 30 minutes', () => {
    expect(alarms).toContainEqual(
      expect.objectContaining({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Statistic: 'Maximum',
        Dimensions: [
          {
            Name: 'QueueName',
            Value: { 'Fn::GetAtt': [logicalId(stack.events.deliveries.node.defaultChild), 'QueueName'] },
          },
        ],
        Threshold: 1800,
        ComparisonOperator: 'GreaterThanThreshold',
      }),
    );
  });

  test("the sender's failure lines are counted in the stage's namespace, and its failed messages page", () => {
    const filters = ofType('AWS::Logs::MetricFilter').map(([, f]) => f.Properties ?? {});
    const senderLogs = resources[fnLogicalId(webhookSenderFunction.id)]?.Properties?.LoggingConfig.LogGroup;
    for (const [message, name] of [
      [DELIVERY_ATTEMPT_FAILED_MESSAGE, 'DeliveryAttemptsFailed'],
      [SENDER_FAILURE_MESSAGE, 'DeliverySenderFailures'],
    ]) {
      expect(filters).toContainEqual(
        expect.objectContaining({
          LogGroupName: senderLogs,
          FilterPattern: `{ $.message = "${message}" }`,
          MetricTransformations: [
            expect.objectContaining({
              MetricNamespace: 'DeviceBans/dev',
              MetricName: name,
              MetricValue: '1',
            }),
          ],
        }),
      );
    }
    expect(alarms).toContainEqual(
      expect.objectContaining({
        Namespace: 'DeviceBans/dev',
        MetricName: 'DeliverySenderFailures',
        Statistic: 'Sum',
        Threshold: 5,
      }),
    );
    // Each failed attempt is an ordinary retry: counted on the dashboard, never paged on.
    expect(alarms.some((a) => a.MetricName === 'DeliveryAttemptsFailed')).toBe(false);
  });

  test("each stage counts its own lines: a second stage's metrics are in its own namespace", () => {
    const prod = build({ stage: 'prod' });
    const namespaces = new Set(
      prod
        .ofType('AWS::Logs::MetricFilter')
        .map(([, r]) => r.Properties?.MetricTransformations[0].MetricNamespace),
    );
    expect([...namespaces]).toEqual(['DeviceBans/prod']);
  });

  test('requests, 429s, 4xx and 5xx by route class: one access-log filter per class and kind, each pattern under 1,024 characters', () => {
    const filters = ofType('AWS::Logs::MetricFilter').map(([, f]) => f.Properties ?? {});
    const accessLogs = ofType('AWS::Logs::LogGroup').find(([id]) => id.startsWith('AccessLogs'))?.[0];
    for (const throttle of Object.keys(throttleClasses) as (keyof typeof throttleClasses)[]) {
      for (const kind of Object.keys(CLASS_METRIC_STATUS) as ClassMetricKind[]) {
        const pattern = classPattern(routes, throttle, CLASS_METRIC_STATUS[kind]);
        expect(pattern.length, `${throttle} ${kind}`).toBeLessThanOrEqual(FILTER_PATTERN_MAX_CHARS);
        expect(filters).toContainEqual(
          expect.objectContaining({
            LogGroupName: { Ref: accessLogs },
            FilterPattern: pattern,
            MetricTransformations: [
              expect.objectContaining({
                MetricNamespace: 'DeviceBans/dev',
                MetricName: classMetricName(throttle, kind),
              }),
            ],
          }),
        );
      }
    }
    expect(classPattern(routes, 'write', '5*')).toMatch(/^\{ \(\$\.status = 5\*\) && \(/);
    expect(classPattern(routes, 'read', '"429"')).toMatch(/^\{ \(\$\.status = "429"\) && \(/);
  });

  test("every route's methods are counted in its own class and no other, HEAD beside GET", () => {
    for (const route of routes)
      for (const method of allowedMethods([route.method]))
        for (const throttle of Object.keys(throttleClasses) as (keyof typeof throttleClasses)[])
          expect(
            matchesClass(classCondition(routes, throttle), method, route.path),
            `${method} ${route.path} in ${throttle}`,
          ).toBe(throttle === route.throttle);
    // A route's class is its method's unless the route names another: only those are in the patterns.
    expect(DEFAULT_CLASS_BY_METHOD.GET).toBe('read');
    expect(DEFAULT_CLASS_BY_METHOD.POST).toBe('write');
    expect(classCondition(routes, 'read')).not.toContain('/v1/policy');
  });

  test('one dashboard: requests, 4xx/5xx by route class, latency p50/p99, authorizer failures, iterator age, the queues, deliveries failed', () => {
    const dashboards = ofType('AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]?.[1].Properties?.DashboardBody);
    for (const needle of [
      'Requests',
      '4xx by route class',
      '5xx by route class',
      'Read4xx',
      'Write5xx',
      'Batch5xx',
      'p50',
      'p99',
      'AuthorizerStorageFailures',
      'IteratorAge',
      'ApproximateNumberOfMessagesVisible',
      'ApproximateAgeOfOldestMessage',
      'DeliveryAttemptsFailed',
      'DeliverySenderFailures',
      'Feed4xx',
      'Write429',
      '429, % of requests by route class',
      'Function errors',
      'Function throttles',
    ])
      expect(body, needle).toContain(needle);
  });

  test('the dashboard shows every function but the authorizer on its own line, errors and throttles apart', () => {
    const body = stack.resolve(ofType('AWS::CloudWatch::Dashboard')[0]?.[1].Properties?.DashboardBody);
    const widgets = JSON.parse(
      (body['Fn::Join'][1] as unknown[]).map((part) => (typeof part === 'string' ? part : 'x')).join(''),
    ).widgets as { properties: { title: string; metrics: unknown[][] } }[];
    const lines = (title: string) =>
      widgets.find((w) => w.properties.title.startsWith(title))?.properties.metrics;
    // The dispatcher's errors heal on retry (not on the errors graph); every function can be throttled.
    expect(lines('Function errors')).toHaveLength(allFunctions.length - 2);
    expect(lines('Function throttles')).toHaveLength(allFunctions.length - 1);
  });

  test.each(
    [...routes, ...eventFunctions, tokenClaimsFunction, exportJobFunction].filter(
      ({ id }) => id !== eventsDispatcherFunction.id,
    ),
  )('$id: one alarm on its errors and throttles together, paging at 1 of either', ({ id }) => {
    const dimensions = [{ Name: 'FunctionName', Value: { Ref: fnLogicalId(id) } }];
    const mine = alarms.filter((a) =>
      JSON.stringify(a.Metrics ?? a.Dimensions ?? []).includes(fnLogicalId(id)),
    );
    expect(mine).toHaveLength(1);
    const [alarm] = mine;
    expect(alarm).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    const queries = alarm?.Metrics as Record<string, any>[];
    expect(queries.find((q) => q.ReturnData !== false)?.Expression).toBe(FUNCTION_FAILURES_EXPRESSION);
    const stats = Object.fromEntries(queries.filter((q) => q.MetricStat).map((q) => [q.Id, q.MetricStat]));
    expect(stats).toEqual({
      errors: {
        Metric: { Namespace: 'AWS/Lambda', MetricName: 'Errors', Dimensions: dimensions },
        Period: 300,
        Stat: 'Sum',
      },
      throttles: {
        Metric: { Namespace: 'AWS/Lambda', MetricName: 'Throttles', Dimensions: dimensions },
        Period: 300,
        Stat: 'Sum',
      },
    });
  });

  test('the authorizer: its storage failure line and its throttles, not its Errors, which every refused key raises', () => {
    const authorizerDimension = [
      { Name: 'FunctionName', Value: { Ref: fnLogicalId(authorizerFunction.id) } },
    ];
    expect(alarms).not.toContainEqual(
      expect.objectContaining({ MetricName: 'Errors', Dimensions: authorizerDimension }),
    );
    expect(alarms).toContainEqual(
      expect.objectContaining({ MetricName: 'Throttles', Dimensions: authorizerDimension, Threshold: 1 }),
    );
    const [filter] = ofType('AWS::Logs::MetricFilter').map(([, f]) => f.Properties ?? {});
    const authorizerLogs = resources[fnLogicalId(authorizerFunction.id)]?.Properties?.LoggingConfig.LogGroup;
    expect(filter?.LogGroupName).toEqual(authorizerLogs);
    expect(filter?.FilterPattern).toBe(`{ $.message = "${AUTHORIZER_FAILURE_MESSAGE}" }`);
    const [transformation] = filter?.MetricTransformations ?? [];
    expect(transformation).toMatchObject({ MetricValue: '1', DefaultValue: 0 });
    expect(alarms).toContainEqual(
      expect.objectContaining({
        Namespace: transformation.MetricNamespace,
        MetricName: transformation.MetricName,
        Statistic: 'Sum',
        Threshold: 1,
      }),
    );
  });

  test('events: the dispatcher over 60 s behind the stream', () => {
    expect(ITERATOR_AGE_THRESHOLD_MS).toBe(60_000);
    expect(alarms).toContainEqual(
      expect.objectContaining({
        Namespace: 'AWS/Lambda',
        MetricName: 'IteratorAge',
        Statistic: 'Maximum',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnLogicalId(eventsDispatcherFunction.id) } }],
        Threshold: 60_000,
        ComparisonOperator: 'GreaterThanThreshold',
      }),
    );
  });

  test.each([
    ['the deliveries dead-letter queue', () => stack.events.deliveryDeadLetters],
    ['the stream-failure queue', () => stack.events.streamFailures],
  ])('events: any message in %s', (_name, queue) => {
    expect(alarms).toContainEqual(
      expect.objectContaining({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Statistic: 'Maximum',
        Dimensions: [
          { Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(queue().node.defaultChild), 'QueueName'] } },
        ],
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    );
  });

  test('DynamoDB throttled requests, over every operation the code sends', () => {
    const alarm = alarms.find((a) => JSON.stringify(a.Metrics ?? []).includes('ThrottledRequests'));
    const operations = ((alarm?.Metrics ?? []) as Record<string, any>[])
      .flatMap((m) => m.MetricStat?.Metric.Dimensions ?? [])
      .filter((d: { Name: string }) => d.Name === 'Operation')
      .map((d: { Value: string }) => `dynamodb:${d.Value}`)
      .sort();
    const used = [...new Set(Object.values(TABLE_ACTIONS).flat())].sort();
    expect(operations).toEqual(used);
  });

  test('every alarm notifies the alarm topic, and no traffic is not an alarm', () => {
    // API 5xx rate, table throttles, authorizer storage failures and throttles, the dispatcher's
    // iterator age, the two failure queues, the deliveries' age, the sender's failures, the export
    // jobs' dead letters, and one per other function but the authorizer (errors and throttles
    // together; the dispatcher's throttles), and the share of 429s of each route class.
    expect(alarms).toHaveLength(4 + 6 + (allFunctions.length - 1) + Object.keys(throttleClasses).length);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([topicRef]);
      expect(alarm.TreatMissingData).toBe('notBreaching');
    }
    const [topicPolicy] = ofType('AWS::SNS::TopicPolicy').map(([, p]) => p.Properties);
    expect(topicPolicy?.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  test("CloudWatch alarms of this account and stage may publish to the topic: the policy replaces SNS's default one", () => {
    const policies = ofType('AWS::SNS::TopicPolicy').map(([, p]) => p.Properties ?? {});
    expect(policies).toHaveLength(1);
    expect(policies[0]?.Topics).toEqual([topicRef]);
    const statements = policies[0]?.PolicyDocument.Statement as Record<string, any>[];
    const allow = statements.filter((st) => st.Effect === 'Allow');
    expect(allow).toEqual([
      {
        Sid: 'CloudWatchAlarmsPublish',
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: topicRef,
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: {
            'aws:SourceArn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':cloudwatch:',
                  { Ref: 'AWS::Region' },
                  ':',
                  { Ref: 'AWS::AccountId' },
                  `:alarm:${stack.stackName}-*`,
                ],
              ],
            },
          },
        },
      },
    ]);
    // Every alarm is named by CloudFormation after its stack: the parent's name, or a nested
    // stack's, which starts with it. None names itself (no literal AlarmName, 'table' below).
    for (const [id, alarm] of ofType('AWS::CloudWatch::Alarm'))
      expect(alarm.Properties?.AlarmName, id).toBeUndefined();
    // Nothing else may publish, and nobody may do anything else.
    for (const st of allow) expect([st.Action].flat()).toEqual(['sns:Publish']);
  });

  test('table throttles and authorizer storage failures page when 2 of 3 periods breach, not on one', () => {
    const sustained = alarms.filter((a) =>
      /DynamoDB throttled requests|could not read API keys/.test(String(a.AlarmDescription)),
    );
    expect(sustained).toHaveLength(2);
    for (const a of sustained)
      expect(a).toMatchObject({ EvaluationPeriods: 3, DatapointsToAlarm: 2, Threshold: 1 });
  });

  test.each(Object.keys(throttleClasses))(
    'the %s class: its share of 429 answers pages at 5% in 2 of 3 periods, never on a handful of requests',
    (throttle) => {
      const name = classMetricName(throttle as keyof typeof throttleClasses, '429');
      const alarm = alarms.find((a) => JSON.stringify(a.Metrics ?? []).includes(`"MetricName":"${name}"`));
      expect(alarm, throttle).toMatchObject({
        Threshold: THROTTLED_SHARE_THRESHOLD,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
        TreatMissingData: 'notBreaching',
      });
      expect(THROTTLED_SHARE_THRESHOLD).toBe(5);
      const queries = alarm?.Metrics as Record<string, any>[];
      expect(queries.find((q) => q.Expression)?.Expression).toBe(
        throttledShareExpression(throttle as keyof typeof throttleClasses),
      );
      expect(
        queries
          .filter((q) => q.MetricStat)
          .map((q) => q.MetricStat.Metric.MetricName)
          .sort(),
      ).toEqual([classMetricName(throttle as keyof typeof throttleClasses, 'Requests'), name].sort());
    },
  );

  test('outputs: the API URL, the table name, the usage plan, the console URL, the user pool and the alarm topic', () => {
    const outputs = template.toJSON().Outputs;
    expect(Object.keys(outputs).sort()).toEqual([
      'AlarmTopicArn',
      'ApiUrl',
      'ConsoleUrl',
      'TableName',
      'UsagePlanId',
      'UserPoolId',
    ]);
    expect(outputs.TableName.Value).toEqual({ Ref: logicalId(stack.table.node.defaultChild) });
    expect(outputs.UsagePlanId.Value).toEqual({ Ref: logicalId(stack.usagePlan.node.defaultChild) });
    expect(JSON.stringify(outputs.ApiUrl.Value)).toContain('execute-api');
  });
});

describe('people signing in', () => {
  const only = (type: string) => {
    const found = ofType(type);
    expect(found, type).toHaveLength(1);
    return found[0]?.[1] as Resource;
  };
  const pool = only('AWS::Cognito::UserPool');
  const client = only('AWS::Cognito::UserPoolClient');
  const poolId = logicalId(stack.people.pool?.node.defaultChild);
  const clientRef = { Ref: ofType('AWS::Cognito::UserPoolClient')[0]?.[0] };
  const authorizerEnv = () =>
    JSON.stringify(resources[fnLogicalId(authorizerFunction.id)]?.Properties?.Environment?.Variables);

  test('the pool: no self sign-up, TOTP MFA required, a strong password policy, threat protection, kept on delete', () => {
    expect(pool.Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      Policies: {
        PasswordPolicy: {
          MinimumLength: 14,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
          TemporaryPasswordValidityDays: 3,
        },
      },
      UsernameAttributes: ['email'],
      UserPoolTier: 'PLUS',
      UserPoolAddOns: { AdvancedSecurityMode: 'ENFORCED' },
      DeletionProtection: 'ACTIVE',
    });
    expect(pool.DeletionPolicy).toBe('Retain');
    expect(pool.UpdateReplacePolicy).toBe('Retain');
  });

  test("the people routes hold exactly their row's Cognito actions, on the pool alone, and are told the pool; no other function holds any", () => {
    const poolArn = { 'Fn::GetAtt': [poolId, 'Arn'] };
    for (const fn of [...stack.functions.keys()]) {
      const route = routes.find((r) => r.id === fn) as Route | undefined;
      const statements = roleStatementsOf(fn).filter((st) =>
        [st.Action].flat().some((a: string) => a.startsWith('cognito-idp:')),
      );
      const env = resources[fnLogicalId(fn)]?.Properties?.Environment?.Variables ?? {};
      if (!route?.userPool) {
        expect(statements, fn).toEqual([]);
        expect(env.PEOPLE_DIRECTORY, fn).toBeUndefined();
        continue;
      }
      expect(
        statements.map((st) => ({ ...st, Action: [st.Action].flat().sort() })),
        fn,
      ).toEqual([{ Action: [...route.userPool].sort(), Effect: 'Allow', Resource: poolArn }]);
      expect(env.PEOPLE_DIRECTORY, fn).toEqual({ 'Fn::Join': ['', ['cognito:', { Ref: poolId }]] });
    }
    expect(routes.filter((r) => (r as Route).userPool).map((r) => r.id)).toEqual([
      'listPeople',
      'invitePerson',
      'updatePerson',
    ]);
  });

  test("a person's publisher is set once (immutable); the role may change; the console's client writes neither", () => {
    const schema = pool.Properties?.Schema as Array<Record<string, unknown>>;
    expect(schema).toContainEqual(expect.objectContaining({ Name: 'publisher_id', Mutable: false }));
    expect(schema).toContainEqual(expect.objectContaining({ Name: 'role', Mutable: true }));
    expect(client.Properties?.WriteAttributes ?? []).toEqual([]);
    expect(client.Properties?.ReadAttributes).toEqual(
      expect.arrayContaining(['custom:publisher_id', 'custom:role', 'email']),
    );
  });

  test('the pre-token trigger (V2) puts publisher and role into access tokens, and Cognito alone may invoke it', () => {
    expect(pool.Properties?.LambdaConfig?.PreTokenGenerationConfig).toEqual({
      LambdaArn: { 'Fn::GetAtt': [fnLogicalId(tokenClaimsFunction.id), 'Arn'] },
      LambdaVersion: 'V2_0',
    });
    const permission = ofType('AWS::Lambda::Permission').find(([, p]) =>
      JSON.stringify(p.Properties?.FunctionName).includes(fnLogicalId(tokenClaimsFunction.id)),
    )?.[1];
    expect(permission?.Properties).toMatchObject({
      Principal: 'cognito-idp.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [poolId, 'Arn'] },
    });
    // It reads only its event: no table, no policy statements beyond its logs.
    expect(roleStatementsOf(tokenClaimsFunction.id)).toEqual([]);
  });

  test("the console's client: code flow only, no secret, back to the console's address, 15-minute tokens, revocable", () => {
    const consoleUrl = stack.resolve(stack.moderatorConsole.url);
    // Named, or Cognito allows SRP and custom sign-in too: only the code flow's renewal.
    expect(client.Properties?.ExplicitAuthFlows).toEqual(['ALLOW_REFRESH_TOKEN_AUTH']);
    expect(client.Properties).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ['openid', 'email'],
      CallbackURLs: [consoleUrl],
      LogoutURLs: [consoleUrl],
      SupportedIdentityProviders: ['COGNITO'],
      AccessTokenValidity: 15,
      IdTokenValidity: 15,
      RefreshTokenValidity: 480,
      TokenValidityUnits: { AccessToken: 'minutes', IdToken: 'minutes', RefreshToken: 'minutes' },
      EnableTokenRevocation: true,
      PreventUserExistenceErrors: 'ENABLED',
    });
    expect(JSON.stringify(consoleUrl)).toContain(
      logicalId(stack.moderatorConsole.distribution.node.defaultChild),
    );
  });

  test('managed login (v2) on a domain of its own, styled for the client', () => {
    expect(only('AWS::Cognito::UserPoolDomain').Properties).toMatchObject({
      ManagedLoginVersion: 2,
      UserPoolId: { Ref: poolId },
    });
    expect(only('AWS::Cognito::ManagedLoginBranding').Properties).toMatchObject({
      UseCognitoProvidedValues: true,
      ClientId: clientRef,
    });
  });

  test("the authorizer verifies the pool's access tokens: its issuer, its keys, the console's client id", () => {
    const env = authorizerEnv();
    expect(env).toContain('IDENTITY_PROVIDER');
    expect(env).toContain('https://cognito-idp.');
    expect(env).toContain('/.well-known/jwks.json');
    expect(env).toContain(`"audience_claim":"client_id"`.replace(/"/g, '\\"'));
    expect(env).toContain(`"token_use":"cognito"`.replace(/"/g, '\\"'));
    // No token living longer than the pool issues them (15 minutes) is taken.
    expect(env).toContain(`"max_token_seconds":900`.replace(/"/g, '\\"'));
    expect(env).toContain(JSON.stringify(clientRef));
    expect(env).toContain(JSON.stringify({ Ref: poolId }));
  });

  test('the console signs out after 30 idle minutes, or -c consoleIdleMinutes (1 to 1440), served in its sign-in.json', () => {
    expect(DEFAULT_SETTINGS.consoleIdleMinutes).toBe(30);
    expect(readSettings(templateApp({ consoleIdleMinutes: '10' })).consoleIdleMinutes).toBe(10);
    for (const bad of ['0', '1441', '2.5', 'soon'])
      expect(() => readSettings(templateApp({ consoleIdleMinutes: bad })), bad).toThrow(
        /context consoleIdleMinutes/,
      );
  });

  test("the page's CSP allows exactly the pool's domain for the token calls; sign-in.json names the client", () => {
    const csp = JSON.stringify(
      resources[logicalId(stack.moderatorConsole.responseHeadersPolicy.node.defaultChild)]?.Properties
        ?.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy,
    );
    expect(csp).toContain("connect-src 'self' https://");
    expect(csp).toContain('.auth.');
    expect(csp).not.toMatch(/connect-src[^;]*\*/);
    const signIn = ofType('Custom::CDKBucketDeployment').find(
      ([, d]) => d.Properties?.Include?.[0] === SIGN_IN_FILE,
    )?.[1];
    const markers = JSON.stringify(signIn?.Properties?.SourceMarkers);
    expect(markers).toContain(JSON.stringify(clientRef));
    expect(markers).toContain(logicalId(stack.people.domain?.node.defaultChild));
  });

  describe("with -c identity: the publisher's own provider instead of the pool", () => {
    const own = {
      name: 'Example Okta',
      issuer: 'https://login.example.com/oauth2/default',
      jwks_uri: 'https://login.example.com/oauth2/default/v1/keys',
      audience: 'api://device-bans',
      client_id: '0oa-console',
      authorization_endpoint: 'https://login.example.com/oauth2/default/v1/authorize',
      token_endpoint: 'https://login.example.com/oauth2/default/v1/token',
      end_session_endpoint: 'https://login.example.com/oauth2/default/v1/logout',
      scope: 'openid email offline_access',
      publisher_claim: 'publisher',
      role_claim: 'ban_role',
      email_claim: 'email',
      publishers: ['example-studio', 'example-labs'],
    };
    const byo = build({ identity: JSON.stringify(own) });

    test('no pool, no trigger, no UserPoolId output', () => {
      expect(byo.ofType('AWS::Cognito::UserPool')).toHaveLength(0);
      // The people routes are granted nothing and told no directory: they answer 404.
      for (const id of ['listPeople', 'invitePerson', 'updatePerson']) {
        const fn = byo.stack.functions.get(id)?.node.defaultChild as CfnFunction;
        expect(
          byo.resources[byo.logicalId(fn)]?.Properties?.Environment?.Variables?.PEOPLE_DIRECTORY,
        ).toBeUndefined();
      }
      expect(JSON.stringify(byo.ofType('AWS::IAM::Policy'))).not.toContain('cognito-idp:');
      expect(byo.stack.functions.has(tokenClaimsFunction.id)).toBe(false);
      expect(Object.keys(byo.template.toJSON().Outputs)).not.toContain('UserPoolId');
    });

    test('the authorizer checks its issuer, keys, audience and claims; the CSP names its token origin only', () => {
      const fn = byo.stack.functions.get(authorizerFunction.id)?.node.defaultChild as CfnFunction;
      const settings = JSON.parse(
        byo.resources[byo.logicalId(fn)]?.Properties?.Environment?.Variables?.IDENTITY_PROVIDER,
      );
      expect(settings).toEqual({
        issuer: own.issuer,
        jwks_uri: own.jwks_uri,
        audience: own.audience,
        audience_claim: 'aud',
        token_use: 'at+jwt',
        publisher_claim: 'publisher',
        role_claim: 'ban_role',
        email_claim: 'email',
        // Only the console's tokens, an hour long at most (the default), of the mapped publishers.
        client_id: '0oa-console',
        max_token_seconds: 3600,
        publishers: ['example-studio', 'example-labs'],
      });
      const shorter = build({ identity: JSON.stringify({ ...own, max_token_seconds: 900 }) });
      const shorterFn = shorter.stack.functions.get(authorizerFunction.id)?.node.defaultChild as CfnFunction;
      expect(
        JSON.parse(
          shorter.resources[shorter.logicalId(shorterFn)]?.Properties?.Environment?.Variables
            ?.IDENTITY_PROVIDER,
        ),
      ).toMatchObject({ max_token_seconds: 900 });
      const [, policy] = byo.ofType('AWS::CloudFront::ResponseHeadersPolicy')[0] ?? [];
      const csp = policy?.Properties?.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy;
      expect(csp.ContentSecurityPolicy).toContain("connect-src 'self' https://login.example.com;");
    });

    test.each([
      [{ ...own, token_endpoint: 'http://login.example.com/token' }, /token_endpoint must be an https URL/],
      [{ ...own, scope: 'email' }, /scope must include openid/],
      [{ ...own, role_claim: '' }, /role_claim must be a non-empty string/],
      [{ ...own, extra: 'x' }, /unknown settings extra/],
      [{ ...own, publishers: undefined }, /publishers must list the publisher ids/],
      [{ ...own, publishers: [] }, /publishers must list the publisher ids/],
      [{ ...own, publishers: ['Example Studio'] }, /publishers: "Example Studio" must be 1-64 characters/],
      [{ ...own, max_token_seconds: 86_401 }, /max_token_seconds must be an integer from 60 to 86400/],
      [
        { ...own, revocation_endpoint: 'https://elsewhere.example.com/revoke' },
        /revocation_endpoint must be an https URL on the token endpoint's origin/,
      ],
    ])('a mistake in it fails the synth, naming the setting (%#)', (context, message) => {
      expect(() => build({ identity: JSON.stringify(context) })).toThrow(message);
    });
  });
});

describe('moderator console', () => {
  const { moderatorConsole } = stack;
  const id = (construct: { node: { defaultChild?: unknown } }) => logicalId(construct.node.defaultChild);
  const bucketId = id(moderatorConsole.bucket);
  const logBucketId = id(moderatorConsole.logBucket);
  const distributionId = id(moderatorConsole.distribution);
  const headersPolicyId = id(moderatorConsole.responseHeadersPolicy);
  const distribution = resources[distributionId]?.Properties?.DistributionConfig as Record<string, any>;
  const behaviors = distribution.CacheBehaviors as Record<string, any>[];
  const behavior = (pattern: string) => behaviors.find((b) => b.PathPattern === pattern);
  const originOf = (b: Record<string, any> | undefined) =>
    (distribution.Origins as Record<string, any>[]).find((o) => o.Id === b?.TargetOriginId);
  const deployments = ofType('Custom::CDKBucketDeployment');
  const deploymentOf = (name: string) => deployments.find(([, d]) => d.Properties?.Include?.[0] === name);
  const securityHeaders = resources[headersPolicyId]?.Properties?.ResponseHeadersPolicyConfig
    .SecurityHeadersConfig as Record<string, any>;

  test("the page is console/build.ts's three files, built at synth", () => {
    expect(moderatorConsole.files.map((f) => f.name).sort()).toEqual([...consoleFiles].sort());
  });

  test('the bucket is private: public access blocked, S3-managed encryption, SSL only, access logged, kept', () => {
    const bucket = resources[bucketId] as Resource;
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      LoggingConfiguration: { DestinationBucketName: { Ref: logBucketId } },
    });
    expect(bucket.Properties?.WebsiteConfiguration).toBeUndefined();
    // Like the table, no auto-delete: docs/deploy.md says how to delete it after a teardown.
    expect(bucket.DeletionPolicy).toBe('Retain');
  });

  test('only the distribution, through its origin access control, may read the bucket; nothing over plain HTTP', () => {
    const [policy, ...more] = ofType('AWS::S3::BucketPolicy').filter(
      ([, p]) => p.Properties?.Bucket?.Ref === bucketId,
    );
    expect(more).toHaveLength(0);
    const statements = policy?.[1].Properties?.PolicyDocument.Statement as Record<string, any>[];
    const bucketArn = { 'Fn::GetAtt': [bucketId, 'Arn'] };
    expect(statements).toContainEqual({
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 's3:*',
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      Resource: [bucketArn, { 'Fn::Join': ['', [bucketArn, '/*']] }],
    });
    const allows = statements.filter((s) => s.Effect === 'Allow');
    expect(allows).toEqual([
      {
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [bucketArn, '/*']] },
        Condition: { StringEquals: { 'AWS:SourceArn': expect.anything() } },
      },
    ]);
    const sourceArn = JSON.stringify(allows[0]?.Condition.StringEquals['AWS:SourceArn']);
    expect(sourceArn).toContain(':distribution/');
    expect(sourceArn).toContain(`{"Ref":"${distributionId}"}`);
    // The bucket's origin signs every request with that access control (no legacy identity).
    const origin = originOf(distribution.DefaultCacheBehavior);
    expect(origin?.DomainName).toEqual({ 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] });
    const oacId = origin?.OriginAccessControlId?.['Fn::GetAtt']?.[0];
    expect(resources[oacId]?.Properties?.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    expect(origin?.S3OriginConfig?.OriginAccessIdentity).toBe('');
  });

  test('the page: /, /console/* and the player page from the bucket, with the console headers and the routing function', () => {
    const routing = {
      'Fn::GetAtt': [id(moderatorConsole.node.findChild('Routing') as never), 'FunctionARN'],
    };
    for (const b of [
      distribution.DefaultCacheBehavior,
      behavior('/console/*'),
      behavior('/player'),
      behavior('/player/*'),
    ]) {
      expect(b).toMatchObject({
        TargetOriginId: distribution.DefaultCacheBehavior.TargetOriginId,
        ResponseHeadersPolicyId: { Ref: headersPolicyId },
        AllowedMethods: ['GET', 'HEAD'],
        CachePolicyId: CachePolicy.CACHING_OPTIMIZED.cachePolicyId,
        ViewerProtocolPolicy: 'redirect-to-https',
        Compress: true,
        FunctionAssociations: [{ EventType: 'viewer-request', FunctionARN: routing }],
      });
      expect(b?.OriginRequestPolicyId).toBeUndefined();
    }
  });

  test('the routing function: / and /console redirect to /console/, /player to /player/, each its page; all else passes', () => {
    const handler = new Function(`${CONSOLE_ROUTING_CODE}; return handler;`)() as (event: unknown) => any;
    const run = (uri: string) => handler({ request: { uri, method: 'GET', headers: {} } });
    for (const uri of ['/', '/console']) {
      expect(run(uri)).toEqual({
        statusCode: 302,
        statusDescription: 'Found',
        headers: { location: { value: '/console/' } },
      });
    }
    expect(run('/console/').uri).toBe('/console/index.html');
    for (const uri of ['/console/app.js', '/console/app.css', '/console/index.html', '/other'])
      expect(run(uri).uri).toBe(uri);
    // The player's page: its files are the console build's; nothing else under /player/ is one.
    expect(run('/player')).toEqual({
      statusCode: 302,
      statusDescription: 'Found',
      headers: { location: { value: '/player/' } },
    });
    expect(run('/player/').uri).toBe('/console/player.html');
    expect(run('/player/player.js').uri).toBe('/console/player.js');
    expect(run('/player/player.css').uri).toBe('/console/player.css');
    for (const uri of ['/player/app.js', '/player/index.html', '/player/../console/app.js'])
      expect(run(uri).uri).toBe(uri);
  });

  test('the API: /v1/*, /health and /openapi.json to its stage, uncached, every method, every viewer header but Host', () => {
    const api = originOf(behavior('/v1/*'));
    // The stage's invoke URL, split: the execute-api host name is the origin, the stage its path
    // (by name, not by a reference to the stage resource: see 'people signing in').
    expect(JSON.stringify(api?.DomainName)).toContain(
      `{"Ref":"${logicalId(stack.api.node.defaultChild)}"},".execute-api."`,
    );
    const stageResource = resources[logicalId(stack.api.deploymentStage.node.defaultChild)];
    expect(api?.OriginPath).toBe(`/${stageResource?.Properties?.StageName}`);
    expect(api?.CustomOriginConfig).toEqual({
      OriginProtocolPolicy: 'https-only',
      OriginSSLProtocols: ['TLSv1.2'],
    });
    expect(API_PATH_PATTERNS).toEqual(['/v1/*', '/health', '/openapi.json']);
    for (const pattern of API_PATH_PATTERNS) {
      expect(behavior(pattern), pattern).toEqual({
        PathPattern: pattern,
        TargetOriginId: api?.Id,
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        CachePolicyId: CachePolicy.CACHING_DISABLED.cachePolicyId,
        // AllViewerExceptHostHeader: every viewer header (Authorization, which CloudFront passes on
        // when caching is off, and X-Game-Id among them), cookie and query string; the origin's own
        // Host, which API Gateway needs.
        OriginRequestPolicyId: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
        ViewerProtocolPolicy: 'https-only',
        Compress: true,
      });
    }
    expect(behaviors.map((b) => b.PathPattern).sort()).toEqual(
      ['/console/*', ...PLAYER_PATH_PATTERNS, ...API_PATH_PATTERNS].sort(),
    );
  });

  test('every route of lib/routes.ts is under an API path, and none under /console/', () => {
    const matches = (pattern: string, path: string) =>
      pattern.endsWith('/*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern;
    for (const route of routes) {
      expect(
        API_PATH_PATTERNS.some((p) => matches(p, route.path)),
        route.path,
      ).toBe(true);
      expect(route.path.startsWith('/console')).toBe(false);
    }
  });

  test('viewers: HTTPS only, HTTP/2 and 3, price class 100, standard logs to the log bucket', () => {
    expect(distribution).toMatchObject({
      Enabled: true,
      HttpVersion: 'http2and3',
      PriceClass: 'PriceClass_100',
      Logging: { Bucket: { 'Fn::GetAtt': [logBucketId, 'RegionalDomainName'] }, Prefix: 'cloudfront/' },
    });
    for (const b of [distribution.DefaultCacheBehavior, ...behaviors])
      expect(['redirect-to-https', 'https-only']).toContain(b.ViewerProtocolPolicy);
    // The default *.cloudfront.net certificate (its TLS floor is CloudFront's: docs/deploy.md).
    expect(distribution.ViewerCertificate).toBeUndefined();
  });

  test('the log bucket: private, SSL only, logs kept 30 days, writable by CloudFront (object writer)', () => {
    const logs = resources[logBucketId] as Resource;
    expect(logs.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'ObjectWriter' }] },
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: 30, Status: 'Enabled' }] },
    });
    const statements = ofType('AWS::S3::BucketPolicy').find(
      ([, p]) => p.Properties?.Bucket?.Ref === logBucketId,
    )?.[1].Properties?.PolicyDocument.Statement as Record<string, any>[];
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  test('the response headers policy is console/headers.ts: its CSP exactly, HSTS a year or more with subdomains', () => {
    expect(securityHeaders.ContentSecurityPolicy).toEqual({
      ContentSecurityPolicy: stack.resolve(
        consoleHeaders(stack.people.tokenOrigin)['Content-Security-Policy'],
      ),
      Override: true,
    });
    const hsts = securityHeaders.StrictTransportSecurity;
    expect(hsts).toMatchObject({ IncludeSubdomains: true, Override: true });
    expect(hsts.AccessControlMaxAgeSec).toBeGreaterThanOrEqual(365 * 24 * 3600);
    expect(consoleHeaders()['Strict-Transport-Security']).toContain(`max-age=${hsts.AccessControlMaxAgeSec}`);
  });

  test('every other header of console/headers.ts is in the policy too; the per-file ones are on the files', () => {
    const config = resources[headersPolicyId]?.Properties?.ResponseHeadersPolicyConfig;
    const served: Record<string, string> = {
      'content-security-policy': securityHeaders.ContentSecurityPolicy?.ContentSecurityPolicy,
      'x-content-type-options': securityHeaders.ContentTypeOptions ? 'nosniff' : '',
      'referrer-policy': securityHeaders.ReferrerPolicy?.ReferrerPolicy,
      'x-frame-options': securityHeaders.FrameOptions?.FrameOption,
      ...Object.fromEntries(
        (config.CustomHeadersConfig?.Items ?? []).map((h: { Header: string; Value: string }) => [
          h.Header.toLowerCase(),
          h.Value,
        ]),
      ),
    };
    for (const [name, value] of Object.entries(consoleHeaders(stack.people.tokenOrigin)).map(
      ([n, v]) => [n, stack.resolve(v)] as const,
    )) {
      const key = name.toLowerCase();
      if (key === 'strict-transport-security') continue; // the test above
      if (key === 'content-type' || key === 'cache-control') expect(served[key], name).toBeUndefined();
      else expect(served[key], name).toEqual(value);
    }
    for (const b of Object.values(securityHeaders)) expect(b.Override).toBe(true);
  });

  test('a header CloudFront cannot express fails the synth', () => {
    const csp = consoleHeaders()['Content-Security-Policy'] as string;
    const hsts = 'max-age=31536000; includeSubDomains';
    expect(() => responseHeadersFrom({ 'Strict-Transport-Security': hsts })).toThrow(
      /Content-Security-Policy/,
    );
    expect(() =>
      responseHeadersFrom({
        'Content-Security-Policy': csp,
        'Strict-Transport-Security': 'includeSubDomains',
      }),
    ).toThrow(/Strict-Transport-Security/);
    expect(() =>
      responseHeadersFrom({
        'Content-Security-Policy': csp,
        'Strict-Transport-Security': hsts,
        'Referrer-Policy': 'strict-origin, no-referrer',
      }),
    ).toThrow(/Referrer-Policy/);
    expect(() =>
      responseHeadersFrom({
        'Content-Security-Policy': csp,
        'Strict-Transport-Security': hsts,
        'X-Frame-Options': 'ALLOW-FROM https://example.com',
      }),
    ).toThrow(/X-Frame-Options/);
  });

  test('the deployment puts the three files and sign-in.json under console/, each with its type and caching from console/headers.ts', () => {
    expect(deployments).toHaveLength(consoleFiles.length + 1);
    for (const name of [...consoleFiles, SIGN_IN_FILE]) {
      const props = deploymentOf(name)?.[1].Properties;
      expect(props, name).toMatchObject({
        DestinationBucketName: { Ref: bucketId },
        DestinationBucketKeyPrefix: 'console/',
        Exclude: ['*'],
        Include: [name],
        Prune: true,
        SystemMetadata: {
          'content-type': headersFor(name)['Content-Type'],
          'cache-control': headersFor(name)['Cache-Control'],
        },
      });
    }
    // One build, one asset: the staged directory holds exactly the three files.
    const built = deployments.filter(([, d]) => d.Properties?.Include?.[0] !== SIGN_IN_FILE);
    const keys = new Set(built.map(([, d]) => JSON.stringify(d.Properties?.SourceObjectKeys)));
    expect(keys.size).toBe(1);
    const hash = String(built[0]?.[1].Properties?.SourceObjectKeys[0]).replace(/\.zip$/, '');
    expect(readdirSync(join(app.outdir, `asset.${hash}`)).sort()).toEqual([...consoleFiles].sort());
  });

  test('index.html goes last, then /console/* is invalidated on the distribution without the deploy waiting on it', () => {
    const [pageId, page] = deploymentOf('index.html') ?? [];
    expect(page?.Properties).toMatchObject({
      DistributionId: { Ref: distributionId },
      DistributionPaths: ['/console/*'],
      // Waiting could take up to ~13 minutes and fail the stack when it runs out.
      WaitForDistributionInvalidation: false,
    });
    for (const name of ['app.js', 'app.css']) {
      const [assetId, asset] = deploymentOf(name) ?? [];
      expect(page?.DependsOn).toContain(assetId);
      expect(asset?.Properties?.DistributionId).toBeUndefined();
      expect(asset?.DependsOn ?? []).not.toContain(pageId);
    }
  });

  test('one deployment handler for the three: one AWS CLI layer, its own log group kept 30 days', () => {
    const handlers = ofType('AWS::Lambda::Function').filter(([fnId]) =>
      fnId.startsWith('CustomCDKBucketDeployment'),
    );
    expect(handlers).toHaveLength(1);
    const handler = handlers[0]?.[1].Properties;
    for (const [, d] of deployments)
      expect(d.Properties?.ServiceToken).toEqual({ 'Fn::GetAtt': [handlers[0]?.[0], 'Arn'] });
    expect(ofType('AWS::Lambda::LayerVersion')).toHaveLength(1);
    expect(handler?.Layers).toEqual([{ Ref: ofType('AWS::Lambda::LayerVersion')[0]?.[0] }]);
    expect(resources[handler?.LoggingConfig?.LogGroup?.Ref]?.Properties?.RetentionInDays).toBe(30);
  });

  test("CloudFront's account-wide names carry the stack name and the region", () => {
    const named = [
      ...ofType('AWS::CloudFront::ResponseHeadersPolicy').map(
        ([, p]) => p.Properties?.ResponseHeadersPolicyConfig.Name,
      ),
      ...ofType('AWS::CloudFront::OriginAccessControl').map(
        ([, p]) => p.Properties?.OriginAccessControlConfig.Name,
      ),
      ...ofType('AWS::CloudFront::Function').map(([, p]) => p.Properties?.Name),
    ];
    expect(named).toHaveLength(3);
    for (const name of named) {
      expect(JSON.stringify(name)).toContain('{"Ref":"AWS::Region"}');
      expect(JSON.stringify(name)).toMatch(/DeviceBans-?dev/);
    }
  });

  test('the ConsoleUrl output: https://<distribution domain>/console/', () => {
    expect(template.toJSON().Outputs.ConsoleUrl.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/console/']],
    });
  });
});

describe('stages', () => {
  test('the default stage is dev; -c stage=<name> makes an independent stack', () => {
    expect(stack.stackName).toBe('DeviceBans-dev');
    const prod = build({ stage: 'prod' });
    expect(prod.stack.stackName).toBe('DeviceBans-prod');
    prod.template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'prod' });
  });

  test('two stages live side by side in one app', () => {
    const both = new App({
      context: { 'aws:cdk:bundling-stacks': [] },
      builtinCloudFormationValidation: false,
    });
    for (const stage of ['dev', 'prod']) {
      new ServiceStack(both, stackName(stage), { settings: { ...DEFAULT_SETTINGS, stage } });
    }
    expect(() => both.synth()).not.toThrow();
  });

  test.each([
    { stage: 'Prod' },
    { stage: 'a'.repeat(21) },
    { authorizerCacheSeconds: 3601 },
    { throttleRateLimit: 0 },
    { throttleBurstLimit: 'lots' },
    { logLevel: 'verbose' },
  ])('rejects bad context %o', (context) => {
    expect(() => build(context)).toThrow(/context/);
  });

  test('context values given on the command line arrive as strings', () => {
    const other = build({ authorizerCacheSeconds: '120' });
    other.template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      AuthorizerResultTtlInSeconds: 120,
    });
  });
});

describe('cdk-nag AwsSolutions', () => {
  test('no unacknowledged findings', () => {
    const report = new AwsSolutionsChecks(app).validateScope(stack);
    const findings = report.violations.map((v) => `${v.ruleName} (${v.severity}): ${v.description}`);
    expect(findings).toEqual([]);
  });

  test('every acknowledgment carries a written reason', () => {
    const acknowledgments = stack.node
      .findAll()
      .flatMap((c) => c.node.metadata)
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) => Object.entries(m.data as Record<string, string>));
    expect(acknowledgments.length).toBeGreaterThan(0);
    for (const [id, reason] of acknowledgments) {
      expect(id).toMatch(/^(Annotation::)?AwsSolutions-/);
      expect(reason.trim().length, id).toBeGreaterThan(40);
    }
  });
});
