import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConsoleSignIn, SIGN_IN_FILE } from '@kernel/sign-in';
import { Aws, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  type ResponseCustomHeader,
  ResponseHeadersPolicy,
  type ResponseSecurityHeadersBehavior,
  S3OriginAccessControl,
  Signing,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, type ISource, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { DISABLE_ASSET_STAGING_CONTEXT } from 'aws-cdk-lib/cx-api';
import { Construct } from 'constructs';
import { buildConsole } from '../../console/build';
import { consoleHeaders, headersFor } from '../../console/headers';
import { LOG_RETENTION } from './service-function';

/**
 * The moderator console on AWS: the page `console/build.ts` builds, in a private
 * bucket, and one CloudFront distribution in front of both the page and the API, so the page
 * calls the API on its own origin (no CORS). See "The console" in docs/deploy.md.
 *
 *   /               → 302 to /console/ (a viewer-request function; nothing is fetched)
 *   /console/*      → the bucket (through an origin access control), with the page's headers
 *   /player, /player/* → the player's page, whose files are the console's build (player.*)
 *   /v1/*, /health, /openapi.json → the REST API's stage, never cached, every header but Host
 */

/** Where the page lives: its key prefix in the bucket, and its path on the distribution. */
export const CONSOLE_PREFIX = 'console/';
export const CONSOLE_PATH = `/${CONSOLE_PREFIX}`;
/** The player's page (kernel/player-links.ts): its paths on the distribution, its files in console/. */
export const PLAYER_PATH_PATTERNS = ['/player', '/player/*'] as const;

/**
 * The API's paths on the distribution: every route of lib/routes.ts is under one of them (a test
 * holds them to the route table), so the console reaches the whole API and nothing else.
 */
export const API_PATH_PATTERNS = ['/v1/*', '/health', '/openapi.json'] as const;

/**
 * The viewer-request function of the page's behaviors (CloudFront Functions, cloudfront-js-2.0):
 * the bare domain and `/console` redirect to `/console/`, and `/console/` is its index.html, since
 * S3 behind an origin access control has no index documents. The player's page: `/player`
 * redirects to `/player/`, which is console/player.html, and its script and stylesheet are the
 * console build's; nothing else under /player/ is anything. Everything else passes unchanged.
 */
export const CONSOLE_ROUTING_CODE = `function handler(event) {
  var request = event.request;
  if (request.uri === '/' || request.uri === '/console') {
    return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '${CONSOLE_PATH}' } } };
  }
  if (request.uri === '/player') {
    return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '/player/' } } };
  }
  if (request.uri === '${CONSOLE_PATH}') request.uri = '${CONSOLE_PATH}index.html';
  else if (request.uri === '/player/') request.uri = '${CONSOLE_PATH}player.html';
  else if (request.uri === '/player/player.js' || request.uri === '/player/player.css')
    request.uri = '${CONSOLE_PATH}' + request.uri.substring(8);
  return request;
}
`;

/** What CloudFront's security-headers config holds; any other header of consoleHeaders is a custom header. */
const SECURITY_HEADERS = [
  'content-security-policy',
  'strict-transport-security',
  'x-content-type-options',
  'referrer-policy',
  'x-frame-options',
  'x-xss-protection',
] as const;

/**
 * Per file, not per distribution: each object carries its own (headersFor, console/headers.ts) as
 * S3 metadata, so the policy must not override them with one value for every file.
 */
const OBJECT_HEADERS = ['content-type', 'cache-control'] as const;

const oneOf = <T extends string>(name: string, value: string, allowed: readonly T[]): T => {
  const found = allowed.find((a) => a.toLowerCase() === value.trim().toLowerCase());
  if (!found) throw new Error(`console header ${name}: ${value} is not one of ${allowed.join(', ')}`);
  return found;
};

/** `max-age=<s>; includeSubDomains; preload` into CloudFront's parts (a value it cannot hold throws). */
const parseHsts = (value: string) => {
  const directives = value.split(';').map((d) => d.trim().toLowerCase());
  const maxAge = directives.map((d) => /^max-age=(\d+)$/.exec(d)?.[1]).find((s) => s !== undefined);
  const known = directives.filter(
    (d) => d && !d.startsWith('max-age=') && d !== 'includesubdomains' && d !== 'preload',
  );
  if (maxAge === undefined || known.length > 0) {
    throw new Error(`console header Strict-Transport-Security: cannot express ${value} in CloudFront`);
  }
  return {
    accessControlMaxAge: Duration.seconds(Number(maxAge)),
    includeSubdomains: directives.includes('includesubdomains'),
    preload: directives.includes('preload'),
    override: true,
  };
};

/**
 * consoleHeaders (console/headers.ts, the page's one list of response headers, which the local
 * server and the browser tests also send) as a CloudFront response headers policy: the security
 * headers CloudFront knows in its security-headers config, the others as custom headers, each
 * overriding anything the origin sends; but Content-Type and Cache-Control, which are per file and
 * travel as each object's metadata instead (deployFiles). A value CloudFront cannot express fails the synth rather
 * than being deployed differently from what the tests saw.
 */
export const responseHeadersFrom = (headers: Readonly<Record<string, string>>) => {
  const byName = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const get = (name: (typeof SECURITY_HEADERS)[number]) => byName.get(name);
  const csp = get('content-security-policy');
  const hsts = get('strict-transport-security');
  if (!csp || !hsts)
    throw new Error('consoleHeaders must set Content-Security-Policy and Strict-Transport-Security');
  const contentTypeOptions = get('x-content-type-options');
  if (contentTypeOptions !== undefined) oneOf('X-Content-Type-Options', contentTypeOptions, ['nosniff']);
  const referrerPolicy = get('referrer-policy');
  const frameOptions = get('x-frame-options');
  const xssProtection = get('x-xss-protection');
  const security: ResponseSecurityHeadersBehavior = {
    contentSecurityPolicy: { contentSecurityPolicy: csp, override: true },
    strictTransportSecurity: parseHsts(hsts),
    ...(contentTypeOptions !== undefined && { contentTypeOptions: { override: true } }),
    ...(referrerPolicy !== undefined && {
      referrerPolicy: {
        referrerPolicy: oneOf('Referrer-Policy', referrerPolicy, Object.values(HeadersReferrerPolicy)),
        override: true,
      },
    }),
    ...(frameOptions !== undefined && {
      frameOptions: {
        frameOption: oneOf('X-Frame-Options', frameOptions, Object.values(HeadersFrameOption)),
        override: true,
      },
    }),
    ...(xssProtection !== undefined && {
      xssProtection: (() => {
        const v = xssProtection.replace(/\s+/g, '').toLowerCase();
        if (v === '0') return { protection: false, override: true };
        if (v === '1') return { protection: true, override: true };
        if (v === '1;mode=block') return { protection: true, modeBlock: true, override: true };
        throw new Error(`console header X-XSS-Protection: cannot express ${xssProtection} in CloudFront`);
      })(),
    }),
  };
  const custom: ResponseCustomHeader[] = Object.entries(headers)
    .filter(([name]) => !(SECURITY_HEADERS as readonly string[]).includes(name.toLowerCase()))
    .filter(([name]) => !(OBJECT_HEADERS as readonly string[]).includes(name.toLowerCase()))
    .map(([header, value]) => ({ header, value, override: true }));
  return { security, custom };
};

export interface ModeratorConsoleProps {
  /** The service's REST API: the API origin's host. */
  readonly api: RestApi;
  /** The API's stage: the API origin's path. */
  readonly stage: string;
  /** The identity provider's token endpoint origin: the one other origin the page may call. */
  readonly tokenOrigin: string;
}

export class ModeratorConsole extends Construct {
  /** The page's files (index.html, app.js, app.css), as console/build.ts built them for this synth. */
  readonly files: ReadonlyArray<{
    readonly name: string;
    readonly bytes: number;
    readonly gzipBytes: number;
  }>;
  /** Private: only the distribution reads it, only the deployment writes it. */
  readonly bucket: Bucket;
  /** The S3 server access logs of the bucket and the distribution's standard logs, 30 days. */
  readonly logBucket: Bucket;
  readonly distribution: Distribution;
  readonly responseHeadersPolicy: ResponseHeadersPolicy;
  /** One per file, each with its own Content-Type and Cache-Control (console/headers.ts). */
  readonly deployments: ReadonlyMap<string, BucketDeployment>;
  /** `https://<distribution domain>/console/`: the ConsoleUrl output. */
  readonly url: string;

  private readonly deployFile: (name: string, source: ISource) => BucketDeployment;

  constructor(scope: Construct, id: string, { api, stage, tokenOrigin }: ModeratorConsoleProps) {
    super(scope, id);

    // Both buckets are kept when the stack is deleted, like the table (no auto-delete custom
    // resource): docs/deploy.md says how to delete them.
    this.logBucket = new Bucket(this, 'Logs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      // CloudFront writes its standard logs with an ACL grant, which needs ACLs enabled.
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: Duration.days(LOG_RETENTION) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.logBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The log bucket holds the console bucket’s and the distribution’s access logs; logging its own access into itself would loop',
    });

    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      // Each deploy replaces the whole build: nothing in it is worth a version.
      versioned: false,
      serverAccessLogsBucket: this.logBucket,
      serverAccessLogsPrefix: 's3/',
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const { security, custom } = responseHeadersFrom(consoleHeaders(tokenOrigin));
    // CloudFront's names are global to the account: the region keeps the same stage deployed in
    // two regions from colliding (CDK's default names come from the construct path alone).
    const globalName = (what: string) => `${Stack.of(this).stackName}-${Aws.REGION}-${what}`;
    this.responseHeadersPolicy = new ResponseHeadersPolicy(this, 'Headers', {
      responseHeadersPolicyName: globalName('console'),
      comment: 'The moderator console: console/headers.ts',
      securityHeadersBehavior: security,
      ...(custom.length > 0 && { customHeadersBehavior: { customHeaders: custom } }),
    });

    const routing = new EdgeFunction(this, 'Routing', {
      code: FunctionCode.fromInline(CONSOLE_ROUTING_CODE),
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Redirects / to /console/, serves /console/ as its index.html and /player/ as player.html',
    });
    const page = {
      origin: S3BucketOrigin.withOriginAccessControl(this.bucket, {
        originAccessControl: new S3OriginAccessControl(this, 'OriginAccess', {
          originAccessControlName: globalName('console'),
          signing: Signing.SIGV4_ALWAYS,
        }),
      }),
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: this.responseHeadersPolicy,
      functionAssociations: [{ function: routing, eventType: FunctionEventType.VIEWER_REQUEST }],
    };
    // The API as it is, on the distribution's domain: nothing cached, every method, every viewer
    // header but Host (API Gateway needs its own host name; with caching off this managed policy
    // also forwards Authorization), so the authorizer, X-Game-Id and every query reach it. Plain
    // HTTP is refused rather than redirected: a redirected POST would arrive as a GET.
    // The origin is named from the API's id and the stage's name, not from its stage resource
    // (RestApiOrigin): the authorizer's settings name the user pool's client, whose callback is
    // this distribution, and a distribution waiting on the stage would close that circle.
    const apiBehavior = {
      origin: new HttpOrigin(`${api.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}`, {
        originPath: `/${stage}`,
        protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      }),
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    };
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Moderator console and API of ${api.restApiName}`,
      defaultBehavior: page,
      additionalBehaviors: {
        [`${CONSOLE_PATH}*`]: page,
        ...Object.fromEntries(PLAYER_PATH_PATTERNS.map((pattern) => [pattern, page])),
        ...Object.fromEntries(API_PATH_PATTERNS.map((pattern) => [pattern, apiBehavior])),
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: this.logBucket,
      logFilePrefix: 'cloudfront/',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason:
        'Moderators work from anywhere: the page is static, and the API behind it is no more reachable than at its own ApiUrl; no country is excluded',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR2',
      reason:
        'No web ACL on the distribution itself: the page is static, and every API call it passes on reaches the stage, whose regional web ACL (infra/stack/firewall.ts) inspects it; a CloudFront web ACL would have to live in us-east-1, outside this stack',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR4',
      reason:
        'The distribution uses the default *.cloudfront.net certificate, for which CloudFront fixes the minimum TLS version; a custom domain with its own certificate and TLSv1.2_2021 is the way to raise it (docs/deploy.md)',
    });

    // Built for this synth into a directory of its own, which each deployment's asset (one asset,
    // uploaded once) copies into the cloud assembly as it binds; unless asset staging is off, when
    // the assembly points at the directory itself and it must stay.
    const dir = mkdtempSync(join(tmpdir(), 'console-'));
    try {
      this.files = buildConsole(dir).files;
      ({ deployments: this.deployments, deployFile: this.deployFile } = deployFiles(this, {
        dir,
        files: this.files.map((f) => f.name),
        bucket: this.bucket,
        distribution: this.distribution,
      }));
    } finally {
      if (!this.node.tryGetContext(DISABLE_ASSET_STAGING_CONTEXT))
        rmSync(dir, { recursive: true, force: true });
    }

    this.url = `https://${this.distribution.distributionDomainName}${CONSOLE_PATH}`;
  }

  /** The identity provider's settings for the page, as `/console/sign-in.json` (kernel/sign-in.ts). */
  addSignIn(settings: ConsoleSignIn) {
    return this.deployFile(SIGN_IN_FILE, Source.jsonData(SIGN_IN_FILE, settings));
  }
}

/**
 * One deployment per file, since object metadata is per deployment: each copies only its file (an
 * exclude-all, include-one filter, so its pruning touches no other file) under console/ with the
 * Content-Type and Cache-Control console/headers.ts gives it. The pages (index.html) go last, after
 * every other file is in place (sign-in.json too, added later by addSignIn), and their deployment
 * then asks CloudFront to invalidate /console/*.
 */
const deployFiles = (
  scope: Construct,
  {
    dir,
    files,
    bucket,
    distribution,
  }: { dir: string; files: readonly string[]; bucket: Bucket; distribution: Distribution },
) => {
  const logGroup = new LogGroup(scope, 'DeploymentLogs', {
    retention: LOG_RETENTION,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const isPage = (name: string) => name.endsWith('.html');
  const deployments = new Map<string, BucketDeployment>();
  const deployFile = (name: string, source: ISource) => {
    const headers = headersFor(name);
    const deployment = new BucketDeployment(scope, `Deploy ${name}`, {
      sources: [source],
      destinationBucket: bucket,
      destinationKeyPrefix: CONSOLE_PREFIX,
      exclude: ['*'],
      include: [name],
      contentType: headers['Content-Type'],
      cacheControl: headers['Cache-Control'] ? [CacheControl.fromString(headers['Cache-Control'])] : [],
      logGroup,
      // The invalidation is asked for, not waited on: CloudFront can take up to ~13 minutes, and
      // a custom resource that waits fails the whole stack when it runs out. The page is served
      // with no-cache (console/headers.ts), so a late invalidation only delays edge copies.
      ...(isPage(name) && {
        distribution,
        distributionPaths: [`${CONSOLE_PATH}*`],
        waitForDistributionInvalidation: false,
      }),
    });
    for (const [other, page] of deployments) {
      if (isPage(other) && !isPage(name)) page.node.addDependency(deployment);
      if (isPage(name) && !isPage(other)) deployment.node.addDependency(page);
    }
    deployments.set(name, deployment);
    return deployment;
  };
  for (const name of [...files.filter((f) => !isPage(f)), ...files.filter(isPage)])
    deployFile(name, Source.asset(dir));
  // The deployments share one handler function (a singleton per stack), which uses the AWS CLI
  // layer of the first; every other deployment makes a layer of its own that nothing uses.
  const [first, ...others] = deployments.values();
  for (const deployment of others) deployment.node.tryRemoveChild('AwsCliLayer');
  if (first) acknowledgeDeploymentHandler(first, bucket);
  return {
    deployments,
    deployFile: (name: string, source: ISource) => {
      const deployment = deployFile(name, source);
      deployment.node.tryRemoveChild('AwsCliLayer');
      return deployment;
    },
  };
};

/** cdk-nag findings on aws-cdk-lib's own deployment handler (its function, role and policy). */
const acknowledgeDeploymentHandler = (deployment: BucketDeployment, bucket: Bucket) => {
  const handler = deployment.handlerRole.node.scope;
  if (!handler) throw new Error('the bucket deployment has no handler function');
  const bucketId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnBucket);
  const acknowledge = (id: string, reason: string) => Validations.of(handler).acknowledge({ id, reason });
  acknowledge(
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    'The AWS-managed basic execution policy grants only CloudWatch Logs writes, to the deployment handler’s own log group',
  );
  acknowledge(
    'AwsSolutions-L1',
    'The handler of aws-cdk-lib’s BucketDeployment: its Python runtime is aws-cdk-lib’s choice and moves with aws-cdk-lib upgrades',
  );
  const copying =
    'BucketDeployment’s grants, to copy the console’s build from the CDK asset bucket into the console bucket and prune what it replaced';
  for (const action of ['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'])
    acknowledge(`AwsSolutions-IAM5[Action::${action}]`, copying);
  acknowledge(
    'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
    `${copying}: read access to the bootstrap asset bucket's objects, where cdk deploy uploads the build`,
  );
  acknowledge(
    `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
    `${copying}: the objects of the console bucket, which holds nothing but the console`,
  );
  acknowledge(
    'AwsSolutions-IAM5[Resource::*]',
    'cloudfront:CreateInvalidation and GetInvalidation, which BucketDeployment grants on * to invalidate /console/* after a deploy; they cannot read or change any content',
  );
};
