import type { KeyedOperationId } from './operation-types.js';

/**
 * When a call may be sent again, and how long to wait first.
 *
 * Only 429 (`rate_limited`), 503 (`service_unavailable`) and network errors are retried, and only
 * for the operations a repeat cannot change more than the first request did:
 * - `read`: a GET, or the enforcement batch (a POST that only reads);
 * - `idempotency_key`: a create whose body carries an `idempotency_key`. The client puts one in
 *   (crypto.randomUUID()) when the caller gave none and sends the same one on every retry of the
 *   call, so the retry answers the first attempt's ban or appeal (200 `idempotent_ok`) instead of
 *   making a second;
 * - `repeatable`: the API documents that a repeat answers what the first did and changes nothing
 *   more: a ban's revoke (first time and reason kept), a key's revoke (likewise), an erasure ("safe
 *   to retry"), an appeal's decision with the same body;
 * - `never`: a repeat is a second change: a new key or webhook (no idempotency key exists for
 *   them), a second `webhook.test` delivery, a policy or reason catalogue `PUT` (each is a change
 *   of its own in the audit trail and the feed, and a repeat after another writer's change would
 *   undo it), a webhook delete (a repeat of one that took effect answers 404).
 * Every other 4xx, 500 and 2xx ends the call at once.
 */
export type RetryRule = 'read' | 'idempotency_key' | 'repeatable' | 'never';

/** One rule per operation: a new operation in the generated types does not compile until it has one. */
export const retryRules = {
  getPolicy: 'read',
  updatePolicy: 'never',
  getReasons: 'read',
  putReasons: 'never',
  // A repeat is a second audited change, and could undo a rename made in between.
  putPublisher: 'never',
  listPublishers: 'read',
  createBan: 'idempotency_key',
  listSocialBans: 'read',
  listCheatBans: 'read',
  listBans: 'read',
  revokeBan: 'repeatable',
  getEnforcement: 'read',
  getEnforcementBatch: 'read',
  getEnforcementSnapshot: 'read',
  createKey: 'never',
  listKeys: 'read',
  revokeKey: 'repeatable',
  listAudit: 'read',
  eraseDevice: 'repeatable',
  listDevices: 'read',
  listExpiringBans: 'read',
  listEvents: 'read',
  createWebhook: 'never',
  listWebhooks: 'read',
  deleteWebhook: 'never',
  listWebhookDeliveries: 'read',
  testWebhook: 'never',
  createAppeal: 'idempotency_key',
  listAppeals: 'read',
  appealStats: 'read',
  getAppeal: 'read',
  decideAppeal: 'repeatable',
} as const satisfies Record<KeyedOperationId, RetryRule>;

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
