import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

/**
 * Lambda inputs for the in-process benchmark, and for the handler unit tests (test/support/events.ts
 * re-exports them): bench/ uses lib/ and its own code, never test code.
 */

/** A REST (v1) proxy event as API Gateway builds it after the authorizer allowed the call. */
export const proxyEvent = (options: {
  method?: string;
  resource?: string;
  publisherId?: string | null;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  query?: Record<string, string | string[]>;
  pathParameters?: Record<string, string>;
}): APIGatewayProxyEvent => {
  const query = Object.entries(options.query ?? {});
  const body = options.rawBody ?? (options.body === undefined ? null : JSON.stringify(options.body));
  const headers = {
    ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    ...options.headers,
  };
  return {
    resource: options.resource ?? '/',
    path: options.resource ?? '/',
    httpMethod: options.method ?? 'GET',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: query.length
      ? Object.fromEntries(query.map(([k, v]) => [k, [v].flat().at(-1) as string]))
      : null,
    multiValueQueryStringParameters: query.length
      ? Object.fromEntries(query.map(([k, v]) => [k, [v].flat()]))
      : null,
    pathParameters: options.pathParameters ?? null,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      requestId: 'req-test',
      authorizer:
        options.publisherId === null
          ? undefined
          : { publisherId: options.publisherId ?? 'pub-a', keyId: 'key_test' },
    } as APIGatewayProxyEvent['requestContext'],
  };
};

export const lambdaContext = { getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
