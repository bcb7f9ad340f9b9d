import { afterEach, describe, expect, it } from 'vitest';
import { now, setClock, setClockOffset } from '../../lib/clock';
import { ShortCache } from '../../lib/domain/feed-cache';

afterEach(() => setClock(undefined));

describe('the clock (lib/clock.ts)', () => {
  it('is the wall clock until a test sets it, and moves by an offset', () => {
    expect(Math.abs(now() - Date.now())).toBeLessThan(1000);
    setClockOffset(86_400_000);
    expect(now() - Date.now()).toBeGreaterThanOrEqual(86_400_000 - 1000);
    setClock(() => 42);
    expect(now()).toBe(42);
    setClock(undefined);
    expect(Math.abs(now() - Date.now())).toBeLessThan(1000);
  });

  it('expires a shared feed read when set past its window, without waiting on the wall clock', async () => {
    let loads = 0;
    const load = async () => ++loads;
    const cache = new ShortCache<number>();
    setClock(() => 1_000_000);
    expect(await cache.get('k', 60_000, load)).toBe(1);
    expect(await cache.get('k', 60_000, load)).toBe(1);
    setClock(() => 1_060_000);
    expect(await cache.get('k', 60_000, load)).toBe(2);
  });
});
