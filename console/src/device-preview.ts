import {
  explainVerdict,
  isActive,
  judgeBans,
  type RuleBan,
  type RulePolicy,
  reputation,
  type Verdict,
} from '@kernel/policy-rules';
import type { Ban, Policy } from './api';
import type { Draft } from './preview';

/**
 * What the open device's enforcement would be under a draft of the policy, computed in the page
 * with the API's own rules (kernel/policy-rules.ts, pure functions with no imports but types), from
 * every ban of the device the key can see.
 */

/** A ban as the service stores it, as far as the preview fills it in (lib/domain/ban-record.ts). */
type StoredBan = RuleBan & {
  ban_id: number;
  device_id: string;
  game_id: string;
  reason_code: string;
  created_at: string;
};

export interface Outcome {
  restricted: { cheat: boolean; social: boolean };
  enforced: Map<number, boolean>;
  /** Each ban's verdict under the policy (the rules' judgeBans), by ban id. */
  verdicts: Map<number, Verdict>;
  score: number;
}

/** The listing's ban as the rules read it (they need only its type, scope and times). */
export const stored = (ban: Ban, deviceId: string): StoredBan => ({
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
export const row = (label: string, now: string, after: string): PreviewRow => ({
  label,
  now,
  after,
  changes: now !== after,
});

/** Restriction by type and the score, before and after. */
export const restrictionRows = (before: Outcome, after: Outcome, where = ''): PreviewRow[] => [
  row(`Cheat${where}`, word(before.restricted.cheat), word(after.restricted.cheat)),
  row(`Social${where}`, word(before.restricted.social), word(after.restricted.social)),
  row('Reputation score', String(before.score), String(after.score)),
];

/** The device's outcome under the saved policy and under the draft, and what it was computed from. */
interface UnderDraft {
  before: Outcome;
  after: Outcome;
  saved: Policy;
  bans: readonly Ban[];
  deviceId: string;
  now: string;
}

/** A preview of the device under a draft: `rows` of its outcome before and after. */
const underDraft =
  (rows: (under: UnderDraft) => PreviewRow[]) =>
  (saved: Policy, draft: Draft, bans: readonly Ban[], deviceId: string, now = new Date().toISOString()) =>
    rows({
      before: outcome(saved, bans, deviceId, now),
      after: outcome({ ...saved, ...draft }, bans, deviceId, now),
      saved,
      bans,
      deviceId,
      now,
    });

/** The preview's rows: restriction by type, the score, then each ban's `enforced`. */
export const previewRows = underDraft(({ before, after, bans }) => [
  ...restrictionRows(before, after),
  ...bans.map((ban) =>
    row(
      `Ban ${ban.ban_id} (${ban.ban_type}, ${ban.scope}) enforced`,
      yes(before.enforced.get(ban.ban_id)),
      yes(after.enforced.get(ban.ban_id)),
    ),
  ),
]);

/**
 * The device's global bans in force, and whether each applies before and after the draft, in the
 * rules' words (explainVerdict: "applies", "1 of 2 publishers needed", "from a publisher you do not
 * trust"): what a trust setting starts or stops applying, and why.
 */
export const trustRows = underDraft(({ before, after, saved, bans, deviceId, now }) => {
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
});
