import { type PolicyFlag, policyFlags } from '@kernel/policy-flags';
import {
  explainVerdict,
  isActive,
  judgeBans,
  policyEnforces,
  type RuleBan,
  type RulePolicy,
  reputation,
  type Verdict,
} from '@kernel/policy-rules';
import { defaultPolicyTrust, type GlobalSources, type PolicyTrust } from '@kernel/policy-trust';
import type { AppealOutcome } from '@kernel/requests';
import { type Ban, formatTime, fromNow, type Policy } from './api';

/** A ban as the service stores it, as far as the preview fills it in (lib/domain/ban-record.ts). */
type StoredBan = RuleBan & {
  ban_id: number;
  device_id: string;
  game_id: string;
  reason_code: string;
  created_at: string;
};

/**
 * The previews: what the open device's enforcement would be under a draft of the policy, and what
 * an appeal's decision would make of its ban, computed in the page with the API's own rules
 * (kernel/policy-rules.ts, pure functions with no imports but types), from every ban of the
 * device the key can see.
 */

export type Flags = Record<PolicyFlag, boolean>;
export { policyFlags };

/** One line per flag: what turning it on or off changes. */
export const flagHelp: Record<PolicyFlag, string> = {
  enforce_game: 'Applies your game-scope bans in the game they were made in.',
  enforce_publisher: 'Applies your publisher-scope bans in all your games.',
  enforce_global:
    'Applies global bans, yours and other publishers’, of the types allowed by the two flags below.',
  enforce_cheat_global: 'With enforce_global: applies global cheat bans.',
  enforce_social_global: 'With enforce_global: applies global social bans (off for a new publisher).',
  rep_include_game: 'Counts game-scope bans in the reputation score.',
  rep_include_publisher: 'Counts publisher-scope bans in the reputation score.',
  rep_include_global: 'Counts global bans in the reputation score.',
};

export const flagsOf = (policy: Policy): Flags =>
  Object.fromEntries(policyFlags.map((flag) => [flag, policy[flag]])) as Flags;

/**
 * Whose global bans the policy takes, and how many publishers must agree: for
 * enforcement, and separately for reputation (kernel/policy-trust.ts). A policy from before them
 * reads as the API's defaults (everyone, 1), which is what the rules assume too.
 */
export type Trust = PolicyTrust;

const copySources = (sources: RulePolicy['global_sources']): GlobalSources =>
  sources === undefined || sources === 'all'
    ? 'all'
    : 'only' in sources
      ? { only: [...sources.only] }
      : { except: [...sources.except] };

/** What the policy page edits: the flags and the trust settings. */
export type Draft = Flags & Trust;

export const trustOf = (policy: RulePolicy): Trust => ({
  global_sources: copySources(policy.global_sources ?? defaultPolicyTrust.global_sources),
  global_quorum: policy.global_quorum ?? defaultPolicyTrust.global_quorum,
  rep_global_sources: copySources(policy.rep_global_sources ?? defaultPolicyTrust.rep_global_sources),
  rep_global_quorum: policy.rep_global_quorum ?? defaultPolicyTrust.rep_global_quorum,
});

export const draftOf = (policy: Policy): Draft => ({ ...flagsOf(policy), ...trustOf(policy) });

/** The same sources, whatever order their ids were chosen in. */
export const sameSources = (a: GlobalSources, b: GlobalSources): boolean =>
  JSON.stringify(normalSources(a)) === JSON.stringify(normalSources(b));

/** Sources as they are sent: ids in order, each once. */
export const normalSources = (sources: GlobalSources): GlobalSources =>
  sources === 'all'
    ? 'all'
    : 'only' in sources
      ? { only: [...new Set(sources.only)].sort() }
      : { except: [...new Set(sources.except)].sort() };

/** Sources in words: "all publishers", "only a, b", "all except c". */
export const sourcesText = (sources: GlobalSources): string =>
  sources === 'all'
    ? 'all publishers'
    : 'only' in sources
      ? `only ${sources.only.length ? sources.only.join(', ') : 'yourself'}`
      : `all except ${sources.except.length ? sources.except.join(', ') : 'none'}`;

/** The PUT /v1/policy body: each flag and trust setting the draft changes. */
export const patchOf = (saved: Policy, draft: Draft): Partial<Draft> => {
  const before = draftOf(saved);
  const patch: Partial<Record<keyof Draft, unknown>> = {};
  for (const flag of policyFlags) if (draft[flag] !== before[flag]) patch[flag] = draft[flag];
  for (const field of ['global_sources', 'rep_global_sources'] as const)
    if (!sameSources(draft[field], before[field])) patch[field] = normalSources(draft[field]);
  for (const field of ['global_quorum', 'rep_global_quorum'] as const)
    if (draft[field] !== before[field]) patch[field] = draft[field];
  return patch as Partial<Draft>;
};

/** A saved change in words: "enforce_game off, global_quorum 2, global_sources all except b". */
export const patchText = (patch: Partial<Draft>): string =>
  Object.entries(patch)
    .map(([field, value]) =>
      typeof value === 'boolean'
        ? `${field} ${value ? 'on' : 'off'}`
        : typeof value === 'number'
          ? `${field} ${value}`
          : `${field} ${sourcesText(value as GlobalSources)}`,
    )
    .join(', ');

export interface Outcome {
  restricted: { cheat: boolean; social: boolean };
  enforced: Map<number, boolean>;
  /** Each ban's verdict under the policy (the rules' judgeBans), by ban id. */
  verdicts: Map<number, Verdict>;
  score: number;
}

/** The listing's ban as the rules read it (they need only its type, scope and times). */
const stored = (ban: Ban, deviceId: string): StoredBan => ({
  ban_id: ban.ban_id,
  device_id: deviceId,
  ban_type: ban.ban_type,
  scope: ban.scope,
  publisher_id: ban.publisher_id,
  game_id: ban.game_id ?? '',
  reason_code: ban.reason_code,
  created_at: ban.created_at,
  expires_at: ban.expires_at,
  revoked_at: ban.revoked_at,
});

export const outcome = (policy: RulePolicy, bans: readonly Ban[], deviceId: string, now: string): Outcome => {
  const rules = bans.map((ban) => stored(ban, deviceId));
  const judged = judgeBans(policy, rules, now);
  const verdicts = new Map(rules.map((ban, i) => [ban.ban_id, judged[i] as Verdict]));
  const enforced = new Map(rules.map((ban, i) => [ban.ban_id, judged[i]?.applies === true]));
  const applies = (type: Ban['ban_type']) =>
    rules.some((ban) => ban.ban_type === type && enforced.get(ban.ban_id));
  return {
    restricted: { cheat: applies('cheat'), social: applies('social') },
    enforced,
    verdicts,
    score: reputation(policy, rules, now).score,
  };
};

export interface PreviewRow {
  label: string;
  now: string;
  after: string;
  changes: boolean;
}

const word = (restricted: boolean) => (restricted ? 'restricted' : 'not restricted');
const yes = (value: boolean | undefined) => (value ? 'yes' : 'no');
const row = (label: string, now: string, after: string): PreviewRow => ({
  label,
  now,
  after,
  changes: now !== after,
});

/** Restriction by type and the score, before and after. */
const restrictionRows = (before: Outcome, after: Outcome, where = ''): PreviewRow[] => [
  row(`Cheat${where}`, word(before.restricted.cheat), word(after.restricted.cheat)),
  row(`Social${where}`, word(before.restricted.social), word(after.restricted.social)),
  row('Reputation score', String(before.score), String(after.score)),
];

/** The preview's rows: restriction by type, the score, then each ban's `enforced`. */
export const previewRows = (
  saved: Policy,
  draft: Draft,
  bans: readonly Ban[],
  deviceId: string,
  now = new Date().toISOString(),
): PreviewRow[] => {
  const before = outcome(saved, bans, deviceId, now);
  const after = outcome({ ...saved, ...draft }, bans, deviceId, now);
  return [
    ...restrictionRows(before, after),
    ...bans.map((ban) =>
      row(
        `Ban ${ban.ban_id} (${ban.ban_type}, ${ban.scope}) enforced`,
        yes(before.enforced.get(ban.ban_id)),
        yes(after.enforced.get(ban.ban_id)),
      ),
    ),
  ];
};

/**
 * The device's global bans in force, and whether each applies before and after the draft, in the
 * rules' words (explainVerdict: "applies", "1 of 2 publishers needed", "from a publisher you do not
 * trust"): what a trust setting starts or stops applying, and why.
 */
export const trustRows = (
  saved: Policy,
  draft: Draft,
  bans: readonly Ban[],
  deviceId: string,
  now = new Date().toISOString(),
): PreviewRow[] => {
  const before = outcome(saved, bans, deviceId, now);
  const after = outcome({ ...saved, ...draft }, bans, deviceId, now);
  const words = (verdict: Verdict | undefined) => (verdict ? explainVerdict(verdict) : '—');
  return bans
    .filter((ban) => ban.scope === 'global' && isActive(stored(ban, deviceId), now))
    .map((ban) =>
      row(
        `Ban ${ban.ban_id} (${ban.ban_type}) by ${ban.publisher_id === saved.publisher_id ? `${ban.publisher_id} (you)` : ban.publisher_id}`,
        words(before.verdicts.get(ban.ban_id)),
        words(after.verdicts.get(ban.ban_id)),
      ),
    );
};

/** What a draft changes in whose global bans count, in words, for every device. */
export const trustChanges = (saved: Trust, draft: Trust): string[] => {
  const lines: string[] = [];
  const pair = (
    what: string,
    sources: 'global_sources' | 'rep_global_sources',
    quorum: 'global_quorum' | 'rep_global_quorum',
  ) => {
    if (!sameSources(saved[sources], draft[sources]))
      lines.push(
        `${what} takes global bans from ${sourcesText(draft[sources])} (now ${sourcesText(saved[sources])})`,
      );
    if (saved[quorum] !== draft[quorum])
      lines.push(
        `${what} needs ${draft[quorum]} trusted ${draft[quorum] === 1 ? 'publisher' : 'publishers'} holding a global ban of a type (now ${saved[quorum]})`,
      );
  };
  pair('enforcement', 'global_sources', 'global_quorum');
  pair('the reputation', 'rep_global_sources', 'rep_global_quorum');
  return lines;
};

/** An appeal's decision as the page drafts it (the API's AppealDecisionRequest, parsed). */
export interface DecisionDraft {
  outcome: AppealOutcome;
  /** The ban's new expiry, RFC 3339 (shortened only). */
  expiresAt: string | undefined;
  /** The player's new message; undefined keeps the ban's. */
  playerMessage: string | undefined;
}

/**
 * The ban as it is listed once the decision is applied (lib/domain/appeals.ts): overturned
 * revokes it, shortened moves its expiry, and a new message replaces the player's.
 */
export const decidedBan = (ban: Ban, draft: DecisionDraft, now: string): Ban => ({
  ...ban,
  ...(draft.outcome === 'overturned' && ban.revoked_at === null ? { revoked_at: now } : {}),
  ...(draft.outcome === 'shortened' && draft.expiresAt ? { expires_at: draft.expiresAt } : {}),
  ...(draft.playerMessage === undefined ? {} : { player_message: draft.playerMessage }),
  appeal: ban.appeal && { ...ban.appeal, status: 'decided', outcome: draft.outcome },
});

/** A ban's state as a player would be told it: in force until when, or not any more. */
export const banInForce = (ban: Ban, now: string): string =>
  ban.revoked_at !== null
    ? 'revoked: no longer in force'
    : !isActive(stored(ban, ''), now)
      ? 'expired: no longer in force'
      : ban.expires_at === null
        ? 'in force, permanent'
        : `in force until ${formatTime(ban.expires_at)} (${fromNow(ban.expires_at)})`;

/**
 * What a decision changes for the player: the ban's state and its message, the appeal's answer,
 * and, when `policy` says how the device is treated in the game the appeal came from, its
 * restriction there and its score, by the same rules as the policy preview.
 */
export const decisionRows = (
  ban: Ban,
  bans: readonly Ban[] | null,
  draft: DecisionDraft,
  policy: Policy | null,
  place: { deviceId: string; game: string },
  now = new Date().toISOString(),
): PreviewRow[] => {
  const after = decidedBan(ban, draft, now);
  const rows = [
    row(`Ban ${ban.ban_id} (${ban.ban_type}, ${ban.scope})`, banInForce(ban, now), banInForce(after, now)),
    row('Message for the player', ban.player_message ?? 'none', after.player_message ?? 'none'),
    row('Appeal', 'open', draft.outcome),
  ];
  if (!policy || !bans) return rows;
  const changed = bans.map((b) => (b.ban_id === ban.ban_id ? after : b));
  return [
    ...rows,
    ...restrictionRows(
      outcome(policy, bans, place.deviceId, now),
      outcome(policy, changed, place.deviceId, now),
      ` in game ${place.game}`,
    ),
  ];
};

const kindName = (type: Ban['ban_type'], scope: Ban['scope']) =>
  `${type} bans of ${scope === 'game' ? 'game' : scope === 'publisher' ? 'publisher' : 'global'} scope`;

/**
 * What a draft changes for every device and game, before saving: the kinds of bans (type and
 * scope) that start or stop applying, by the API's own rule (policyEnforces).
 */
export const enforcementChanges = (saved: Flags, draft: Flags) => {
  const start: string[] = [];
  const stop: string[] = [];
  for (const scope of ['game', 'publisher', 'global'] as const)
    for (const type of ['cheat', 'social'] as const) {
      const before = policyEnforces(saved as Policy, { ban_type: type, scope });
      const after = policyEnforces(draft as Policy, { ban_type: type, scope });
      if (!before && after) start.push(kindName(type, scope));
      if (before && !after) stop.push(kindName(type, scope));
    }
  return { start, stop };
};
