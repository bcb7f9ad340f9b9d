import middy, { type MiddlewareObj, type Request } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from 'zod/mini';
import type { $ZodIssue } from 'zod/v4/core';
import { describeError, log } from '../log';
import { gameHeaderSchema, publisherIdSchema } from '../model/requests';
import type { Route } from '../routes';
import { ApiError, errorResponse, type FieldIssue, jsonResponse, toApiError, unauthorized } from './errors';

/**
 * The shared middy chain every route handler goes through:
 *
 *   responder (first, so its onError runs last) → header normalizer → body guard → JSON body
 *   parser → validator → handler
 *
 * The handler receives typed, validated input and returns { statusCode, body }; it never sees the
 * raw event. Anything thrown anywhere ends as the error envelope.
 */

export const MAX_BODY_BYTES = 64 * 1024;

type Schema = z.ZodMiniType;

/** What the chain needs of a route of lib/routes.ts: whether it is behind the authorizer, and what to validate. */
export type RouteSpec = Pick<Route, 'auth' | 'request'>;

type Out<S> = S extends Schema ? z.output<S> : undefined;

export type RouteInput<R extends RouteSpec> = {
  publisherId: R['auth'] extends false ? undefined : string;
  gameId: R['request']['game'] extends true ? string : undefined;
  body: Out<R['request']['body']>;
  query: Out<R['request']['query']>;
  path: Out<R['request']['path']>;
};

export interface Reply {
  statusCode?: number;
  body: unknown;
}

type Event = APIGatewayProxyEvent & { input?: unknown };
type ChainRequest = Request<Event, APIGatewayProxyResult, Error> & {
  internal: { startedAt?: number; publisherId?: string };
};

const requestIdOf = (event: Event): string => event.requestContext?.requestId ?? 'unknown';

const responder = (): MiddlewareObj<Event, APIGatewayProxyResult> => ({
  name: 'responder',
  before: (request) => {
    (request as ChainRequest).internal.startedAt = performance.now();
  },
  after: (request) => {
    const reply = request.response as unknown as Reply;
    const response = jsonResponse(reply.statusCode ?? 200, reply.body, requestIdOf(request.event));
    request.response = response;
    access(request as ChainRequest, response.statusCode);
  },
  onError: (request) => {
    const error = toApiError(request.error);
    if (error.code === 'internal_error') {
      log('error', 'unhandled error', {
        request_id: requestIdOf(request.event),
        ...describeError(request.error),
      });
    } else if (error.code === 'service_unavailable') {
      log('warn', 'storage unavailable', {
        request_id: requestIdOf(request.event),
        ...describeError(error.cause),
      });
    }
    const response = errorResponse(error, requestIdOf(request.event));
    request.response = response;
    access(request as ChainRequest, response.statusCode, error.code);
  },
});

const access = (request: ChainRequest, status: number, errorCode?: string) => {
  const { event, internal } = request;
  log('info', 'request', {
    request_id: requestIdOf(event),
    method: event.httpMethod,
    resource: event.resource,
    status,
    ...(errorCode ? { error_code: errorCode } : {}),
    publisher_id: internal.publisherId,
    duration_ms:
      internal.startedAt === undefined
        ? undefined
        : Math.round((performance.now() - internal.startedAt) * 100) / 100,
  });
};

const JSON_CONTENT_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

/** Size first (413), then content type (415), before any parsing happens. */
const bodyGuard = (): MiddlewareObj<Event, APIGatewayProxyResult> => ({
  name: 'bodyGuard',
  before: ({ event }) => {
    const raw = event.body ?? '';
    const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64').byteLength : Buffer.byteLength(raw);
    if (bytes > MAX_BODY_BYTES) {
      throw new ApiError('payload_too_large', `The request body must be at most ${MAX_BODY_BYTES} bytes`);
    }
    if (!JSON_CONTENT_TYPE.test(event.headers?.['content-type'] ?? '')) {
      throw new ApiError('unsupported_media_type', 'Content-Type must be application/json');
    }
    if (bytes === 0) throw new ApiError('invalid_json', 'A JSON request body is required');
  },
});

const zodIssueName = (issue: $ZodIssue, input: unknown): string => {
  if (issue.code === 'invalid_type' && input === undefined) return 'required';
  if (issue.code === 'custom')
    return String((issue.params as { issue?: string } | undefined)?.issue ?? 'invalid');
  if (issue.code === 'invalid_value') return 'invalid_value';
  return issue.code;
};

const valueAt = (input: unknown, path: PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (node, key) =>
      node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined,
    input,
  );

/** Runs one schema; collects issues named by field instead of throwing. */
const check = <S extends Schema>(
  schema: S,
  input: unknown,
  label: (path: string) => string,
  issues: FieldIssue[],
  messages: string[],
) => {
  const result = schema.safeParse(input);
  if (result.success) return result.data as z.output<S>;
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({ field: label(key), issue: 'unknown_field' });
        messages.push(`${label(key)} is not a known field`);
      }
      continue;
    }
    const field = label(issue.path.map(String).join('.'));
    const name = zodIssueName(issue, valueAt(input, issue.path));
    issues.push({ field, issue: name });
    messages.push(name === 'required' ? `${field} is required` : `${field} ${issue.message}`);
  }
  return undefined;
};

/** Routes without a query schema take no query parameters at all. */
const emptyObject = z.strictObject({});

const validator = ({ auth, request: spec }: RouteSpec): MiddlewareObj<Event, APIGatewayProxyResult> => ({
  name: 'validator',
  before: (request) => {
    const { event } = request;
    const internal = (request as ChainRequest).internal;

    let publisherId: string | undefined;
    if (auth) {
      // Fail closed: a route that should be behind the authorizer but got no publisher is refused.
      const parsed = publisherIdSchema.safeParse(event.requestContext?.authorizer?.publisherId);
      if (!parsed.success) throw unauthorized();
      publisherId = parsed.data;
      internal.publisherId = publisherId;
    }

    const issues: FieldIssue[] = [];
    const messages: string[] = [];

    const repeated = Object.entries(event.multiValueQueryStringParameters ?? {})
      .filter(([, values]) => (values?.length ?? 0) > 1)
      .map(([name]) => name);
    for (const name of repeated) {
      issues.push({ field: name, issue: 'repeated' });
      messages.push(`${name} must be given at most once`);
    }

    const headers = event.headers ?? {};
    const gameId = spec.game
      ? check(gameHeaderSchema, { 'x-game-id': headers['x-game-id'] }, () => 'X-Game-Id', issues, messages)?.[
          'x-game-id'
        ]
      : undefined;
    const path = spec.path
      ? check(spec.path, event.pathParameters ?? {}, (f) => f || 'path', issues, messages)
      : undefined;
    const queryInput = event.queryStringParameters ?? {};
    const query = check(spec.query ?? emptyObject, queryInput, (f) => f || 'query', issues, messages);
    const body = spec.body ? check(spec.body, event.body, (f) => f || 'body', issues, messages) : undefined;

    if (issues.length > 0) {
      throw new ApiError('invalid_request', messages.join('; '), { details: issues });
    }
    event.input = { publisherId, gameId, path, query: spec.query ? query : undefined, body };
  },
});

/**
 * Builds a Lambda handler for one route: its row of the route table (lib/routes.ts). `handle`
 * gets typed, validated input and returns the reply; status, headers, envelope and logging are
 * the chain's business.
 */
export const httpRoute = <const R extends RouteSpec>(
  route: R,
  handle: (input: RouteInput<R>) => Promise<Reply> | Reply,
) => {
  const chain = middy<Event, APIGatewayProxyResult>({ timeoutEarlyInMillis: 250 })
    .use(responder())
    .use(httpHeaderNormalizer());
  if (route.request.body) {
    chain.use(bodyGuard()).use(httpJsonBodyParser({ disableContentTypeCheck: true }));
  }
  return chain
    .use(validator(route))
    .handler(
      async (event) => (await handle(event.input as RouteInput<R>)) as unknown as APIGatewayProxyResult,
    );
};
