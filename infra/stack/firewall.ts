import { type CfnResource, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/**
 * The regional web ACL on the API's stage (`-c waf=false` leaves it out). Unauthenticated floods
 * would otherwise spend the stage-wide limits every publisher shares, before any key is checked:
 *  - rate-based rules, past which a requester gets 429 in the API's error envelope, with
 *    `Retry-After`, each counting over 5 minutes:
 *    - requests without a bearer credential, per source address (RATE_LIMITS.anonymous);
 *    - requests with one, per source address AND credential, so that a studio's game servers
 *      behind one NAT address, each polling with the studio's key, are counted per key and never
 *      refused for one another: the feed (RATE_LIMITS.feed), the enforcement snapshot
 *      (RATE_LIMITS.snapshot) and every other route (RATE_LIMITS.credential) each in its own rule;
 *  - AWS's managed common rule set, with the rules that inspect request bodies, and the missing
 *    User-Agent rule, counted instead of blocking (COUNTED_COMMON_RULES says why each).
 * Its costs are in docs/deploy.md (The web application firewall), its figures in docs/scale.md.
 */

/**
 * Requests per 5 minutes (WAF's evaluation window here) before a requester is refused:
 * - anonymous: one address without a bearer credential: 10/s, for health checks and the API
 *   description (what else has no credential API Gateway refuses itself, 401);
 * - credential: one address with one credential on any route but the two below: 100/s, twice a
 *   publisher's plan-wide 50/s, so the usage plan (429 per publisher) acts before the web ACL;
 * - feed: one address with one credential polling the feed: 2,500/s, a publisher's feed limit, so
 *   its whole fleet may sit behind one NAT address;
 * - snapshot: one address with one credential reading the snapshot: 20/s, room for a fleet's
 *   servers starting together behind one address (each reads it once, then polls the feed).
 */
export const RATE_LIMITS = {
  anonymous: 3_000,
  credential: 30_000,
  feed: 750_000,
  snapshot: 6_000,
} as const;

/** The evaluation window of every rate rule, in seconds. */
export const RATE_WINDOW_SECONDS = 300;

/**
 * Common rule set rules that would refuse requests the API accepts, so they only count:
 * - SizeRestrictions_BODY: bodies over 8 KB; ours take up to 64 KiB (`details` alone 16 KiB).
 * - GenericRFI_BODY, EC2MetaDataSSRF_BODY: URLs in a body; every webhook registration carries one.
 * - CrossSiteScripting_BODY, GenericLFI_BODY: markup or paths in free text; a ban's `details` is
 *   the publisher's evidence (chat lines, file paths), stored as data and never rendered as HTML.
 * - NoUserAgent_HEADER: game servers and SDKs need not send one; the key is what identifies them.
 */
export const COUNTED_COMMON_RULES = [
  'SizeRestrictions_BODY',
  'GenericRFI_BODY',
  'EC2MetaDataSSRF_BODY',
  'CrossSiteScripting_BODY',
  'GenericLFI_BODY',
  'NoUserAgent_HEADER',
] as const;

const RATE_LIMITED_BODY = 'rateLimited';

/** The paths with limits of their own (lib/routes.ts). */
export const FEED_PATH = '/v1/events';
export const SNAPSHOT_PATH = '/v1/enforcement/snapshot';

export class Firewall extends Construct {
  readonly acl: CfnWebACL;

  constructor(scope: Construct, id: string, { api }: { api: RestApi }) {
    super(scope, id);
    const metric = (name: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName: `${Stack.of(this).stackName}-${name}`,
      sampledRequestsEnabled: true,
    });
    type Statement = CfnWebACL.StatementProperty;
    const byteMatch = (
      fieldToMatch: CfnWebACL.FieldToMatchProperty,
      searchString: string,
      positionalConstraint: string,
    ): Statement => ({
      byteMatchStatement: {
        fieldToMatch,
        searchString,
        positionalConstraint,
        textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
      },
    });
    // The scheme as lib/http/authorizer.ts accepts it, in any case.
    const hasBearer = byteMatch({ singleHeader: { Name: 'authorization' } }, 'bearer ', 'STARTS_WITH');
    // The stage's path ends in the route's (`/<stage>/v1/events`, or as CloudFront passes it on).
    const onPath = (path: string) => byteMatch({ uriPath: {} }, path, 'ENDS_WITH');
    const combine = (statement: { not: Statement } | { and: Statement[] } | Statement): Statement =>
      'not' in statement
        ? { notStatement: { statement: statement.not } }
        : 'and' in statement
          ? { andStatement: { statements: statement.and } }
          : statement;
    const rateRule = (
      name: string,
      priority: number,
      limit: number,
      key: 'IP' | 'CREDENTIAL',
      scope: Parameters<typeof combine>[0],
    ): CfnWebACL.RuleProperty => ({
      name,
      priority,
      statement: {
        rateBasedStatement: {
          limit,
          evaluationWindowSec: RATE_WINDOW_SECONDS,
          ...(key === 'IP'
            ? { aggregateKeyType: 'IP' }
            : {
                // Address and credential: a request without the header is not counted here.
                aggregateKeyType: 'CUSTOM_KEYS',
                customKeys: [
                  { ip: {} },
                  {
                    header: { name: 'authorization', textTransformations: [{ priority: 0, type: 'NONE' }] },
                  },
                ],
              }),
          scopeDownStatement: combine(scope),
        },
      },
      action: {
        block: {
          customResponse: {
            responseCode: 429,
            customResponseBodyKey: RATE_LIMITED_BODY,
            responseHeaders: [{ name: 'Retry-After', value: '60' }],
          },
        },
      },
      visibilityConfig: metric(name),
    });
    this.acl = new CfnWebACL(this, 'Acl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: metric('api'),
      customResponseBodies: {
        [RATE_LIMITED_BODY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            error: {
              code: 'rate_limited',
              message: 'Too many requests from this address or credential: retry later',
            },
          }),
        },
      },
      rules: [
        rateRule('RateLimitAnonymousPerAddress', 0, RATE_LIMITS.anonymous, 'IP', { not: hasBearer }),
        rateRule('RateLimitFeedPerCredential', 1, RATE_LIMITS.feed, 'CREDENTIAL', onPath(FEED_PATH)),
        rateRule(
          'RateLimitSnapshotPerCredential',
          2,
          RATE_LIMITS.snapshot,
          'CREDENTIAL',
          onPath(SNAPSHOT_PATH),
        ),
        rateRule('RateLimitPerCredential', 3, RATE_LIMITS.credential, 'CREDENTIAL', {
          and: [hasBearer, combine({ not: onPath(FEED_PATH) }), combine({ not: onPath(SNAPSHOT_PATH) })],
        }),
        {
          name: 'AWSManagedRulesCommonRuleSet',
          priority: 4,
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name: 'AWSManagedRulesCommonRuleSet',
              ruleActionOverrides: COUNTED_COMMON_RULES.map((name) => ({ name, actionToUse: { count: {} } })),
            },
          },
          overrideAction: { none: {} },
          visibilityConfig: metric('common-rule-set'),
        },
      ],
    });
    const association = new CfnWebACLAssociation(this, 'Association', {
      resourceArn: api.deploymentStage.stageArn,
      webAclArn: this.acl.attrArn,
    });
    // The stage must exist before it can be associated.
    association.addDependency(api.deploymentStage.node.defaultChild as CfnResource);
  }
}
