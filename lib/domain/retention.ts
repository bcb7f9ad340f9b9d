import { TIME_TO_LIVE_ATTRIBUTE } from '../storage/table';

/**
 * How long the change feed's entries (and their markers) and settled webhook deliveries are kept:
 * `EVENT_RETENTION_DAYS`, read here only. Deployed, each such item carries DynamoDB's time to live
 * (`ttl`, seconds since the epoch), which deletes it lazily, up to days late; locally the server's
 * sweeper (infra/local/ttl-sweeper.ts) stands in for it. Because deletion is late (or, locally, never
 * without the sweeper), every read applies the same rule itself: an item past its time is gone,
 * whether or not it is still stored. Pure: the stack's settings validate the same number.
 */

export const DEFAULT_EVENT_RETENTION_DAYS = 30;
/** Ten years: far past any use, and inside DynamoDB's time to live (a ttl is seconds, any future date). */
export const MAX_EVENT_RETENTION_DAYS = 3650;
const DAY_MS = 86_400_000;

/** The setting as days: a positive number (fractions allowed, so tests can keep events seconds). */
export const parseRetentionDays = (raw: string | number | undefined): number => {
  if (raw === undefined || (typeof raw === 'string' && raw.trim() === ''))
    return DEFAULT_EVENT_RETENTION_DAYS;
  const days = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isFinite(days) || days <= 0 || days > MAX_EVENT_RETENTION_DAYS)
    throw new Error(
      `EVENT_RETENTION_DAYS must be a number of days above 0 and at most ${MAX_EVENT_RETENTION_DAYS}, got ${String(raw)}`,
    );
  return days;
};

/** The retention in milliseconds, from `EVENT_RETENTION_DAYS` (default 30 days). */
export const retentionMs = (env: NodeJS.ProcessEnv = process.env) =>
  Math.round(parseRetentionDays(env.EVENT_RETENTION_DAYS) * DAY_MS);

/** The `ttl` of an item kept from `fromMs` on: seconds since the epoch, rounded up. */
export const ttlFrom = (fromMs: number) => ({
  [TIME_TO_LIVE_ATTRIBUTE]: Math.ceil((fromMs + retentionMs()) / 1000),
});

/**
 * Whether a stored item is gone for every reader at `nowMs`: its `ttl` has passed (DynamoDB may
 * not have deleted it yet), or it is older than the retention counted from `since` (an ISO time:
 * when it was appended or settled), which also covers items stored before they carried a `ttl`
 * and a retention shortened since they were written.
 */
export const isPastRetention = (item: Record<string, unknown>, since: unknown, nowMs: number): boolean => {
  const ttl = item[TIME_TO_LIVE_ATTRIBUTE];
  if (typeof ttl === 'number' && ttl * 1000 <= nowMs) return true;
  const from = typeof since === 'string' ? Date.parse(since) : Number.NaN;
  return Number.isFinite(from) && from + retentionMs() <= nowMs;
};
