import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { type AuthorizerHandler, createGateway, type ProxyHandler } from '../../infra/local/gateway';
import type { Route } from '../../lib/routes';
import { captureLogs } from '../support/logs';

const route: Route = {
  id: 'thing',
  method: 'GET',
  path: '/v1/things/{thing_id}',
  handler: 'thing',
  auth: true,
  request: {},
  scope: 'bans:read',
  throttle: 'read',
};
const allow = (
  resource = 'arn:aws:execute-api:local:000000000000:local/local/*',
): APIGatewayAuthorizerResult => ({
  principalId: 'pub-a',
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: resource }],
  },
  context: { publisherId: 'pub-a' },
});

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

const serve = async (authorizer: AuthorizerHandler, handler: ProxyHandler, authorizerCacheSeconds = 0) => {
  server = createServer(
    createGateway({
      routes: [route],
      handlers: new Map([['thing', handler]]),
      authorizer,
      authorizerCacheSeconds,
    }),
  );
  await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return async (path: string, headers: Record<string, string> = { Authorization: 'Bearer k' }) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
};

const echo: ProxyHandler = async (event: APIGatewayProxyEvent) => ({
  statusCode: 200,
  body: JSON.stringify({
    path: event.pathParameters,
    query: event.multiValueQueryStringParameters,
    authorizer: event.requestContext.authorizer,
  }),
});

describe('the local gateway', () => {
  it('hands the handler a REST proxy event with decoded path parameters, every query value and the authorizer context', async () => {
    const call = await serve(async () => allow(), echo);
    const res = await call('/v1/things/a%40b?x=1&x=2');
    expect(res.body).toEqual({
      path: { thing_id: 'a@b' },
      query: { x: ['1', '2'] },
      authorizer: { publisherId: 'pub-a', principalId: 'pub-a' },
    });
  });

  it('answers 403 forbidden when the policy does not allow the method ARN', async () => {
    const call = await serve(
      async () => allow('arn:aws:execute-api:local:000000000000:local/local/POST/*'),
      echo,
    );
    const res = await call('/v1/things/1');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  it('answers 503 with Retry-After when the authorizer fails for another reason than Unauthorized', async () => {
    const call = await serve(async () => {
      throw new Error('DynamoDB is down');
    }, echo);
    const res = await call('/v1/things/1');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body.error.code).toBe('service_unavailable');
  });

  it('answers 503 service_unavailable with Retry-After, saying nothing internal, when a handler throws (as API Gateway does for a failed invocation)', async () => {
    const call = await serve(
      async () => allow(),
      async () => {
        throw new Error('secret internals');
      },
    );
    const res = await call('/v1/things/1');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body.error).toEqual({
      code: 'service_unavailable',
      message: 'The service did not answer in time; retry shortly',
    });
    expect(JSON.stringify(res.body)).not.toContain('secret internals');
  });

  it('answers 400 for a path parameter that is not valid percent-encoding', async () => {
    const call = await serve(async () => allow(), echo);
    const res = await call('/v1/things/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'thing_id', issue: 'invalid_format' }]);
  });

  it('caches the authorizer answer per key only when asked to', async () => {
    let calls = 0;
    const counting: AuthorizerHandler = async () => {
      calls += 1;
      return allow();
    };
    const uncached = await serve(counting, echo);
    await uncached('/v1/things/1');
    await uncached('/v1/things/2');
    expect(calls).toBe(2);
    await new Promise<void>((done) => server?.close(() => done()));

    calls = 0;
    const cached = await serve(counting, echo, 300);
    await cached('/v1/things/1');
    await cached('/v1/things/2');
    await cached('/v1/things/3', { Authorization: 'Bearer other' });
    expect(calls).toBe(2);
  });
});

describe('the local gateway log', () => {
  const logs = captureLogs();

  it('writes one line for each request it refuses itself, with status, code and request id, never the key', async () => {
    const call = await serve(async () => {
      throw new Error('Unauthorized');
    }, echo);
    const refused = await call('/v1/things/1', { Authorization: 'Bearer secret-key-material' });
    const unknown = await call('/nowhere/secret-key-material');
    const entries = logs.entries().filter((e) => e.message === 'local gateway: refused');
    expect(entries).toEqual([
      expect.objectContaining({
        level: 'info',
        request_id: refused.headers.get('x-request-id'),
        method: 'GET',
        resource: '/v1/things/{thing_id}',
        status: 401,
        error_code: 'unauthorized',
      }),
      expect.objectContaining({
        request_id: unknown.headers.get('x-request-id'),
        resource: null,
        status: 404,
        error_code: 'not_found',
      }),
    ]);
    // Neither from the header nor from a path a confused client put it in.
    expect(logs.lines.join('')).not.toContain('secret-key-material');
  });
});
