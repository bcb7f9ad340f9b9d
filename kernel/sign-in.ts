/**
 * What the console needs to sign a person in: its identity provider's endpoints and its own client
 * id, served beside the page as `sign-in.json` (by `npm start` for the local provider, by the
 * stack for the Cognito pool or a publisher's own provider). No discovery request: the page's CSP
 * then names exactly one other origin, the token endpoint's (Cognito's discovery document is on
 * another host than its endpoints). No dependencies: the console, the stack and the local server
 * all read it.
 */
export interface ConsoleSignIn {
  /** Shown on the button: "Sign in with <name>". */
  name: string;
  issuer: string;
  client_id: string;
  authorization_endpoint: string;
  token_endpoint: string;
  /** Where signing out ends the provider's session. */
  end_session_endpoint: string;
  /**
   * Where signing out revokes the refresh token first (RFC 7009; Cognito's RevokeToken at
   * /oauth2/revoke), so a copy of it is worth nothing afterwards. On the token endpoint's origin.
   */
  revocation_endpoint?: string;
  /** Its return-address parameter: OpenID's `post_logout_redirect_uri`, or Cognito's `logout_uri`. */
  logout_redirect_param: 'post_logout_redirect_uri' | 'logout_uri';
  /** Scopes asked for: at least `openid`; a refresh token may need `offline_access`. */
  scope: string;
  /** The API's resource indicator (RFC 8707), where the provider issues its tokens for one. */
  resource?: string;
  /** How the provider signs ID tokens, when not RS256 (the default of OpenID Connect). */
  id_token_signed_response_alg?: string;
  /** The access token's claims naming the publisher, the role and the email. */
  publisher_claim: string;
  role_claim: string;
  email_claim: string;
  /**
   * Minutes without input after which the console signs out (a minute's warning first): the
   * deployment's `consoleIdleMinutes`, `npm start`'s IDLE_MINUTES. Absent: DEFAULT_IDLE_MINUTES.
   */
  idle_minutes?: number;
}

/** A console left alone this long signs out; 1 to 1440 (a day) may be set. */
export const DEFAULT_IDLE_MINUTES = 30;
export const MAX_IDLE_MINUTES = 1440;

/** The file's name beside index.html. Without a provider it holds `null`. */
export const SIGN_IN_FILE = 'sign-in.json';
