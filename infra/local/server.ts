import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authorizerFunction, handlerEntry, type RateLimits, routes } from '../../lib/routes';
import { type AuthorizerHandler, answerClientError, createGateway, type ProxyHandler } from './gateway';
import { rateLimitsFrom } from './rate-limits';
import { ensureTable, openStore, type Store, useStore } from './store';

/**
 * Runs the whole API on one machine: opens (or creates) the store, points the storage client at
 * it, loads every handler named in the route table, and serves them through the local gateway.
 */

export interface LocalApiOptions {
  port?: number;
  host?: string;
  env?: NodeJS.ProcessEnv;
  authorizerCacheSeconds?: number;
  /**
   * Each publisher's limits per method; by default from `RATE_LIMIT_RPS` and `RATE_LIMIT_BURST`
   * in `env`, else generous ones (infra/local/rate-limits.ts).
   */
  publisherLimits?: RateLimits;
  /** Loads a handler module by its name in the route table; defaults to the TypeScript sources. */
  loadModule?: (handler: string) => Promise<{ handler: unknown }>;
}

export interface LocalApi {
  url: string;
  store: Store;
  tableCreated: boolean;
  close(): Promise<void>;
}

const sourceModule = (handler: string) =>
  import(new URL(`../../${handlerEntry(handler)}`, import.meta.url).href);

export const startLocalApi = async (options: LocalApiOptions = {}): Promise<LocalApi> => {
  const env = options.env ?? process.env;
  // Read before the store opens: a bad setting fails the start with nothing to clean up.
  const publisherLimits = options.publisherLimits ?? rateLimitsFrom(env);
  const store = await openStore({ env, publish: true });
  try {
    const tableCreated = store.embedded || store.endpoint ? await ensureTable(store) : false;
    useStore(store);
    const load = options.loadModule ?? sourceModule;
    const handlers = new Map<string, ProxyHandler>();
    for (const route of routes) handlers.set(route.id, (await load(route.handler)).handler as ProxyHandler);
    const authorizer = (await load(authorizerFunction.handler)).handler as AuthorizerHandler;

    const server: Server = createServer(
      createGateway({
        routes,
        handlers,
        authorizer,
        authorizerCacheSeconds: options.authorizerCacheSeconds ?? 0,
        publisherLimits,
      }),
    );
    server.keepAliveTimeout = 5_000;
    server.on('clientError', answerClientError);
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(options.port ?? 3000, options.host ?? '127.0.0.1', () => done());
    });
    const { address, port } = server.address() as AddressInfo;
    return {
      url: `http://${address}:${port}`,
      store,
      tableCreated,
      // Stop accepting, let requests in flight finish, then close the store (which flushes it).
      close: async () => {
        await new Promise<void>((done) => {
          server.close(() => done());
          server.closeIdleConnections();
        });
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
};
