import { startLocalApi } from '../infra/local/server';

/**
 * The API as `npm start` serves it, without the change log's recorder and dispatcher in front of
 * the store: what a deployed function does per request, where the stream (not our process) is the
 * outbox. Parts 5 and 7 of the benchmark compare against it. The store is `npm start`'s choice
 * (DATA_DIR, or DYNAMODB_ENDPOINT and TABLE_NAME); prints one line, `{"api":{"url","key"}}`.
 */

process.env.LOG_LEVEL ??= 'silent';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const api = await startLocalApi({
  port: 0,
  events: false,
  console: false,
  authorizerCacheSeconds: Number(process.env.AUTHORIZER_CACHE_SECONDS ?? 0),
});
// Imported after the store is chosen: the storage client reads its settings at import.
const { createApiKey } = await import('../lib/domain/api-keys');
const key = await createApiKey(process.env.BENCH_PUBLISHER ?? 'dev-publisher', 'bench');
console.log(JSON.stringify({ api: { url: api.url, key: key.api_key } }));
process.on('SIGTERM', () => void api.close().then(() => process.exit(0)));
