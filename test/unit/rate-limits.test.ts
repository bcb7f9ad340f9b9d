import { describe, expect, it } from 'vitest';
import { DEFAULT_LOCAL_LIMITS, rateLimitsFrom, tokenBuckets } from '../../infra/local/rate-limits';
import { throttleClasses } from '../../lib/routes';

/** A clock the test moves by hand, in milliseconds. */
const clock = () => {
  let now = 0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

describe('token buckets', () => {
  it('start full: a burst of burstLimit passes at once, the next waits for one token', () => {
    const time = clock();
    const buckets = tokenBuckets({ rateLimit: 2, burstLimit: 3 }, time.now);
    expect([1, 2, 3].map(() => buckets.take('a'))).toEqual([0, 0, 0]);
    expect(buckets.take('a')).toBe(0.5);
  });

  it('refill at rateLimit per second, continuously, never beyond burstLimit', () => {
    const time = clock();
    const buckets = tokenBuckets({ rateLimit: 4, burstLimit: 2 }, time.now);
    buckets.take('a');
    buckets.take('a');
    time.advance(100); // 0.4 token
    expect(buckets.take('a')).toBeCloseTo(0.15);
    time.advance(150); // 1 token
    expect(buckets.take('a')).toBe(0);
    time.advance(60_000); // full again: 2, not 240
    expect([buckets.take('a'), buckets.take('a')]).toEqual([0, 0]);
    expect(buckets.take('a')).toBeCloseTo(0.25);
  });

  it('a refused request takes nothing: waiting the answer it got is enough', () => {
    const time = clock();
    const buckets = tokenBuckets({ rateLimit: 1, burstLimit: 1 }, time.now);
    buckets.take('a');
    time.advance(300);
    const wait = buckets.take('a');
    expect(wait).toBeCloseTo(0.7);
    for (let i = 0; i < 5; i++) buckets.take('a');
    time.advance(wait * 1000);
    expect(buckets.take('a')).toBe(0);
  });

  it('keep each name apart', () => {
    const time = clock();
    const buckets = tokenBuckets({ rateLimit: 1, burstLimit: 1 }, time.now);
    expect(buckets.take('pub-a GET /v1/policy')).toBe(0);
    expect(buckets.take('pub-a GET /v1/policy')).toBeGreaterThan(0);
    expect(buckets.take('pub-b GET /v1/policy')).toBe(0);
    expect(buckets.take('pub-a HEAD /v1/policy')).toBe(0);
  });
});

describe('RATE_LIMIT_RPS and RATE_LIMIT_BURST', () => {
  it('default above every deployed per-publisher limit but the feed polled by whole fleets', () => {
    for (const [name, { publisher }] of Object.entries(throttleClasses)) {
      if (!publisher || name === 'feed') continue;
      expect(DEFAULT_LOCAL_LIMITS.rateLimit, name).toBeGreaterThanOrEqual(10 * publisher.rateLimit);
      expect(DEFAULT_LOCAL_LIMITS.burstLimit, name).toBeGreaterThanOrEqual(10 * publisher.burstLimit);
    }
    // The feed's 2,500/s per publisher is a fleet's; locally its 1,000/s is still past what one server answers.
    expect(throttleClasses.feed.publisher.rateLimit).toBeGreaterThan(DEFAULT_LOCAL_LIMITS.rateLimit);
    expect(DEFAULT_LOCAL_LIMITS.rateLimit).toBeGreaterThanOrEqual(1000);
  });

  it('default to generous limits', () => {
    expect(rateLimitsFrom({})).toEqual(DEFAULT_LOCAL_LIMITS);
    expect(rateLimitsFrom({ RATE_LIMIT_RPS: '', RATE_LIMIT_BURST: '' })).toEqual(DEFAULT_LOCAL_LIMITS);
  });

  it('set the limits, each on its own', () => {
    expect(rateLimitsFrom({ RATE_LIMIT_RPS: '0.5', RATE_LIMIT_BURST: '3' })).toEqual({
      rateLimit: 0.5,
      burstLimit: 3,
    });
    expect(rateLimitsFrom({ RATE_LIMIT_BURST: '7' })).toEqual({
      rateLimit: DEFAULT_LOCAL_LIMITS.rateLimit,
      burstLimit: 7,
    });
  });

  it.each([
    { RATE_LIMIT_RPS: '0' },
    { RATE_LIMIT_RPS: '-1' },
    { RATE_LIMIT_RPS: 'fast' },
    { RATE_LIMIT_RPS: 'Infinity' },
    { RATE_LIMIT_BURST: '0' },
    { RATE_LIMIT_BURST: '2.5' },
  ])('refuse %o', (env) => {
    expect(() => rateLimitsFrom(env)).toThrow(/RATE_LIMIT_(RPS|BURST) must be/);
  });
});
