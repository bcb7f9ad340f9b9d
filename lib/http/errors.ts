import {
  ConflictError,
  CursorExpiredError,
  ForbiddenError,
  IntegrityError,
  InvalidInputError,
  NotFoundError,
  SlowDownError,
  UnauthorizedError,
} from '../domain/errors';
import { type ErrorCode, errorStatus } from '../model/error-codes';
import type { ConflictHolder } from '../model/responses';
import { isTransientStoreFailure } from '../storage/failures';

/**
 * The one error family of the API. Every failure, from a handler, the authorizer or the local
 * gateway, leaves as the same envelope: {"error": {code, message, details?}, "request_id"}.
 */

export { type ErrorCode, errorStatus } from '../model/error-codes';

export interface FieldIssue {
  field: string;
  issue: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: FieldIssue[] | undefined;
  readonly headers: Record<string, string>;
  readonly holder: ConflictHolder | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      details?: FieldIssue[];
      headers?: Record<string, string>;
      cause?: unknown;
      holder?: ConflictHolder | undefined;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
    this.holder = options.holder;
  }

  get statusCode(): number {
    return errorStatus[this.code];
  }
}

/** The challenge of a 401 for a player's page link (kernel/player-links.ts: its header). */
export const PLAYER_LINK_CHALLENGE = 'PlayerLink';

/** Seconds a client should wait before retrying a 503 or 429. */
export const RETRY_AFTER_SECONDS = '1';

/** The words of every 503, from a handler or from the gateway (lib/http/gateway-answers.ts). */
export const SERVICE_UNAVAILABLE_MESSAGE = 'The service is temporarily unavailable; retry shortly';

export const serviceUnavailable = (cause?: unknown) =>
  new ApiError('service_unavailable', SERVICE_UNAVAILABLE_MESSAGE, {
    headers: { 'Retry-After': RETRY_AFTER_SECONDS },
    cause,
  });

export const internalError = (cause?: unknown) =>
  new ApiError('internal_error', 'An internal error occurred', { cause });

export const errorEnvelope = (error: ApiError, requestId: string) => ({
  error: {
    code: error.code,
    message: error.message,
    ...(error.details ? { details: error.details } : {}),
    ...(error.holder ? { holder: error.holder } : {}),
  },
  request_id: requestId,
});

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export const jsonResponse = (
  statusCode: number,
  body: unknown,
  requestId: string,
  headers: Record<string, string> = {},
): HttpResponse => ({
  statusCode,
  headers: {
    // 204 No Content has no body, so no body type either.
    ...(statusCode === 204 ? {} : { 'Content-Type': JSON_CONTENT_TYPE }),
    'Cache-Control': 'no-store',
    'X-Request-Id': requestId,
    ...headers,
  },
  body: statusCode === 204 ? '' : JSON.stringify(body),
});

export const errorResponse = (error: ApiError, requestId: string): HttpResponse =>
  jsonResponse(error.statusCode, errorEnvelope(error, requestId), requestId, error.headers);

/**
 * Maps anything thrown below the HTTP layer to the API error it is answered with: the domain's
 * own errors by meaning, a transient storage failure as 503, and anything else as a bug (500,
 * details only in the log). The HTTP layer's own refusals are ApiErrors already.
 */
export const toApiError = (error: unknown): ApiError => {
  if (error instanceof ApiError) return error;
  if (error instanceof NotFoundError) return new ApiError('not_found', error.message, { cause: error });
  if (error instanceof ForbiddenError) return new ApiError('forbidden', error.message, { cause: error });
  if (error instanceof UnauthorizedError)
    return new ApiError('unauthorized', error.message, {
      cause: error,
      headers: { 'WWW-Authenticate': PLAYER_LINK_CHALLENGE },
    });
  if (error instanceof ConflictError)
    return new ApiError('conflict', error.message, { cause: error, holder: error.holder });
  if (error instanceof CursorExpiredError)
    return new ApiError('cursor_expired', error.message, { cause: error });
  if (error instanceof SlowDownError)
    return new ApiError('rate_limited', error.message, {
      cause: error,
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(error.retryAfterSeconds))) },
    });
  if (error instanceof InvalidInputError) {
    return new ApiError('invalid_request', `${error.field} ${error.message}`, {
      details: [{ field: error.field, issue: error.issue }],
    });
  }
  if (error instanceof IntegrityError) return internalError(error);
  if (isTransientStoreFailure(error)) return serviceUnavailable(error);
  return internalError(error);
};

/** Headers a request may carry once: two keys or two games must not be resolved silently. */
export const SINGLETON_HEADERS = ['Authorization', 'X-Game-Id', 'Content-Type', 'X-Player-Link'] as const;

/**
 * The singleton headers a request carries more than once, whatever the letter case of each copy:
 * from a REST proxy event's multiValueHeaders (names as sent, each with its values) or the local
 * gateway's raw header pairs, which it passes in the same shape.
 */
export const repeatedHeaders = (
  multiValueHeaders: Record<string, readonly string[] | undefined> | null | undefined,
): string[] => {
  const counts = new Map<string, number>();
  for (const [name, values] of Object.entries(multiValueHeaders ?? {})) {
    const lower = name.toLowerCase();
    counts.set(lower, (counts.get(lower) ?? 0) + (values?.length ?? 0));
  }
  return SINGLETON_HEADERS.filter((name) => (counts.get(name.toLowerCase()) ?? 0) > 1);
};
