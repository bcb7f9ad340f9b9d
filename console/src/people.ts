import { isRole, type Role } from '@kernel/people';
import { type ConsoleSignIn, SIGN_IN_FILE } from '@kernel/sign-in';
import * as oauth from 'oauth4webapi';
import { leaveWithoutAsking } from './drafts';

/**
 * Signing a person in with their organisation's identity provider: OpenID Connect authorization
 * code with PKCE, through `oauth4webapi` (a certified relying-party library; it checks state,
 * nonce, issuer, audience and expiry of the ID token, so we write none of that ourselves).
 *
 * Tokens are held in memory only, like a pasted key. What must survive the trip to the provider
 * and back (the PKCE verifier, state and nonce) waits in this tab's sessionStorage and is removed
 * the moment the provider's answer arrives, used or not.
 */

export type { ConsoleSignIn };

export interface Person {
  sub: string;
  email: string;
  role: Role;
  publisher_id: string;
}

export interface PersonTokens {
  access: string;
  refresh: string | null;
  id: string | null;
  /** When the access token expires (ms since the epoch). */
  expiresAt: number;
}

const PENDING = 'device-bans.sign-in';

/** The page's own address without query or fragment: where the provider sends people back. */
export const returnAddress = () => `${location.origin}${location.pathname}`;

const server = (config: ConsoleSignIn): oauth.AuthorizationServer => ({
  issuer: config.issuer,
  authorization_endpoint: config.authorization_endpoint,
  token_endpoint: config.token_endpoint,
  end_session_endpoint: config.end_session_endpoint,
});
const client = (config: ConsoleSignIn): oauth.Client => ({
  client_id: config.client_id,
  ...(config.id_token_signed_response_alg && {
    id_token_signed_response_alg: config.id_token_signed_response_alg,
  }),
});
/** Plain http only to the local provider on this machine (npm start). */
const options = (config: ConsoleSignIn) => ({
  [oauth.allowInsecureRequests]: /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|\/|$)/.test(config.issuer),
  ...(config.resource && { additionalParameters: { resource: config.resource } }),
});

/** The page's sign-in settings, or null when the deployment has no identity provider. */
export const loadSignIn = async (): Promise<ConsoleSignIn | null> => {
  try {
    const res = await fetch(SIGN_IN_FILE, { credentials: 'omit', cache: 'no-store' });
    return res.ok ? ((await res.json()) as ConsoleSignIn | null) : null;
  } catch {
    return null;
  }
};

/** Set while a person is signed in in this tab (no secret): a reload signs them in again silently. */
const SIGNED_IN = 'device-bans.person';
export const rememberSignedIn = (signedIn: boolean) =>
  signedIn ? sessionStorage.setItem(SIGNED_IN, '1') : sessionStorage.removeItem(SIGNED_IN);
export const wasSignedIn = () => sessionStorage.getItem(SIGNED_IN) === '1';

/**
 * Leaves for the provider's sign-in page; `silent` asks it not to show one (`prompt=none`): a
 * reload of a signed-in tab comes straight back signed in while the provider's session lasts.
 * The page's address (its view, game and device) comes back with the person.
 */
export const startSignIn = async (config: ConsoleSignIn, { silent = false } = {}) => {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state, nonce, hash: location.hash, silent }));
  const url = new URL(config.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: config.client_id,
    redirect_uri: returnAddress(),
    response_type: 'code',
    scope: config.scope,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...(config.resource && { resource: config.resource }),
    ...(silent && { prompt: 'none' }),
  }).toString();
  leaveWithoutAsking();
  location.assign(url.href);
};

/** Whether this page load is the provider sending someone back. */
export const isReturnFromProvider = () => {
  const query = new URLSearchParams(location.search);
  return (query.has('code') || query.has('error')) && query.has('state');
};

/** The access token's claims, read for display only: the API verifies it on every call. */
const claimsOf = (token: string): Record<string, unknown> => {
  try {
    const payload = token.split('.')[1] ?? '';
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0))));
  } catch {
    return {};
  }
};

const tokensFrom = (answer: oauth.TokenEndpointResponse, previous?: PersonTokens): PersonTokens => ({
  access: answer.access_token,
  refresh: answer.refresh_token ?? previous?.refresh ?? null,
  id: answer.id_token ?? previous?.id ?? null,
  expiresAt: Date.now() + (answer.expires_in ?? 300) * 1000,
});

const personOf = (config: ConsoleSignIn, access: string): Person | string => {
  const claims = claimsOf(access);
  const role = claims[config.role_claim];
  const publisher = claims[config.publisher_claim];
  if (typeof publisher !== 'string' || publisher === '')
    return 'Your account is not assigned to a publisher. Ask an administrator to set it.';
  if (!isRole(role))
    return 'Your account has no role in this console (viewer, moderator or admin). Ask an administrator to set one.';
  const email = claims[config.email_claim];
  return {
    sub: String(claims.sub ?? ''),
    email: typeof email === 'string' ? email : String(claims.sub ?? ''),
    role,
    publisher_id: publisher,
  };
};

export type Finished =
  | { ok: true; person: Person; tokens: PersonTokens }
  | { ok: false; text: string; silent?: boolean };

/**
 * Completes a sign-in on the provider's return: checks state, trades the code (with the PKCE
 * verifier) for tokens, checks the ID token's nonce, and takes the code out of the address bar.
 */
export const finishSignIn = async (config: ConsoleSignIn): Promise<Finished> => {
  const here = new URL(location.href);
  const saved = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  const pending = saved
    ? (JSON.parse(saved) as {
        verifier: string;
        state: string;
        nonce: string;
        hash?: string;
        silent?: boolean;
      })
    : null;
  // The code leaves the address bar at once; the view the person was on comes back.
  history.replaceState(null, '', `${returnAddress()}${pending?.hash ?? ''}`);
  if (!pending) return { ok: false, text: 'That sign-in was not started from this tab. Sign in again.' };
  // A silent sign-in the provider could not do (no session there any more): just sign in.
  if (pending.silent && here.searchParams.has('error'))
    return { ok: false, silent: true, text: 'Your session ended. Sign in again.' };
  try {
    const as = server(config);
    const params = oauth.validateAuthResponse(as, client(config), here, pending.state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client(config),
      oauth.None(),
      params,
      returnAddress(),
      pending.verifier,
      options(config),
    );
    const answer = await oauth.processAuthorizationCodeResponse(as, client(config), response, {
      expectedNonce: pending.nonce,
      requireIdToken: true,
    });
    const tokens = tokensFrom(answer);
    const person = personOf(config, tokens.access);
    return typeof person === 'string' ? { ok: false, text: person } : { ok: true, person, tokens };
  } catch (error) {
    return { ok: false, text: `Sign-in failed: ${describe(error)} Sign in again.` };
  }
};

/** New tokens for the refresh token, or null when the provider no longer honours it. */
export const renewTokens = async (
  config: ConsoleSignIn,
  tokens: PersonTokens,
): Promise<PersonTokens | null> => {
  if (!tokens.refresh) return null;
  try {
    const as = server(config);
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client(config),
      oauth.None(),
      tokens.refresh,
      options(config),
    );
    return tokensFrom(await oauth.processRefreshTokenResponse(as, client(config), response), tokens);
  } catch {
    return null;
  }
};

/** Renewal is due a minute before expiry, or halfway through a token shorter than two minutes. */
export const renewalDelay = (tokens: PersonTokens, now = Date.now()) => {
  const left = tokens.expiresAt - now;
  return Math.max(0, Math.max(left - 60_000, left / 2));
};

/**
 * Revokes the refresh token at the provider (RFC 7009), where it has a revocation endpoint: after
 * sign-out no copy of it renews anything. Best effort: a failure leaves the sign-out to go on
 * (the provider's session ends next, and the token expires with it).
 */
export const revokeRefreshToken = async (config: ConsoleSignIn, tokens: PersonTokens) => {
  if (!config.revocation_endpoint || !tokens.refresh) return false;
  try {
    const as = { ...server(config), revocation_endpoint: config.revocation_endpoint };
    const response = await oauth.revocationRequest(as, client(config), oauth.None(), tokens.refresh, {
      [oauth.allowInsecureRequests]: options(config)[oauth.allowInsecureRequests],
      additionalParameters: { token_type_hint: 'refresh_token' },
    });
    await oauth.processRevocationResponse(response);
    return true;
  } catch {
    return false;
  }
};

/** The provider's sign-out, which ends its session and sends the person back here. */
export const signOutAddress = (config: ConsoleSignIn, tokens: PersonTokens) => {
  const url = new URL(config.end_session_endpoint);
  url.searchParams.set('client_id', config.client_id);
  url.searchParams.set(config.logout_redirect_param, returnAddress());
  if (tokens.id && config.logout_redirect_param === 'post_logout_redirect_uri')
    url.searchParams.set('id_token_hint', tokens.id);
  return url.href;
};

const describe = (error: unknown) => {
  if (error instanceof oauth.AuthorizationResponseError)
    return `the provider answered ${error.error}${error.error_description ? ` (${error.error_description})` : ''}.`;
  if (error instanceof oauth.ResponseBodyError)
    return `the provider refused the code: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}.`;
  return error instanceof Error ? `${error.message}.` : 'the provider could not be reached.';
};
