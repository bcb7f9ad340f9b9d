/**
 * The policy's trust settings (`global_sources`, `global_quorum`, and the `rep_` pair for the
 * reputation score), in one place without dependencies: the API's schemas (lib/model/requests.ts,
 * lib/model/responses.ts), the policy item (lib/domain/policy.ts), the OpenAPI description and the
 * console read them; the rules that apply them are ./policy-rules.ts. Invariant: a policy item
 * without them reads as the defaults, everyone's global bans, alone. Their meaning, and why two
 * pairs: docs/api.md#trusting-other-publishers-global-bans.
 */

/** Whose global bans count: everyone's, only the listed publishers', or all but the listed ones. */
export type GlobalSources = 'all' | { only: string[] } | { except: string[] };

export const trustFields = [
  'global_sources',
  'global_quorum',
  'rep_global_sources',
  'rep_global_quorum',
] as const;
export type TrustField = (typeof trustFields)[number];

export interface PolicyTrust {
  global_sources: GlobalSources;
  global_quorum: number;
  rep_global_sources: GlobalSources;
  rep_global_quorum: number;
}

/** At most this many publisher ids in `only` or `except`. */
export const TRUST_SOURCES_MAX = 100;
/** The quorum's range: distinct trusted publishers that must hold an active global ban of the type. */
export const QUORUM_MIN = 1;
export const QUORUM_MAX = 10;

export const defaultPolicyTrust: Readonly<PolicyTrust> = {
  global_sources: 'all',
  global_quorum: 1,
  rep_global_sources: 'all',
  rep_global_quorum: 1,
};

/** A publisher id as the API spells them (the authorizer's and the directory's rule). */
export const PUBLISHER_ID_PATTERN = /^[a-z0-9._-]{1,64}$/;
export const PUBLISHER_ID_RULE = 'must be 1-64 characters of a-z 0-9 . _ -';

/** Whether a stored value is a well-formed `global_sources` (the policy item is checked on read). */
export const isGlobalSources = (value: unknown): value is GlobalSources => {
  if (value === 'all') return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  if (keys.length !== 1 || (keys[0] !== 'only' && keys[0] !== 'except')) return false;
  const ids = (value as Record<string, unknown>)[keys[0]];
  return Array.isArray(ids) && ids.every((id) => typeof id === 'string');
};

/** Whether a stored value is a well-formed quorum. */
export const isQuorum = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= QUORUM_MIN && value <= QUORUM_MAX;
