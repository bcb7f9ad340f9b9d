import { COGNITO_PUBLISHER_ATTRIBUTE, COGNITO_ROLE_ATTRIBUTE } from '@kernel/people';
import type { ConsoleSignIn } from '@kernel/sign-in';
import { Aws, Duration, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AccountRecovery,
  CfnManagedLoginBranding,
  ClientAttributes,
  FeaturePlan,
  LambdaVersion,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  StandardThreatProtectionMode,
  StringAttribute,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolDomain,
  UserPoolOperation,
} from 'aws-cdk-lib/aws-cognito';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { IdentityProvider } from '../../lib/domain/people';
import { DEFAULT_MAX_TOKEN_SECONDS, type OwnIdentityProvider } from './settings';

/**
 * Who signs in to the console: an Amazon Cognito user pool with managed login, or,
 * with `-c identity=<json>`, a publisher's own OpenID provider instead (then no pool at all).
 *
 * Made in two steps because of what depends on what: the page's CSP needs the provider's token
 * origin before the distribution exists, and the pool's app client needs the distribution's
 * address (its callback) after. `People` is the first step, `addConsoleClient` the second; only
 * then are the authorizer's and the page's settings known.
 */

/** A pool user's publisher: set once, by an administrator, when the user is made. */
const PUBLISHER_ATTRIBUTE = COGNITO_PUBLISHER_ATTRIBUTE.replace(/^custom:/, '');
const ROLE_ATTRIBUTE = COGNITO_ROLE_ATTRIBUTE.replace(/^custom:/, '');

/** Access and ID tokens live 15 minutes; the console renews them with the refresh token. */
export const ACCESS_TOKEN_LIFETIME = Duration.minutes(15);
/** A console session lasts a working day without signing in again. */
export const REFRESH_TOKEN_LIFETIME = Duration.hours(8);

export interface PeopleProps {
  /** The publisher's own provider; undefined for the stack's Cognito pool. */
  readonly own: OwnIdentityProvider | undefined;
  /** The pre-token-generation trigger (functions/token-claims.ts); unused with an own provider. */
  readonly tokenClaims: () => IFunction;
}

export interface PeopleSignIn {
  /** The authorizer's IDENTITY_PROVIDER. */
  readonly authorizer: IdentityProvider;
  /** The console's sign-in.json. */
  readonly console: ConsoleSignIn;
  readonly client: UserPoolClient | undefined;
}

export class People extends Construct {
  /** The stack's pool; undefined with an own provider. */
  readonly pool: UserPool | undefined;
  readonly domain: UserPoolDomain | undefined;
  /** The origin the page's token calls go to: its CSP's one other connect-src. */
  readonly tokenOrigin: string;
  private readonly own: OwnIdentityProvider | undefined;

  constructor(scope: Construct, id: string, { own, tokenClaims }: PeopleProps) {
    super(scope, id);
    this.own = own;
    if (own) {
      this.tokenOrigin = new URL(own.token_endpoint).origin;
      return;
    }
    this.pool = new UserPool(this, 'Pool', {
      // People are added by an administrator (npm run users), never by themselves.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      mfa: Mfa.REQUIRED,
      mfaSecondFactor: { sms: false, otp: true },
      passwordPolicy: {
        minLength: 14,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // Plus: managed login, access tokens a trigger adds claims to, and threat protection that
      // blocks sign-ins with leaked credentials or from suspicious places. Priced per monthly
      // active person (cents each): a team of moderators, not players.
      featurePlan: FeaturePlan.PLUS,
      standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION,
      customAttributes: {
        // Immutable: an administrator sets it when making the person (AdminCreateUser), and no
        // one can move a person to another publisher afterwards.
        [PUBLISHER_ATTRIBUTE]: new StringAttribute({ minLen: 1, maxLen: 64, mutable: false }),
        [ROLE_ATTRIBUTE]: new StringAttribute({ minLen: 1, maxLen: 16, mutable: true }),
      },
      // Like the table: people and their MFA enrolments outlive any stack.
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.pool.addTrigger(UserPoolOperation.PRE_TOKEN_GENERATION_CONFIG, tokenClaims(), LambdaVersion.V2_0);
    // The managed login pages' domain, unique per account, region and stage.
    this.domain = this.pool.addDomain('Domain', {
      cognitoDomain: {
        domainPrefix: Fn.join('-', [Stack.of(this).stackName.toLowerCase(), Aws.ACCOUNT_ID]),
      },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });
    this.tokenOrigin = this.domain.baseUrl();
  }

  /** The console's app client (for the pool), and the settings of the authorizer and the page. */
  addConsoleClient(consoleUrl: string): PeopleSignIn {
    const { own, pool, domain } = this;
    if (own) {
      return {
        authorizer: {
          issuer: own.issuer,
          jwks_uri: own.jwks_uri,
          audience: own.audience,
          audience_claim: 'aud',
          token_use: 'at+jwt',
          publisher_claim: own.publisher_claim,
          role_claim: own.role_claim,
          email_claim: own.email_claim,
          // Tokens the provider issued to the console's client, for no longer than allowed,
          // naming only the publishers mapped to it.
          client_id: own.client_id,
          max_token_seconds: own.max_token_seconds ?? DEFAULT_MAX_TOKEN_SECONDS,
          publishers: [...own.publishers],
        },
        console: {
          name: own.name,
          issuer: own.issuer,
          client_id: own.client_id,
          authorization_endpoint: own.authorization_endpoint,
          token_endpoint: own.token_endpoint,
          end_session_endpoint: own.end_session_endpoint,
          logout_redirect_param: 'post_logout_redirect_uri',
          scope: own.scope,
          ...(own.resource && { resource: own.resource }),
          ...(own.revocation_endpoint && { revocation_endpoint: own.revocation_endpoint }),
          publisher_claim: own.publisher_claim,
          role_claim: own.role_claim,
          email_claim: own.email_claim,
        },
        client: undefined,
      };
    }
    if (!pool || !domain) throw new Error('the user pool was not made');
    const client = pool.addClient('Console', {
      // A page in a browser keeps no secret: authorization code with PKCE (the console sends it).
      generateSecret: false,
      // Only the renewal of the code flow's tokens: with no flow named, Cognito would also allow
      // SRP and custom sign-in straight against the client, past the managed login page. (Any
      // key named makes CDK list ALLOW_REFRESH_TOKEN_AUTH; false names none of the others.)
      authFlows: { userSrp: false },
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL],
        callbackUrls: [consoleUrl],
        logoutUrls: [consoleUrl],
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      accessTokenValidity: ACCESS_TOKEN_LIFETIME,
      idTokenValidity: ACCESS_TOKEN_LIFETIME,
      refreshTokenValidity: REFRESH_TOKEN_LIFETIME,
      enableTokenRevocation: true,
      preventUserExistenceErrors: true,
      // The console reads a person's email and its attributes; it may write none of them, so a
      // person can never change their own publisher or role.
      readAttributes: new ClientAttributes()
        .withStandardAttributes({ email: true, emailVerified: true })
        .withCustomAttributes(PUBLISHER_ATTRIBUTE, ROLE_ATTRIBUTE),
      writeAttributes: new ClientAttributes(),
    });
    // Managed login (v2) shows nothing for a client without a style: Cognito's own.
    new CfnManagedLoginBranding(this, 'Branding', {
      userPoolId: pool.userPoolId,
      clientId: client.userPoolClientId,
      useCognitoProvidedValues: true,
    });
    const base = domain.baseUrl();
    // Spelled out rather than the pool's ProviderURL attribute, whose form CloudFormation does
    // not document: the `iss` of the pool's tokens.
    const issuer = `https://cognito-idp.${Aws.REGION}.${Aws.URL_SUFFIX}/${pool.userPoolId}`;
    return {
      authorizer: {
        issuer,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        // Cognito's access tokens carry no `aud`: the console's client id is in `client_id`.
        audience: client.userPoolClientId,
        audience_claim: 'client_id',
        token_use: 'cognito',
        publisher_claim: 'publisher_id',
        role_claim: 'role',
        email_claim: 'email',
        max_token_seconds: ACCESS_TOKEN_LIFETIME.toSeconds(),
      },
      console: {
        name: 'your organisation',
        issuer,
        client_id: client.userPoolClientId,
        authorization_endpoint: `${base}/oauth2/authorize`,
        token_endpoint: `${base}/oauth2/token`,
        end_session_endpoint: `${base}/logout`,
        // RevokeToken: allowed because the client enables token revocation (above).
        revocation_endpoint: `${base}/oauth2/revoke`,
        logout_redirect_param: 'logout_uri',
        scope: 'openid email',
        publisher_claim: 'publisher_id',
        role_claim: 'role',
        email_claim: 'email',
      },
      client,
    };
  }
}
