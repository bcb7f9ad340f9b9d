import { describe, expect, it } from 'vitest';
import { mapWithConcurrency } from '../../lib/concurrency';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('mapWithConcurrency', () => {
  it('keeps the input order with at most `limit` calls in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapWithConcurrency([5, 1, 4, 2, 3, 0], 2, async (n) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await sleep(n * 3);
      inFlight -= 1;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30, 0]);
    expect(most).toBe(2);
  });

  it('answers a failure only after the calls in flight have ended, and starts no new one', async () => {
    const ended: number[] = [];
    const started: number[] = [];
    let rejectedAt = 0;
    const run = mapWithConcurrency([0, 1, 2, 3, 4], 2, async (n) => {
      started.push(n);
      if (n === 0) throw new Error('first fails');
      await sleep(30);
      ended.push(n);
      return n;
    }).catch((error: Error) => {
      rejectedAt = ended.length;
      return error.message;
    });
    expect(await run).toBe('first fails');
    // The call already running (1) ended before the failure was answered; nothing after it began.
    expect(rejectedAt).toBe(1);
    expect(started).toEqual([0, 1]);
  });
});
