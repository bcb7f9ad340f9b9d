import { isActive } from '@kernel/policy-rules';
import type { AppealOutcome } from '@kernel/requests';
import { type Ban, formatTime, fromNow, type Policy } from './api';
import { outcome, type PreviewRow, restrictionRows, row, stored } from './device-preview';

/**
 * What an appeal's decision would make of its ban, and of the device in the appeal's game, by the
 * same rules as the policy preview (device-preview.ts).
 */

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
