import { type PolicyFlag, policyFlags } from '@kernel/policy-flags';
import { policyEnforces, type RulePolicy } from '@kernel/policy-rules';
import { defaultPolicyTrust, type GlobalSources, type PolicyTrust } from '@kernel/policy-trust';
import type { Ban, Policy } from './api';

/**
 * A draft of the policy: its flags and trust settings, what saving it sends, and what it changes
 * for every device in words. What it changes for the open device is device-preview.ts; what an
 * appeal's decision changes, ban-decision-preview.ts (both re-exported here for the views).
 */

export { banInForce, type DecisionDraft, decidedBan, decisionRows } from './ban-decision-preview';
export { type Outcome, outcome, type PreviewRow, previewRows, trustRows } from './device-preview';

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
