import type { DocumentedErrorCode, FieldIssue } from './operation-types.js';

/**
 * The codes an ApiError carries: every code of the API's error envelope (docs/api.md, Errors), and
 * three of the client's own, for when there is no envelope to read:
 * - `network_error` (status 0): no answer at all (connection refused or reset, DNS, TLS);
 * - `timeout` (status 0): the call's total deadline passed before an answer came;
 * - `invalid_response` (the HTTP status): an answer that is not the API's JSON (a proxy's HTML
 *   error page, a truncated body).
 * A code the API adds later still arrives as sent, so the type stays open to other strings.
 */
export type ApiErrorCode = DocumentedErrorCode | 'network_error' | 'timeout' | 'invalid_response';

export interface ApiErrorInit {
  /** The HTTP status; 0 when no answer came (network_error, timeout). */
  status: number;
  code: ApiErrorCode | (string & {});
  message: string;
  /** The fields a validation error names; empty when the answer names none. */
  details?: readonly FieldIssue[];
  /** `request_id` of the envelope, else the answer's `X-Request-Id`; null without an answer. */
  request_id?: string | null;
  /** The answer's `Retry-After`, in seconds, when it had one. */
  retry_after?: number | null;
  /** How many requests the call made before it gave up (retries included). */
  attempts?: number;
}

/** Every failure of a call: an error answer of the API, or no usable answer at all. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: ApiErrorCode | (string & {});
  readonly details: readonly FieldIssue[];
  readonly request_id: string | null;
  readonly retry_after: number | null;
  readonly attempts: number;

  constructor(init: ApiErrorInit, options?: { cause?: unknown }) {
    super(init.message, options);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.request_id = init.request_id ?? null;
    this.retry_after = init.retry_after ?? null;
    this.attempts = init.attempts ?? 1;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const fieldIssues = (value: unknown): FieldIssue[] =>
  Array.isArray(value)
    ? value
        .filter(isRecord)
        .filter((d) => typeof d.field === 'string' && typeof d.issue === 'string')
        .map((d) => ({ field: d.field as string, issue: d.issue as string }))
    : [];

/** `Retry-After` in seconds: a number of seconds (the API's form) or an HTTP date; null if absent or unreadable. */
export const retryAfterSeconds = (header: string | null, now = Date.now()): number | null => {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
};

/** The ApiError an error answer stands for: its envelope when it has one, else `invalid_response`. */
export const errorFromAnswer = (
  status: number,
  headers: { get(name: string): string | null },
  text: string,
  attempts: number,
): ApiError => {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const headerId = headers.get('x-request-id');
  const retry_after = retryAfterSeconds(headers.get('retry-after'));
  const envelope = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (envelope && typeof envelope.code === 'string' && typeof envelope.message === 'string')
    return new ApiError({
      status,
      code: envelope.code,
      message: envelope.message,
      details: fieldIssues(envelope.details),
      request_id: isRecord(body) && typeof body.request_id === 'string' ? body.request_id : headerId,
      retry_after,
      attempts,
    });
  return new ApiError({
    status,
    code: 'invalid_response',
    message: `HTTP ${status} without the API's error envelope`,
    request_id: headerId,
    retry_after,
    attempts,
  });
};

/**
 * The status, code and message of whatever a read threw: an `ApiError`'s own, else status 0 and
 * `network_error` (a fetch that never got an answer). For the mirror's and the relay's reports.
 */
export const errorFields = (error: unknown) => {
  const e = error as { status?: unknown; code?: unknown; message?: unknown };
  return {
    status: typeof e?.status === 'number' ? e.status : 0,
    code: typeof e?.code === 'string' ? e.code : 'network_error',
    message: typeof e?.message === 'string' ? e.message : String(error),
  };
};
