import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { type AuthorizerHandler, createGateway, type ProxyHandler } from '../../infra/local/gateway';
import type { RateLimits, Route } from '../../lib/routes';
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
  retry: 'read',
};
const allow = (
  resource = 'arn:aws:execute-api:local:000000000000:local/local/*',
): APIGatewayAuthorizerResult => ({
  principalId: 'pub-a',
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: resource }],
  },
  usageIdentifierKey: 'quota-key-of-pub-a',
  context: { publisherId: 'pub-a' },
});

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

const serve = async (
  authorizer: AuthorizerHandler,
  handler: ProxyHandler,
  authorizerCacheSeconds = 0,
  publisherLimits?: RateLimits,
) => {
  server = createServer(
    createGateway({
      routes: [route],
      handlers: new Map([['thing', handler]]),
      authorizer,
      authorizerCacheSeconds,
      publisherLimits,
    }),
  );
  await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return async (
    path: string,
    headers: Record<string, string> = { Authorization: 'Bearer k' },
    method = 'GET',
  ) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as any };
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

describe("the local gateway: each publisher's limits", () => {
  /** Two Bearer keys of pub-a and one of pub-b; anything else is refused. */
  const publishers: AuthorizerHandler = async ({ authorizationToken }) => {
    const publisher = {
      'Bearer a1': 'pub-a',
      'Bearer a2': 'pub-a',
      'Bearer a3': 'pub-a',
      'Bearer b1': 'pub-b',
      'Bearer pa1': 'pub-a/person',
      'Bearer pa2': 'pub-a/person',
    }[authorizationToken];
    if (!publisher) throw new Error('Unauthorized');
    const [publisherId, person] = publisher.split('/');
    return {
      ...allow(),
      principalId: publisherId as string,
      // A person is counted in the publisher's people's bucket, as lib/http/authorizer.ts names it.
      usageIdentifierKey: `quota-key-of-${publisherId}${person ? '-people' : ''}`,
      context: person ? { actorType: 'user' } : {},
    };
  };
  const as = (key: string) => ({ Authorization: `Bearer ${key}` });
  let handled = 0;
  const counted: ProxyHandler = async (event) => {
    handled += 1;
    return echo(event, {} as never);
  };

  it("answers 429 rate_limited with Retry-After past a publisher's burst, every key of the publisher counting against one bucket", async () => {
    handled = 0;
    const call = await serve(publishers, counted, 0, { rateLimit: 1, burstLimit: 2 });
    expect((await call('/v1/things/1', as('a1'))).status).toBe(200);
    expect((await call('/v1/things/1', as('a2'))).status).toBe(200);
    // A third key of the publisher has its own share full, but the publisher's bucket is empty.
    const refused = await call('/v1/things/1', as('a3'));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({
      error: { code: 'rate_limited', message: 'Too many requests; retry shortly' },
      request_id: refused.headers.get('x-request-id'),
    });
    expect((await call('/v1/things/1', as('a2'))).status).toBe(429);
    // The other publisher has its own bucket; the refused requests never reached the function.
    expect((await call('/v1/things/1', as('b1'))).status).toBe(200);
    expect(handled).toBe(3);
  });

  it('says in whole seconds, at least 1, when the bucket has a token again', async () => {
    const call = await serve(publishers, echo, 0, { rateLimit: 0.25, burstLimit: 2 });
    expect((await call('/v1/things/1', as('a1'))).status).toBe(200);
    expect((await call('/v1/things/1', as('a2'))).status).toBe(200);
    const refused = await call('/v1/things/1', as('a3'));
    expect(refused.status).toBe(429);
    // The publisher's bucket refills at 0.25 a second.
    expect(refused.headers.get('retry-after')).toBe('4');
  });

  it("holds each key to its half of the publisher's bucket: its own refill, and another key still served", async () => {
    let handledHere = 0;
    const call = await serve(
      publishers,
      async (event) => {
        handledHere += 1;
        return echo(event, {} as never);
      },
      0,
      { rateLimit: 1, burstLimit: 4 },
    );
    for (let i = 0; i < 2; i++) expect((await call('/v1/things/1', as('a1'))).status).toBe(200);
    const refused = await call('/v1/things/1', as('a1'));
    expect(refused.status).toBe(429);
    // Its own bucket refills at half the publisher's rate: 0.5 a second, 2 s.
    expect(refused.headers.get('retry-after')).toBe('2');
    // Its refusal spent none of the publisher's: the other half is there for another key.
    for (let i = 0; i < 2; i++) expect((await call('/v1/things/1', as('a2'))).status).toBe(200);
    expect((await call('/v1/things/1', as('a3'))).status).toBe(429);
    expect(handledHere).toBe(4);
  });

  it("counts people in the people's bucket, each at a quarter of it: the keys' bucket stays whole", async () => {
    const call = await serve(publishers, echo, 0, { rateLimit: 1, burstLimit: 4 });
    expect((await call('/v1/things/1', as('pa1'))).status).toBe(200);
    const refused = await call('/v1/things/1', as('pa1'));
    expect(refused.status).toBe(429);
    // A quarter of the rate: 0.25 a second, 4 s.
    expect(refused.headers.get('retry-after')).toBe('4');
    expect((await call('/v1/things/1', as('pa2'))).status).toBe(200);
    // The keys spend their own bucket, which no person touched: its whole burst.
    for (const key of ['a1', 'a1', 'a2', 'a2'])
      expect((await call('/v1/things/1', as(key))).status, key).toBe(200);
  });

  it("counts only requests the authorizer lets through: refused keys spend no publisher's tokens", async () => {
    const call = await serve(publishers, echo, 0, { rateLimit: 1, burstLimit: 1 });
    for (let i = 0; i < 3; i++) expect((await call('/v1/things/1', as('nobody'))).status).toBe(401);
    expect((await call('/v1/things/1', as('a1'))).status).toBe(200);
  });

  it('gives HEAD a bucket of its own beside GET, as the usage plan throttles each method', async () => {
    const call = await serve(publishers, echo, 0, { rateLimit: 1, burstLimit: 1 });
    expect((await call('/v1/things/1', as('a1'))).status).toBe(200);
    expect((await call('/v1/things/1', as('a1'), 'HEAD')).status).toBe(200);
    expect((await call('/v1/things/1', as('a1'))).status).toBe(429);
  });

  it('refuses 403 when the authorizer names no usage plan key, as the deployed gateway does', async () => {
    const call = await serve(async () => ({ ...allow(), usageIdentifierKey: undefined }), echo);
    const res = await call('/v1/things/1');
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({
      code: 'forbidden',
      message: 'This publisher has no usage plan on this API',
    });
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

describe("the local gateway's time limit", () => {
  it("gives a handler its route's own time limit when the route names one, else 10 s, as the stack does", async () => {
    const slow: Route = { ...route, id: 'slow', path: '/v1/slow', timeoutSeconds: 28 };
    const remaining: ProxyHandler = async (_event, context) => ({
      statusCode: 200,
      body: JSON.stringify({ remaining: context.getRemainingTimeInMillis() }),
    });
    server = createServer(
      createGateway({
        routes: [route, slow],
        handlers: new Map([
          ['thing', remaining],
          ['slow', remaining],
        ]),
        authorizer: async () => allow(),
        authorizerCacheSeconds: 0,
      }),
    );
    await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const remainingOf = async (path: string) =>
      (
        (await (
          await fetch(`http://127.0.0.1:${port}${path}`, { headers: { Authorization: 'Bearer k' } })
        ).json()) as {
          remaining: number;
        }
      ).remaining;
    const slowRoute = await remainingOf('/v1/slow');
    const plainRoute = await remainingOf('/v1/things/1');
    expect(slowRoute).toBeGreaterThan(27_000);
    expect(slowRoute).toBeLessThanOrEqual(28_000);
    expect(plainRoute).toBeGreaterThan(9_000);
    expect(plainRoute).toBeLessThanOrEqual(10_000);
  });
});
