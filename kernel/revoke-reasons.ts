/**
 * Why a ban is revoked: the list the console's revoke forms offer, so a team's revocations read
 * alike in the audit trail and webhooks. The API keeps taking any well-formed reason code
 * (`revokeBanRequestSchema`, lib/model/requests.ts) for scripts and integrations; every code here
 * is one it takes (test/unit/bans.test.ts checks that).
 */
export const REVOKE_REASONS = [
  { code: 'appeal_upheld', label: "The player's appeal was upheld" },
  { code: 'false_positive', label: 'The detection was wrong (false positive)' },
  { code: 'report_upheld', label: 'A support report showed the ban was wrong' },
  { code: 'mistake', label: 'Banned by mistake (wrong device, game or terms)' },
  { code: 'duplicate', label: 'Duplicates another ban of the device' },
  { code: 'ended_early', label: 'Ended early: the term is served' },
  { code: 'other', label: 'Other (say why in the ticket)' },
] as const;

export type RevokeReason = (typeof REVOKE_REASONS)[number]['code'];
