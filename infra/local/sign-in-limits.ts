/**
 * How many failed sign-ins the local provider takes before it refuses more for a while: per
 * account (the email as typed, whether or not anyone has it, so the answer tells nothing of who
 * exists) and per address (one machine guessing across many accounts). Only failures count; a
 * success clears its account's. Kept in memory, as the provider's sessions are.
 */

export interface SignInLimits {
  /** Milliseconds until this account and address may try again; 0 when they may now. */
  waitMs(account: string, address: string, now?: number): number;
  failed(account: string, address: string, now?: number): void;
  succeeded(account: string): void;
}

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Failures an account may have within the window (Cognito's own lockout starts after 5). */
export const FAILURES_PER_ACCOUNT = 5;
/** Failures one address may have within the window, across every account it tries. */
export const FAILURES_PER_ADDRESS = 20;
/** Keys remembered at most: past this the oldest are forgotten, so memory stays bounded. */
const MAX_KEYS = 10_000;

export const createSignInLimits = ({
  windowMs = SIGN_IN_WINDOW_MS,
  perAccount = FAILURES_PER_ACCOUNT,
  perAddress = FAILURES_PER_ADDRESS,
} = {}): SignInLimits => {
  /** Each key's failure times, oldest first. */
  const failures = new Map<string, number[]>();
  const recent = (key: string, now: number) => {
    const kept = (failures.get(key) ?? []).filter((at) => at > now - windowMs);
    if (kept.length === 0) failures.delete(key);
    else failures.set(key, kept);
    return kept;
  };
  const wait = (key: string, max: number, now: number) => {
    const times = recent(key, now);
    return times.length < max ? 0 : (times[times.length - max] as number) + windowMs - now;
  };
  const accountKey = (account: string) => `account ${account.trim().toLowerCase()}`;
  const addressKey = (address: string) => `address ${address}`;
  return {
    waitMs: (account, address, now = Date.now()) =>
      Math.max(wait(accountKey(account), perAccount, now), wait(addressKey(address), perAddress, now)),
    failed: (account, address, now = Date.now()) => {
      for (const key of [accountKey(account), addressKey(address)]) {
        const times = recent(key, now);
        failures.delete(key);
        failures.set(key, [...times, now]);
      }
      while (failures.size > MAX_KEYS) failures.delete(failures.keys().next().value as string);
    },
    succeeded: (account) => {
      failures.delete(accountKey(account));
    },
  };
};
