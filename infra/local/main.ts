import { DEV_GAME, DEV_PUBLISHER, ensureDevelopmentPublisher, serverOptionsFrom } from './development';
import { startLocalApi } from './server';

/**
 * `npm start`: the whole API on http://127.0.0.1:3000 (PORT to change) over the embedded store in
 * ./.data (DATA_DIR; `:memory:` for none), or over DYNAMODB_ENDPOINT / TABLE_NAME when given.
 * On the first start it makes a development publisher and key and prints a working curl.
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const api = await startLocalApi(serverOptionsFrom(process.env));

const where =
  api.store.embedded || api.store.dataDir
    ? (api.store.dataDir ?? 'memory (DATA_DIR=:memory:)')
    : (api.store.endpoint ?? 'AWS');
console.log(`Device ban API listening on ${api.url}`);
if (api.consoleUrl) console.log(`Console: ${api.consoleUrl}`);
if (api.identity)
  console.log(
    `Sign-in: local OpenID provider at ${api.identity.issuer} (discovery: ${api.identity.issuer}/.well-known/openid-configuration)`,
  );
console.log(`Store: ${where}, table ${api.store.tableName}${api.tableCreated ? ' (created)' : ''}`);
if (api.events) {
  // As the server bound it (WEBHOOK_ALLOW_LOOPBACK, default on locally): say what it really does.
  const { settings } = api;
  const loopback = settings.webhookAllowLoopback
    ? 'loopback http:// receivers allowed'
    : 'loopback receivers refused (WEBHOOK_ALLOW_LOOPBACK=0): https and public addresses only';
  console.log(
    `Events: feed and webhooks dispatched here (${loopback}; WEBHOOK_RETRY_BASE_MS=${settings.webhookRetryBaseMs})`,
  );
  console.log(
    `Retention: feed events and settled deliveries kept EVENT_RETENTION_DAYS=${settings.eventRetentionDays} days, swept every TTL_SWEEP_SECONDS=${process.env.TTL_SWEEP_SECONDS ?? 60} s (the local time to live); feed pages shared for FEED_CACHE_MS=${settings.feedCacheMs} ms`,
  );
}

const made = await ensureDevelopmentPublisher({ people: api.identity !== undefined });
const { key } = made;
if (key !== null) {
  console.log(`
Made development publisher "${DEV_PUBLISHER}" with key ${key.key_id}. The key is shown only now:

  ${key.api_key}

Try it:

  curl -s ${api.url}/v1/policy -H 'Authorization: Bearer ${key.api_key}'

  curl -s -X POST ${api.url}/v1/bans -H 'Authorization: Bearer ${key.api_key}' \\
    -H 'X-Game-Id: ${DEV_GAME}' -H 'Content-Type: application/json' \\
    -d '{"device_id":"device-1","ban_type":"social","scope":"game","reason_code":"toxicity"}'

  curl -s '${api.url}/v1/device/device-1/bans/social' -H 'Authorization: Bearer ${key.api_key}' -H 'X-Game-Id: ${DEV_GAME}'

  curl -s '${api.url}/v1/events' -H 'Authorization: Bearer ${key.api_key}' -H 'X-Game-Id: ${DEV_GAME}'
`);
} else {
  console.log(`Development publisher "${DEV_PUBLISHER}" already has a key; make another with:
  npm run keys -- create --publisher ${DEV_PUBLISHER}`);
}

// Three people of the development publisher, one per role, shown once like the first key.
if (made.people) {
  const lines = made.people.map(
    ({ role, email, password }) => `  ${role.padEnd(9)} ${email.padEnd(30)} ${password}`,
  );
  console.log(`
Made three people of "${DEV_PUBLISHER}" to sign in to the console as (${api.consoleUrl ?? ''}), shown only now:

${lines.join('\n')}

Add more with: npm run users -- create --publisher ${DEV_PUBLISHER} --email <email> --role viewer|moderator|admin
`);
} else if (api.identity) {
  console.log(`People of "${DEV_PUBLISHER}" sign in at the console; list them with:
  npm run users -- list --publisher ${DEV_PUBLISHER}`);
}

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: finishing requests in flight and closing the store`);
  await api.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
