import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizerHandler, createGateway, type ProxyHandler } from '../../infra/local/gateway';
import { gatewayAnswers } from '../../lib/http/gateway-answers';
import { routes } from '../../lib/routes';
import { defaultStage } from '../support/cdk';

/**
 * The gateway's own answers, local and deployed, are the same: each situation the local gateway
 * can be put in is answered by it over HTTP, and compared with what the synthesized template makes
 * API Gateway answer in that situation (status, headers, body with the request id filled in).
 */

type Resource = { Type: string; Properties: Record<string, any> };

// The default stage's parent template (the worker's one synth of it, test/support/cdk.ts).
const resources = Object.values(defaultStage().templates[0]?.template.Resources ?? {}) as Resource[];

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** A response parameter: a quoted literal, or a context variable filled in by API Gateway. */
const value = (parameter: string, context: Record<string, string>) =>
  parameter.startsWith("'") ? parameter.slice(1, -1) : (context[parameter] ?? `unresolved ${parameter}`);

const fill = (template: string, context: Record<string, string>) =>
  JSON.parse(
    template.replace(/\$(context\.\w+)/g, (_, name: string) => context[name] ?? `unresolved ${name}`),
  );

/** An answer as the template writes it: status, header parameters, the JSON mapping template. */
const answerOf = (
  status: string,
  parameters: Record<string, string>,
  templates: Record<string, string>,
  context: Record<string, string>,
): Answer => ({
  status: Number(status),
  headers: Object.fromEntries(
    Object.entries(parameters).map(([name, p]) => [
      name.split('.header.')[1]?.toLowerCase(),
      value(p, context),
    ]),
  ),
  body: fill(templates['application/json'] ?? '', context),
});

/** What the deployed gateway answers for a gateway response type. */
const deployedGatewayResponse = (type: string, context: Record<string, string>): Answer => {
  const found = resources.find(
    (r) => r.Type === 'AWS::ApiGateway::GatewayResponse' && r.Properties.ResponseType === type,
  );
  if (!found) throw new Error(`no gateway response ${type}`);
  const { StatusCode, ResponseParameters, ResponseTemplates } = found.Properties;
  return answerOf(StatusCode, ResponseParameters, ResponseTemplates, context);
};

/** What the deployed 405 mock on `path` answers. */
const deployedMethodNotAllowed = (path: string, context: Record<string, string>): Answer => {
  const mock = resources.find(
    (r) =>
      r.Type === 'AWS::ApiGateway::Method' &&
      r.Properties.OperationName === `methodNotAllowed${path.replace(/[^A-Za-z0-9]/g, '_')}`,
  );
  if (!mock) throw new Error(`no 405 mock on ${path}`);
  const { StatusCode, ResponseParameters, ResponseTemplates } =
    mock.Properties.Integration.IntegrationResponses[0];
  return answerOf(StatusCode, ResponseParameters, ResponseTemplates, context);
};

const allow = (): APIGatewayAuthorizerResult => ({
  principalId: 'pub-a',
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:*' }],
  },
  usageIdentifierKey: 'quota-key-of-pub-a',
  context: { publisherId: 'pub-a', keyId: 'k-1' },
});
const deny = (): APIGatewayAuthorizerResult => ({
  ...allow(),
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: 'arn:aws:execute-api:*' }],
  },
});

/** The authorizer's behaviour per key, as the real one: a bad key is "Unauthorized". */
const authorizer: AuthorizerHandler = async ({ authorizationToken }) => {
  if (authorizationToken === 'Bearer good') return allow();
  if (authorizationToken === 'Bearer denied') return deny();
  if (authorizationToken === 'Bearer no-plan') return { ...allow(), usageIdentifierKey: undefined };
  if (authorizationToken === 'Bearer store-down') throw new Error('storage unavailable');
  throw new Error('Unauthorized');
};
const crashing: ProxyHandler = async () => {
  throw new Error('the function crashed');
};

const servers: Server[] = [];
const bases = { generous: '', oneRequestPerSecond: '' };
beforeAll(async () => {
  const listen = async (gateway: ReturnType<typeof createGateway>) => {
    const server = createServer(gateway);
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const options = {
    routes,
    handlers: new Map(routes.map((r) => [r.id, crashing])),
    authorizer,
    authorizerCacheSeconds: 0,
  };
  bases.generous = await listen(createGateway(options));
  bases.oneRequestPerSecond = await listen(
    // A key may spend half its publisher's bucket (lib/domain/quotas.ts): one request a second.
    createGateway({ ...options, publisherLimits: { rateLimit: 2, burstLimit: 2 } }),
  );
});
afterAll(() => Promise.all(servers.map((server) => new Promise<void>((done) => server.close(() => done())))));

const local = async (
  method: string,
  path: string,
  headers: Record<string, string> = {},
  base = bases.generous,
) => {
  const res = await fetch(`${base}${path}`, { method, headers });
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    body: (await res.json()) as { request_id: string },
  };
};

/** The headers the deployed answer sets, as the local one has them. */
const sameHeaders = (deployed: Answer, localHeaders: Record<string, string>) =>
  Object.fromEntries(Object.keys(deployed.headers).map((name) => [name, localHeaders[name]]));

describe('the gateway answers, local and deployed', () => {
  it.each([
    ['no key', 'UNAUTHORIZED', 'GET', '/v1/policy', {}],
    ['a refused key', 'UNAUTHORIZED', 'GET', '/v1/policy', { Authorization: 'Bearer wrong' }],
    ['a key denied this method', 'ACCESS_DENIED', 'GET', '/v1/policy', { Authorization: 'Bearer denied' }],
    ['an unknown route', 'MISSING_AUTHENTICATION_TOKEN', 'GET', '/v1/nothing-here', {}],
    [
      'an authorizer whose storage is down',
      'AUTHORIZER_FAILURE',
      'GET',
      '/v1/policy',
      { Authorization: 'Bearer store-down' },
    ],
    ['a function that fails', 'DEFAULT_5XX', 'GET', '/v1/policy', { Authorization: 'Bearer good' }],
    [
      'a publisher that has no usage plan key',
      'INVALID_API_KEY',
      'GET',
      '/v1/policy',
      { Authorization: 'Bearer no-plan' },
    ],
  ])('are the same for %s (%s)', async (_, type, method, path, headers) => {
    const got = await local(method, path, headers);
    const deployed = deployedGatewayResponse(type, { 'context.requestId': got.body.request_id });
    expect(got.status).toBe(deployed.status);
    expect(got.body).toEqual(deployed.body);
    expect(sameHeaders(deployed, got.headers)).toEqual(deployed.headers);
  });

  it('are the same for a publisher over its limit (THROTTLED), Retry-After included at 1 request/s', async () => {
    const headers = { Authorization: 'Bearer good' };
    await local('GET', '/v1/keys', headers, bases.oneRequestPerSecond);
    const got = await local('GET', '/v1/keys', headers, bases.oneRequestPerSecond);
    const deployed = deployedGatewayResponse('THROTTLED', { 'context.requestId': got.body.request_id });
    expect(got.status).toBe(deployed.status);
    expect(got.body).toEqual(deployed.body);
    expect(sameHeaders(deployed, got.headers)).toEqual(deployed.headers);
  });

  it.each([
    ['DELETE', '/v1/policy'],
    ['PATCH', '/v1/device/dev-1/bans'],
    ['POST', '/health'],
  ])(
    'are the same for %s on %s, a method the path lacks (405 with Allow, HEAD beside GET)',
    async (method, path) => {
      const got = await local(method, path);
      const template = routes.find((r) =>
        new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
      )?.path;
      const deployed = deployedMethodNotAllowed(template ?? path, {
        'context.requestId': got.body.request_id,
        'context.httpMethod': method,
      });
      expect(got.status).toBe(405);
      expect(got.body).toEqual(deployed.body);
      expect(sameHeaders(deployed, got.headers)).toEqual(deployed.headers);
    },
  );

  it('give every answer a gateway response or a local path: no entry of the table is unused', () => {
    const used = new Set(
      resources
        .filter((r) => r.Type === 'AWS::ApiGateway::GatewayResponse')
        .map((r) => JSON.parse(r.Properties.ResponseTemplates['application/json']).error.message),
    );
    for (const [name, answer] of Object.entries(gatewayAnswers)) {
      // The local server's answer to what Node's parser refuses (API Gateway's edge answers those itself).
      if (name === 'headersTooLarge') continue;
      expect(used, name).toContain(answer.message);
    }
  });
});
