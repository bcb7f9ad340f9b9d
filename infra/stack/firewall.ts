import { type CfnResource, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/**
 * The regional web ACL on the API's stage (`-c waf=false` leaves it out). Unauthenticated floods
 * would otherwise spend the stage-wide limits every publisher shares, before any key is checked:
 *  - a rate-based rule per source address: past RATE_LIMIT_PER_ADDRESS requests in 5 minutes,
 *    that address gets 429 in the API's error envelope, with `Retry-After`;
 *  - AWS's managed common rule set, with the rules that inspect request bodies, and the missing
 *    User-Agent rule, counted instead of blocking (COUNTED_COMMON_RULES says why each).
 * Its costs are in docs/deploy.md (The web application firewall).
 */

/** Requests per 5 minutes from one address: 100/s sustained, the stage's default rate. */
export const RATE_LIMIT_PER_ADDRESS = 30_000;

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

export class Firewall extends Construct {
  readonly acl: CfnWebACL;

  constructor(scope: Construct, id: string, { api }: { api: RestApi }) {
    super(scope, id);
    const metric = (name: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName: `${Stack.of(this).stackName}-${name}`,
      sampledRequestsEnabled: true,
    });
    this.acl = new CfnWebACL(this, 'Acl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: metric('api'),
      customResponseBodies: {
        [RATE_LIMITED_BODY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            error: { code: 'rate_limited', message: 'Too many requests from this address: retry later' },
          }),
        },
      },
      rules: [
        {
          name: 'RateLimitPerAddress',
          priority: 0,
          statement: { rateBasedStatement: { limit: RATE_LIMIT_PER_ADDRESS, aggregateKeyType: 'IP' } },
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: RATE_LIMITED_BODY,
                responseHeaders: [{ name: 'Retry-After', value: '60' }],
              },
            },
          },
          visibilityConfig: metric('rate-per-address'),
        },
        {
          name: 'AWSManagedRulesCommonRuleSet',
          priority: 1,
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
