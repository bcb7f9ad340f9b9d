import type { PolicyFlag } from './policy-flags.js';
import type { GlobalSources, PolicyTrust } from './policy-trust.js';

/**
 * What a publisher's policy makes of a device's bans: which apply now (and by which flags),
 * and the reputation score. Pure functions over a policy and the visible bans, so every endpoint
 * decides the same way: the service, the console (its previews) and the client's mirror
 * (client/src/mirror.ts) all import this one module.
 *
 * It is inlined into the client package too (kernel/README.md), so it imports nothing at run time
 * and its types are structural (a stored ban, a listed ban and a feed event's ban all fit them); its
 * imports are type-only and carry the extension the client's NodeNext type check needs.
 */

/** What the rules read of a ban. */
export interface RuleBan {
  scope: 'game' | 'publisher' | 'global';
  ban_type: 'cheat' | 'social';
  publisher_id: string;
  revoked_at: string | null;
  expires_at: string | null;
}

export type { GlobalSources };

/**
 * What the rules read of a policy: its eight flags, whose it is, and its trust in other
 * publishers' global bans (kernel/policy-trust.ts; absent: everyone, quorum 1).
 */
export interface RulePolicy extends Readonly<Record<PolicyFlag, boolean>>, Readonly<Partial<PolicyTrust>> {
  readonly publisher_id: string;
}

/**
 * The flags that make a ban apply under the policy, all of which must be true:
 *   game → enforce_game; publisher → enforce_publisher;
 *   global of type T → enforce_global and enforce_T_global.
 */
export const ruleFor = (ban: Pick<RuleBan, 'scope' | 'ban_type'>): PolicyFlag[] => {
  if (ban.scope === 'game') return ['enforce_game'];
  if (ban.scope === 'publisher') return ['enforce_publisher'];
  return ['enforce_global', ban.ban_type === 'cheat' ? 'enforce_cheat_global' : 'enforce_social_global'];
};

export const policyEnforces = (policy: RulePolicy, ban: Pick<RuleBan, 'scope' | 'ban_type'>): boolean =>
  ruleFor(ban).every((flag) => policy[flag]);

/** Active: not revoked, and permanent or expiring after `now`. Timestamps are all UTC ISO strings. */
export const isActive = (ban: Pick<RuleBan, 'revoked_at' | 'expires_at'>, now: string): boolean =>
  ban.revoked_at === null && (ban.expires_at === null || ban.expires_at > now);

// No per-ban "is it enforced" here: with a quorum above 1 a global ban applies only beside the
// device's other global bans of its type, so every caller judges the device's bans together
// (judgeBans, enforcedBans, notEnforced) and none can forget the quorum.

/** Whether the sources include a publisher. A publisher always trusts itself. */
export const trusts = (
  policy: RulePolicy,
  sources: GlobalSources | undefined,
  publisherId: string,
): boolean => {
  if (publisherId === policy.publisher_id || sources === undefined || sources === 'all') return true;
  return 'only' in sources ? sources.only.includes(publisherId) : !sources.except.includes(publisherId);
};

/**
 * Why a ban of a device does or does not restrict it now:
 *   inactive          revoked, or ended;
 *   policy            a flag of its rule is off;
 *   untrusted_source  a global ban of a publisher the policy's `global_sources` leave out;
 *   quorum            a trusted global ban of type T while fewer than `global_quorum` distinct
 *                     trusted publishers hold an active global ban of type T on the device
 *                     (`have` of `need`). The publisher's own global ban applies alone.
 */
export type Verdict =
  | { applies: true }
  | { applies: false; because: 'inactive' | 'policy' | 'untrusted_source' }
  | { applies: false; because: 'quorum'; have: number; need: number };

type TypeCounts = Record<RuleBan['ban_type'], Set<string>>;

/** The distinct publishers, trusted by `sources`, holding a global ban of each type that `counts`. */
const holders = (
  policy: RulePolicy,
  sources: GlobalSources | undefined,
  bans: readonly RuleBan[],
  counts: (ban: RuleBan) => boolean,
): TypeCounts => {
  const found: TypeCounts = { cheat: new Set(), social: new Set() };
  for (const ban of bans)
    if (ban.scope === 'global' && counts(ban) && trusts(policy, sources, ban.publisher_id))
      found[ban.ban_type].add(ban.publisher_id);
  return found;
};

/**
 * The policy's verdict on each of a device's bans, in their order. `bans` must be every ban of the
 * device the caller can see (every global ban is visible to all, so the quorum counts the same
 * publishers for everyone): a quorum is a property of the device, not of one ban.
 */
export const judgeBans = (policy: RulePolicy, bans: readonly RuleBan[], now: string): Verdict[] => {
  const need = policy.global_quorum ?? 1;
  const trusted = holders(policy, policy.global_sources, bans, (ban) => isActive(ban, now));
  return bans.map((ban): Verdict => {
    if (!isActive(ban, now)) return { applies: false, because: 'inactive' };
    if (!policyEnforces(policy, ban)) return { applies: false, because: 'policy' };
    if (ban.scope !== 'global' || ban.publisher_id === policy.publisher_id) return { applies: true };
    if (!trusts(policy, policy.global_sources, ban.publisher_id))
      return { applies: false, because: 'untrusted_source' };
    const have = trusted[ban.ban_type].size;
    return have >= need ? { applies: true } : { applies: false, because: 'quorum', have, need };
  });
};

/** The bans of the device that restrict it now, in their order. */
export const enforcedBans = <B extends RuleBan>(policy: RulePolicy, bans: readonly B[], now: string): B[] => {
  const verdicts = judgeBans(policy, bans, now);
  return bans.filter((_, i) => verdicts[i]?.applies);
};

/** `not_enforced` of bans already judged (see notEnforced). */
const notEnforcedOf = <B extends RuleBan & { ban_id: number }>(
  bans: readonly B[],
  verdicts: readonly Verdict[],
) =>
  verdicts.flatMap((verdict, i) => {
    const ban = bans[i];
    if (!ban || verdict.applies || verdict.because === 'inactive') return [];
    return [
      {
        ban_id: ban.ban_id,
        publisher_id: ban.publisher_id,
        ban_type: ban.ban_type,
        scope: ban.scope,
        because: verdict.because,
        have: verdict.because === 'quorum' ? verdict.have : null,
        need: verdict.because === 'quorum' ? verdict.need : null,
        explanation: explainVerdict(verdict),
      },
    ];
  });

/**
 * Why each ban in force on the device does not restrict it, in the enforcement answer's
 * `not_enforced`: every active ban the policy does not apply (its flags off, an untrusted source,
 * a quorum not met), with the verdict in words. Ended and revoked bans are not listed.
 */
export const notEnforced = <B extends RuleBan & { ban_id: number }>(
  policy: RulePolicy,
  bans: readonly B[],
  now: string,
) => notEnforcedOf(bans, judgeBans(policy, bans, now));

/**
 * The policy's decision on a device, as the enforcement answer gives it (the service's and the
 * client's mirror alike): the bans that apply, in their order, restriction per type, and
 * `not_enforced`, from one judgement of all the device's bans.
 */
export const decideDevice = <B extends RuleBan & { ban_id: number }>(
  policy: RulePolicy,
  bans: readonly B[],
  now: string,
) => {
  const verdicts = judgeBans(policy, bans, now);
  const applying = bans.filter((_, i) => verdicts[i]?.applies);
  return {
    applying,
    restricted: {
      cheat: applying.some((ban) => ban.ban_type === 'cheat'),
      social: applying.some((ban) => ban.ban_type === 'social'),
    },
    not_enforced: notEnforcedOf(bans, verdicts),
  };
};

/** A verdict in words, for the enforcement answer's explanations and the console. */
export const explainVerdict = (verdict: Verdict): string => {
  if (verdict.applies) return 'applies';
  if (verdict.because === 'quorum') return `${verdict.have} of ${verdict.need} publishers needed`;
  if (verdict.because === 'inactive') return 'revoked or ended';
  if (verdict.because === 'policy') return 'your policy does not enforce this type and scope';
  return 'from a publisher you do not trust';
};

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

export const reputation = (policy: RulePolicy, bans: readonly RuleBan[], now: string) => {
  const counts = { cheat: emptyScopes(), social: emptyScopes() };
  // Global bans count as the reputation's own trust settings say: from a trusted publisher, while
  // enough distinct trusted publishers hold one of the type (active or ended, not revoked).
  const need = policy.rep_global_quorum ?? 1;
  const sources = policy.rep_global_sources;
  const trusted = holders(policy, sources, bans, (ban) => ban.revoked_at === null);
  const counted = (ban: RuleBan) =>
    ban.scope !== 'global' ||
    ban.publisher_id === policy.publisher_id ||
    (trusts(policy, sources, ban.publisher_id) && trusted[ban.ban_type].size >= need);
  let penalty = 0;
  for (const ban of bans) {
    if (ban.revoked_at !== null || !policy[scopeFlags[ban.scope]] || !counted(ban)) continue;
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
