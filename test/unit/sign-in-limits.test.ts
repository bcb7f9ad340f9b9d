import { describe, expect, it } from 'vitest';
import {
  createSignInLimits,
  FAILURES_PER_ACCOUNT,
  FAILURES_PER_ADDRESS,
  SIGN_IN_WINDOW_MS,
} from '../../infra/local/sign-in-limits';

/**
 * The local provider's limits on failed sign-ins, by a clock the test sets: per account (the email
 * as typed, existing or not) and per address. test/integration/people.test.ts shows the provider
 * answering 429 through its sign-in page.
 */

const T0 = Date.parse('2026-11-27T12:00:00Z');

describe('sign-in limits', () => {
  it('refuses an account after 5 failures within 15 minutes, from any address, until the oldest ages out', () => {
    const limits = createSignInLimits();
    for (let i = 0; i < FAILURES_PER_ACCOUNT; i++) {
      expect(limits.waitMs('Sam@Acme.example', `10.0.0.${i}`, T0 + i * 1000)).toBe(0);
      limits.failed('Sam@Acme.example', `10.0.0.${i}`, T0 + i * 1000);
    }
    // Case and spaces do not make another account; another address does not help.
    expect(limits.waitMs(' sam@acme.example', '10.0.0.99', T0 + 10_000)).toBe(SIGN_IN_WINDOW_MS - 10_000);
    expect(limits.waitMs('other@acme.example', '10.0.0.99', T0 + 10_000)).toBe(0);
    expect(limits.waitMs('sam@acme.example', '10.0.0.99', T0 + SIGN_IN_WINDOW_MS + 1)).toBe(0);
  });

  it('refuses an address after 20 failures across accounts, for every account', () => {
    const limits = createSignInLimits();
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++) limits.failed(`guess-${i}@acme.example`, '10.1.1.1', T0);
    expect(limits.waitMs('never-tried@acme.example', '10.1.1.1', T0 + 1)).toBe(SIGN_IN_WINDOW_MS - 1);
    expect(limits.waitMs('never-tried@acme.example', '10.1.1.2', T0 + 1)).toBe(0);
  });

  it("clears an account's failures when it signs in, not its address's", () => {
    const limits = createSignInLimits({ perAccount: 2, perAddress: 3 });
    limits.failed('sam@acme.example', '10.2.2.2', T0);
    limits.failed('sam@acme.example', '10.2.2.2', T0);
    expect(limits.waitMs('sam@acme.example', '10.2.2.3', T0)).toBeGreaterThan(0);
    limits.succeeded('sam@acme.example');
    expect(limits.waitMs('sam@acme.example', '10.2.2.3', T0)).toBe(0);
    limits.failed('amy@acme.example', '10.2.2.2', T0);
    expect(limits.waitMs('sam@acme.example', '10.2.2.2', T0)).toBeGreaterThan(0);
  });
});
