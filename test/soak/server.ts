import { startLocalApi } from '../../infra/local/server';

/**
 * The server side of `npm run soak`: the local API (gateway, authorizer, handlers) in a process
 * of its own, so its memory is measured apart from the load generator and from the store (which
 * the soak runs in its own process: stored data must not pass for a leak). Talks to its parent
 * over IPC: sends `ready` with the URL, keys and store, answers `memory`, stops on `stop`.
 */

const PUBLISHERS = ['soak-a', 'soak-b', 'soak-c'];

const send = (message: unknown) => process.send?.(message);
const memory = () => {
  // Measured after a full collection, so the numbers compare live objects, not garbage.
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  return { rss, heapUsed, heapTotal, external };
};

const api = await startLocalApi({ port: 0, host: '127.0.0.1' });
const { createApiKey } = await import('../../lib/domain/api-keys');
const keys: Record<string, string> = {};
for (const publisher of PUBLISHERS) keys[publisher] = (await createApiKey(publisher, 'soak')).api_key;

process.on('message', async (message: { type: string }) => {
  if (message.type === 'memory') send({ type: 'memory', memory: memory() });
  if (message.type === 'stop') {
    await api.close();
    process.exit(0);
  }
});
// The parent is gone (killed, crashed): stop rather than linger.
process.on('disconnect', () => process.exit(0));

// The store's own endpoint too: `npm run soak:reads` reads the embedded store beside the API.
send({
  type: 'ready',
  url: api.url,
  keys,
  store: { endpoint: api.store.endpoint, tableName: api.store.tableName },
});
