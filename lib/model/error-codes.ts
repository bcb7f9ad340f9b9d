/**
 * The API's error codes and the HTTP status each is always answered with. A module with no
 * dependencies: the runtime HTTP layer (lib/http/errors.ts) and the response schemas both read it.
 */
export const errorStatus = {
  invalid_json: 400,
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  cursor_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;
