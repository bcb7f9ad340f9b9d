import { isRole } from '@kernel/people';
import { scopes as allScopes, decodeGrant, isScope, scopesOf } from '@kernel/scopes';
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import * as z from 'zod/mini';
import type { $ZodIssue } from 'zod/v4/core';
import * as clock from '../clock';
import { configureFromEnvironment } from '../config';
import type { Grantor } from '../domain/api-keys';
import { describeError, log } from '../log';
import { gameHeaderSchema, playerLinkHeaderSchema, publisherIdSchema } from '../model/requests';
import type { Actor } from '../model/responses';
import type { Route } from '../routes';
import {
  ApiError,
  errorResponse,
  type FieldIssue,
  jsonResponse,
  PLAYER_LINK_CHALLENGE,
  repeatedHeaders,
  serviceUnavailable,
  toApiError,
} from './errors';
import { gatewayAnswers, gatewayError, LOCAL_API_ID } from './gateway-answers';
import { type JsonScan, MAX_BODY_DEPTH, scanJson } from './json-numbers';

/**
 * The shared middy chain every route handler goes through:
 *
 *   responder (first, so its onError runs last) → singleton headers → header normalizer → key access
 *   (the key's scope and games) → body guard → JSON scan → JSON body parser → validator → handler
 *
 * Access comes before anything about the body or the query is looked at: a key that may not make
 * this call gets its 403, whatever else is wrong with the request. The singleton headers are
 * counted before the normalizer, which would merge `X-Game-Id` and `x-game-id` into one.
 *
 * The handler receives typed, validated input and returns { statusCode, body }; it never sees the
 * raw event. Anything thrown anywhere ends as the error envelope.
 */

export const MAX_BODY_BYTES = 64 * 1024;

/** How many field issues an error names; the message says how many more there were. */
export const MAX_ISSUES = 20;
const MAX_MESSAGE_CHARS = 1_000;

/**
 * A handler answers 503 this long before its Lambda deadline rather than be cut off (which the
 * gateway would answer itself): time for the response to be written and the access line logged.
 */
export const DEADLINE_MARGIN_MS = 250;

type Schema = z.ZodMiniType;

/** What the chain needs of a route of lib/routes.ts: whether it is behind the authorizer, the scope it needs, and what to validate. */
export type RouteSpec = Pick<Route, 'auth' | 'scope' | 'request'>;

/**
 * Who a request came from, as the authorizer resolved it: a key or a person signed in (the audit
 * trail's actor), and what they hold (a person: their role's scopes, every game).
 */
export interface Caller extends Grantor {
  actor: Actor;
  /** When what the caller presented stops being valid: the key's expiry, or the person's token's. */
  validUntil: string | null;
}

type Out<S> = S extends Schema ? z.output<S> : undefined;

export type RouteInput<R extends RouteSpec> = {
  /** Where this API is served, as the caller reached it (scheme, host and stage prefix). */
  baseUrl: string;
  publisherId: R['auth'] extends false ? undefined : string;
  caller: R['auth'] extends false ? undefined : Caller;
  /** The caller as the audit trail names it. */
  actor: R['auth'] extends false ? undefined : Actor;
  gameId: R['request']['game'] extends true ? string : undefined;
  /** The player's page link the request carries (its secret), on the routes that take one. */
  playerLink: R['request']['playerLink'] extends true ? string : undefined;
  body: Out<R['request']['body']>;
  query: Out<R['request']['query']>;
  path: Out<R['request']['path']>;
  /** The request's `Accept-Language` header as sent (kernel/locales.ts reads it; never refused). */
  acceptLanguage: string | undefined;
  /** The request's `Accept` header as sent (lib/http/media-types.ts reads it; never refused). */
  accept: string | undefined;
};

export interface Reply {
  statusCode?: number;
  body: unknown;
  /** A body that is not JSON (the transparency report's CSV): `body` is sent as is, with this Content-Type. */
  contentType?: string;
  /** Headers of this answer beside the chain's own (e.g. `Vary`, `Content-Language`). */
  headers?: Record<string, string>;
}

type Event = APIGatewayProxyEvent & { input?: unknown };
type ChainRequest = Request<Event, APIGatewayProxyResult, Error, Context> & {
  internal: {
    startedAt?: number;
    publisherId?: string;
    caller?: Caller;
    playerLink?: string;
    rawBody?: string;
    scan?: JsonScan;
  };
};

const requestIdOf = (event: Event): string => event.requestContext?.requestId ?? 'unknown';

/** True for the first request a Lambda instance serves (its cold start), for the access log. */
let coldStart = true;

const responder = (): MiddlewareObj<Event, APIGatewayProxyResult> => ({
  name: 'responder',
  before: (request) => {
    (request as ChainRequest).internal.startedAt = performance.now();
    // Lambda's entry point binds the environment's settings on its first request (lib/config.ts);
    // the local server has bound its own before any request.
    configureFromEnvironment(process.env);
  },
  after: (request) => {
    const reply = request.response as unknown as Reply;
    const requestId = requestIdOf(request.event);
    const response =
      reply.contentType === undefined
        ? jsonResponse(reply.statusCode ?? 200, reply.body, requestId, reply.headers)
        : {
            statusCode: reply.statusCode ?? 200,
            headers: {
              ...reply.headers,
              'Content-Type': reply.contentType,
              'Cache-Control': 'no-store',
              'X-Request-Id': requestId,
            },
            body: String(reply.body),
          };
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
      log('warn', 'service unavailable', {
        request_id: requestIdOf(request.event),
        ...describeError(error.cause),
      });
    }
    const response = errorResponse(error, requestIdOf(request.event));
    request.response = response;
    access(request as ChainRequest, response.statusCode, error.code);
  },
});

/** One line per request: who (publisher, key id, never the key), what, the outcome, how long. */
const access = (request: ChainRequest, status: number, errorCode?: string) => {
  const { event, internal, context } = request;
  log('info', 'request', {
    request_id: requestIdOf(event),
    aws_request_id: context?.awsRequestId,
    method: event.httpMethod,
    resource: event.resource,
    status,
    ...(errorCode ? { error_code: errorCode } : {}),
    publisher_id: internal.publisherId,
    key_id:
      typeof event.requestContext?.authorizer?.keyId === 'string'
        ? event.requestContext.authorizer.keyId
        : undefined,
    user_sub:
      typeof event.requestContext?.authorizer?.sub === 'string'
        ? event.requestContext.authorizer.sub
        : undefined,
    cold_start: coldStart,
    duration_ms:
      internal.startedAt === undefined
        ? undefined
        : Math.round((performance.now() - internal.startedAt) * 100) / 100,
  });
  coldStart = false;
};

const singletonHeaders = (): MiddlewareObj<Event, APIGatewayProxyResult> => ({
  name: 'singletonHeaders',
  before: ({ event }) => {
    const repeated = repeatedHeaders(event.multiValueHeaders);
    if (repeated.length > 0) {
      throw new ApiError(
        'invalid_request',
        repeated.map((name) => `${name} must be sent at most once`).join('; '),
        {
          details: repeated.map((field) => ({ field, issue: 'repeated' })),
        },
      );
    }
  },
});

// ignoreBOM keeps a byte order mark in the text, as API Gateway hands it over (JSON.parse refuses it).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A body that is not UTF-8 is refused, not "repaired" with U+FFFD and stored altered. */
const decodeUtf8 = (bytes: Buffer) => {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid UTF-8');
  }
};

const JSON_CONTENT_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

/** Size first (413), then content type (415), then UTF-8 (400), before any parsing happens. */
const bodyGuard = (maxBytes: number): MiddlewareObj<Event, APIGatewayProxyResult> => ({
  name: 'bodyGuard',
  before: (request) => {
    const { event } = request;
    const raw = event.body ?? '';
    const decoded = event.isBase64Encoded ? Buffer.from(raw, 'base64') : undefined;
    const bytes = decoded ? decoded.byteLength : Buffer.byteLength(raw);
    if (bytes > maxBytes) {
      throw new ApiError('payload_too_large', `The request body must be at most ${maxBytes} bytes`);
    }
    if (!JSON_CONTENT_TYPE.test(event.headers?.['content-type'] ?? '')) {
      throw new ApiError('unsupported_media_type', 'Content-Type must be application/json');
    }
    (request as ChainRequest).internal.rawBody = decoded ? decodeUtf8(decoded) : raw;
    if (bytes === 0) throw new ApiError('invalid_json', 'A JSON request body is required');
  },
});

/**
 * The body parsed. First the scan: a body nesting deeper than MAX_BODY_DEPTH is refused as such
 * (not as invalid JSON, which it may well be), and the scan's other findings wait for the
 * validator. Then the parse, refusing `__proto__` (and a `constructor` holding a `prototype`)
 * anywhere: keys that reach an object's prototype once merged. Our own few lines rather than
 * middy's JSON body parser: the scan reads the body already, and the parser's option checks and
 * content-type handling (ours is bodyGuard's) cost every bundle 1.4 KB (docs/performance.md).
 */
const jsonBody = (): MiddlewareObj<Event, APIGatewayProxyResult> => ({
  name: 'jsonBody',
  before: (request) => {
    const internal = (request as ChainRequest).internal;
    const raw = internal.rawBody ?? '';
    const scan = scanJson(raw);
    if (scan.tooDeep !== null) {
      throw new ApiError('invalid_request', `${scan.tooDeep} nests deeper than ${MAX_BODY_DEPTH} levels`, {
        details: [{ field: scan.tooDeep, issue: 'too_deep' }],
      });
    }
    internal.scan = scan;
    let forbidden: string | undefined;
    try {
      request.event.body = JSON.parse(raw, (key, value) => {
        if (key === '__proto__' || (key === 'constructor' && value && Object.hasOwn(value, 'prototype')))
          forbidden ??= key;
        return value;
      });
    } catch {
      throw new ApiError('invalid_json', 'The request body is not valid JSON');
    }
    if (forbidden !== undefined) {
      throw new ApiError('invalid_request', `the key ${forbidden} is not allowed`, {
        details: [{ field: forbidden, issue: 'forbidden_key' }],
      });
    }
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
      // Named by its full path: an unknown key inside a list item (`reasons.3.colour`) is not a top-level one.
      for (const key of issue.keys) {
        const field = label([...issue.path, key].map(String).join('.'));
        issues.push({ field, issue: 'unknown_field' });
        messages.push(`${field} is not a known field`);
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

/**
 * The 400 naming each field, capped: a body of 3,000 unknown fields gets the first few named and
 * a count, not a 220 KB answer.
 */
const invalidRequest = (issues: FieldIssue[], messages: string[]) => {
  const more = issues.length - MAX_ISSUES;
  let message = messages.slice(0, MAX_ISSUES).join('; ');
  if (more > 0) message += `; and ${more} more`;
  if (message.length > MAX_MESSAGE_CHARS) message = `${message.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
  return new ApiError('invalid_request', message, { details: issues.slice(0, MAX_ISSUES) });
};

/**
 * The API's base URL as this request reached it, from the request context the gateway wrote, never
 * from the Host or X-Forwarded-* headers a client sets. API Gateway names its own domain (or the
 * custom domain) there and serves HTTPS only; its requestContext.path carries the stage (or a
 * custom domain's base path) before the route's path. The local gateway (apiId LOCAL_API_ID)
 * names the address it accepted the connection on, over plain HTTP, with no stage.
 */
const baseUrlOf = (event: Event): string => {
  const context = event.requestContext;
  const full = context?.path ?? event.path ?? '';
  const prefix =
    event.path && full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : '';
  const scheme = context?.apiId === LOCAL_API_ID ? 'http' : 'https';
  return `${scheme}://${context?.domainName ?? 'localhost'}${prefix}`;
};

/** Routes without a query schema take no query parameters at all. */
const emptyObject = z.strictObject({});

/**
 * The caller from the authorizer's context. Contexts cached from before keys had scopes carry
 * none: those keys held every scope and game, and still do (an unscoped key keeps them all).
 */
const callerOf = (authorizer: Record<string, unknown> | null | undefined): Caller | undefined => {
  const scopes = authorizer?.scopes === undefined ? null : decodeGrant(authorizer.scopes);
  const games = authorizer?.games === undefined ? null : decodeGrant(authorizer.games);
  if (scopes === undefined || games === undefined) return undefined;
  const expiresAt =
    typeof authorizer?.expiresAt === 'string' && authorizer.expiresAt !== '' ? authorizer.expiresAt : null;
  const tokenExpiresAt = typeof authorizer?.tokenExpiresAt === 'string' ? authorizer.tokenExpiresAt : null;
  const held = {
    scopes: scopes ? scopes.filter(isScope) : [...allScopes],
    games,
    expiresAt,
    validUntil: tokenExpiresAt ?? expiresAt,
  };
  if (authorizer?.actorType === 'user') {
    const { sub, email, role } = authorizer;
    if (typeof sub !== 'string' || typeof email !== 'string' || !isRole(role)) return undefined;
    return { actor: { type: 'user', sub, email: email === '' ? null : email, role }, ...held };
  }
  const keyId = authorizer?.keyId;
  if (typeof keyId !== 'string') return undefined;
  // '' in contexts cached from before names rode along.
  const name = typeof authorizer?.keyName === 'string' ? authorizer.keyName : '';
  return { actor: { type: 'key', key_id: keyId, name }, ...held };
};

/** How a refusal names the caller: the key, or the person's role. */
const holderOf = (caller: Caller) =>
  caller.actor.type === 'user' ? `The role ${caller.actor.role}` : 'This key';

const forbidden = (message: string) => new ApiError('forbidden', message);

/**
 * The key's right to make this call, before anything about the request is looked at (its body,
 * its query, its path): a key that may not call this learns nothing more. A key bound to games
 * calling another game is refused here too, as long as the game it names is one at all.
 */
const keyAccess = ({
  auth,
  scope,
  request: spec,
}: RouteSpec): MiddlewareObj<Event, APIGatewayProxyResult> => ({
  name: 'keyAccess',
  before: (request) => {
    if (spec.playerLink) {
      // A missing or malformed link is refused as an unknown one: before the body is looked at.
      const link = playerLinkHeaderSchema.safeParse({
        'x-player-link': request.event.headers?.['x-player-link'],
      });
      if (!link.success)
        throw new ApiError('unauthorized', 'A player page link is required (the X-Player-Link header)', {
          headers: { 'WWW-Authenticate': PLAYER_LINK_CHALLENGE },
        });
      (request as ChainRequest).internal.playerLink = link.data['x-player-link'];
    }
    if (!auth) return;
    const { event } = request;
    const internal = (request as ChainRequest).internal;
    // Fail closed: a route that should be behind the authorizer but got no publisher is refused.
    const parsed = publisherIdSchema.safeParse(event.requestContext?.authorizer?.publisherId);
    const caller = callerOf(event.requestContext?.authorizer);
    if (!parsed.success || !caller) throw gatewayError(gatewayAnswers.unauthorized);
    // An authorizer answer is cached by the token for minutes: it never outlives the key or the
    // person's token it was made for.
    if (caller.validUntil !== null && caller.validUntil <= new Date(clock.now()).toISOString())
      throw gatewayError(gatewayAnswers.unauthorized);
    internal.publisherId = parsed.data;
    internal.caller = caller;
    if (scope && !scopesOf(scope).some((needed) => caller.scopes.includes(needed)))
      throw forbidden(`${holderOf(caller)} lacks the scope ${scopesOf(scope).join(' or ')}`);
    if (spec.everyGame && caller.games)
      throw forbidden('This key is bound to games, and this operation covers every game');
    const game = spec.game
      ? gameHeaderSchema.safeParse({ 'x-game-id': event.headers?.['x-game-id'] })
      : undefined;
    if (game?.success && caller.games && !caller.games.includes(game.data['x-game-id']))
      throw forbidden(`This key is not bound to game ${game.data['x-game-id']}`);
  },
});

const validator = ({ request: spec }: RouteSpec): MiddlewareObj<Event, APIGatewayProxyResult> => ({
  name: 'validator',
  before: (request) => {
    const { event } = request;
    const internal = (request as ChainRequest).internal;
    const { publisherId, caller } = internal;

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
    for (const field of internal.scan?.duplicates ?? []) {
      issues.push({ field, issue: 'duplicate' });
      messages.push(`${field} is given more than once`);
    }
    for (const { path: field, literal } of internal.scan?.imprecise ?? []) {
      issues.push({ field, issue: 'imprecise_number' });
      messages.push(
        `${field} ${literal} cannot be stored exactly: send at most double precision (about 15 digits)`,
      );
    }

    if (issues.length > 0) throw invalidRequest(issues, messages);
    event.input = {
      baseUrl: baseUrlOf(event),
      publisherId,
      caller,
      actor: caller?.actor,
      gameId,
      playerLink: internal.playerLink,
      path,
      query: spec.query ? query : undefined,
      body,
      acceptLanguage: headers['accept-language'],
      accept: headers.accept,
    };
  },
});

/**
 * Builds a Lambda handler for one route: its row of the route table (lib/routes.ts). `handle`
 * gets typed, validated input and returns the reply; status, headers, envelope and logging are
 * the chain's business.
 */
/** Header names in lower case, the way HTTP compares them; one object with no prototype per map. */
const lowerKeys = <T>(from: Record<string, T> | null | undefined) => {
  if (!from) return from;
  const to: Record<string, T> = Object.create(null);
  for (const name in from) to[name.toLowerCase()] = from[name] as T;
  return to;
};

/**
 * Header names lower-cased before anything reads them. Our own eight lines rather than middy's
 * normalizer: its canonical casing, default headers and option checks are unused here and cost
 * every bundle 1.5 KB (the bench's size ratio, docs/performance.md).
 */
const lowerCaseHeaders = (): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: ({ event }) => {
    event.headers = lowerKeys(event.headers) as APIGatewayProxyEvent['headers'];
    event.multiValueHeaders = lowerKeys(event.multiValueHeaders) as APIGatewayProxyEvent['multiValueHeaders'];
  },
});

export const httpRoute = <const R extends RouteSpec>(
  route: R,
  handle: (input: RouteInput<R>) => Promise<Reply> | Reply,
) => {
  const chain = middy<Event, APIGatewayProxyResult>({
    // Before the Lambda's own timeout (which the gateway would answer for us), a 503 the client
    // can retry, in the envelope, logged like any other answer.
    timeoutEarlyInMillis: DEADLINE_MARGIN_MS,
    timeoutEarlyResponse: () => {
      throw serviceUnavailable(new Error('the function reached its deadline'));
    },
  })
    .use(responder())
    .use(singletonHeaders())
    .use(lowerCaseHeaders())
    .use(keyAccess(route));
  if (route.request.body) {
    chain.use(bodyGuard(route.request.maxBodyBytes ?? MAX_BODY_BYTES)).use(jsonBody());
  }
  return chain
    .use(validator(route))
    .handler(
      async (event) => (await handle(event.input as RouteInput<R>)) as unknown as APIGatewayProxyResult,
    );
};
