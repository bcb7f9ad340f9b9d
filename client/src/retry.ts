/**
 * When a call may be sent again, and how long to wait first. Only 429 (`rate_limited`), 503
 * (`service_unavailable`) and network errors are retried, and only for operations whose `x-retry`
 * (docs/openapi.json, in the generated method table ./operations.ts that ./client.ts reads) is not
 * `never`; what each rule means: docs/api.md#conventions. Invariant: for `idempotency_key` the
 * client puts a key in the body (crypto.randomUUID()) when the caller gave none and sends the same
 * one on every retry of the call, so a retry answers the first attempt's ban or appeal (200
 * `idempotent_ok`) instead of making a second. Every other 4xx, 500 and 2xx ends the call at once.
 */

/** The statuses worth another attempt: the API asks for one (with Retry-After). */
export const retryableStatus = (status: number): boolean => status === 429 || status === 503;

export interface Backoff {
  /** The first retry waits up to this long (ms). */
  baseDelayMs: number;
  /** No wait is drawn from a range longer than this (ms). */
  maxDelayMs: number;
}

/**
 * Full-jitter exponential backoff: before retry n (0 for the first), a wait drawn uniformly from
 * [0, min(maxDelayMs, baseDelayMs * 2^n)). With `Retry-After`, never less than it says.
 */
export const retryDelay = (
  retry: number,
  backoff: Backoff,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number => {
  const jitter = Math.floor(random() * Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** retry));
  return retryAfterSeconds === null ? jitter : Math.max(jitter, Math.ceil(retryAfterSeconds * 1000));
};

/**
 * Waits `ms`, or less when `signal` aborts: true when the whole wait passed. The one wait of the
 * package: between a call's retries (transport.ts) and between the mirror's reads (mirror.ts).
 */
export const pause = (ms: number, signal: AbortSignal): Promise<boolean> =>
  new Promise<boolean>((resolve) => {
    const done = (finished: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', cancel);
      resolve(finished);
    };
    const cancel = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', cancel, { once: true });
    if (signal.aborted) done(false);
  });
