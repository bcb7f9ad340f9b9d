import {
  ApiError,
  type ErrorCode,
  errorStatus,
  RETRY_AFTER_SECONDS,
  SERVICE_UNAVAILABLE_MESSAGE,
} from './errors';

/**
 * What the gateway answers by itself, before or instead of a function: the one table read by the
 * deployed gateway responses and 405 mocks (infra/stack), the local gateway (infra/local) and the
 * OpenAPI error examples, so that local and deployed answers are the same words.
 */

export interface GatewayAnswer {
  readonly code: ErrorCode;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const retryShortly = { 'Retry-After': RETRY_AFTER_SECONDS } as const;

export const gatewayAnswers = {
  /** No Authorization header, or a key the authorizer refuses. */
  unauthorized: {
    code: 'unauthorized',
    message: 'A valid API key is required',
    headers: { 'WWW-Authenticate': 'Bearer' },
  },
  /** The key's policy does not allow this method. */
  forbidden: { code: 'forbidden', message: 'This key may not call this operation' },
  /** A rule of the stage's web application firewall blocked the request (infra/stack/firewall.ts). */
  blocked: { code: 'forbidden', message: 'The request was blocked by a firewall rule' },
  /** No route of the table has this path. */
  noRoute: { code: 'not_found', message: 'No route matches the request' },
  /**
   * A rate limit: the route's for all publishers together, or the caller's publisher's own (the
   * usage plan's). Deployed, `Retry-After` is this static 1 s (a gateway response cannot compute
   * it); the local gateway says when its bucket has a token again (throttledFor), which is also
   * 1 s for any rate of at least one request per second, as every deployed limit is.
   */
  throttled: { code: 'rate_limited', message: 'Too many requests; retry shortly', headers: retryShortly },
  /** A usage plan's period quota (the plan sets none today: per-publisher rate limits only). */
  quotaExceeded: {
    code: 'rate_limited',
    message: 'The request quota for this period is used up',
    headers: retryShortly,
  },
  /**
   * The authorizer named a publisher whose quota key (lib/domain/quotas.ts) is no API key of the
   * stage's usage plan: a publisher made without the keys tool, or whose API Gateway key was
   * disabled or detached.
   */
  noQuotaKey: { code: 'forbidden', message: 'This publisher has no usage plan on this API' },
  /** The authorizer could not decide (its storage failed), timed out or could not be invoked. */
  authorizerUnavailable: {
    code: 'service_unavailable',
    message: SERVICE_UNAVAILABLE_MESSAGE,
    headers: retryShortly,
  },
  /** The function did not answer: timed out, throttled, crashed. A retry may succeed. */
  functionUnavailable: {
    code: 'service_unavailable',
    message: 'The service did not answer in time; retry shortly',
    headers: retryShortly,
  },
  /** Beyond the gateway's own payload limit (10 MB); the handlers refuse far smaller bodies. */
  tooLarge: { code: 'payload_too_large', message: 'The request body is too large' },
  unsupportedMediaType: { code: 'unsupported_media_type', message: 'Content-Type must be application/json' },
  /** Headers beyond the gateway's limit. */
  headersTooLarge: { code: 'invalid_request', message: 'The request headers are too large' },
  /** Any other refusal of the gateway's (a malformed request line or head). */
  badRequest: { code: 'invalid_request', message: 'The request is not valid' },
} as const satisfies Record<string, GatewayAnswer>;

export type GatewayAnswerName = keyof typeof gatewayAnswers;

/**
 * The methods a path answers: those of its routes, and HEAD wherever GET is served (load
 * balancers and link checkers probe with HEAD).
 */
export const allowedMethods = (methods: readonly string[]): string[] => {
  const allowed = [...new Set(methods)];
  if (allowed.includes('GET') && !allowed.includes('HEAD'))
    allowed.splice(allowed.indexOf('GET') + 1, 0, 'HEAD');
  return allowed;
};

/**
 * 405 for a method a path lacks. `method` is the request's method: the local gateway passes it,
 * the deployed mock passes `$context.httpMethod`, which API Gateway fills in.
 */
export const methodNotAllowed = (method: string, path: string, allowed: readonly string[]) => ({
  code: 'method_not_allowed' as const,
  message: `${method} is not allowed on ${path}; use ${allowed.join(', ')}`,
  headers: { Allow: allowed.join(', ') },
});

/** 429 for the local gateway's per-publisher limit: retry after `seconds` (whole, at least 1). */
export const throttledFor = (seconds: number): GatewayAnswer => ({
  ...gatewayAnswers.throttled,
  headers: { ...gatewayAnswers.throttled.headers, 'Retry-After': String(Math.max(1, Math.ceil(seconds))) },
});

export const statusOf = (answer: GatewayAnswer) => errorStatus[answer.code];

/** The answer as an error for the local gateway to throw. */
export const gatewayError = (answer: GatewayAnswer, cause?: unknown) =>
  new ApiError(answer.code, answer.message, { headers: { ...answer.headers }, cause });

/** The local gateway's apiId in each event's request context (a real API Gateway id is 10 letters and digits). */
export const LOCAL_API_ID = 'local';
