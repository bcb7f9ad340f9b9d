import { createHash } from 'node:crypto';

/**
 * Per-publisher quotas. API Gateway counts each request of a usage plan against an API key; with
 * the key source AUTHORIZER it is the authorizer that names that key (`usageIdentifierKey`), so
 * every key of a publisher, and only its keys, spend one publisher's limits.
 *
 * The value is derived from the publisher id alone: the authorizer computes it on every call with
 * no read, and the keys tool (infra/keys-cli.ts) gives the publisher's API Gateway API key the
 * same value. It is not a secret: clients never send it (API Gateway ignores `x-api-key` with
 * this key source), and a Bearer key is still needed to be counted under it.
 */

/** A domain prefix, so the value is never the bare hash of a publisher id used anywhere else. */
const QUOTA_KEY_DOMAIN = 'device-bans/publisher-quota/v1\n';

/**
 * The publisher's quota key: 64 hex characters, within API Gateway's 20-128 alphanumeric
 * characters for an API key value, one per publisher, the same in every stage.
 */
export const publisherQuotaKey = (publisherId: string): string =>
  createHash('sha256').update(QUOTA_KEY_DOMAIN).update(publisherId).digest('hex');
