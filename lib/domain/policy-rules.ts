import type { PolicyFlag } from '../model/policy-flags';
import type { Policy } from '../model/responses';
import type { Ban } from './ban-record';

/**
 * What a publisher's policy makes of a device's bans: which apply now (and by which flags),
 * and the reputation score. Pure functions over a policy and the visible bans, so every endpoint
 * decides the same way.
 */

/**
 * The flags that make a ban apply under the policy, all of which must be true:
 *   game → enforce_game; publisher → enforce_publisher;
 *   global of type T → enforce_global and enforce_T_global.
 */
export const ruleFor = (ban: Pick<Ban, 'scope' | 'ban_type'>): PolicyFlag[] => {
  if (ban.scope === 'game') return ['enforce_game'];
  if (ban.scope === 'publisher') return ['enforce_publisher'];
  return ['enforce_global', ban.ban_type === 'cheat' ? 'enforce_cheat_global' : 'enforce_social_global'];
};

export const policyEnforces = (policy: Policy, ban: Pick<Ban, 'scope' | 'ban_type'>): boolean =>
  ruleFor(ban).every((flag) => policy[flag]);

/** Active: not revoked, and permanent or expiring after `now`. Timestamps are all UTC ISO strings. */
export const isActive = (ban: Pick<Ban, 'revoked_at' | 'expires_at'>, now: string): boolean =>
  ban.revoked_at === null && (ban.expires_at === null || ban.expires_at > now);

/** Whether the ban restricts the device now under the policy. */
export const isEnforced = (policy: Policy, ban: Ban, now: string): boolean =>
  isActive(ban, now) && policyEnforces(policy, ban);

/**
 * Reputation: 100 for a clean device, minus a fixed penalty per ban, never below 0.
 *
 *   score = max(0, 100 − Σ count[type][scope][state] × weight[type][state])
 *
 * over the caller-visible bans whose scope the policy's rep_include_* flags include. Revoked bans
 * never count (a revocation undoes a wrong ban); expired ones count at a lower weight (the device
 * was banned once). The counts and weights are returned so a publisher can recompute the score.
 */
export const REPUTATION_WEIGHTS = {
  cheat: { active: 40, expired: 10 },
  social: { active: 15, expired: 5 },
} as const;

const scopeFlags = {
  game: 'rep_include_game',
  publisher: 'rep_include_publisher',
  global: 'rep_include_global',
} as const;

type StateCounts = { active: number; expired: number };
type ScopeCounts = { game: StateCounts; publisher: StateCounts; global: StateCounts };
const emptyScopes = (): ScopeCounts => ({
  game: { active: 0, expired: 0 },
  publisher: { active: 0, expired: 0 },
  global: { active: 0, expired: 0 },
});

export const reputation = (policy: Policy, bans: readonly Ban[], now: string) => {
  const counts = { cheat: emptyScopes(), social: emptyScopes() };
  let penalty = 0;
  for (const ban of bans) {
    if (ban.revoked_at !== null || !policy[scopeFlags[ban.scope]]) continue;
    const state = isActive(ban, now) ? 'active' : 'expired';
    counts[ban.ban_type][ban.scope][state] += 1;
    penalty += REPUTATION_WEIGHTS[ban.ban_type][state];
  }
  return {
    score: Math.max(0, 100 - penalty),
    included_scopes: (Object.keys(scopeFlags) as Array<keyof typeof scopeFlags>).filter(
      (scope) => policy[scopeFlags[scope]],
    ),
    counts,
    weights: REPUTATION_WEIGHTS,
  };
};
