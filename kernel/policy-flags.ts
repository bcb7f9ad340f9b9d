/**
 * The eight policy flags, in the interface's order. A module of its own with no dependencies, so
 * that code needing only the names (the authorizer, via the policy module) does not load zod.
 */
export const policyFlags = [
  'enforce_game',
  'enforce_publisher',
  'enforce_global',
  'enforce_cheat_global',
  'enforce_social_global',
  'rep_include_game',
  'rep_include_publisher',
  'rep_include_global',
] as const;
export type PolicyFlag = (typeof policyFlags)[number];

/** A new publisher's policy: everything enforced and counted except global social bans. */
export const defaultPolicyFlags: Readonly<Record<PolicyFlag, boolean>> = {
  enforce_game: true,
  enforce_publisher: true,
  enforce_global: true,
  enforce_cheat_global: true,
  enforce_social_global: false,
  rep_include_game: true,
  rep_include_publisher: true,
  rep_include_global: true,
};
