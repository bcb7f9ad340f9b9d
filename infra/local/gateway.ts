import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { ApiError, errorResponse, type HttpResponse } from '../../lib/http/errors';
import {
  allowedMethods,
  gatewayAnswers,
  gatewayError,
  LOCAL_API_ID,
  methodNotAllowed,
  throttledFor,
} from '../../lib/http/gateway-answers';
import { describeError, log } from '../../lib/log';
import type { RateLimits, Route } from '../../lib/routes';
import { credentialLimits, DEFAULT_LOCAL_LIMITS, tokenBuckets } from './rate-limits';

/**
 * A local stand-in for the deployed API Gateway REST API: it matches the route table, runs the
 * token authorizer, counts each publisher's requests as the usage plan does, hands the handlers
 * REST (v1) proxy events, and answers what the gateway itself answers (unknown route, wrong
 * method, missing key, authorizer failure, rate limit) with the same table of answers as the
 * deployed gateway responses (lib/http/gateway-answers.ts).
 */

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type AuthorizerHandler = (
  event: APIGatewayTokenAuthorizerEvent,
) => Promise<APIGatewayAuthorizerResult>;

export interface GatewayOptions {
  routes: readonly Route[];
  handlers: ReadonlyMap<string, ProxyHandler>;
  authorizer: AuthorizerHandler;
  /** Authorizer result cache, like the deployed gateway's (which uses 300 s). 0 turns it off. */
  authorizerCacheSeconds: number;
  /** The Lambda timeout the handlers are given, as deployed. */
  timeoutMs?: number;
  /**
   * Each publisher's limits on each method (DEFAULT_LOCAL_LIMITS when absent): one token bucket
   * per usage identifier the authorizer returns (its keys', its people's) and method, as the
   * deployed usage plan counts; and within it one per credential and method, at its share.
   */
  publisherLimits?: RateLimits;
}

/** API Gateway's own payload limit; our handlers enforce the API's much smaller one. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;
const STAGE = 'local';
const API_ID = LOCAL_API_ID;
const ACCOUNT = '000000000000';
const REGION = 'local';

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  params: string[];
}

const compile = (route: Route): CompiledRoute => {
  const params: string[] = [];
  const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
    params.push(name);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}$`), params };
};

const send = (
  res: ServerResponse,
  response: HttpResponse | APIGatewayProxyResult,
  requestId: string,
  headOnly = false,
) => {
  const headers: Record<string, string | string[]> = { 'X-Request-Id': requestId };
  for (const [name, value] of Object.entries(response.headers ?? {})) headers[name] = String(value);
  const multiValue = 'multiValueHeaders' in response ? response.multiValueHeaders : undefined;
  for (const [name, values] of Object.entries(multiValue ?? {})) headers[name] = values.map(String);
  const isBase64 = 'isBase64Encoded' in response && response.isBase64Encoded;
  const body = Buffer.from(response.body ?? '', isBase64 ? 'base64' : 'utf8');
  headers['Content-Length'] = String(body.byteLength);
  res.writeHead(response.statusCode, headers);
  // A HEAD answer has the GET answer's head (Content-Length included) and no body.
  res.end(headOnly ? undefined : body);
};

const functionFailed = (cause: unknown) => gatewayError(gatewayAnswers.functionUnavailable, cause);

/**
 * What Node's HTTP parser refuses before any handler runs (a head over the size limit, a malformed
 * request line): answered in the envelope with a request id, not with Node's bare status line.
 */
export const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
  if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  const answer =
    error.code === 'HPE_HEADER_OVERFLOW' ? gatewayAnswers.headersTooLarge : gatewayAnswers.badRequest;
  // The same envelope and headers as every other answer, written by hand: no response object exists yet.
  const { statusCode, headers, body } = errorResponse(gatewayError(answer), requestId);
  log('info', 'local gateway: refused', {
    request_id: requestId,
    status: statusCode,
    error_code: answer.code,
    parser_error: error.code,
  });
  const head = Object.entries({
    ...headers,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${statusCode} Bad Request\r\n${head}\r\n${body}`);
};

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer | undefined>((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > GATEWAY_MAX_BODY) {
        done(undefined);
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => done(Buffer.concat(chunks)));
    req.on('error', fail);
  });

/**
 * Name/value pairs the way REST APIs pass headers and query strings: names as sent, the last
 * value wins in the single-value map, every value is kept in the multi-value one.
 */
const collect = (pairs: Iterable<[string, string]>) => {
  // No prototype: a client's "constructor" or "__proto__" is just a name here.
  const single: Record<string, string> = Object.create(null);
  const multi: Record<string, string[]> = Object.create(null);
  for (const [name, value] of pairs) {
    single[name] = value;
    const values = multi[name] ?? [];
    values.push(value);
    multi[name] = values;
  }
  return { single, multi };
};

function* rawHeaderPairs(req: IncomingMessage): Generator<[string, string]> {
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    yield [req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string];
}

/** The address and port the server accepted this connection on (IPv6 in brackets). */
const listenAddressOf = (req: IncomingMessage) => {
  const address = (req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  return `${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
};

const headerValue = (headers: Record<string, string>, name: string) =>
  Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];

/** IAM-style match of a policy resource (with `*` wildcards) against the method ARN. */
const resourceMatches = (resource: string, arn: string) =>
  new RegExp(
    `^${resource
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(arn);

const allows = (result: APIGatewayAuthorizerResult, methodArn: string) => {
  const statements = result.policyDocument?.Statement ?? [];
  const matching = statements.filter((s) => {
    const resources = 'Resource' in s ? ([] as string[]).concat(s.Resource as string | string[]) : [];
    return resources.some((r) => resourceMatches(r, methodArn));
  });
  return matching.length > 0 && matching.every((s) => s.Effect === 'Allow');
};

// ignoreBOM keeps a byte order mark in the text, as API Gateway hands it over (JSON.parse refuses it).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The body as the function gets it: text when it is UTF-8; otherwise its bytes, base64-encoded,
 * never "repaired" with U+FFFD. The function refuses such a body once the key's access is checked
 * (lib/http/chain.ts), so a key that may not make the call gets its 403 first.
 */
const bodyOf = (body: Buffer): { body: string; isBase64Encoded: boolean } => {
  try {
    return { body: strictUtf8.decode(body), isBase64Encoded: false };
  } catch {
    return { body: body.toString('base64'), isBase64Encoded: true };
  }
};

export const createGateway = (options: GatewayOptions) => {
  // A literal segment wins over a parameter, as in API Gateway: `/v1/appeals/stats` before `/v1/appeals/{appeal_id}`.
  const compiled = options.routes.map(compile).sort((a, b) => a.params.length - b.params.length);
  const cache = new Map<string, { result: APIGatewayAuthorizerResult; expires: number }>();
  const timeoutMs = options.timeoutMs ?? 10_000;
  const limits = options.publisherLimits ?? DEFAULT_LOCAL_LIMITS;
  const buckets = tokenBuckets(limits);
  const credentialBuckets = {
    keys: tokenBuckets(credentialLimits(limits, 'keys')),
    people: tokenBuckets(credentialLimits(limits, 'people')),
  };

  const authorize = async (token: string, methodArn: string): Promise<APIGatewayAuthorizerResult> => {
    const cached = cache.get(token);
    if (cached && cached.expires > Date.now()) return cached.result;
    const result = await options.authorizer({ type: 'TOKEN', authorizationToken: token, methodArn });
    if (options.authorizerCacheSeconds > 0) {
      cache.set(token, { result, expires: Date.now() + options.authorizerCacheSeconds * 1000 });
    }
    return result;
  };

  const handle = async (
    req: IncomingMessage,
    requestId: string,
  ): Promise<HttpResponse | APIGatewayProxyResult> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const byPath = compiled
      .map((c) => ({ c, match: c.pattern.exec(url.pathname) }))
      .filter((m): m is { c: CompiledRoute; match: RegExpExecArray } => m.match !== null);
    if (byPath.length === 0) throw gatewayError(gatewayAnswers.noRoute);
    // HEAD is served wherever GET is, as the deployed API does: the GET route runs, the body is dropped.
    const routeMethod = method === 'HEAD' ? 'GET' : method;
    const hit = byPath.find((m) => m.c.route.method === routeMethod);
    if (!hit) {
      const path = byPath[0]?.c.route.path ?? url.pathname;
      throw gatewayError(methodNotAllowed(method, path, allowedMethods(byPath.map((m) => m.c.route.method))));
    }
    const { route, params } = hit.c;

    const pathParameters: Record<string, string> = {};
    for (const [i, name] of params.entries()) {
      const raw = hit.match[i + 1] as string;
      try {
        pathParameters[name] = decodeURIComponent(raw);
      } catch {
        throw new ApiError('invalid_request', `${name} is not valid percent-encoding`, {
          details: [{ field: name, issue: 'invalid_format' }],
        });
      }
    }

    const body = await readBody(req);
    if (body === undefined) throw gatewayError(gatewayAnswers.tooLarge);

    const { single: headers, multi } = collect(rawHeaderPairs(req));
    const methodArn = `arn:aws:execute-api:${REGION}:${ACCOUNT}:${API_ID}/${STAGE}/${method}${route.path}`;
    let authorizerContext: Record<string, unknown> | undefined;
    if (route.auth) {
      const token = headerValue(headers, 'authorization');
      if (!token) throw gatewayError(gatewayAnswers.unauthorized);
      let result: APIGatewayAuthorizerResult;
      try {
        result = await authorize(token, methodArn);
      } catch (error) {
        if (error instanceof Error && error.message === 'Unauthorized')
          throw gatewayError(gatewayAnswers.unauthorized);
        throw gatewayError(gatewayAnswers.authorizerUnavailable, error);
      }
      if (!allows(result, methodArn)) throw gatewayError(gatewayAnswers.forbidden);
      // As deployed (key source AUTHORIZER, API key required): the authorizer names the usage
      // plan key, which every key of a publisher shares; without one the method is refused.
      const usageKey = result.usageIdentifierKey;
      if (!usageKey) throw gatewayError(gatewayAnswers.noQuotaKey);
      // Per method, HEAD apart from GET, as the usage plan's per-method throttles count. The
      // credential's own share first, as deployed the web ACL counts it before the usage plan
      // counts its publisher: a request it refuses spends none of the publisher's bucket.
      const place = `${method} ${route.path}`;
      const holder = result.context?.actorType === 'user' ? 'people' : 'keys';
      const credential = createHash('sha256').update(token).digest('base64url');
      const ownWait = credentialBuckets[holder].take(`${credential} ${place}`);
      if (ownWait > 0) throw gatewayError(throttledFor(ownWait));
      const wait = buckets.take(`${usageKey} ${place}`);
      if (wait > 0) throw gatewayError(throttledFor(wait));
      authorizerContext = { ...result.context, principalId: result.principalId };
    }

    const { single: query, multi: multiQuery } = collect(url.searchParams);
    const hasQuery = Object.keys(query).length > 0;
    const passed = body.byteLength > 0 ? bodyOf(body) : { body: null, isBase64Encoded: false };
    const now = Date.now();
    const event: APIGatewayProxyEvent = {
      resource: route.path,
      path: url.pathname,
      httpMethod: method,
      headers,
      multiValueHeaders: multi,
      queryStringParameters: hasQuery ? query : null,
      multiValueQueryStringParameters: hasQuery ? multiQuery : null,
      pathParameters: params.length > 0 ? pathParameters : null,
      stageVariables: null,
      body: passed.body,
      isBase64Encoded: passed.isBase64Encoded,
      requestContext: {
        accountId: ACCOUNT,
        apiId: API_ID,
        // Where this connection was accepted, as API Gateway names its own domain: the API's base
        // URL (the served document's first server) comes from here, never from a client's Host.
        domainName: listenAddressOf(req),
        authorizer: authorizerContext,
        httpMethod: method,
        // No stage in the local URLs: the path as the caller sent it (the handler derives its base URL from it).
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        requestId,
        requestTimeEpoch: now,
        resourceId: route.id,
        resourcePath: route.path,
        stage: STAGE,
        identity: {
          sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
          userAgent: headerValue(headers, 'user-agent') ?? null,
        } as APIGatewayProxyEvent['requestContext']['identity'],
      },
    };
    const deadline = now + (route.timeoutSeconds === undefined ? timeoutMs : route.timeoutSeconds * 1000);
    const context = {
      awsRequestId: randomUUID(),
      functionName: route.id,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${route.id}`,
      memoryLimitInMB: '256',
      logGroupName: `/aws/lambda/${route.id}`,
      logStreamName: 'local',
      callbackWaitsForEmptyEventLoop: false,
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      done: () => {},
      fail: () => {},
      succeed: () => {},
    } satisfies Context;
    const handler = options.handlers.get(route.id);
    if (!handler) throw functionFailed(new Error(`no handler loaded for ${route.id}`));
    let result: APIGatewayProxyResult;
    try {
      result = await handler(event, context);
    } catch (error) {
      // A function that throws gets no answer of its own through API Gateway either.
      throw functionFailed(error);
    }
    if (!result || typeof result.statusCode !== 'number')
      throw functionFailed(new Error(`${route.id} returned no response`));
    return result;
  };

  const resourceOf = (url: string | undefined) => {
    const { pathname } = new URL(url ?? '/', 'http://localhost');
    return compiled.find((c) => c.pattern.test(pathname))?.route.path ?? null;
  };

  return (req: IncomingMessage, res: ServerResponse) => {
    const requestId = randomUUID();
    const startedAt = performance.now();
    handle(req, requestId)
      .catch((error: unknown) => {
        const apiError = error instanceof ApiError ? error : functionFailed(error);
        // What the gateway refuses never reaches a function, whose access line would record it.
        log(apiError.statusCode >= 500 ? 'error' : 'info', 'local gateway: refused', {
          request_id: requestId,
          method: req.method,
          // The route's template, as the deployed access log's resourcePath: never the raw path,
          // where a confused client may have put its key.
          resource: resourceOf(req.url),
          status: apiError.statusCode,
          error_code: apiError.code,
          duration_ms: Math.round((performance.now() - startedAt) * 100) / 100,
          ...(apiError.cause === undefined ? {} : describeError(apiError.cause)),
        });
        return errorResponse(apiError, requestId);
      })
      .then((response) => send(res, response, requestId, req.method === 'HEAD'))
      .catch((error: unknown) => {
        log('error', 'local gateway: could not send a response', {
          request_id: requestId,
          ...describeError(error),
        });
        if (!res.headersSent) res.writeHead(500).end();
      });
  };
};
