import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

/**
 * An identity provider of the tests' own: a JWKS served on the loopback and tokens signed with
 * its keys, or forged with others, to try the authorizer with tokens no real provider would make.
 */
export interface TokenIssuer {
  issuer: string;
  jwksUri: string;
  /** How many times the JWKS was fetched. */
  fetches(): number;
  /** Serves these keys from now on (a rotation), or fails every fetch (null). */
  serve(keys: 'current' | 'rotated' | null): void;
  /** An access token (RFC 9068) of this issuer, with these claims over the valid defaults. */
  sign(
    claims?: JWTPayload,
    options?: {
      alg?: 'RS256' | 'ES256';
      typ?: string;
      kid?: string;
      key?: 'current' | 'rotated' | 'stranger';
    },
  ): Promise<string>;
  close(): Promise<void>;
}

export const API_AUDIENCE = 'device-bans-api';

const pair = async (alg: 'RS256' | 'ES256', kid: string) => {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { privateKey, jwk };
};

export const startTokenIssuer = async (): Promise<TokenIssuer> => {
  const keys = {
    current: { RS256: await pair('RS256', 'rs-1'), ES256: await pair('ES256', 'es-1') },
    rotated: { RS256: await pair('RS256', 'rs-2'), ES256: await pair('ES256', 'es-2') },
    // Same kids as the current keys, other key material: another pool's, or an attacker's.
    stranger: { RS256: await pair('RS256', 'rs-1'), ES256: await pair('ES256', 'es-1') },
  };
  let serving: 'current' | 'rotated' | null = 'current';
  let fetches = 0;
  const server: Server = createServer((_req, res) => {
    fetches += 1;
    if (serving === null) {
      res.writeHead(500).end();
      return;
    }
    const set = keys[serving];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [set.RS256.jwk, set.ES256.jwk] }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    fetches: () => fetches,
    serve: (which) => {
      serving = which;
    },
    sign: async (claims = {}, options = {}) => {
      const alg = options.alg ?? 'ES256';
      const signer = keys[options.key ?? 'current'][alg];
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: issuer,
        aud: API_AUDIENCE,
        sub: 'person-1',
        iat: now,
        exp: now + 900,
        publisher_id: 'pub-a',
        role: 'moderator',
        email: 'alice@studio.example',
        ...claims,
      })
        .setProtectedHeader({ alg, typ: options.typ ?? 'at+jwt', kid: options.kid ?? signer.jwk.kid })
        .sign(signer.privateKey);
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
};

/** The authorizer's settings for this issuer (what IDENTITY_PROVIDER holds). */
export const identitySettings = (issuer: TokenIssuer) =>
  JSON.stringify({
    issuer: issuer.issuer,
    jwks_uri: issuer.jwksUri,
    audience: API_AUDIENCE,
    audience_claim: 'aud',
    token_use: 'at+jwt',
    publisher_claim: 'publisher_id',
    role_claim: 'role',
    email_claim: 'email',
  });
