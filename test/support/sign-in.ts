import { createHash, randomBytes } from 'node:crypto';

/**
 * Signs a person in through the local identity provider as a browser would: the authorization
 * request with PKCE, the provider's sign-in form, the redirect back with a code, and the code
 * exchanged for tokens. What the console does, without a browser (test/browser does it in one).
 */

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  expires_in: number;
}

export interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  end_session_endpoint: string;
  revocation_endpoint: string;
  jwks_uri: string;
  code_challenge_methods_supported: string[];
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');

export const discover = async (issuer: string): Promise<Discovery> =>
  (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Discovery;

/** A cookie jar for one browser: names to values (the provider's paths are not needed here). */
const jar = (initial = '') => {
  const cookies = new Map<string, string>(
    initial
      .split('; ')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
  return {
    take: (res: Response) => {
      for (const line of res.headers.getSetCookie()) {
        const [pair = ''] = line.split(';');
        const at = pair.indexOf('=');
        cookies.set(pair.slice(0, at), pair.slice(at + 1));
      }
    },
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
  };
};

/** The console's authorization request (code flow with PKCE), its verifier and its state. */
const authorization = (endpoint: string, redirectUri: string, clientId: string, prompt?: 'none') => {
  const verifier = b64url(randomBytes(32));
  const state = b64url(randomBytes(16));
  const auth = new URL(endpoint);
  auth.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email',
    code_challenge: b64url(createHash('sha256').update(verifier).digest()),
    code_challenge_method: 'S256',
    state,
    nonce: b64url(randomBytes(16)),
    ...(prompt && { prompt }),
  }).toString();
  return { auth, verifier, state };
};

export type SignInResult =
  /** `cookie`: the provider's session cookies, as the browser keeps them (for `silentSignIn`). */
  { ok: true; tokens: Tokens; code: string; cookie: string } | { ok: false; status: number; page: string };

export const signIn = async (
  issuer: string,
  redirectUri: string,
  email: string,
  password: string,
  clientId = 'console',
): Promise<SignInResult> => {
  const meta = await discover(issuer);
  const cookies = jar();
  const { auth, verifier, state } = authorization(meta.authorization_endpoint, redirectUri, clientId);
  const go = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: cookies.header() },
    });
    cookies.take(res);
    return res;
  };
  let res = await go(auth.href);
  let location = res.headers.get('location');
  if (res.status !== 303 || !location) return { ok: false, status: res.status, page: await res.text() };
  const interaction = new URL(location, issuer).href;
  res = await go(interaction);
  if (res.status !== 200) return { ok: false, status: res.status, page: await res.text() };
  res = await go(`${interaction}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password }).toString(),
  });
  location = res.headers.get('location');
  if (res.status !== 303 || !location) return { ok: false, status: res.status, page: await res.text() };
  // Back through the provider (the resumed authorization) to the redirect URI with a code.
  for (let hop = 0; hop < 5 && location && !location.startsWith(redirectUri); hop += 1) {
    res = await go(new URL(location, issuer).href);
    location = res.headers.get('location');
  }
  if (!location?.startsWith(redirectUri)) return { ok: false, status: res.status, page: await res.text() };
  const back = new URL(location).searchParams;
  if (back.get('state') !== state) throw new Error('state came back altered');
  const code = back.get('code');
  if (!code) return { ok: false, status: 400, page: location };
  const token = await fetch(meta.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    }).toString(),
  });
  if (token.status !== 200) return { ok: false, status: token.status, page: await token.text() };
  return { ok: true, tokens: (await token.json()) as Tokens, code, cookie: cookies.header() };
};

/**
 * A reload's silent sign-in (`prompt=none`) with the provider's session cookies: the provider's
 * status and where it sends the browser (its redirect back, with a code or an error), or its page.
 * `silent: false` is the sign-in button's request instead, with the same cookies.
 */
export const silentSignIn = async (
  issuer: string,
  redirectUri: string,
  cookie: string,
  { silent = true, clientId = 'console' } = {},
) => {
  const meta = await discover(issuer);
  const { auth } = authorization(
    meta.authorization_endpoint,
    redirectUri,
    clientId,
    silent ? 'none' : undefined,
  );
  const cookies = jar(cookie);
  const go = async (url: string) => {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: cookies.header() } });
    cookies.take(res);
    return res;
  };
  let res = await go(auth.href);
  let location = res.headers.get('location');
  for (let hop = 0; hop < 5 && location && !location.startsWith(redirectUri); hop += 1) {
    res = await go(new URL(location, issuer).href);
    location = res.headers.get('location');
  }
  return { status: res.status, location, page: location ? '' : await res.text() };
};

/** Trades a refresh token for new tokens (the console's silent renewal). */
export const refresh = async (issuer: string, refreshToken: string, clientId = 'console') => {
  const meta = await discover(issuer);
  const res = await fetch(meta.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
    }),
  });
  return { status: res.status, body: (await res.json()) as Tokens & { error?: string } };
};
