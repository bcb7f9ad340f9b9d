import { App, type CfnElement, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnMethod } from 'aws-cdk-lib/aws-apigateway';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { CURRENTLY_RECOMMENDED_FLAGS } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, test } from 'vitest';
import { HANDLER_METADATA_KEY } from '../../infra/stack/handler-metadata';
import { BUNDLE_TARGET, RUNTIME } from '../../infra/stack/service-function';
import { BEARER_VALIDATION_REGEX, ServiceStack } from '../../infra/stack/service-stack';
import { DEFAULT_SETTINGS, readSettings, stackName } from '../../infra/stack/settings';
import { AUTHORIZER_LEADING_KEYS, leadingKeysOf, TABLE_ACTIONS } from '../../infra/stack/table-access';
import { errorStatus } from '../../lib/http/errors';
import { allowedMethods } from '../../lib/http/gateway-answers';
import { AUTHORIZER_FAILURE_MESSAGE } from '../../lib/log';
import {
  authorizerFunction,
  routes,
  type TableAccess,
  type TableAction,
  throttleClasses,
} from '../../lib/routes';
import { leadingKeyPattern } from '../../lib/storage/keys';
import { cdkJsonContext, templateApp } from '../support/cdk';

/**
 * Fast checks of the synthesized template, bundling skipped (test/infra/bundles.test.ts does the
 * one real, bundled synth).
 */

type Resource = {
  Type: string;
  Properties?: Record<string, any>;
  Metadata?: Record<string, unknown>;
} & Record<string, any>;

const build = (context: Record<string, unknown> = {}) => {
  const app = templateApp(context);
  const settings = readSettings(app);
  const stack = new ServiceStack(app, stackName(settings.stage), { settings });
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const logicalId = (element: unknown) => stack.getLogicalId(element as CfnElement);
  return { app, stack, template, resources, ofType, logicalId };
};

const { app, stack, template, resources, ofType, logicalId } = build();

const fnLogicalId = (id: string) => {
  const fn = stack.functions.get(id);
  if (!fn) throw new Error(`no function ${id}`);
  return logicalId(fn.node.defaultChild as CfnFunction);
};

const allFunctions = [
  ...routes.map((r) => ({ id: r.id, handler: r.handler, table: 'table' in r ? r.table : undefined })),
  authorizerFunction,
];

describe('functions', () => {
  test('one per route plus the authorizer', () => {
    expect(ofType('AWS::Lambda::Function')).toHaveLength(routes.length + 1);
    expect([...stack.functions.keys()].sort()).toEqual(allFunctions.map((f) => f.id).sort());
  });

  test.each(allFunctions)(
    '$id: Node 24, arm64, 256 MB, 10 s, its own handler and log group, JSON logs at INFO',
    ({ id, handler }) => {
      const fn = resources[fnLogicalId(id)] as Resource;
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        MemorySize: 256,
        Timeout: 10,
        Handler: 'index.handler',
      });
      expect(fn.Properties?.Timeout).toBeLessThan(29);
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
    for (const { id, table } of allFunctions) {
      const env = resources[fnLogicalId(id)]?.Properties?.Environment?.Variables ?? {};
      if (!table) expect(env.TABLE_NAME).toBeUndefined();
      else expect(env.TABLE_NAME).toEqual({ Ref: logicalId(stack.table.node.defaultChild) });
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

  test('log groups are kept 30 days, the execution log group included', () => {
    const groups = ofType('AWS::Logs::LogGroup');
    // One per function, the access log, and the execution log API Gateway writes to.
    expect(groups).toHaveLength(allFunctions.length + 2);
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

  test("one usage plan, on the API's stage, throttling every authorized method at its class's per-publisher limits", () => {
    expect(plans).toHaveLength(1);
    const plan = plans[0]?.[1].Properties ?? {};
    const [stageId] = ofType('AWS::ApiGateway::Stage')[0] ?? [];
    expect(plan.ApiStages).toHaveLength(1);
    const [apiStage] = plan.ApiStages;
    expect(apiStage.ApiId).toEqual({ Ref: logicalId(stack.api.node.defaultChild) });
    expect(apiStage.Stage).toEqual({ Ref: stageId });
    const expected = Object.fromEntries(
      routes
        .filter((route) => route.auth)
        .flatMap((route) =>
          allowedMethods([route.method]).map((method) => [
            `${route.path}/${method}`,
            {
              RateLimit: throttleClasses[route.throttle].publisher?.rateLimit,
              BurstLimit: throttleClasses[route.throttle].publisher?.burstLimit,
            },
          ]),
        ),
    );
    expect(apiStage.Throttle).toEqual(expected);
    // Limits per method and per publisher only: no plan-wide throttle, no period quota.
    expect(plan.Throttle).toBeUndefined();
    expect(plan.Quota).toBeUndefined();
  });

  test("a publisher's limits never exceed its class's stage limits; every authorized route's class has them", () => {
    for (const [name, limits] of Object.entries(throttleClasses)) {
      if (name === 'public') {
        expect(limits.publisher).toBeNull();
        continue;
      }
      expect(limits.publisher, name).not.toBeNull();
      expect(limits.publisher?.rateLimit, name).toBeLessThanOrEqual(limits.rateLimit);
      expect(limits.publisher?.burstLimit, name).toBeLessThanOrEqual(limits.burstLimit);
      expect(limits.publisher?.burstLimit, name).toBeGreaterThanOrEqual(limits.publisher?.rateLimit ?? 0);
    }
    for (const route of routes.filter((r) => r.auth))
      expect(throttleClasses[route.throttle].publisher, route.id).not.toBeNull();
  });

  test('no API key is in the template: npm run keys makes one per publisher on the plan', () => {
    expect(ofType('AWS::ApiGateway::ApiKey')).toEqual([]);
    expect(ofType('AWS::ApiGateway::UsagePlanKey')).toEqual([]);
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

  const statementsOf = (id: string) => {
    const roleRef = resources[fnLogicalId(id)]?.Properties?.Role?.['Fn::GetAtt']?.[0];
    return ofType('AWS::IAM::Policy')
      .filter(([, p]) => p.Properties?.Roles?.some((r: { Ref?: string }) => r.Ref === roleRef))
      .flatMap(([, p]) => p.Properties?.PolicyDocument.Statement as Record<string, any>[])
      .filter((s) => [s.Action].flat().some((a: string) => a.startsWith('dynamodb:')));
  };

  test.each(allFunctions)(
    '$id gets exactly the actions its code sends, on the table only',
    ({ id, handler }) => {
      const statements = statementsOf(id);
      const actions = statements.flatMap((s) => [s.Action].flat()).sort();
      const expected: readonly string[] = (TABLE_ACTIONS as Record<string, readonly string[]>)[handler] ?? [];
      expect(actions).toEqual([...expected].sort());
      for (const s of statements) {
        expect(s.Effect).toBe('Allow');
        expect(s.Resource).toEqual(tableArn);
      }
    },
  );

  test.each(allFunctions)('$id sends each action only to the partitions it declares', ({ id, table }) => {
    for (const s of statementsOf(id)) {
      const keys = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
      for (const action of [s.Action].flat() as TableAction[]) {
        expect(keys, `${id} ${action}`).toEqual(
          leadingKeysOf((table as TableAccess | undefined)?.[action] ?? []),
        );
      }
    }
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
    expect(deleters).toEqual(['createBan', 'createKey']);
  });

  test('read-only routes cannot write; health cannot touch the table', () => {
    for (const route of routes) {
      const actions = statementsOf(route.id).flatMap((s) => [s.Action].flat());
      if (!('table' in route)) expect(actions).toEqual([]);
      if (route.method === 'GET') {
        expect(actions.filter((a) => !['dynamodb:GetItem', 'dynamodb:Query'].includes(a))).toEqual([]);
      }
    }
  });

  test('the authorizer reads API key items only', () => {
    const [statement, ...rest] = statementsOf(authorizerFunction.id);
    expect(rest).toEqual([]);
    expect(statement?.Action).toBe('dynamodb:GetItem');
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

  test('no hard-coded physical names anywhere', () => {
    // References to generated names (a permission's FunctionName, say) are fine; literals are not.
    const nameProps = ['TableName', 'FunctionName', 'RoleName', 'LogGroupName', 'TopicName', 'AlarmName'];
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

  test('API 5xx', () => {
    expect(alarms).toContainEqual(
      expect.objectContaining({ Namespace: 'AWS/ApiGateway', MetricName: '5XXError', Statistic: 'Sum' }),
    );
  });

  test.each(routes)('$id errors and throttles', ({ id }) => {
    for (const metric of ['Errors', 'Throttles']) {
      expect(alarms).toContainEqual(
        expect.objectContaining({
          Namespace: 'AWS/Lambda',
          MetricName: metric,
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnLogicalId(id) } }],
          Threshold: 1,
        }),
      );
    }
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
    // API 5xx, table throttles, authorizer storage failures and throttles, two per route function.
    expect(alarms).toHaveLength(4 + 2 * routes.length);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([topicRef]);
      expect(alarm.TreatMissingData).toBe('notBreaching');
    }
    const [topicPolicy] = ofType('AWS::SNS::TopicPolicy').map(([, p]) => p.Properties);
    expect(topicPolicy?.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  test('outputs: the API URL, the table name, the usage plan and the alarm topic', () => {
    const outputs = template.toJSON().Outputs;
    expect(Object.keys(outputs).sort()).toEqual(['AlarmTopicArn', 'ApiUrl', 'TableName', 'UsagePlanId']);
    expect(outputs.TableName.Value).toEqual({ Ref: logicalId(stack.table.node.defaultChild) });
    expect(outputs.UsagePlanId.Value).toEqual({ Ref: logicalId(stack.usagePlan.node.defaultChild) });
    expect(JSON.stringify(outputs.ApiUrl.Value)).toContain('execute-api');
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
