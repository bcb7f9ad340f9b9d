import { type Scope, scopes } from './scopes';

/**
 * People who sign in (OpenID Connect) rather than call with a key. Each belongs to one publisher
 * and has one role; a role is a fixed set of scopes, put into the same authorizer context a key's
 * scopes go into, so every route checks a person exactly as it checks a key. No dependencies:
 * the authorizer, the chain, the console and the stack all read it.
 */
export const roles = ['viewer', 'moderator', 'admin'] as const;
export type Role = (typeof roles)[number];

export const isRole = (value: unknown): value is Role => (roles as readonly unknown[]).includes(value);

const viewer = ['bans:read', 'policy:read', 'audit:read'] as const satisfies readonly Scope[];

/** What each role may do. `admin` holds every scope, including any added later. */
export const roleScopes = {
  viewer,
  moderator: [...viewer, 'bans:write'],
  admin: scopes,
} as const satisfies Record<Role, readonly Scope[]>;
