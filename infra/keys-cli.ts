import { QUOTA_HOLDERS, type QuotaHolder } from '../lib/domain/quotas';
import { KEYS_USAGE, parseKeysCommand } from './keys-command';
import { ensureTable, namesAwsTable, openStore, useStore } from './local/store';
import type { QuotaKey } from './quota-keys';
import { regionMissing } from './region';

/**
 * `npm run keys -- …`: operators make, list and revoke API keys. Against the local store by
 * default (whether or not `npm start` is running), or any table with TABLE_NAME (plus
 * DYNAMODB_ENDPOINT, or AWS credentials for a deployed table).
 *
 * Against a deployed table, `create` first puts the publisher on the stage's usage plan
 * (USAGE_PLAN_ID, infra/quota-keys.ts): API Gateway refuses a publisher that is not on it, so
 * this tool is the only way to make a publisher. Locally there is no plan to join.
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const fail = (message: string): never => {
  console.error(`${message}\n\n${KEYS_USAGE}`);
  process.exit(2);
};

/** A deployed stage's table: publishers must be on its usage plan. */
const deployed = namesAwsTable(process.env);
const usagePlanId = process.env.USAGE_PLAN_ID || undefined;
const parsed = parseKeysCommand(process.argv.slice(2), { deployed, usagePlanId });
const command = parsed.ok ? parsed.run : fail(parsed.message);
if (command.command === 'help') {
  console.log(KEYS_USAGE);
  process.exit(0);
}

/**
 * Puts the publisher's two API keys (its keys' bucket, its people's) on the deployed stage's usage
 * plan, made or found (never called locally).
 */
type HeldQuotaKey = QuotaKey & { holder: QuotaHolder };

const joinUsagePlan = async (publisherId: string): Promise<HeldQuotaKey[]> => {
  const [{ APIGatewayClient }, { ensureQuotaKey }] = await Promise.all([
    import('@aws-sdk/client-api-gateway'),
    import('./quota-keys'),
  ]);
  // The SDK's own region (AWS_REGION or the profile's), as the table's client: the stage's.
  const client = new APIGatewayClient({});
  try {
    const made: HeldQuotaKey[] = [];
    for (const holder of QUOTA_HOLDERS) {
      const key = await ensureQuotaKey(client, usagePlanId as string, publisherId, holder);
      if (!key.enabled)
        console.error(
          `warning: API key ${key.apiKeyId} of publisher ${publisherId} is disabled: API Gateway refuses its ${holder === 'keys' ? "keys'" : "people's"} requests (403) until it is enabled again.`,
        );
      made.push({ ...key, holder });
    }
    return made;
  } finally {
    client.destroy();
  }
};

const describeQuotaKeys = (publisherId: string, keys: HeldQuotaKey[]) =>
  keys
    .map(
      (key) =>
        `Publisher ${publisherId}'s ${key.holder === 'keys' ? 'keys are' : 'people are'} counted on usage plan ${usagePlanId} as API Gateway API key ${key.apiKeyId}${
          key.created ? ' (made now)' : key.attached ? ' (attached now)' : ''
        }.`,
    )
    .join('\n');

const run = async (): Promise<number> => {
  switch (command.command) {
    case 'create': {
      const { publisherId, name, scopes, games, json } = command;
      // The plan first: a key whose publisher API Gateway would refuse is never handed out.
      if (deployed) {
        const line = describeQuotaKeys(publisherId, await joinUsagePlan(publisherId));
        if (json) console.error(line);
        else console.log(line);
      }
      const { createApiKey, effectiveScopes } = await import('../lib/domain/api-keys');
      const key = await createApiKey(publisherId, name, { scopes, games });
      if (json) {
        console.log(
          JSON.stringify({
            publisher_id: key.publisher_id,
            key_id: key.key_id,
            api_key: key.api_key,
            scopes: effectiveScopes(key),
            games: key.games,
          }),
        );
      } else {
        console.log(`Created key ${key.key_id} ("${key.name}") for publisher ${key.publisher_id}.
The API key is shown only this once; keep it in a secret store:

  ${key.api_key}`);
      }
      return 0;
    }
    case 'list': {
      const { listApiKeys } = await import('../lib/domain/api-keys');
      const keys = await listApiKeys(command.publisherId);
      if (command.json) console.log(JSON.stringify(keys));
      else if (keys.length === 0) console.log(`Publisher ${command.publisherId} has no keys.`);
      else
        for (const k of keys)
          console.log(
            `${k.key_id}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}  created ${k.created_at}  ${k.name}`,
          );
      return 0;
    }
    case 'revoke': {
      const { revokeApiKey } = await import('../lib/domain/api-keys');
      const key = await revokeApiKey(command.keyId);
      if (!key) {
        console.error(`No key ${command.keyId}.`);
        return 1;
      }
      if (command.json) console.log(JSON.stringify(key));
      else {
        console.log(`Revoked ${key.key_id} of publisher ${key.publisher_id} at ${key.revoked_at}.
A deployed API may accept it for up to the authorizer cache time (300 s by default).`);
      }
      return 0;
    }
    case 'quota': {
      if (!deployed) {
        console.log(
          'Nothing to do: only a deployed table (TABLE_NAME without DYNAMODB_ENDPOINT) has a usage plan; the local gateway counts every publisher.',
        );
        return 0;
      }
      const { listPublishers } = await import('../lib/domain/policy');
      const { publisherId } = command;
      for (const id of publisherId === undefined ? await listPublishers() : [publisherId]) {
        const keys = await joinUsagePlan(id);
        if (command.json) {
          for (const key of keys)
            console.log(
              JSON.stringify({
                publisher_id: id,
                counts: key.holder,
                api_key_id: key.apiKeyId,
                created: key.created,
                attached: key.attached,
                enabled: key.enabled,
              }),
            );
        } else console.log(describeQuotaKeys(id, keys));
      }
      return 0;
    }
  }
};

const store = await openStore();
let code = 1;
try {
  if (store.embedded || store.endpoint) await ensureTable(store);
  useStore(store);
  code = await run();
} catch (error) {
  console.error(`keys: ${regionMissing(error) ?? (error as Error).message}`);
} finally {
  await store.close();
}
process.exit(code);
