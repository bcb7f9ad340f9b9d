import { settings } from '../config';
import { TIME_TO_LIVE_ATTRIBUTE } from '../storage/table';

/**
 * How long the change feed's entries (and their markers) and settled webhook deliveries are kept:
 * `EVENT_RETENTION_DAYS` of the bound settings (lib/config.ts). Deployed, each such item carries DynamoDB's time to live
 * (`ttl`, seconds since the epoch), which deletes it lazily, up to days late; locally the server's
 * sweeper (infra/local/ttl-sweeper.ts) stands in for it. Because deletion is late (or, locally, never
 * without the sweeper), every read applies the same rule itself: an item past its time is gone,
 * whether or not it is still stored. Pure: the stack's settings validate the same number.
 */

/** The setting as days (lib/config.ts parses it; the stack's settings validate the same number). */
export { DEFAULT_EVENT_RETENTION_DAYS, MAX_EVENT_RETENTION_DAYS, parseRetentionDays } from '../config';

const DAY_MS = 86_400_000;

/** The retention in milliseconds, from the bound settings' `EVENT_RETENTION_DAYS` (default 30 days). */
export const retentionMs = (days: number = settings().eventRetentionDays) => Math.round(days * DAY_MS);

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
