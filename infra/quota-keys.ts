import {
  type APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  GetUsagePlanKeyCommand,
  paginateGetApiKeys,
} from '@aws-sdk/client-api-gateway';
import { type QuotaHolder, quotaKey } from '../lib/domain/quotas';

/**
 * A publisher's place on a deployed stage's usage plan: two API Gateway API keys per publisher,
 * its keys' and its people's, whose values are the quota keys the authorizer returns as the usage
 * identifier (lib/domain/quotas.ts), attached to the stack's one usage plan, each a bucket. Its requests are then counted
 * against the plan's per-method, per-publisher throttles; without it, every authorized request
 * of the publisher is refused 403 by API Gateway. `npm run keys` (infra/keys-cli.ts) calls this
 * before it makes a key against a deployed table; it is idempotent, so a publisher's second key
 * reuses what the first made.
 */

/** The API key's name, for operators reading the console or `aws apigateway get-api-keys`. */
export const quotaKeyName = (publisherId: string, holder: QuotaHolder = 'keys') =>
  holder === 'keys' ? `publisher-${publisherId}` : `people-${publisherId}`;

export interface QuotaKey {
  /** The API Gateway API key's id. */
  apiKeyId: string;
  /** Whether this call made the API key (false: it existed). */
  created: boolean;
  /** Whether this call attached it to the plan (false: it was on it). */
  attached: boolean;
  /** A disabled key is refused 403 like a missing one; someone disabled it, so it is left so. */
  enabled: boolean;
}

const isNamed = (error: unknown, name: string) => (error as { name?: unknown } | null)?.name === name;

/** The API key whose value is `value`, searching those named `nameQuery` or, without it, all. */
const findApiKey = async (client: APIGatewayClient, value: string, nameQuery?: string) => {
  const pages = paginateGetApiKeys({ client, pageSize: 500 }, { nameQuery, includeValues: true });
  for await (const page of pages) {
    const found = page.items?.find((key) => key.value === value);
    if (found?.id) return { id: found.id, enabled: found.enabled !== false };
  }
  return undefined;
};

/** Makes sure one of the publisher's API keys exists and is on the usage plan; looks up what exists. */
export const ensureQuotaKey = async (
  client: APIGatewayClient,
  usagePlanId: string,
  publisherId: string,
  holder: QuotaHolder = 'keys',
): Promise<QuotaKey> => {
  const name = quotaKeyName(publisherId, holder);
  const value = quotaKey(publisherId, holder);

  let key = await findApiKey(client, value, name);
  let created = false;
  if (!key) {
    try {
      const made = await client.send(
        new CreateApiKeyCommand({
          name,
          value,
          enabled: true,
          customerId: publisherId,
          description:
            holder === 'keys'
              ? `Counts the requests of publisher ${publisherId}'s API keys (npm run keys)`
              : `Counts the requests of the people signed in for publisher ${publisherId} (npm run keys)`,
        }),
      );
      key = { id: made.id as string, enabled: made.enabled !== false };
      created = true;
    } catch (error) {
      // Made meanwhile by another run, or under another name: the value is what counts.
      if (!isNamed(error, 'ConflictException')) throw error;
      key = (await findApiKey(client, value, name)) ?? (await findApiKey(client, value));
      if (!key)
        throw new Error(
          `API Gateway refused publisher ${publisherId}'s API key as a conflict but has none with its value`,
          { cause: error },
        );
    }
  }

  const { id: apiKeyId, enabled } = key;
  const onPlan = async () => {
    try {
      await client.send(new GetUsagePlanKeyCommand({ usagePlanId, keyId: apiKeyId }));
      return true;
    } catch (error) {
      if (isNamed(error, 'NotFoundException')) return false;
      throw error;
    }
  };
  // A key made just now cannot be on the plan yet: no need to ask.
  if (!created && (await onPlan())) return { apiKeyId, created, attached: false, enabled };
  try {
    await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: apiKeyId, keyType: 'API_KEY' }));
  } catch (error) {
    if (!isNamed(error, 'ConflictException')) throw error;
    // Attached meanwhile, or on another usage plan of the same stage (a key may be on one only).
    if (!(await onPlan()))
      throw new Error(
        `API key ${apiKeyId} (${name}) is on another usage plan of this stage; detach it from that plan, then run this again`,
        { cause: error },
      );
    return { apiKeyId, created, attached: false, enabled };
  }
  return { apiKeyId, created, attached: true, enabled };
};
