import type { Scope } from './scopes';

/**
 * Claims on appeals: a moderator holds an open appeal for a while so that two do not work it at
 * once. The API enforces these (lib/domain/appeal-claims.ts) and the console shows them; no
 * dependencies.
 */

/** How long a claim lasts when the request names no duration: one appeal's reading and deciding. */
export const CLAIM_DEFAULT_SECONDS = 15 * 60;
/** The shortest and longest claim: a claim outlives a moderator's attention by at most an hour. */
export const CLAIM_MIN_SECONDS = 60;
export const CLAIM_MAX_SECONDS = 60 * 60;

/**
 * Who may take over another's claim (or release it): a holder of `keys:manage`, which among the
 * roles only `admin` has; so a team's admin can free an appeal whose moderator has left it.
 */
export const TAKE_OVER_SCOPE = 'keys:manage' as const satisfies Scope;
export const mayTakeOver = (scopes: readonly Scope[]) => scopes.includes(TAKE_OVER_SCOPE);
