import { type CfnResource, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { CREDENTIAL_SHARES } from '../../lib/domain/quotas';
import { API_KEY_PREFIX } from '../../lib/model/api-key-format';
import { throttleClasses } from '../../lib/routes';

/**
 * The regional web ACL on the API's stage (`-c waf=false` leaves it out), so that floods do not
 * spend the stage-wide limits every publisher shares before any key is checked: rate-based rules
 * (per address without a bearer credential; per credential, from any address, at each key's and
 * person's share of its publisher's limits: RATE_LIMITS, lib/domain/quotas.ts), answered 429 in
 * the API's envelope, and AWS's managed common rule set, the rules that would refuse what the API
 * accepts only counted (COUNTED_COMMON_RULES). Rules, costs and reasons:
 * docs/deploy.md#the-web-application-firewall; its figures in docs/scale.md.
 */

/** The evaluation window of the anonymous rule, in seconds. */
export const RATE_WINDOW_SECONDS = 300;

/** The evaluation window of the credential rules, in seconds: WAF's shortest, the closest to a bucket. */
export const SHARE_WINDOW_SECONDS = 60;

/** A credential's share of a publisher's per-second limit, as requests per share window. */
const shareOf = (perSecond: number, share: number) => Math.floor(perSecond * share * SHARE_WINDOW_SECONDS);

/**
 * Requests per window before a requester is refused: `anonymous`, per address without a bearer
 * credential over 5 minutes (10/s: health checks and the API description); the others per
 * credential over a minute, from any address: a key's share of its publisher's feed limit
 * (`feed`, 1,250/s) or of its plan-wide limit (`snapshot` and every other route, `key`, 25/s), a
 * person's share of the people's bucket (`person`, 12.5/s). Each rule and why:
 * docs/deploy.md#the-web-application-firewall.
 */
export const RATE_LIMITS = {
  anonymous: 3_000,
  feed: shareOf(throttleClasses.feed.publisher.rateLimit, CREDENTIAL_SHARES.keys),
  snapshot: shareOf(throttleClasses.read.publisher.rateLimit, CREDENTIAL_SHARES.keys),
  key: shareOf(throttleClasses.read.publisher.rateLimit, CREDENTIAL_SHARES.keys),
  person: shareOf(throttleClasses.read.publisher.rateLimit, CREDENTIAL_SHARES.people),
} as const;

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
    // The scheme as lib/http/authorizer.ts accepts it, in any case; an API key by its prefix
    // (lib/domain/api-keys.ts), anything else is a person's token.
    const hasBearer = byteMatch({ singleHeader: { Name: 'authorization' } }, 'bearer ', 'STARTS_WITH');
    const hasApiKey = byteMatch(
      { singleHeader: { Name: 'authorization' } },
      `bearer ${API_KEY_PREFIX}`,
      'STARTS_WITH',
    );
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
          ...(key === 'IP'
            ? { aggregateKeyType: 'IP', evaluationWindowSec: RATE_WINDOW_SECONDS }
            : {
                // The credential alone, from any address: a request without the header is not
                // counted here.
                aggregateKeyType: 'CUSTOM_KEYS',
                evaluationWindowSec: SHARE_WINDOW_SECONDS,
                customKeys: [
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
              message:
                "Too many requests from this address or credential (a key or a person may spend a share of its publisher's limits): retry later",
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
        rateRule('RateLimitPerKey', 3, RATE_LIMITS.key, 'CREDENTIAL', {
          and: [hasApiKey, combine({ not: onPath(FEED_PATH) }), combine({ not: onPath(SNAPSHOT_PATH) })],
        }),
        rateRule('RateLimitPerPerson', 4, RATE_LIMITS.person, 'CREDENTIAL', {
          and: [
            hasBearer,
            combine({ not: hasApiKey }),
            combine({ not: onPath(FEED_PATH) }),
            combine({ not: onPath(SNAPSHOT_PATH) }),
          ],
        }),
        {
          name: 'AWSManagedRulesCommonRuleSet',
          priority: 5,
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
