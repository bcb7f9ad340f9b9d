import { parseArgs } from 'node:util';
import { isScope, type Scope, scopes } from '@kernel/scopes';
import { QUOTA_HOLDERS, type QuotaHolder } from '../lib/domain/quotas';
import { gameIdSchema, publisherIdSchema } from '../lib/model/requests';
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

const USAGE = `Usage:
  npm run keys -- create --publisher <publisher_id> [--name <text>] [--scopes <s,...>] [--games <g,...>] [--json]
  npm run keys -- list --publisher <publisher_id> [--json]
  npm run keys -- revoke <key_id> [--json]
  npm run keys -- quota --publisher <publisher_id> [--json]
  npm run keys -- quota --all [--json]

Store: TABLE_NAME (+ DYNAMODB_ENDPOINT or AWS credentials) for a deployed or other table;
otherwise the local store in DATA_DIR (default ./.data).

A deployed table (TABLE_NAME without DYNAMODB_ENDPOINT) also needs USAGE_PLAN_ID, the stack's
UsagePlanId output: create puts the publisher on that usage plan first, as two API keys, its
keys' bucket and its people's (its per-publisher rate limits; API Gateway refuses publishers
that are not on it). quota does only that, for a
publisher made before the plan existed; quota --all does it for every publisher of the table
(right after the first deploy of the plan on a stage that already has publishers).

Scopes: ${scopes.join(', ')}. Without --scopes a key holds every scope;
without --games it may name any game.`;

const fail = (message: string): never => {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
};

const parse = () => {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: {
        publisher: { type: 'string' },
        name: { type: 'string' },
        scopes: { type: 'string' },
        games: { type: 'string' },
        json: { type: 'boolean', default: false },
        all: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
};

const { values, positionals } = parse();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const [command, ...rest] = positionals;

/** A deployed stage's table: publishers must be on its usage plan. */
const deployed = namesAwsTable(process.env);
const usagePlanId = process.env.USAGE_PLAN_ID || undefined;
const needUsagePlan = () => {
  if (deployed && usagePlanId === undefined)
    fail(
      `${command} on a deployed table (TABLE_NAME without DYNAMODB_ENDPOINT) needs USAGE_PLAN_ID, the stack's UsagePlanId output`,
    );
};

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

const publisher = () => {
  if (values.publisher === undefined) return fail(`${command} needs --publisher <publisher_id>`);
  const parsed = publisherIdSchema.safeParse(values.publisher);
  return parsed.success
    ? parsed.data
    : fail(`--publisher ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
};

type Run = () => Promise<number>;
let run: Run;

switch (command) {
  case 'create': {
    if (rest.length > 0) fail(`unexpected argument: ${rest[0]}`);
    const publisherId = publisher();
    const name = values.name ?? 'default';
    if (name.length < 1 || name.length > 64) fail('--name must be 1-64 characters');
    const list = (flag: string, raw: string | undefined) => {
      if (raw === undefined) return null;
      const items = raw.split(',').map((item) => item.trim());
      if (items.some((item) => item === '')) fail(`--${flag} must be a comma-separated list, none empty`);
      return items;
    };
    const grantedScopes = list('scopes', values.scopes);
    const unknown = grantedScopes?.find((scope) => !isScope(scope));
    if (unknown !== undefined) fail(`--scopes: unknown scope ${unknown} (scopes: ${scopes.join(', ')})`);
    const games = list('games', values.games);
    const badGame = games?.find((game) => !gameIdSchema.safeParse(game).success);
    if (badGame !== undefined) fail(`--games: ${badGame} is not a valid game id`);
    needUsagePlan();
    run = async () => {
      // The plan first: a key whose publisher API Gateway would refuse is never handed out.
      if (deployed) {
        const line = describeQuotaKeys(publisherId, await joinUsagePlan(publisherId));
        if (values.json) console.error(line);
        else console.log(line);
      }
      const { createApiKey, effectiveScopes } = await import('../lib/domain/api-keys');
      const key = await createApiKey(publisherId, name, {
        scopes: grantedScopes as Scope[] | null,
        games,
      });
      if (values.json) {
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
    };
    break;
  }
  case 'list': {
    if (rest.length > 0) fail(`unexpected argument: ${rest[0]}`);
    if (values.name !== undefined || values.scopes !== undefined || values.games !== undefined)
      fail('list takes only --publisher');
    const publisherId = publisher();
    run = async () => {
      const { listApiKeys } = await import('../lib/domain/api-keys');
      const keys = await listApiKeys(publisherId);
      if (values.json) console.log(JSON.stringify(keys));
      else if (keys.length === 0) console.log(`Publisher ${publisherId} has no keys.`);
      else
        for (const k of keys)
          console.log(
            `${k.key_id}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}  created ${k.created_at}  ${k.name}`,
          );
      return 0;
    };
    break;
  }
  case 'revoke': {
    if (rest.length !== 1) fail('revoke takes exactly one <key_id>');
    if ([values.publisher, values.name, values.scopes, values.games].some((v) => v !== undefined))
      fail('revoke takes only a <key_id>');
    const keyId = rest[0] as string;
    if (!/^key_[A-Za-z0-9_-]{12}$/.test(keyId)) fail(`not a key id: ${keyId}`);
    run = async () => {
      const { revokeApiKey } = await import('../lib/domain/api-keys');
      const key = await revokeApiKey(keyId);
      if (!key) {
        console.error(`No key ${keyId}.`);
        return 1;
      }
      if (values.json) console.log(JSON.stringify(key));
      else {
        console.log(`Revoked ${key.key_id} of publisher ${key.publisher_id} at ${key.revoked_at}.
A deployed API may accept it for up to the authorizer cache time (300 s by default).`);
      }
      return 0;
    };
    break;
  }
  case 'quota': {
    if (rest.length > 0) fail(`unexpected argument: ${rest[0]}`);
    if (values.name !== undefined || values.scopes !== undefined || values.games !== undefined)
      fail('quota takes only --publisher or --all');
    if (values.all && values.publisher !== undefined) fail('quota takes --publisher or --all, not both');
    const publisherId = values.all ? undefined : publisher();
    needUsagePlan();
    run = async () => {
      if (!deployed) {
        console.log(
          'Nothing to do: only a deployed table (TABLE_NAME without DYNAMODB_ENDPOINT) has a usage plan; the local gateway counts every publisher.',
        );
        return 0;
      }
      const { listPublishers } = await import('../lib/domain/policy');
      for (const id of publisherId === undefined ? await listPublishers() : [publisherId]) {
        const keys = await joinUsagePlan(id);
        if (values.json) {
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
    };
    break;
  }
  default:
    run = fail(command === undefined ? 'a command is required' : `unknown command: ${command}`);
}

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
