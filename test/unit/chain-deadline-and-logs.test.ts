import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DEADLINE_MARGIN_MS, httpRoute } from '../../lib/http/chain';
import { getPolicyRoute } from '../../lib/routes';
import { captureLogs } from '../support/logs';
import { stubSettings } from '../support/settings';

/** What API Gateway hands a route behind the authorizer. */
const event = (): APIGatewayProxyEvent =>
  ({
    resource: '/v1/policy',
    path: '/v1/policy',
    httpMethod: 'GET',
    headers: { Host: 'api.example.com', 'X-Forwarded-Proto': 'https' },
    multiValueHeaders: { Host: ['api.example.com'], 'X-Forwarded-Proto': ['https'] },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId: 'req-1',
      path: '/prod/v1/policy',
      authorizer: { publisherId: 'pub-a', keyId: 'key_abc' },
    },
  }) as unknown as APIGatewayProxyEvent;

const context = (remainingMs: number): Context => {
  const deadline = Date.now() + remainingMs;
  return {
    awsRequestId: 'lambda-req-1',
    getRemainingTimeInMillis: () => deadline - Date.now(),
  } as unknown as Context;
};

const logs = captureLogs();

const requestLines = () => logs.entries().filter((entry) => entry.message === 'request');

describe('the function deadline', () => {
  it('answers 503 with Retry-After before the Lambda deadline when the work does not finish', async () => {
    const handler = httpRoute(getPolicyRoute, () => new Promise(() => {}));
    const started = Date.now();
    const response = await handler(event(), context(DEADLINE_MARGIN_MS + 300));
    const took = Date.now() - started;

    expect(response.statusCode).toBe(503);
    expect(response.headers?.['Retry-After']).toMatch(/^[1-9]\d*$/);
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'service_unavailable', message: expect.any(String) },
      request_id: 'req-1',
    });
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(300 + DEADLINE_MARGIN_MS);
    expect(requestLines().at(-1)).toMatchObject({ status: 503, error_code: 'service_unavailable' });
  });
});

describe('the access log', () => {
  it('gives each request one line with key_id, the Lambda request id, cold start and duration, never the key', async () => {
    const handler = httpRoute(getPolicyRoute, () => ({ body: { ok: true } }));
    await handler(event(), context(10_000));
    await handler(event(), context(10_000));

    const [first, second] = requestLines();
    expect(first).toMatchObject({
      level: 'info',
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      request_id: 'req-1',
      aws_request_id: 'lambda-req-1',
      key_id: 'key_abc',
      publisher_id: 'pub-a',
      method: 'GET',
      resource: '/v1/policy',
      status: 200,
      duration_ms: expect.any(Number),
    });
    expect(typeof first?.cold_start).toBe('boolean');
    expect(second?.cold_start).toBe(false);
    expect(logs.lines.join('')).not.toMatch(/bsk_|authorization/i);
  });

  it('honours the level Lambda sets, and LOG_LEVEL=silent', async () => {
    const handler = httpRoute(getPolicyRoute, () => ({ body: { ok: true } }));
    stubSettings({ LOG_LEVEL: '', AWS_LAMBDA_LOG_LEVEL: 'WARN' });
    await handler(event(), context(10_000));
    expect(requestLines()).toEqual([]);
    stubSettings({ AWS_LAMBDA_LOG_LEVEL: 'INFO', LOG_LEVEL: 'silent' });
    await handler(event(), context(10_000));
    expect(logs.lines).toEqual([]);
  });
});
