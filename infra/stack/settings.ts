import { PUBLISHER_ID_PATTERN, PUBLISHER_ID_RULE } from '@kernel/policy-trust';
import { DEFAULT_IDLE_MINUTES, MAX_IDLE_MINUTES } from '@kernel/sign-in';
import { ApplicationLogLevel } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { DEFAULT_EVENT_RETENTION_DAYS, parseRetentionDays } from '../../lib/domain/retention';

/**
 * The deployment's tunables, read from CDK context (`npx cdk deploy -c name=value`). The defaults
 * live here only, so the tests, `cdk.json` and the README cannot disagree about them.
 */
export interface Settings {
  /** Names an independent stack: `DeviceBans-<stage>`, with its own table, API and alarms. */
  readonly stage: string;
  /** API Gateway's cache of authorizer results: a revoked key keeps working for up to this long. */
  readonly authorizerCacheSeconds: number;
  /** Stage-wide steady-state requests per second. */
  readonly throttleRateLimit: number;
  /** Stage-wide burst, in requests. */
  readonly throttleBurstLimit: number;
  /**
   * Every function's application log level: Lambda drops JSON lines below it, and lib/log.ts reads
   * it (AWS_LAMBDA_LOG_LEVEL) to skip writing them. `-c logLevel=debug` while investigating.
   */
  readonly logLevel: ApplicationLogLevel;
  /** The regional web ACL on the stage (infra/stack/firewall.ts); `-c waf=false` leaves it out. */
  readonly waf: boolean;
  /**
   * Whether stack traces are mapped to the sources (NODE_OPTIONS=--enable-source-maps on every
   * function; the maps ship either way). Off by default: it adds 15–23% to each cold import
   * (docs/performance.md).
   */
  readonly sourceMaps: boolean;
  /**
   * A publisher's own OpenID provider for the console and the API's people, instead of the
   * stack's Cognito pool (`-c identity=<json>`, docs/deploy.md "Bring your own provider").
   */
  readonly identity: OwnIdentityProvider | undefined;
  /**
   * How long change feed entries and settled webhook deliveries are kept (days, fractions
   * allowed): their time to live, and the age past which every read treats them as gone
   * (`EVENT_RETENTION_DAYS` of the functions that touch the feed or deliveries).
   */
  readonly eventRetentionDays: number;
  /** Minutes without input after which the console signs out, served in its sign-in.json. */
  readonly consoleIdleMinutes: number;
}

/** What the stack must know of an own provider: its endpoints, the console's client, the claims. */
export interface OwnIdentityProvider {
  /** Shown on the console's button: "Sign in with <name>". */
  readonly name: string;
  readonly issuer: string;
  readonly jwks_uri: string;
  /** The API's audience (`aud` of the access tokens, RFC 9068). */
  readonly audience: string;
  readonly client_id: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly end_session_endpoint: string;
  readonly scope: string;
  /** Sent as `resource` (RFC 8707) where the provider needs it to issue a token for the API. */
  readonly resource?: string;
  /** Where sign-out revokes the refresh token (RFC 7009): https, on the token endpoint's origin. */
  readonly revocation_endpoint?: string;
  readonly publisher_claim: string;
  readonly role_claim: string;
  readonly email_claim: string;
  /**
   * The publishers this provider's people may belong to (the operator's mapping): a token naming
   * any other is refused. Each must exist (`npm run keys -- create` made it).
   */
  readonly publishers: readonly string[];
  /** The longest life an access token may have (`exp` − `iat`, seconds); default 3,600. */
  readonly max_token_seconds?: number;
}

/** An own provider's access tokens may live at most an hour unless the operator says otherwise. */
export const DEFAULT_MAX_TOKEN_SECONDS = 3600;

const OWN_PROVIDER_URLS = [
  'issuer',
  'jwks_uri',
  'authorization_endpoint',
  'token_endpoint',
  'end_session_endpoint',
] as const satisfies readonly (keyof OwnIdentityProvider)[];
const OWN_PROVIDER_TEXTS = [
  'name',
  'audience',
  'client_id',
  'scope',
  'publisher_claim',
  'role_claim',
  'email_claim',
] as const satisfies readonly (keyof OwnIdentityProvider)[];

/** The `identity` context: JSON (from the command line) or an object (cdk.json); every URL https. */
const ownIdentity = (scope: Construct): OwnIdentityProvider | undefined => {
  const raw: unknown = scope.node.tryGetContext('identity');
  if (raw === undefined || raw === '' || raw === 'cognito') return undefined;
  const value = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Record<string, unknown>;
  const problem = (what: string) => new Error(`context identity: ${what}`);
  for (const name of OWN_PROVIDER_TEXTS)
    if (typeof value[name] !== 'string' || value[name] === '')
      throw problem(`${name} must be a non-empty string`);
  for (const name of OWN_PROVIDER_URLS) {
    const text = value[name];
    if (typeof text !== 'string' || !URL.canParse(text) || new URL(text).protocol !== 'https:')
      throw problem(`${name} must be an https URL`);
  }
  if (value.resource !== undefined && typeof value.resource !== 'string')
    throw problem('resource must be a string');
  const revocation = value.revocation_endpoint;
  if (
    revocation !== undefined &&
    (typeof revocation !== 'string' ||
      !URL.canParse(revocation) ||
      new URL(revocation).origin !== new URL(String(value.token_endpoint)).origin)
  )
    throw problem("revocation_endpoint must be an https URL on the token endpoint's origin");
  if (!String(value.scope).split(' ').includes('openid')) throw problem('scope must include openid');
  const { publishers, max_token_seconds: max } = value;
  if (!Array.isArray(publishers) || publishers.length === 0)
    throw problem('publishers must list the publisher ids its people may belong to');
  for (const id of publishers)
    if (typeof id !== 'string' || !PUBLISHER_ID_PATTERN.test(id))
      throw problem(`publishers: ${JSON.stringify(id)} ${PUBLISHER_ID_RULE}`);
  if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 60 && (max as number) <= 86_400))
    throw problem('max_token_seconds must be an integer from 60 to 86400');
  const known = new Set<string>([
    ...OWN_PROVIDER_URLS,
    ...OWN_PROVIDER_TEXTS,
    'resource',
    'revocation_endpoint',
    'publishers',
    'max_token_seconds',
  ]);
  const unknown = Object.keys(value).filter((k) => !known.has(k));
  if (unknown.length > 0) throw problem(`unknown settings ${unknown.join(', ')}`);
  return value as unknown as OwnIdentityProvider;
};

export const DEFAULT_SETTINGS: Settings = {
  stage: 'dev',
  authorizerCacheSeconds: 300,
  throttleRateLimit: 100,
  throttleBurstLimit: 200,
  logLevel: ApplicationLogLevel.INFO,
  waf: true,
  sourceMaps: false,
  identity: undefined,
  eventRetentionDays: DEFAULT_EVENT_RETENTION_DAYS,
  consoleIdleMinutes: DEFAULT_IDLE_MINUTES,
};

// Stage names end up in the stack name and the API's URL path: keep them short and plain.
const STAGE_PATTERN = /^[a-z][a-z0-9-]{0,19}$/;

const integer = (scope: Construct, name: keyof Settings, min: number, max: number): number => {
  const raw: unknown = scope.node.tryGetContext(name) ?? DEFAULT_SETTINGS[name];
  const value = typeof raw === 'string' ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`context ${name} must be an integer from ${min} to ${max}, got ${String(raw)}`);
  }
  return value;
};

const LOG_LEVELS: readonly string[] = Object.values(ApplicationLogLevel);

const logLevel = (scope: Construct): ApplicationLogLevel => {
  const raw: unknown = scope.node.tryGetContext('logLevel') ?? DEFAULT_SETTINGS.logLevel;
  const value = String(raw).toUpperCase();
  if (!LOG_LEVELS.includes(value)) {
    throw new Error(`context logLevel must be one of ${LOG_LEVELS.join(', ')}, got ${String(raw)}`);
  }
  return value as ApplicationLogLevel;
};

const flag = (scope: Construct, name: 'waf' | 'sourceMaps'): boolean => {
  const raw: unknown = scope.node.tryGetContext(name) ?? DEFAULT_SETTINGS[name];
  // Context from the command line arrives as a string.
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new Error(`context ${name} must be true or false, got ${String(raw)}`);
};

const retentionDays = (scope: Construct): number => {
  const raw: unknown = scope.node.tryGetContext('eventRetentionDays') ?? DEFAULT_SETTINGS.eventRetentionDays;
  try {
    return parseRetentionDays(typeof raw === 'number' ? raw : String(raw));
  } catch (error) {
    throw new Error(`context eventRetentionDays: ${(error as Error).message}`);
  }
};

export const readSettings = (scope: Construct): Settings => {
  const stage = String(scope.node.tryGetContext('stage') ?? DEFAULT_SETTINGS.stage);
  if (!STAGE_PATTERN.test(stage)) {
    throw new Error(`context stage must match ${STAGE_PATTERN}, got ${stage}`);
  }
  return {
    stage,
    // API Gateway accepts 0 (no cache) to 3600 s.
    authorizerCacheSeconds: integer(scope, 'authorizerCacheSeconds', 0, 3600),
    throttleRateLimit: integer(scope, 'throttleRateLimit', 1, 10_000),
    throttleBurstLimit: integer(scope, 'throttleBurstLimit', 1, 5_000),
    logLevel: logLevel(scope),
    waf: flag(scope, 'waf'),
    sourceMaps: flag(scope, 'sourceMaps'),
    identity: ownIdentity(scope),
    eventRetentionDays: retentionDays(scope),
    consoleIdleMinutes: integer(scope, 'consoleIdleMinutes', 1, MAX_IDLE_MINUTES),
  };
};

export const stackName = (stage: string) => `DeviceBans-${stage}`;
