import { CREDENTIAL_SHARES, type QuotaHolder } from '../../lib/domain/quotas';
import type { RateLimits } from '../../lib/routes';

/**
 * The local gateway's per-publisher limits: a token bucket per publisher and method, as the
 * deployed usage plan throttles each API key (one per publisher) on each method. Every bucket has
 * the same limits here, `RATE_LIMIT_RPS` and `RATE_LIMIT_BURST`; deployed, each method has its
 * route class's per-publisher limits (lib/routes.ts, throttleClasses).
 */

/**
 * Generous enough that no test suite (races and property tests hammer one publisher) and no
 * developer is ever throttled: far above every deployed per-publisher limit but the change feed's
 * (`feed`, 2,500/s per publisher, sized for a publisher's whole fleet of game servers polling it).
 * Locally the feed is held to these too: 1,000 polls a second per publisher is more than one local
 * server answers (about 180 a second measured, docs/scale.md), so no local run meets the difference
 * (test/unit/rate-limits.test.ts holds both).
 */
export const DEFAULT_LOCAL_LIMITS: RateLimits = { rateLimit: 1000, burstLimit: 2000 };

/** The limits from `RATE_LIMIT_RPS` (requests/s, > 0) and `RATE_LIMIT_BURST` (whole requests, ≥ 1). */
export const rateLimitsFrom = (env: NodeJS.ProcessEnv): RateLimits => {
  const read = (name: string, fallback: number, valid: (n: number) => boolean, expected: string) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!valid(value)) throw new Error(`${name} must be ${expected}, got ${raw}`);
    return value;
  };
  return {
    rateLimit: read(
      'RATE_LIMIT_RPS',
      DEFAULT_LOCAL_LIMITS.rateLimit,
      (n) => Number.isFinite(n) && n > 0,
      'a positive number of requests per second',
    ),
    burstLimit: read(
      'RATE_LIMIT_BURST',
      DEFAULT_LOCAL_LIMITS.burstLimit,
      (n) => Number.isInteger(n) && n >= 1,
      'a whole number of requests, at least 1',
    ),
  };
};

/**
 * A credential's limits within its publisher's (lib/domain/quotas.ts, CREDENTIAL_SHARES): its
 * share of the rate and of the burst, the burst rounded down but at least one request.
 */
export const credentialLimits = ({ rateLimit, burstLimit }: RateLimits, holder: QuotaHolder): RateLimits => {
  const share = CREDENTIAL_SHARES[holder];
  return { rateLimit: rateLimit * share, burstLimit: Math.max(1, Math.floor(burstLimit * share)) };
};

export interface TokenBuckets {
  /**
   * Takes a token from the bucket `name` (a new bucket starts full). Returns 0 when it had one,
   * else the seconds until it will have one (nothing is taken then).
   */
  take(name: string): number;
}

/** Buckets of `burstLimit` tokens each, refilled continuously at `rateLimit` tokens a second. */
export const tokenBuckets = (
  { rateLimit, burstLimit }: RateLimits,
  /** Milliseconds on a monotonic clock. */
  now: () => number = () => performance.now(),
): TokenBuckets => {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(name) {
      const at = now();
      const bucket = buckets.get(name);
      const tokens = bucket
        ? Math.min(burstLimit, bucket.tokens + ((at - bucket.at) / 1000) * rateLimit)
        : burstLimit;
      if (tokens >= 1) {
        buckets.set(name, { tokens: tokens - 1, at });
        return 0;
      }
      buckets.set(name, { tokens, at });
      return (1 - tokens) / rateLimit;
    },
  };
};
