import {
  COGNITO_PUBLISHER_ATTRIBUTE,
  COGNITO_ROLE_ATTRIBUTE,
  isRole,
  type Role,
  roleScopes,
} from '@kernel/people';
import type { Scope } from '@kernel/scopes';
import {
  createRemoteJWKSet,
  type JWTPayload,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import { settings as boundSettings } from '../config';

/**
 * People signed in with OpenID Connect: their access token, a JWT of the identity provider, is
 * verified here with `jose` (a maintained, dependency-free implementation of JWS/JWKS that the
 * local OpenID Provider uses too; `aws-jwt-verify` would know only Cognito's claims, and a
 * publisher may bring its own provider). Publisher and role come from the token's claims, so a
 * person costs the authorizer no storage read.
 *
 * Which provider, and how its tokens name things, comes from `IDENTITY_PROVIDER` (JSON, read on
 * first use): the stack sets it for the Cognito pool or a publisher's own provider, `npm start`
 * for the local provider (infra/local/identity.ts). Without it, only API keys are accepted.
 */

export interface IdentityProvider {
  issuer: string;
  jwks_uri: string;
  /** The API's audience (`aud`), or the console's client id (Cognito's `client_id` claim). */
  audience: string;
  /** Which claim holds the audience: `aud` (RFC 9068), or `client_id` (Cognito access tokens). */
  audience_claim: 'aud' | 'client_id';
  /** How an access token is told from an ID token: `typ: at+jwt` (RFC 9068) or Cognito's `token_use`. */
  token_use: 'at+jwt' | 'cognito';
  publisher_claim: string;
  role_claim: string;
  email_claim: string;
  /**
   * The console's client id, which every access token must carry in its `client_id` claim
   * (RFC 9068): a token the provider issued to another of its clients is refused.
   */
  client_id?: string;
  /** The longest life (`exp` − `iat`, seconds) a token may have; one issued for longer is refused. */
  max_token_seconds?: number;
  /**
   * The only publishers this provider may name (a publisher's own provider: the operator's
   * mapping); a token naming another is refused. That a named publisher exists, API Gateway
   * checks: a publisher no key was made for is on no usage plan, and refused (403).
   */
  publishers?: string[];
}

/** The clock skew allowed on `exp`, `nbf` and `iat`. */
export const CLOCK_SKEW_SECONDS = 30;
/** Signatures accepted: asymmetric only, so a public key can never be used as an HMAC secret. */
export const ALGORITHMS = ['RS256', 'ES256'];

const SETTINGS = [
  'issuer',
  'jwks_uri',
  'audience',
  'audience_claim',
  'token_use',
  'publisher_claim',
  'role_claim',
  'email_claim',
] as const satisfies readonly (keyof IdentityProvider)[];

/** The settings from their JSON, or an error naming what is wrong (a deployment mistake). */
export const parseIdentityProvider = (json: string): IdentityProvider => {
  const value = JSON.parse(json) as Record<string, unknown>;
  for (const name of SETTINGS)
    if (typeof value[name] !== 'string' || value[name] === '')
      throw new Error(`IDENTITY_PROVIDER: ${name} must be a non-empty string`);
  if (value.audience_claim !== 'aud' && value.audience_claim !== 'client_id')
    throw new Error('IDENTITY_PROVIDER: audience_claim must be aud or client_id');
  if (value.token_use !== 'at+jwt' && value.token_use !== 'cognito')
    throw new Error('IDENTITY_PROVIDER: token_use must be at+jwt or cognito');
  if (value.client_id !== undefined && (typeof value.client_id !== 'string' || value.client_id === ''))
    throw new Error('IDENTITY_PROVIDER: client_id must be a non-empty string');
  const max = value.max_token_seconds;
  if (max !== undefined && !(Number.isInteger(max) && (max as number) > 0))
    throw new Error('IDENTITY_PROVIDER: max_token_seconds must be a positive integer');
  const { publishers } = value;
  if (
    publishers !== undefined &&
    !(Array.isArray(publishers) && publishers.every((p) => typeof p === 'string' && p !== ''))
  )
    throw new Error('IDENTITY_PROVIDER: publishers must be a list of publisher ids');
  return value as unknown as IdentityProvider;
};

let configured: { json: string; settings: IdentityProvider; keys: JWTVerifyGetKey } | undefined;

const provider = () => {
  const json = boundSettings().identityProvider;
  if (!json) return undefined;
  // Settings are parsed once; a process that runs several local providers in turn (tests) gets
  // the one bound now.
  if (configured?.json === json) return configured;
  const settings = parseIdentityProvider(json);
  // Fetched once and cached for the instance's life; an unknown `kid` fetches again (at most
  // every 30 s), so a key rotation is picked up and a forged `kid` cannot make us fetch often.
  const keys = createRemoteJWKSet(new URL(settings.jwks_uri), {
    cooldownDuration: 30_000,
    timeoutDuration: 3_000,
  });
  configured = { json, settings, keys };
  return configured;
};

/** Forgets the cached keys (tests that serve new keys under the same settings). */
export const resetIdentityProvider = () => {
  configured = undefined;
};

export interface Person {
  publisherId: string;
  sub: string;
  email: string | null;
  role: Role;
  scopes: readonly Scope[];
  /** When the token expires: no answer made for it outlives it. */
  expiresAt: string;
}

/** A JWT's shape: three base64url parts. Anything else is not looked at. */
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export const looksLikeJwt = (token: string) => JWT.test(token);

/**
 * Errors that mean "this token is no good" (401). Anything else, a JWKS that could not be
 * fetched or read above all, is ours to fix, not the caller's: the authorizer fails (503).
 */
const REFUSALS = [
  joseErrors.JWTExpired,
  joseErrors.JWTClaimValidationFailed,
  joseErrors.JWTInvalid,
  joseErrors.JWSInvalid,
  joseErrors.JWSSignatureVerificationFailed,
  joseErrors.JOSEAlgNotAllowed,
  joseErrors.JOSENotSupported,
  joseErrors.JWKSNoMatchingKey,
  joseErrors.JWKSMultipleMatchingKeys,
];
const isRefusal = (error: unknown) => REFUSALS.some((kind) => error instanceof kind);

const claimString = (payload: JWTPayload, claim: string): string | undefined => {
  const value = payload[claim];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * The person a token names, or undefined when it is no valid access token of the configured
 * provider for this API, or names no publisher or no known role. Throws only when the provider's
 * keys cannot be fetched (the authorizer answers that as a failure, 503).
 */
export const authenticatePerson = async (token: string): Promise<Person | undefined> => {
  const current = provider();
  if (!current || !looksLikeJwt(token)) return undefined;
  const { settings, keys } = current;
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer: settings.issuer,
      algorithms: ALGORITHMS,
      clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['exp', 'sub', ...(settings.max_token_seconds === undefined ? [] : ['iat'])],
      ...(settings.audience_claim === 'aud' ? { audience: settings.audience } : {}),
      ...(settings.token_use === 'at+jwt' ? { typ: 'at+jwt' } : {}),
    }));
  } catch (error) {
    if (isRefusal(error)) return undefined;
    throw error;
  }
  if (settings.audience_claim === 'client_id' && payload.client_id !== settings.audience) return undefined;
  if (settings.token_use === 'cognito' && payload.token_use !== 'access') return undefined;
  if (settings.client_id !== undefined && payload.client_id !== settings.client_id) return undefined;
  if (
    settings.max_token_seconds !== undefined &&
    (typeof payload.exp !== 'number' ||
      typeof payload.iat !== 'number' ||
      payload.exp - payload.iat > settings.max_token_seconds)
  )
    return undefined;
  const publisherId = claimString(payload, settings.publisher_claim);
  const role = payload[settings.role_claim];
  const sub = claimString(payload, 'sub');
  if (!publisherId || !sub || !isRole(role) || typeof payload.exp !== 'number') return undefined;
  if (settings.publishers !== undefined && !settings.publishers.includes(publisherId)) return undefined;
  return {
    publisherId,
    sub,
    email: claimString(payload, settings.email_claim) ?? null,
    role,
    scopes: roleScopes[role],
    expiresAt: new Date(payload.exp * 1000).toISOString(),
  };
};

/**
 * The claims the deployed pool's pre-token-generation trigger adds to a person's access token:
 * their publisher, role and email from the attributes only administrators write
 * (COGNITO_PUBLISHER_ATTRIBUTE, COGNITO_ROLE_ATTRIBUTE). Nothing is added for a person missing
 * either, or with a role we do not know: the authorizer then refuses their token (401) rather
 * than guessing. It runs again at every refresh, so a changed role holds from the next renewal.
 */
export const cognitoTokenClaims = (attributes: Readonly<Record<string, string | undefined>>) => {
  const publisher = attributes[COGNITO_PUBLISHER_ATTRIBUTE];
  const role = attributes[COGNITO_ROLE_ATTRIBUTE];
  if (!publisher || !isRole(role)) return {};
  return { publisher_id: publisher, role, ...(attributes.email && { email: attributes.email }) };
};
