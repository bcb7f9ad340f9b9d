import { policyEnforces, ruleFor } from '@kernel/policy-rules';
import type { Policy, Schemas } from './api';
import { check, parseDetails, parseExpiry, parsePlayerMessage } from './validation';

/**
 * A ban's terms as the create form and the bulk ban form both take them: the fields, checked by
 * the API's rules, the terms as sent, and what they mean under the caller's policy, said before
 * the ban is made.
 */

export type CreateBanRequest = Schemas['CreateBanRequest'];
export type BanType = CreateBanRequest['ban_type'];
/** What every ban of a form has alike: all but the device and the idempotency key. */
export type BanTerms = Omit<CreateBanRequest, 'device_id' | 'idempotency_key'>;

/** A fresh idempotency key: one per form instance, renewed after each success. */
export const newIdempotencyKey = (): string =>
  typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * A ban form's fields as typed: the terms, and the device when the form names one (the bulk
 * form's devices are pasted apart).
 */
export type BanValues = {
  device?: string;
  banType: BanType;
  scope: CreateBanRequest['scope'];
  reason: string;
  expires: string;
  details: string;
  playerMessage: string;
  appealable: boolean;
};

export const blankTerms: BanValues = {
  banType: 'cheat',
  scope: 'game',
  reason: '',
  expires: '',
  details: '',
  playerMessage: '',
  appealable: true,
};

/**
 * The fields' problems by the API's field names, and the terms as sent when the page finds none
 * (`reasonProblem`: the create form's, when strict reasons ask more than the character rule).
 */
export const termsOf = (
  values: BanValues,
  reasonProblem = check('reason_code', values.reason.trim()),
): { found: Record<string, string | undefined>; terms: BanTerms | null } => {
  const expiry = parseExpiry(values.expires);
  const details = parseDetails(values.details);
  const forPlayer = parsePlayerMessage(values.playerMessage);
  const found = {
    reason_code: reasonProblem,
    expires_at: expiry.ok ? undefined : expiry.message,
    details: details.ok ? undefined : details.message,
    player_message: forPlayer.ok ? undefined : forPlayer.message,
  };
  if (reasonProblem || !expiry.ok || !details.ok || !forPlayer.ok) return { found, terms: null };
  return {
    found,
    terms: {
      ban_type: values.banType,
      scope: values.scope,
      reason_code: values.reason.trim(),
      ...(expiry.value === undefined ? {} : { expires_at: expiry.value }),
      ...(details.value === undefined ? {} : { details: details.value }),
      ...(forPlayer.value === undefined ? {} : { player_message: forPlayer.value }),
      ...(values.appealable ? {} : { appealable: false }),
    },
  };
};

/**
 * Where a ban of this type and scope applies under the caller's own policy: the rule flags it
 * needs (kernel/policy-rules.ts) and which of them are off.
 */
export const reachOf = (
  policy: Policy | null,
  ban: Pick<CreateBanRequest, 'ban_type' | 'scope'>,
): { applies: boolean | null; text: string } => {
  const where =
    ban.scope === 'game' ? 'this game' : ban.scope === 'publisher' ? 'all your games' : 'your games';
  const others =
    ban.scope === 'global' ? ' Other publishers apply it where their own policies enforce it.' : '';
  if (!policy)
    return { applies: null, text: `Where it applies depends on your policy, not read yet.${others}` };
  const rule = ruleFor(ban);
  if (policyEnforces(policy, ban))
    return { applies: true, text: `Your policy enforces it in ${where} (${rule.join(' + ')}).${others}` };
  const off = rule.filter((flag) => !policy[flag]);
  return {
    applies: false,
    text: `Your own policy will not enforce it: ${off.join(' and ')} ${off.length === 1 ? 'is' : 'are'} off, so it restricts nothing in your games.${others}`,
  };
};

/** How long a ban lasts, and, for a global one, its reach beyond your games: said before it is made. */
export const lastingReach = ({
  permanent,
  scope,
  ban_type,
}: { permanent: boolean } & Pick<CreateBanRequest, 'ban_type' | 'scope'>): string =>
  `${permanent ? 'Permanent: it never expires; only a revoke ends it. ' : 'It ends at the expiry above. '}${
    scope === 'global'
      ? `Global: it can restrict the device in every other publisher's games whose policy enforces global ${ban_type} bans.`
      : ''
  }`;

/**
 * What a reload or a new sign-in keeps of a ban form (drafts.ts): what was typed, for the single
 * form and Bulk alike (the device follows the lookup).
 */
export const DRAFTED_TERMS = ['reason', 'expires', 'details', 'playerMessage', 'appealable'] as const;
