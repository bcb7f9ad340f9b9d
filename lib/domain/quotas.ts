import { createHash } from 'node:crypto';

/**
 * Per-publisher quotas: the two API Gateway usage identifiers of a publisher (its keys' bucket and
 * its people's), and each credential's share of its bucket (CREDENTIAL_SHARES). Invariant: the
 * values are derived from the publisher id alone, so the authorizer computes them with no read and
 * the keys tool (infra/keys-cli.ts) gives the publisher's API Gateway API keys the same values;
 * they are not secrets. Buckets, shares and how each is counted: docs/deploy.md#quotas.
 */

/** A domain prefix per bucket, so a value is never the bare hash of a publisher id used elsewhere. */
const QUOTA_KEY_DOMAINS = {
  keys: 'device-bans/publisher-quota/v1\n',
  people: 'device-bans/people-quota/v1\n',
} as const;

/** Whose bucket a request is counted in: the publisher's keys' or its people's. */
export type QuotaHolder = keyof typeof QUOTA_KEY_DOMAINS;

/** Both buckets, in the order the keys tool makes their API keys. */
export const QUOTA_HOLDERS = Object.keys(QUOTA_KEY_DOMAINS) as QuotaHolder[];

/** The share of its publisher's bucket each credential may spend, of the rate and of the burst. */
export const CREDENTIAL_SHARES: Readonly<Record<QuotaHolder, number>> = {
  /** Half: a second key (another fleet, a tool) always has the other half. */
  keys: 0.5,
  /** A quarter: one person's busy console leaves three quarters to the others. */
  people: 0.25,
};

/**
 * A publisher's quota key for a bucket: 64 hex characters, within API Gateway's 20-128
 * alphanumeric characters for an API key value, the same in every stage.
 */
export const quotaKey = (publisherId: string, holder: QuotaHolder): string =>
  createHash('sha256').update(QUOTA_KEY_DOMAINS[holder]).update(publisherId).digest('hex');

/** The publisher's keys' quota key (its game servers and tools). */
export const publisherQuotaKey = (publisherId: string): string => quotaKey(publisherId, 'keys');

/** The publisher's people's quota key (the console). */
export const peopleQuotaKey = (publisherId: string): string => quotaKey(publisherId, 'people');
