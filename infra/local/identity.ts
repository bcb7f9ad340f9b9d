import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConsoleSignIn } from '@kernel/sign-in';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, {
  type Adapter,
  type AdapterPayload,
  type Configuration,
  errors,
  interactionPolicy,
} from 'oidc-provider';
import type { IdentityProvider } from '../../lib/domain/people';
import type { LocalPerson } from './people';
import { createSignInLimits } from './sign-in-limits';

/**
 * The local identity provider: a real OpenID Provider (`oidc-provider`, a certified
 * implementation) beside the local API, so that people sign in to the console locally by the same
 * protocol and the same code path as deployed (Cognito there). It serves discovery, JWKS,
 * authorization code + PKCE, refresh, revocation and end-session; its access tokens are JWTs
 * (RFC 9068) for the API's audience, carrying the person's publisher and role, which the API's
 * authorizer verifies as it verifies Cognito's (lib/domain/people.ts).
 *
 * Its people are in the local store (./people.ts, `npm run users`). Its signing key, sessions
 * and refresh tokens live in memory: a restart signs everyone out, nothing else.
 */

/** The audience of the API's access tokens (a resource indicator, RFC 8707). */
export const LOCAL_API_AUDIENCE = 'urn:device-bans:api';
/** The console's client: public (no secret), authorization code with PKCE. */
export const CONSOLE_CLIENT_ID = 'console';
/** An access token lives 15 minutes, as the deployed pool's do. */
export const ACCESS_TOKEN_SECONDS = 900;
const SESSION_SECONDS = 8 * 3600;

/**
 * The provider's sessions, grants and tokens, in this process's memory: what its own development
 * adapter keeps, without its warning. They go at a restart (people sign in again); the people
 * themselves are in the store.
 */
class MemoryAdapter implements Adapter {
  private static readonly items = new Map<string, { payload: AdapterPayload; until?: number }>();
  private static readonly grants = new Map<string, Set<string>>();
  constructor(private readonly model: string) {}
  private key = (id: string) => `${this.model}:${id}`;
  async upsert(id: string, payload: AdapterPayload, expiresIn?: number) {
    const key = this.key(id);
    MemoryAdapter.items.set(key, { payload, ...(expiresIn ? { until: Date.now() + expiresIn * 1000 } : {}) });
    if (payload.grantId)
      MemoryAdapter.grants.set(
        payload.grantId,
        (MemoryAdapter.grants.get(payload.grantId) ?? new Set()).add(key),
      );
  }
  async find(id: string) {
    const item = MemoryAdapter.items.get(this.key(id));
    if (!item || (item.until !== undefined && item.until <= Date.now())) return undefined;
    return item.payload;
  }
  async findByUid(uid: string) {
    for (const [key, item] of MemoryAdapter.items)
      if (key.startsWith(`${this.model}:`) && item.payload.uid === uid)
        return this.find(key.slice(this.model.length + 1));
    return undefined;
  }
  async findByUserCode(userCode: string) {
    for (const [key, item] of MemoryAdapter.items)
      if (key.startsWith(`${this.model}:`) && item.payload.userCode === userCode)
        return this.find(key.slice(this.model.length + 1));
    return undefined;
  }
  async consume(id: string) {
    const item = MemoryAdapter.items.get(this.key(id));
    if (item) item.payload.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string) {
    MemoryAdapter.items.delete(this.key(id));
  }
  async revokeByGrantId(grantId: string) {
    for (const key of MemoryAdapter.grants.get(grantId) ?? []) MemoryAdapter.items.delete(key);
    MemoryAdapter.grants.delete(grantId);
  }
}

export interface LocalIdentity {
  issuer: string;
  /** The authorizer's settings for this provider (IDENTITY_PROVIDER). */
  settings: IdentityProvider;

  /** The console's settings for this provider (its sign-in.json). */
  console: ConsoleSignIn;
  close(): Promise<void>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1b1f24}
main{max-width:24rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 3px #0003}
h1{font-size:1.4rem;margin:0 0 1rem}label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;border:1px solid #6b7280;border-radius:4px}
button{margin-top:1.25rem;width:100%;padding:.6rem;font:inherit;font-weight:600;color:#fff;background:#1d4ed8;border:0;border-radius:4px;cursor:pointer}
.error{color:#b91c1c;font-weight:600}.note{color:#4b5563;font-size:.9rem}
</style></head><body><main>${body}</main></body></html>`;

const loginPage = (uid: string, error?: string) =>
  page(
    'Sign in: device bans (local)',
    `<h1>Sign in to the device ban console</h1>
<p class="note">Local identity provider. The people <code>npm start</code> made are printed where it started; add more with <code>npm run users</code>.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${encodeURIComponent(uid)}/login" autocomplete="on">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );

/**
 * The provider's prompts, with one more reason to ask for a sign-in: a session whose person is
 * disabled (or gone) since it began, which findAccount answers with no account. A silent sign-in
 * (`prompt=none`) then comes back to the console as `login_required`, "sign in again", and an
 * ordinary one shows the sign-in form, instead of the provider failing with a server_error.
 */
const signInPolicy = () => {
  const policy = interactionPolicy.base();
  policy
    .get('login')
    ?.checks.add(
      new interactionPolicy.Check(
        'account_disabled',
        'Your account is disabled or removed: sign in again',
        'login_required',
        (ctx) =>
          ctx.oidc.session?.accountId !== undefined && ctx.oidc.account === undefined
            ? interactionPolicy.Check.REQUEST_PROMPT
            : interactionPolicy.Check.NO_NEED_TO_PROMPT,
      ),
      0,
    );
  return policy;
};

const readForm = (req: IncomingMessage, limit = 10_000) =>
  new Promise<URLSearchParams>((done, fail) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > limit) req.destroy(new Error('form too large'));
    });
    req.on('end', () => done(new URLSearchParams(body)));
    req.on('error', fail);
  });

export const startLocalIdentity = async (options: {
  port?: number;
  host?: string;
  /** The console's address: where sign-in returns, and the one origin allowed to call the token endpoint. */
  consoleUrl: string;
  /** How long access and ID tokens live (default ACCESS_TOKEN_SECONDS, as deployed). */
  accessTokenSeconds?: number;
}): Promise<LocalIdentity> => {
  const tokenSeconds = options.accessTokenSeconds ?? ACCESS_TOKEN_SECONDS;
  const { findLocalPerson, signInLocalPerson } = await import('./people');
  const host = options.host ?? '127.0.0.1';
  const server: Server = createServer();
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, host, () => done());
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${host}:${port}`;
  const consoleOrigin = new URL(options.consoleUrl).origin;

  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const signingKey = {
    ...(await exportJWK(privateKey)),
    kid: `local-${Date.now().toString(36)}`,
    alg: 'ES256',
    use: 'sig',
  };

  const configuration: Configuration = {
    adapter: MemoryAdapter,
    clients: [
      {
        client_id: CONSOLE_CLIENT_ID,
        token_endpoint_auth_method: 'none',
        redirect_uris: [options.consoleUrl],
        post_logout_redirect_uris: [options.consoleUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [signingKey as never] },
    cookies: {
      keys: [Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString('base64url')],
    },
    scopes: ['openid', 'email', 'offline_access', 'api'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    pkce: { required: () => true },
    ttl: {
      AccessToken: tokenSeconds,
      IdToken: tokenSeconds,
      AuthorizationCode: 60,
      Interaction: 3600,
      Session: SESSION_SECONDS,
      Grant: SESSION_SECONDS,
      RefreshToken: SESSION_SECONDS,
    },
    // The console is in the browser on another origin: it alone may call the token endpoint.
    clientBasedCORS: (_ctx, origin, client) =>
      client.clientId === CONSOLE_CLIENT_ID && origin === consoleOrigin,
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        // The provider's confirmation, in the sign-in page's style: one button, then back to the console.
        logoutSource: async (ctx, form) => {
          ctx.type = 'html';
          ctx.body = page(
            'Sign out: device bans (local)',
            `<h1>Sign out of the device ban console?</h1>
<p class="note">This ends your session at the local identity provider.</p>
${form}<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Sign out</button>`,
          );
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.type = 'html';
          ctx.body = page('Signed out', '<h1>Signed out</h1><p>You can close this tab.</p>');
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => LOCAL_API_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== LOCAL_API_AUDIENCE) throw new errors.InvalidTarget();
          return {
            scope: 'api',
            audience: LOCAL_API_AUDIENCE,
            accessTokenTTL: tokenSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    // Refresh tokens for the console whether or not it was asked to consent to offline access:
    // it is our own client, and a refresh never outlives the person (findAccount, below).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Our own client: its people are not asked to consent to it.
    loadExistingGrant: async (ctx) => {
      const { oidc } = ctx;
      const grantId = oidc.result?.consent?.grantId ?? oidc.session?.grantIdFor(oidc.client?.clientId ?? '');
      if (grantId) {
        const found = await oidc.provider.Grant.find(grantId);
        if (found) return found;
      }
      if (!oidc.session?.accountId || !oidc.client) return undefined;
      const grant = new oidc.provider.Grant({
        clientId: oidc.client.clientId,
        accountId: oidc.session.accountId,
      });
      grant.addOIDCScope('openid email offline_access');
      grant.addResourceScope(LOCAL_API_AUDIENCE, 'api');
      await grant.save();
      return grant;
    },
    // A disabled person is no account: no sign-in, and no refresh of a session they had.
    findAccount: async (_ctx, sub) => {
      const person = await findLocalPerson(sub);
      if (!person || person.disabled_at !== null) return undefined;
      return { accountId: sub, claims: () => ({ sub, email: person.email, email_verified: true }) };
    },
    extraTokenClaims: async (_ctx, token) => {
      if (token.kind !== 'AccessToken' || !token.accountId) return undefined;
      const person: LocalPerson | undefined = await findLocalPerson(token.accountId);
      if (!person) return undefined;
      return { publisher_id: person.publisher_id, role: person.role, email: person.email };
    },
    interactions: { policy: signInPolicy(), url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // The provider's own error page, without its remote fonts: the error and its description.
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = page(
        'Sign-in error',
        `<h1>Sign-in error</h1><p class="error" role="alert">${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ''))}</p>`,
      );
    },
  };
  const provider = new Provider(issuer, configuration);
  const oidc = provider.callback();

  const limits = createSignInLimits();
  const send = (res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, {
      ...headers,
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // The form posts here, and its answer redirects through the provider back to the console.
      'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${consoleOrigin}; frame-ancestors 'none'; base-uri 'none'`,
      'x-content-type-options': 'nosniff',
    });
    res.end(html);
  };

  const interaction = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    const [, , uid = '', action] = path.split('/');
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid)
      return send(res, 400, page('Sign in', '<p>This sign-in has expired. Start again.</p>'));
    if (req.method === 'GET' && action === undefined) return send(res, 200, loginPage(uid));
    if (req.method === 'POST' && action === 'login') {
      const form = await readForm(req);
      const email = form.get('email') ?? '';
      const address = req.socket.remoteAddress ?? '';
      // Too many failures for this account or from this address: refused before the password is
      // even checked, whether or not the account exists.
      const wait = limits.waitMs(email, address);
      if (wait > 0) {
        const minutes = Math.ceil(wait / 60_000);
        return send(
          res,
          429,
          loginPage(
            uid,
            `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
          ),
          { 'retry-after': String(Math.ceil(wait / 1000)) },
        );
      }
      const person = await signInLocalPerson(email, form.get('password') ?? '');
      if (!person) {
        limits.failed(email, address);
        return send(res, 401, loginPage(uid, 'That email and password do not match an active account.'));
      }
      limits.succeeded(email);
      return provider.interactionFinished(
        req,
        res,
        { login: { accountId: person.sub } },
        { mergeWithLastSubmission: false },
      );
    }
    return send(res, 405, page('Sign in', '<p>Not here.</p>'));
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (!path.startsWith('/interaction/')) return oidc(req, res);
    interaction(req, res, path).catch(() => {
      if (!res.headersSent)
        send(res, 400, page('Sign in', '<p>This sign-in has expired. Start again from the console.</p>'));
    });
  });

  return {
    issuer,
    settings: {
      issuer,
      jwks_uri: `${issuer}/jwks`,
      audience: LOCAL_API_AUDIENCE,
      audience_claim: 'aud',
      token_use: 'at+jwt',
      publisher_claim: 'publisher_id',
      role_claim: 'role',
      email_claim: 'email',
      client_id: CONSOLE_CLIENT_ID,
      max_token_seconds: tokenSeconds,
    },
    console: {
      name: 'the local identity provider',
      issuer,
      client_id: CONSOLE_CLIENT_ID,
      authorization_endpoint: `${issuer}/auth`,
      token_endpoint: `${issuer}/token`,
      end_session_endpoint: `${issuer}/session/end`,
      revocation_endpoint: `${issuer}/token/revocation`,
      logout_redirect_param: 'post_logout_redirect_uri',
      scope: 'openid email offline_access',
      resource: LOCAL_API_AUDIENCE,
      id_token_signed_response_alg: 'ES256',
      publisher_claim: 'publisher_id',
      role_claim: 'role',
      email_claim: 'email',
    },
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
};
