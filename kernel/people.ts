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
  moderator: [...viewer, 'bans:write', 'appeals:decide'],
  admin: scopes,
} as const satisfies Record<Role, readonly Scope[]>;

/**
 * Where the deployed Cognito pool keeps a person's publisher and role: custom attributes that
 * only administrators write (the console's app client may not). A pre-token-generation trigger
 * copies them into the access token as `publisher_id` and `role` (infra/stack/identity.ts).
 */
export const COGNITO_PUBLISHER_ATTRIBUTE = 'custom:publisher_id';
export const COGNITO_ROLE_ATTRIBUTE = 'custom:role';
