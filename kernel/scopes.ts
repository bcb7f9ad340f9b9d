/**
 * What a key may do. Each authenticated route names the one scope it needs (lib/routes.ts); the
 * shared chain refuses a key without it (403). A key made without a scope list (every key made
 * before scopes existed, and the first `npm start` key) holds every scope, including any added
 * later. A module with no dependencies: routes, the domain and the stack all read it.
 */
export const scopes = [
  'bans:read',
  'bans:write',
  'policy:read',
  'policy:write',
  'keys:manage',
  'audit:read',
  /** Files appeals on a player's behalf (a game server, a support site). */
  'appeals:write',
  /** Reads and decides the appeals of the publisher's bans (moderators). */
  'appeals:decide',
  /** Lists, invites, disables and re-enables the publisher's people and sets their roles (admins). */
  'people:manage',
  /**
   * Imports bans with their history (POST /v1/imports): backdating a ban's creation, expiry and
   * revocation is more than making one now, so `bans:write` alone does not allow it.
   */
  'bans:import',
  /** Reads everything the publisher holds, kind by kind, and all of it about one device (GET /v1/exports, Art. 15). */
  'data:export',
] as const;
export type Scope = (typeof scopes)[number];

/**
 * What a route needs: one scope, or any one of several (an appeal is read by its owner's
 * moderators, `appeals:decide`, and by its filer, `appeals:write`).
 */
export type ScopeNeed = Scope | readonly Scope[];
export const scopesOf = (need: ScopeNeed): readonly Scope[] => (typeof need === 'string' ? [need] : need);

export const isScope = (value: unknown): value is Scope => (scopes as readonly unknown[]).includes(value);

/**
 * How a key's grants travel in the authorizer's context, whose values must be strings: the list
 * joined by spaces (no scope or game id holds one), or `*` for "every one".
 */
export const ALL = '*';
export const encodeGrant = (values: readonly string[] | null): string => (values ? values.join(' ') : ALL);
export const decodeGrant = (value: unknown): string[] | null | undefined => {
  if (value === ALL) return null;
  if (typeof value !== 'string') return undefined;
  return value === '' ? [] : value.split(' ');
};
