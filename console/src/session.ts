import { roleScopes } from '@kernel/people';
import { type Call, createClient } from '../client';
import {
  type AnyAnswer,
  explain,
  lackedScope,
  type Policy,
  type Problem,
  type Schemas,
  type Scope,
  scopes,
} from './api';
import type { Person, PersonTokens } from './people';
import type { ScopeKnowledge } from './ui';

/**
 * Signing in. There is no "who am I" route, so the key is tried on three cheap reads, one per
 * scope that has one: GET /v1/policy (policy:read), GET /v1/keys (keys:manage) and
 * GET /v1/audit?limit=1 (audit:read), and on two writes that cannot succeed: PUT /v1/policy and
 * POST /v1/bans with a body that is no policy and no ban (and no game): 403 without the scope,
 * 400 with it, and nothing changes either way. A 401 on any means the key is unknown, revoked or expired:
 * the moderator stays signed out. A 200 or a 403 on each tells whether the key holds that scope.
 * Anything else (429, 503, 500, no network) leaves the moderator signed out with the reason, so
 * nothing starts half-known. The other scopes (bans:read, bans:write, policy:write) are learned
 * when first used: a 403 naming the scope marks it missing, a success marks it held.
 *
 * With keys:manage the key list also tells exactly which key this is: the one, not revoked,
 * whose last 4 characters are this key's. Then every scope and its games are known at once.
 */

export type ApiKey = Schemas['ApiKey'];

export interface Session {
  /** The API key, or the person's access token at sign-in (renewed in the Console). */
  key: string;
  knowledge: ScopeKnowledge;
  /** This key's own entry in the key list, when keys:manage found exactly one. */
  identity: ApiKey | null;
  /**
   * Who typed the drafts of this session (drafts.ts): a person by publisher and subject, a key by a
   * hash of it (never the key), so another person signing in to the tab never gets them.
   */
  owner: string;
  /** The person signed in with their organisation, and their tokens; null with a key. */
  person: { who: Person; tokens: PersonTokens } | null;
  policy: Policy | null;
}

/** A sign-in's outcome: the session, or why the moderator stays signed out. */
export type SignedIn = { ok: true; session: Session } | { ok: false; problem: Problem };

export const unknownScopes = (): ScopeKnowledge =>
  Object.fromEntries(
    scopes.map((s) => [s, { held: null, note: 'learned when first used' }]),
  ) as ScopeKnowledge;

const KEY_FORMAT = /^[\x21-\x7E]{8,512}$/;

/** A key's drafts' owner: the first 128 bits of its SHA-256, as the API stores keys (never the key). */
const keyOwner = async (key: string) => {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key)));
  return `key:${[...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
};

export const signIn = async (rawKey: string, base = ''): Promise<SignedIn> => {
  const key = rawKey.trim();
  if (key === '')
    return { ok: false, problem: { status: 0, fields: [], text: 'Paste an API key to sign in.' } };
  if (!KEY_FORMAT.test(key))
    return {
      ok: false,
      problem: {
        status: 0,
        fields: [],
        text: 'That is not an API key: keys are bsk_ followed by 43 letters, digits, - or _.',
      },
    };
  const call = createClient(key, base);
  const [policy, keys, audit, policyWrite, bansWrite] = await Promise.all([
    call('get', '/v1/policy', {}),
    call('get', '/v1/keys', { query: { limit: 1 } }),
    call('get', '/v1/audit', { query: { limit: 1 } }),
    // A write that cannot succeed: the scope is checked before the body (403 without it), and
    // the body is never a policy (400 with it). Nothing changes either way.
    call('put', '/v1/policy', { body: [] as never }),
    // The same for bans:write: no game and no ban, so 403 without the scope and 400 with it.
    call('post', '/v1/bans', { body: [] as never } as never),
  ]);
  const answers: AnyAnswer[] = [policy, keys, audit];
  const refused = answers.find((a) => a.status === 401);
  if (refused) return { ok: false, problem: explain(refused) };
  const unusable = answers.find((a) => a.status !== 200 && a.status !== 403);
  if (unusable) {
    const problem = explain(unusable);
    return { ok: false, problem: { ...problem, text: `Could not sign in. ${problem.text}` } };
  }
  const knowledge = unknownScopes();
  const learn = (scope: Scope, answer: AnyAnswer) => {
    knowledge[scope] =
      answer.status === 200
        ? { held: true, note: 'checked at sign-in' }
        : { held: false, note: 'the API answered 403 at sign-in' };
  };
  learn('policy:read', policy);
  learn('keys:manage', keys);
  learn('audit:read', audit);
  const probe = (scope: Scope, answer: AnyAnswer) => {
    if (answer.status === 400) knowledge[scope] = { held: true, note: 'checked at sign-in' };
    else if (lackedScope(answer) === scope)
      knowledge[scope] = { held: false, note: 'the API answered 403 at sign-in' };
  };
  probe('policy:write', policyWrite);
  probe('bans:write', bansWrite);

  let identity: ApiKey | null = null;
  if (keys.status === 200) {
    // Every page of the listing, to find which key this is by its last 4 characters.
    const live: ApiKey[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_IDENTITY_PAGES; page++) {
      const answer = await call('get', '/v1/keys', { query: { limit: 200, ...(cursor ? { cursor } : {}) } });
      if (answer.status !== 200) break;
      live.push(...answer.body.items.filter((k) => k.revoked_at === null));
      if (answer.body.next_cursor === null) break;
      cursor = answer.body.next_cursor;
    }
    const mine = live.filter((k) => k.last4 !== null && key.endsWith(k.last4));
    if (mine.length === 1 && mine[0]) {
      identity = mine[0];
      for (const scope of scopes) {
        knowledge[scope] = identity.scopes.includes(scope)
          ? { held: true, note: `key ${identity.key_id} holds it` }
          : { held: false, note: `key ${identity.key_id} was made without it` };
      }
      // The audit trail spans every game: a key bound to games is refused it, whatever it holds.
      if (identity.games !== null && audit.status === 403)
        knowledge['audit:read'] = {
          held: false,
          note: `key ${identity.key_id} is bound to games`,
          bound: true,
        };
    }
  }
  return {
    ok: true,
    session: {
      key,
      knowledge,
      identity,
      owner: await keyOwner(key),
      person: null,
      policy: policy.status === 200 ? policy.body : null,
    },
  };
};

/**
 * A person's session: their role says which scopes they hold (kernel/people.ts), and one read
 * of the policy checks that the API accepts their token before the console opens.
 */
export const signInPerson = async (who: Person, tokens: PersonTokens, base = ''): Promise<SignedIn> => {
  const policy = await createClient(tokens.access, base)('get', '/v1/policy', {});
  if (policy.status !== 200 && policy.status !== 403) {
    const problem = explain(policy);
    return { ok: false, problem: { ...problem, text: `Could not sign in. ${problem.text}` } };
  }
  const held: readonly Scope[] = roleScopes[who.role];
  const knowledge = Object.fromEntries(
    scopes.map((s) => [
      s,
      held.includes(s)
        ? { held: true, note: `the ${who.role} role holds it` }
        : { held: false, note: `the ${who.role} role does not hold it` },
    ]),
  ) as ScopeKnowledge;
  return {
    ok: true,
    session: {
      key: tokens.access,
      knowledge,
      identity: null,
      owner: `person:${who.publisher_id}:${who.sub}`,
      person: { who, tokens },
      policy: policy.status === 200 ? policy.body : null,
    },
  };
};

/** Pages of 200 keys read at sign-in to find the key's own entry (a publisher holds at most 100 live keys). */
const MAX_IDENTITY_PAGES = 10;

/** The scope each operation needs (docs/api.md "Scopes"), to learn from what the API answers. */
const scopeOf: Record<string, Scope> = {
  'get /v1/device/{device_id}/bans': 'bans:read',
  'get /v1/device/{device_id}/enforcement': 'bans:read',
  'get /v1/devices': 'bans:read',
  'get /v1/bans/expiring': 'bans:read',
  'post /v1/bans': 'bans:write',
  'post /v1/device/{device_id}/bans/{ban_id}/revoke': 'bans:write',
  'post /v1/device/{device_id}/erase': 'bans:write',
  'get /v1/policy': 'policy:read',
  'put /v1/policy': 'policy:write',
  'get /v1/audit': 'audit:read',
  'get /v1/keys': 'keys:manage',
  'get /v1/people': 'people:manage',
  'get /v1/appeals': 'appeals:decide',
  'get /v1/appeals/stats': 'appeals:decide',
  'post /v1/appeals/{appeal_id}/decision': 'appeals:decide',
};

/**
 * The session's client: each answer also teaches what the key may do (a 403 naming a scope, a
 * success), and a 401 ends the session (the key was revoked or expired meanwhile).
 */
export const sessionClient = (
  key: string | (() => string),
  hooks: {
    onUnauthorized: (answer: AnyAnswer) => void;
    onScope: (scope: Scope, held: boolean, note: string) => void;
  },
  base = '',
): Call => {
  const call = createClient(key, base);
  return (async (method: 'get', path: '/v1/policy', init: object) => {
    const answer = await call(method, path, init as never);
    if (answer.status === 401) hooks.onUnauthorized(answer);
    const lacked = lackedScope(answer);
    if (lacked) hooks.onScope(lacked, false, 'the API answered 403');
    else if (answer.ok && scopeOf[`${method} ${path}`])
      hooks.onScope(scopeOf[`${method} ${path}`] as Scope, true, 'used successfully');
    return answer;
  }) as Call;
};
