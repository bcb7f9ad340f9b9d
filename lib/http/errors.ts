/**
 * The one error family of the API. Every failure, from a handler, the authorizer or the local
 * gateway, leaves as the same envelope: {"error": {code, message, details?}, "request_id"}.
 */

export const errorStatus = {
  invalid_json: 400,
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface FieldIssue {
  field: string;
  issue: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: FieldIssue[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: FieldIssue[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  get statusCode(): number {
    return errorStatus[this.code];
  }
}

/** Seconds a client should wait before retrying a 503 or 429. */
export const RETRY_AFTER_SECONDS = '1';

export const serviceUnavailable = (cause?: unknown) =>
  new ApiError('service_unavailable', 'The service is temporarily unavailable; retry shortly', {
    headers: { 'Retry-After': RETRY_AFTER_SECONDS },
    cause,
  });

export const unauthorized = (message = 'A valid API key is required') =>
  new ApiError('unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } });

export const internalError = (cause?: unknown) =>
  new ApiError('internal_error', 'An internal error occurred', { cause });

export const errorEnvelope = (error: ApiError, requestId: string) => ({
  error: {
    code: error.code,
    message: error.message,
    ...(error.details ? { details: error.details } : {}),
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
    'Content-Type': JSON_CONTENT_TYPE,
    'Cache-Control': 'no-store',
    'X-Request-Id': requestId,
    ...headers,
  },
  body: JSON.stringify(body),
});

export const errorResponse = (error: ApiError, requestId: string): HttpResponse =>
  jsonResponse(error.statusCode, errorEnvelope(error, requestId), requestId, error.headers);
