import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/authorizer';
import { configureSettings, settingsFrom } from '../../lib/config';
import { resetIdentityProvider } from '../../lib/domain/people';
import { peopleQuotaKey } from '../../lib/domain/quotas';
import { API_AUDIENCE, identitySettings, startTokenIssuer, type TokenIssuer } from '../support/tokens';

/**
 * The authorizer with a person's access token: verified against the issuer's JWKS with no storage
 * call, and every forged, altered, misdirected or stale token refused as a missing key is
 * (API Gateway's 401), never allowed.
 */

const ddb = mockClient(DynamoDBDocumentClient);
/** Binds the environment's settings with this provider (lib/config.ts), its storage unchanged. */
const useIdentityProvider = (json: string | undefined) =>
  configureSettings({ ...settingsFrom(process.env), identityProvider: json });
const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/v1/policy';
let issuer: TokenIssuer;

beforeAll(async () => {
  issuer = await startTokenIssuer();
});
afterAll(() => issuer?.close());
beforeEach(() => {
  ddb.reset();
  issuer.serve('current');
  useIdentityProvider(identitySettings(issuer));
  resetIdentityProvider();
});
afterEach(() => {
  vi.useRealTimers();
  useIdentityProvider(undefined);
  resetIdentityProvider();
});

const authorize = (token: string) =>
  handler({ type: 'TOKEN', authorizationToken: `Bearer ${token}`, methodArn });
const refused = async (token: string) => {
  await expect(authorize(token)).rejects.toThrow('Unauthorized');
  expect(ddb.calls()).toHaveLength(0);
};
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

describe('authorizer with a person signed in', () => {
  it('allows a valid access token with no storage call: publisher, person and role scopes in the context', async () => {
    for (const alg of ['ES256', 'RS256'] as const) {
      const token = await issuer.sign({ role: 'moderator' }, { alg });
      const result = await authorize(token);
      expect(result).toMatchObject({
        principalId: 'pub-a/person-1',
        // The people's bucket, never the game servers' (lib/domain/quotas.ts).
        usageIdentifierKey: peopleQuotaKey('pub-a'),
        context: {
          publisherId: 'pub-a',
          actorType: 'user',
          sub: 'person-1',
          email: 'alice@studio.example',
          role: 'moderator',
          scopes: 'bans:read policy:read audit:read bans:write appeals:decide',
          games: '*',
        },
      });
      // The answer is cached by API Gateway; the chain refuses it once the token has expired.
      const { payload } = {
        payload: JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()),
      };
      expect(result.context?.tokenExpiresAt).toBe(new Date(payload.exp * 1000).toISOString());
      expect(result.context?.expiresAt).toBe('');
    }
    expect(ddb.calls()).toHaveLength(0);
    // One fetch of the keys serves every token after it.
    expect(issuer.fetches()).toBeGreaterThanOrEqual(1);
    const before = issuer.fetches();
    await authorize(await issuer.sign());
    expect(issuer.fetches()).toBe(before);
  });

  it('gives each role its scopes: viewer reads, admin everything', async () => {
    const viewer = await authorize(await issuer.sign({ role: 'viewer' }));
    expect(viewer.context?.scopes).toBe('bans:read policy:read audit:read');
    const admin = await authorize(await issuer.sign({ role: 'admin' }));
    expect(String(admin.context?.scopes).split(' ').sort()).toEqual(
      [
        'audit:read',
        'bans:read',
        'bans:write',
        'keys:manage',
        'policy:read',
        'policy:write',
        'appeals:write',
        'appeals:decide',
        'people:manage',
        'bans:import',
        'data:export',
      ].sort(),
    );
  });

  it('accepts a token expired within the 30 s clock skew, and refuses one expired before it', async () => {
    await expect(authorize(await issuer.sign({ exp: now() - 10 }))).resolves.toBeDefined();
    await refused(await issuer.sign({ exp: now() - 60 }));
  });

  it('refuses a token not yet valid', async () => {
    await refused(await issuer.sign({ nbf: now() + 120 }));
  });

  it('refuses another issuer, another audience, and an ID token', async () => {
    await refused(await issuer.sign({ iss: 'https://elsewhere.example' }));
    await refused(await issuer.sign({ aud: 'another-api' }));
    await refused(await issuer.sign({ aud: undefined }));
    await refused(await issuer.sign({}, { typ: 'JWT' }));
  });

  it('refuses an altered payload', async () => {
    const [header, , signature] = (await issuer.sign({ role: 'viewer' })).split('.');
    const now_ = now();
    const raised = b64({
      iss: issuer.issuer,
      aud: API_AUDIENCE,
      sub: 'person-1',
      iat: now_,
      exp: now_ + 900,
      publisher_id: 'pub-a',
      role: 'admin',
    });
    await refused(`${header}.${raised}.${signature}`);
  });

  it('refuses alg none, and HS256 signed with the public key as the secret', async () => {
    const claims = {
      iss: issuer.issuer,
      aud: API_AUDIENCE,
      sub: 'p',
      exp: now() + 900,
      publisher_id: 'pub-a',
      role: 'admin',
    };
    await refused(`${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims)}.`);
    const jwks = (await (await fetch(issuer.jwksUri)).json()) as { keys: unknown[] };
    for (const secret of [JSON.stringify(jwks.keys[0]), JSON.stringify(jwks)]) {
      const forged = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: 'rs-1' })
        .sign(new TextEncoder().encode(secret));
      await refused(forged);
    }
  });

  it('refuses a key of another pool under a known kid, and a kid it does not know', async () => {
    await refused(await issuer.sign({}, { key: 'stranger' }));
    await refused(await issuer.sign({}, { kid: 'https://attacker.example/jwks#1' }));
  });

  it('fetches the keys again for an unknown kid (a rotation), at most once per 30 s', async () => {
    await authorize(await issuer.sign());
    const fetched = issuer.fetches();
    issuer.serve('rotated');
    vi.useFakeTimers({ now: Date.now() + 31_000, toFake: ['Date'] });
    await expect(authorize(await issuer.sign({}, { key: 'rotated' }))).resolves.toBeDefined();
    expect(issuer.fetches()).toBe(fetched + 1);
    // Forged kids right after cannot make it fetch again.
    await refused(await issuer.sign({}, { kid: 'forged-1' }));
    await refused(await issuer.sign({}, { kid: 'forged-2' }));
    expect(issuer.fetches()).toBe(fetched + 1);
  });

  it('refuses a person without a publisher, or with a role that is not one of ours', async () => {
    await refused(await issuer.sign({ publisher_id: undefined }));
    await refused(await issuer.sign({ publisher_id: '' }));
    await refused(await issuer.sign({ role: 'owner' }));
    await refused(await issuer.sign({ role: ['admin'] }));
    await refused(await issuer.sign({ sub: undefined }));
  });

  it('answers a failure (the gateway 503), not a refusal, when the keys cannot be fetched', async () => {
    issuer.serve(null);
    const token = await issuer.sign();
    await expect(authorize(token)).rejects.toThrow();
    await expect(authorize(token)).rejects.not.toThrow('Unauthorized');
  });

  it('refuses every token when no provider is configured: only keys are accepted', async () => {
    useIdentityProvider(undefined);
    resetIdentityProvider();
    await refused(await issuer.sign());
  });

  it('reads Cognito access tokens: client_id, not aud, and token_use access only', async () => {
    useIdentityProvider(
      JSON.stringify({
        ...JSON.parse(identitySettings(issuer)),
        audience: 'console-client',
        audience_claim: 'client_id',
        token_use: 'cognito',
      }),
    );
    resetIdentityProvider();
    const cognito = { aud: undefined, client_id: 'console-client', token_use: 'access' };
    await expect(authorize(await issuer.sign(cognito, { typ: 'JWT' }))).resolves.toBeDefined();
    await refused(await issuer.sign({ ...cognito, token_use: 'id' }, { typ: 'JWT' }));
    await refused(await issuer.sign({ ...cognito, client_id: 'other-client' }, { typ: 'JWT' }));
  });
});

describe("authorizer with a provider of the publisher's own", () => {
  /** The settings the stack gives the authorizer for an own provider (infra/stack/people.ts). */
  const own = (over: Record<string, unknown> = {}) => {
    useIdentityProvider(
      JSON.stringify({
        ...JSON.parse(identitySettings(issuer)),
        client_id: 'console-app',
        max_token_seconds: 3600,
        publishers: ['pub-a', 'pub-b'],
        ...over,
      }),
    );
    resetIdentityProvider();
  };
  const ofConsole = { client_id: 'console-app' };

  it('accepts only the publishers the operator mapped to it', async () => {
    own();
    const a = await authorize(await issuer.sign({ ...ofConsole, publisher_id: 'pub-a' }));
    expect(a.context?.publisherId).toBe('pub-a');
    const b = await authorize(await issuer.sign({ ...ofConsole, publisher_id: 'pub-b' }));
    expect(b.context?.publisherId).toBe('pub-b');
    await refused(await issuer.sign({ ...ofConsole, publisher_id: 'pub-c' }));
    await refused(await issuer.sign({ ...ofConsole, publisher_id: 'PUB-A' }));
  });

  it('refuses a token the provider issued to another of its clients, or to none it names', async () => {
    own();
    await refused(await issuer.sign({ client_id: 'another-app' }));
    await refused(await issuer.sign({ client_id: undefined }));
    await refused(await issuer.sign({ client_id: ['console-app'] }));
  });

  it('refuses a token issued for longer than the configured maximum, or with no issue time', async () => {
    own({ max_token_seconds: 900 });
    const at = now();
    await expect(
      authorize(await issuer.sign({ ...ofConsole, iat: at, exp: at + 900 })),
    ).resolves.toBeDefined();
    await refused(await issuer.sign({ ...ofConsole, iat: at, exp: at + 901 }));
    await refused(await issuer.sign({ ...ofConsole, iat: at - 86_400, exp: at + 600 }));
    await refused(await issuer.sign({ ...ofConsole, iat: undefined, exp: at + 600 }));
  });

  it('refuses settings that are not what the stack writes', async () => {
    for (const [over, message] of [
      [{ publishers: 'pub-a' }, /publishers must be a list/],
      [{ publishers: [''] }, /publishers must be a list/],
      [{ max_token_seconds: 0 }, /max_token_seconds must be a positive integer/],
      [{ client_id: '' }, /client_id must be a non-empty string/],
    ] as const) {
      own(over);
      await expect(authorize(await issuer.sign(ofConsole))).rejects.toThrow(message);
    }
  });
});
