import { type Role, roleScopes, roles } from '@kernel/people';
import { type Scope, scopesOf } from '@kernel/scopes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../lib/routes';
import type { TestApi } from '../support/api';
import { startTestApi } from '../support/api';
import { failThenRetry, injectFaults } from '../support/faults';
import { discover, refresh, signIn, silentSignIn } from '../support/sign-in';

/**
 * People signed in through the local identity provider (a real OpenID Provider), calling the API
 * with their access tokens: each role's routes, the audit trail naming the person, tenants kept
 * apart, and what a disabled person can and cannot still do. Runs on the sources, the bundles,
 * Node 24 and DynamoDB Local like every integration suite.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ people: true });
});
afterAll(() => api?.close());

let n = 0;
const unique = (prefix: string) => {
  n += 1;
  return `${prefix}-${Date.now().toString(36)}-${n}`;
};

const person = async (publisherId: string, role: Role) => {
  const made = await api.createPerson(publisherId, role);
  const result = await signIn(api.identity.issuer, api.identity.redirectUri, made.email, made.password);
  if (!result.ok) throw new Error(`sign-in failed: ${result.status} ${result.page.slice(0, 300)}`);
  return { ...made, role, token: result.tokens.access_token, tokens: result.tokens, cookie: result.cookie };
};

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString());
const headerOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString());

const banBody = (device: string, scope = 'game') => ({
  device_id: device,
  ban_type: 'cheat',
  scope,
  reason_code: 'aimbot',
});

describe('people signed in', () => {
  it('signs in with authorization code + PKCE and gets a 15-minute JWT for the API naming publisher and role', async () => {
    const meta = await discover(api.identity.issuer);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.end_session_endpoint).toBeTruthy();
    const pub = unique('ppl');
    const alice = await person(pub, 'moderator');
    expect(headerOf(alice.token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const claims = claimsOf(alice.token);
    expect(claims).toMatchObject({
      iss: api.identity.issuer,
      aud: 'urn:device-bans:api',
      sub: alice.sub,
      publisher_id: pub,
      role: 'moderator',
      email: alice.email,
    });
    expect(claims.exp - claims.iat).toBe(900);
    expect(alice.tokens.refresh_token).toBeTruthy();
    const policy = await api.request('GET', '/v1/policy', { key: alice.token });
    expect(policy.status).toBe(200);
    expect(policy.body.publisher_id).toBe(pub);
  });

  it('refuses a wrong password on the sign-in page, and issues nothing', async () => {
    const made = await api.createPerson(unique('ppl'), 'admin');
    const result = await signIn(
      api.identity.issuer,
      api.identity.redirectUri,
      made.email,
      'not-the-password',
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.status).toBe(401);
      expect(result.page).toContain('do not match an active account');
    }
  });

  it('refuses an account after 5 failed sign-ins, existing or not, even with the right password, and others still sign in', async () => {
    const { issuer, redirectUri } = api.identity;
    const sam = await api.createPerson(unique('lim'), 'viewer');
    const nobody = `nobody-${unique('lim')}@example.com`;
    for (const email of [sam.email, nobody]) {
      for (let i = 0; i < 5; i++) {
        const wrong = await signIn(issuer, redirectUri, email, 'not-the-password');
        expect(wrong.ok ? 200 : wrong.status).toBe(401);
      }
      // The sixth is refused before the password is checked: the same answer for both.
      const refused = await signIn(issuer, redirectUri, email, email === sam.email ? sam.password : 'x');
      expect(refused.ok).toBe(false);
      if (!refused.ok) {
        expect(refused.status).toBe(429);
        expect(refused.page).toContain('Too many failed sign-ins. Try again in 15 minutes.');
      }
    }
    const amy = await api.createPerson(unique('lim'), 'viewer');
    expect((await signIn(issuer, redirectUri, amy.email, amy.password)).ok).toBe(true);
  });

  it('takes as long to refuse an email no one has as a wrong password', async () => {
    const { signInLocalPerson } = await import('../../infra/local/people');
    const sam = await api.createPerson(unique('time'), 'viewer');
    const timed = async (email: string) => {
      const start = performance.now();
      expect(await signInLocalPerson(email, 'not-the-password')).toBeUndefined();
      return performance.now() - start;
    };
    await timed(`warm-${unique('time')}@example.com`);
    // Taken in turns, so a busy moment of the machine falls on both alike.
    const knownTimes: number[] = [];
    const unknownTimes: number[] = [];
    for (let i = 0; i < 7; i++) {
      knownTimes.push(await timed(sam.email));
      unknownTimes.push(await timed(`nobody-${unique('time')}@example.com`));
    }
    const median = (times: number[]) => times.sort((a, b) => a - b)[3] as number;
    const known = median(knownTimes);
    const unknown = median(unknownTimes);
    // Both hash the password (scrypt, tens of milliseconds); an unknown email used to answer in
    // well under a millisecond (a ratio near 0.01).
    expect(unknown / known).toBeGreaterThan(0.5);
  });

  it('refuses a PKCE-less or foreign-redirect authorization request', async () => {
    const meta = await discover(api.identity.issuer);
    const base = {
      client_id: 'console',
      response_type: 'code',
      scope: 'openid',
      state: 's',
      redirect_uri: api.identity.redirectUri,
    };
    for (const params of [
      base,
      { ...base, code_challenge: 'x'.repeat(43), redirect_uri: 'https://evil.example/' },
    ]) {
      const res = await fetch(`${meta.authorization_endpoint}?${new URLSearchParams(params)}`, {
        redirect: 'manual',
      });
      // Refused: an error page (bad redirect) or back to the console with an error, never a code.
      const location = res.headers.get('location') ?? '';
      expect(location.includes('code=')).toBe(false);
      expect(location.startsWith('https://evil.example')).toBe(false);
    }
  });

  describe('each role reaches exactly its routes', () => {
    /** One call per scope, and what it needs: a 2xx when the role holds it, else 403 and nothing stored. */
    const calls: Array<{
      scope: Scope;
      call: (token: string, device: string) => Promise<{ status: number; body: any }>;
    }> = [
      {
        scope: 'bans:read',
        call: (key, d) => api.request('GET', `/v1/device/${d}/bans`, { key, game: 'g1' }),
      },
      {
        scope: 'bans:write',
        call: (key, d) => api.request('POST', '/v1/bans', { key, game: 'g1', body: banBody(d) }),
      },
      { scope: 'policy:read', call: (key) => api.request('GET', '/v1/policy', { key }) },
      {
        scope: 'policy:write',
        call: (key) => api.request('PUT', '/v1/policy', { key, body: { enforce_global: false } }),
      },
      { scope: 'audit:read', call: (key) => api.request('GET', '/v1/audit', { key }) },
      { scope: 'keys:manage', call: (key) => api.request('GET', '/v1/keys', { key }) },
    ];
    for (const role of roles) {
      it(`${role}: ${roleScopes[role].join(', ')}`, async () => {
        const pub = unique(`m-${role}`);
        const someone = await person(pub, role);
        const device = unique('dev');
        for (const { scope, call } of calls) {
          const before = (await api.items()).length;
          const res = await call(someone.token, device);
          const held = (roleScopes[role] as readonly Scope[]).includes(scope);
          if (held) expect(res.status, `${role} ${scope}`).toBeLessThan(300);
          else {
            expect(res.status, `${role} ${scope}`).toBe(403);
            expect(res.body.error).toEqual({
              code: 'forbidden',
              message: `The role ${role} lacks the scope ${scope}`,
            });
            expect((await api.items()).length, `${role} ${scope} stored nothing`).toBe(before);
          }
        }
      });
    }
  });

  it('role × route: every authenticated route is refused (403, nothing stored) exactly when the role lacks its scope', async () => {
    for (const role of roles) {
      const someone = await person(unique(`rr-${role}`), role);
      for (const route of routes.filter((r) => r.auth)) {
        const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
          name === 'ban_id'
            ? '1'
            : name === 'webhook_id'
              ? 'wh_AAAAAAAAAAAAAAAA'
              : name === 'appeal_id'
                ? 'apl_AAAAAAAAAAAAAAAAAAAAAA'
                : name === 'key_id'
                  ? 'key_AAAAAAAAAAAA'
                  : `x-${name}`,
        );
        const before = (await api.items()).length;
        const res = await api.request(route.method, path, {
          key: someone.token,
          game: 'g1',
          ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: {} }),
        });
        const held =
          route.scope !== null &&
          scopesOf(route.scope).some((scope) => (roleScopes[role] as readonly Scope[]).includes(scope));
        const label = `${role} ${route.method} ${route.path}`;
        if (held) expect(res.status, label).not.toBe(403);
        else {
          expect(res.status, label).toBe(403);
          expect(res.body.error.message, label).toBe(
            `The role ${role} lacks the scope ${scopesOf(route.scope ?? []).join(' or ')}`,
          );
          expect((await api.items()).length, `${label} stored nothing`).toBe(before);
        }
        expect(res.status, label).not.toBe(401);
      }
    }
  });

  it('names the person in the audit trail for every write, and filters by their sub', async () => {
    const pub = unique('aud');
    const mod = await person(pub, 'moderator');
    const admin = await person(pub, 'admin');
    const device = unique('dev');
    const made = await api.request('POST', '/v1/bans', { key: mod.token, game: 'g1', body: banBody(device) });
    expect(made.status).toBe(201);
    const revoked = await api.request('POST', `/v1/device/${device}/bans/${made.body.ban_id}/revoke`, {
      key: mod.token,
      game: 'g1',
      body: { reason_code: 'appeal' },
    });
    expect(revoked.status).toBe(200);
    expect(
      (await api.request('PUT', '/v1/policy', { key: admin.token, body: { enforce_global: false } })).status,
    ).toBe(200);
    const key = await api.request('POST', '/v1/keys', {
      key: admin.token,
      body: { name: 'server', scopes: ['bans:read'] },
    });
    expect(key.status).toBe(201);
    const erased = await api.request('POST', `/v1/device/${device}/erase`, { key: mod.token });
    expect(erased.status).toBe(200);

    const trail = await api.request('GET', '/v1/audit?limit=200', { key: admin.token });
    const asMod = { type: 'user', sub: mod.sub, email: mod.email, role: 'moderator' };
    const asAdmin = { type: 'user', sub: admin.sub, email: admin.email, role: 'admin' };
    expect(trail.body.items.map((e: { type: string; actor: unknown }) => [e.type, e.actor])).toEqual([
      ['device.erased', asMod],
      ['key.created', asAdmin],
      ['policy.updated', asAdmin],
      ['ban.revoked', asMod],
      ['ban.created', asMod],
    ]);
    const mine = await api.request('GET', `/v1/audit?actor=${mod.sub}`, { key: admin.token });
    expect(mine.body.items.map((e: { type: string }) => e.type)).toEqual([
      'device.erased',
      'ban.revoked',
      'ban.created',
    ]);
    // The key records who made it, in the listing; another publisher's admin sees no such key.
    const listed = await api.request('GET', '/v1/keys', { key: admin.token });
    const server = listed.body.items.find((k: { key_id: string }) => k.key_id === key.body.key_id);
    expect(server.created_by).toEqual(asAdmin);
    const stranger = await person(unique('aud-other'), 'admin');
    const theirs = await api.request('GET', '/v1/keys', { key: stranger.token });
    expect(theirs.body.items.map((k: { key_id: string }) => k.key_id)).not.toContain(key.body.key_id);
    // Never a token in what is stored.
    const stored = JSON.stringify(await api.items({ derived: true }));
    expect(stored).not.toContain(mod.token);
    expect(stored).not.toContain(mod.password);
  });

  it("a person's keys expire in 90 days unless they choose never, the audit says which, and disabling them lists and revokes those keys", async () => {
    // What `npm run users -- disable` calls; imported once the test API has chosen the store.
    const { keysMadeBy, PERSON_KEY_DAYS, revokeKeysMadeBy } = await import('../../lib/domain/api-keys');
    const pub = unique('pk');
    const admin = await person(pub, 'admin');
    const colleague = await person(pub, 'admin');
    const make = (key: string, extra: Record<string, unknown> = {}) =>
      api.request('POST', '/v1/keys', { key, body: { name: 'server', scopes: ['policy:read'], ...extra } });
    const before = Date.now();
    const unnamed = await make(admin.token);
    const never = await make(admin.token, { expires_at: null });
    const chosen = await make(admin.token, { expires_at: '2030-01-01T00:00:00Z' });
    const theirs = await make(colleague.token);
    for (const made of [unnamed, never, chosen, theirs]) expect(made.status).toBe(201);
    const days = (Date.parse(unnamed.body.expires_at) - before) / 86_400_000;
    expect(days).toBeGreaterThanOrEqual(PERSON_KEY_DAYS);
    expect(days).toBeLessThan(PERSON_KEY_DAYS + 0.01);
    expect(never.body.expires_at).toBeNull();
    expect(chosen.body.expires_at).toBe('2030-01-01T00:00:00.000Z');
    // A key's own keys keep their rule: none named is none.
    const operatorKey = await api.createKey(pub, 'operator');
    const byKey = await make(operatorKey.api_key);
    expect(byKey.body.expires_at).toBeNull();

    const trail = await api.request('GET', '/v1/audit?type=key.created&limit=50', { key: admin.token });
    const expiry = Object.fromEntries(
      trail.body.items.map((e: { key: { key_id: string; expiry: string } }) => [e.key.key_id, e.key.expiry]),
    );
    expect(expiry).toEqual({
      [unnamed.body.key_id]: 'default',
      [never.body.key_id]: 'never',
      [chosen.body.key_id]: 'chosen',
      [theirs.body.key_id]: 'default',
      [byKey.body.key_id]: 'never',
      [operatorKey.key_id]: 'never',
    });

    await api.disablePerson(admin.email);
    const mine = [unnamed, never, chosen].map((m) => m.body.key_id).sort();
    expect((await keysMadeBy(pub, admin.sub)).map((k) => k.key_id).sort()).toEqual(mine);
    expect((await revokeKeysMadeBy(pub, admin.sub)).map((k) => k.key_id).sort()).toEqual(mine);
    for (const made of [unnamed, never, chosen])
      expect((await api.request('GET', '/v1/policy', { key: made.body.api_key })).status).toBe(401);
    // The colleague's key, and the key's, still work; a second run revokes nothing more.
    for (const made of [theirs, byKey])
      expect((await api.request('GET', '/v1/policy', { key: made.body.api_key })).status).toBe(200);
    expect(await revokeKeysMadeBy(pub, admin.sub)).toEqual([]);
    const revokedBy = await api.request('GET', '/v1/audit?type=key.revoked&limit=50', {
      key: colleague.token,
    });
    expect(revokedBy.body.items.map((e: { key: { key_id: string } }) => e.key.key_id).sort()).toEqual(mine);
  });

  it("keeps publishers' people apart: another publisher's person sees and changes none of it", async () => {
    const a = await person(unique('ta'), 'admin');
    const b = await person(unique('tb'), 'admin');
    const device = unique('dev');
    const made = await api.request('POST', '/v1/bans', { key: a.token, game: 'g1', body: banBody(device) });
    expect(made.status).toBe(201);
    const seen = await api.request('GET', `/v1/device/${device}/bans`, { key: b.token, game: 'g1' });
    expect(seen.status).toBe(200);
    expect(seen.body.items ?? seen.body.bans ?? []).toEqual([]);
    const revoke = await api.request('POST', `/v1/device/${device}/bans/${made.body.ban_id}/revoke`, {
      key: b.token,
      game: 'g1',
      body: { reason_code: 'appeal' },
    });
    expect(revoke.status).toBe(404);
    expect((await api.request('GET', '/v1/audit', { key: b.token })).body.items).toEqual([]);
    const still = await api.request('GET', `/v1/device/${device}/bans`, { key: a.token, game: 'g1' });
    expect(JSON.stringify(still.body)).toContain(String(made.body.ban_id));
  });

  it('renews with the refresh token; once disabled, no sign-in and no renewal, the access token lives out its 15 minutes', async () => {
    const pub = unique('dis');
    const bob = await person(pub, 'viewer');
    const renewed = await refresh(api.identity.issuer, bob.tokens.refresh_token ?? '');
    expect(renewed.status).toBe(200);
    expect((await api.request('GET', '/v1/policy', { key: renewed.body.access_token })).status).toBe(200);
    await api.disablePerson(bob.email);
    const again = await signIn(api.identity.issuer, api.identity.redirectUri, bob.email, bob.password);
    expect(again.ok).toBe(false);
    const denied = await refresh(api.identity.issuer, renewed.body.refresh_token ?? '');
    expect(denied.status).toBe(400);
    expect(denied.body.error).toBe('invalid_grant');
    // Documented: an access token already issued is not revocable at the API; it expires.
    expect((await api.request('GET', '/v1/policy', { key: renewed.body.access_token })).status).toBe(200);
  });

  it("answers a disabled person's silent sign-in, their provider session alive, with login_required: sign in again", async () => {
    const pub = unique('dis');
    const bob = await person(pub, 'viewer');
    const { redirectUri, issuer } = api.identity;
    const before = await silentSignIn(issuer, redirectUri, bob.cookie);
    expect(new URL(before.location ?? '').searchParams.has('code')).toBe(true);
    await api.disablePerson(bob.email);
    const after = await silentSignIn(issuer, redirectUri, bob.cookie);
    expect({ status: after.status, page: after.page.slice(0, 300) }).toEqual({ status: 303, page: '' });
    const back = new URL(after.location ?? '').searchParams;
    expect(back.has('code')).toBe(false);
    expect(back.get('error')).toBe('login_required');
    // The sign-in button, with the same session, shows the sign-in form.
    const asked = await silentSignIn(issuer, redirectUri, bob.cookie, { silent: false });
    expect(asked.status).toBe(200);
    expect(asked.page).toContain('Sign in to the device ban console');
  });

  it('refuses an altered token, an ID token and a token of nobody with 401 in the envelope, storing nothing', async () => {
    const eve = await person(unique('atk'), 'viewer');
    const [header, , signature] = eve.token.split('.');
    const claims = { ...claimsOf(eve.token), role: 'admin' };
    const altered = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    const before = (await api.items()).length;
    for (const token of [altered, eve.tokens.id_token ?? '', 'a.b.c']) {
      const res = await api.request('PUT', '/v1/policy', { key: token, body: { enforce_global: false } });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    expect((await api.items()).length).toBe(before);
  });
});

describe("an admin manages the publisher's people (/v1/people)", () => {
  /** The publisher's audit events about people, oldest first. */
  const peopleEvents = async (token: string) =>
    (
      (await api.request('GET', '/v1/audit?limit=200', { key: token })).body.items as Array<{
        type: string;
        actor: unknown;
        person: Record<string, unknown>;
        before?: unknown;
        after?: unknown;
      }>
    )
      .filter((e) => e.type.startsWith('person.'))
      .reverse();
  const storedPerson = async (sub: string) => {
    const { localPersonKey } = await import('../../lib/storage/keys');
    const key = localPersonKey(sub);
    return (await api.items()).find((item) => item.pk === key.pk && item.sk === key.sk);
  };

  it('invites a moderator, who signs in with the one-time password shown; listed, audited, and invisible to another publisher', async () => {
    const pub = unique('inv');
    const admin = await person(pub, 'admin');
    const email = `Sam-${unique('m')}@Example.com`;
    const invited = await api.request('POST', '/v1/people', {
      key: admin.token,
      body: { email, role: 'moderator' },
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toEqual({
      person_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email: email.toLowerCase(),
      role: 'moderator',
      enabled: true,
      status: 'invited',
      created_at: expect.any(String),
      last_sign_in_at: null,
      temporary_password: expect.stringMatching(/^[\w-]{16}$/),
    });
    const sub = invited.body.person_id as string;
    expect(await storedPerson(sub)).toMatchObject({
      publisher_id: pub,
      role: 'moderator',
      email: email.toLowerCase(),
    });
    expect(JSON.stringify(await storedPerson(sub))).not.toContain(invited.body.temporary_password);

    // The password signs them in, as a moderator of this publisher.
    const signedIn = await signIn(
      api.identity.issuer,
      api.identity.redirectUri,
      email,
      invited.body.temporary_password,
    );
    expect(signedIn.ok).toBe(true);
    if (signedIn.ok)
      expect(claimsOf(signedIn.tokens.access_token)).toMatchObject({ publisher_id: pub, role: 'moderator' });

    const listed = await api.request('GET', '/v1/people', { key: admin.token });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((p: { email: string }) => p.email)).toEqual(
      [admin.email, email.toLowerCase()].sort(),
    );
    expect(listed.body.items.find((p: { person_id: string }) => p.person_id === sub)).toMatchObject({
      status: 'active',
      last_sign_in_at: expect.any(String),
    });
    expect(await peopleEvents(admin.token)).toEqual([
      expect.objectContaining({
        type: 'person.invited',
        actor: { type: 'user', sub: admin.sub, email: admin.email, role: 'admin' },
        person: { person_id: sub, email: email.toLowerCase(), role: 'moderator' },
      }),
    ]);

    // Inviting the same email again: 409, nothing more made or audited.
    const before = (await api.items()).length;
    const again = await api.request('POST', '/v1/people', {
      key: admin.token,
      body: { email: email.toLowerCase(), role: 'viewer' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect((await api.items()).length).toBe(before);

    // Another publisher's admin sees none of them and changes nothing.
    const stranger = await person(unique('inv-other'), 'admin');
    const theirs = await api.request('GET', '/v1/people', { key: stranger.token });
    expect(theirs.body.items.map((p: { email: string }) => p.email)).toEqual([stranger.email]);
    const reach = await api.request('PUT', `/v1/people/${sub}`, {
      key: stranger.token,
      body: { enabled: false },
    });
    expect(reach.status).toBe(404);
    expect(reach.body.error.code).toBe('not_found');
    expect(await storedPerson(sub)).not.toHaveProperty('disabled_at');
    expect(await peopleEvents(stranger.token)).toEqual([]);
  });

  it('changes a role (held from the next renewal) and disables: no renewal, no sign-in; re-enabled signs in again; each change audited before and after', async () => {
    const pub = unique('upd');
    const admin = await person(pub, 'admin');
    const sam = await person(pub, 'moderator');
    const promoted = await api.request('PUT', `/v1/people/${sam.sub}`, {
      key: admin.token,
      body: { role: 'viewer' },
    });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ person_id: sam.sub, role: 'viewer', enabled: true });
    expect(await storedPerson(sam.sub)).toMatchObject({ role: 'viewer' });
    const renewed = await refresh(api.identity.issuer, sam.tokens.refresh_token ?? '');
    expect(renewed.status).toBe(200);
    expect(claimsOf(renewed.body.access_token).role).toBe('viewer');

    const disabled = await api.request('PUT', `/v1/people/${sam.sub}`, {
      key: admin.token,
      body: { enabled: false },
    });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ role: 'viewer', enabled: false });
    expect(await storedPerson(sam.sub)).toHaveProperty('disabled_at');
    const denied = await refresh(api.identity.issuer, renewed.body.refresh_token ?? '');
    expect(denied.status).toBe(400);
    expect((await signIn(api.identity.issuer, api.identity.redirectUri, sam.email, sam.password)).ok).toBe(
      false,
    );
    // The same change again changes and records nothing.
    const repeat = await api.request('PUT', `/v1/people/${sam.sub}`, {
      key: admin.token,
      body: { enabled: false },
    });
    expect(repeat.status).toBe(200);

    const enabled = await api.request('PUT', `/v1/people/${sam.sub}`, {
      key: admin.token,
      body: { enabled: true },
    });
    expect(enabled.body.enabled).toBe(true);
    expect((await signIn(api.identity.issuer, api.identity.redirectUri, sam.email, sam.password)).ok).toBe(
      true,
    );

    const asAdmin = { type: 'user', sub: admin.sub, email: admin.email, role: 'admin' };
    const person_ = { person_id: sam.sub, email: sam.email };
    expect(await peopleEvents(admin.token)).toEqual([
      expect.objectContaining({
        type: 'person.updated',
        actor: asAdmin,
        person: person_,
        before: { role: 'moderator', enabled: true },
        after: { role: 'viewer', enabled: true },
      }),
      expect.objectContaining({
        person: person_,
        before: { role: 'viewer', enabled: true },
        after: { role: 'viewer', enabled: false },
      }),
      expect.objectContaining({
        person: person_,
        before: { role: 'viewer', enabled: false },
        after: { role: 'viewer', enabled: true },
      }),
    ]);
  });

  it('refuses to leave the publisher without an enabled admin (409, nothing changed); with a second admin, the first may step down', async () => {
    const pub = unique('last');
    const admin = await person(pub, 'admin');
    for (const body of [{ role: 'moderator' }, { enabled: false }]) {
      const res = await api.request('PUT', `/v1/people/${admin.sub}`, { key: admin.token, body });
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual({
        code: 'conflict',
        message: `${admin.email} is the publisher's last enabled admin: make another admin first`,
      });
    }
    expect(await storedPerson(admin.sub)).toMatchObject({ role: 'admin' });
    expect(await storedPerson(admin.sub)).not.toHaveProperty('disabled_at');
    const other = await person(pub, 'moderator');
    expect(
      (await api.request('PUT', `/v1/people/${other.sub}`, { key: admin.token, body: { role: 'admin' } }))
        .status,
    ).toBe(200);
    const down = await api.request('PUT', `/v1/people/${admin.sub}`, {
      key: admin.token,
      body: { role: 'viewer' },
    });
    expect(down.status).toBe(200);
    expect(await storedPerson(admin.sub)).toMatchObject({ role: 'viewer' });
  });

  it('answers bad input 400 naming the field, and a moderator 403, storing nothing; a key with people:manage may manage people', async () => {
    const pub = unique('bad');
    const admin = await person(pub, 'admin');
    const mod = await person(pub, 'moderator');
    const before = (await api.items()).length;
    for (const [body, field] of [
      [{ email: 'not-an-email', role: 'viewer' }, 'email'],
      [{ email: 'a@example.com', role: 'owner' }, 'role'],
      [{ email: 'a@example.com', role: 'viewer', publisher_id: 'other' }, 'publisher_id'],
    ] as const) {
      const res = await api.request('POST', '/v1/people', { key: admin.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const notId = await api.request('PUT', '/v1/people/not-a-uuid', {
      key: admin.token,
      body: { enabled: false },
    });
    expect(notId.status).toBe(400);
    const byMod = await api.request('POST', '/v1/people', {
      key: mod.token,
      body: { email: 'a@example.com', role: 'viewer' },
    });
    expect(byMod.status).toBe(403);
    expect((await api.items()).length).toBe(before);

    const key = await api.createKey(pub, 'people tool', { scopes: ['people:manage'] });
    const byKey = await api.request('GET', '/v1/people', { key: key.api_key });
    expect(byKey.status).toBe(200);
    expect(byKey.body.items).toHaveLength(2);
  });

  it('when the audit trail refuses: 503, the invitation withdrawn and the change undone; the retries succeed and are audited once', async () => {
    const pub = unique('flt');
    const admin = await person(pub, 'admin');
    const email = `${unique('f')}@example.com`;
    const { dynamo } = await import('../../lib/storage/client');
    const faults = injectFaults(dynamo);
    try {
      const rule = {
        operation: 'PutItem' as const,
        keyPrefix: 'AUDIT#',
        error: 'ThrottlingException' as const,
      };
      const invite = () =>
        api.request('POST', '/v1/people', { key: admin.token, body: { email, role: 'viewer' } });
      const invited = await failThenRetry(faults, rule, invite, async () => {
        const listed = await api.request('GET', '/v1/people', { key: admin.token });
        expect(listed.body.items.map((p: { email: string }) => p.email)).toEqual([admin.email]);
        expect(await peopleEvents(admin.token)).toEqual([]);
      });
      expect(invited.status).toBe(201);
      const sub = invited.body.person_id as string;
      faults.injected.length = 0;
      const disable = () =>
        api.request('PUT', `/v1/people/${sub}`, { key: admin.token, body: { enabled: false } });
      const disabled = await failThenRetry(faults, rule, disable, async () => {
        expect(await storedPerson(sub)).not.toHaveProperty('disabled_at');
      });
      expect(disabled.status).toBe(200);
      expect((await peopleEvents(admin.token)).map((e) => e.type)).toEqual([
        'person.invited',
        'person.updated',
      ]);
    } finally {
      faults.remove();
    }
  });
});
