import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { configure, DEFAULT_REQUEST_TIMEOUT_MS, type StorageConfig, settings } from '../config';
import { connectionConfig } from './connection';

/**
 * The storage a process is bound to, at call time: the bound settings' store (lib/config.ts; the
 * local server, the CLIs and the tests bind theirs, Lambda its environment's), and the
 * DocumentClient is made on first use and then kept, so that Lambda reuses it (and its keep-alive
 * connections) across invocations. Nothing is read at import.
 *
 * Retries and timeouts: 3 attempts with the SDK's standard jittered backoff, a 1 s connect
 * timeout and a 2 s request timeout. The worst case (3 × 2 s plus backoff) stays well inside the
 * functions' 10 s timeout, so a DynamoDB outage ends as our 503 rather than a Lambda timeout.
 */

export type { StorageConfig };

/** A bound store: its settings and its client. Per-store caches key on it (`perStore`). */
export interface BoundStorage {
  readonly config: StorageConfig;
  readonly client: DynamoDBDocumentClient;
}

/**
 * Binds the storage client of this process to a store (the rest of the settings as they are
 * bound); the client is made on first use. The store is part of the bound settings
 * (lib/config.ts), which live on a global symbol: the bundled handlers the local server loads
 * (each with its own copy of these modules) use the store the server bound, each copy with a
 * client of its own.
 */
export const configureStorage = (config: StorageConfig) => {
  configure({ ...settings(), storage: { ...config } });
};

let made: BoundStorage | undefined;

const makeClient = (config: StorageConfig) =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      ...connectionConfig(config.endpoint, config),
      maxAttempts: 3,
      // Without throwOnRequestTimeout the SDK only logs a warning when requestTimeout passes and
      // keeps waiting, so a hung request would run into the Lambda timeout instead of our 503.
      requestHandler: {
        connectionTimeout: 1_000,
        requestTimeout: config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
        throwOnRequestTimeout: true,
      },
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );

/** The bound store and its client, made for it on first use. */
export const storage = (): BoundStorage => {
  const config = settings().storage;
  if (made?.config !== config) {
    // Fail loudly here rather than with a confusing DynamoDB validation error later.
    if (!config.tableName) throw new Error('TABLE_NAME is not set');
    made = { config, client: makeClient(config) };
  }
  return made;
};

/** The bound table's name. */
export const tableName = (): string => storage().config.tableName;

/**
 * The bound store's DocumentClient, through a stand-in that forwards every use to the client of
 * the store bound at the time, so modules keep one import however often the store changes.
 */
export const dynamo: DynamoDBDocumentClient = new Proxy({} as DynamoDBDocumentClient, {
  get: (_, property) => {
    const { client } = storage();
    const value = Reflect.get(client, property, client);
    return typeof value === 'function' ? value.bind(client) : value;
  },
  getPrototypeOf: () => DynamoDBDocumentClient.prototype,
});

/**
 * A value made once per bound store (a cache of what that store holds): two stores bound in turn
 * in one process never see each other's.
 */
export const perStore = <T>(make: () => T): (() => T) => {
  const values = new WeakMap<StorageConfig, T>();
  return () => {
    const { config } = storage();
    let value = values.get(config);
    if (value === undefined) {
      value = make();
      values.set(config, value);
    }
    return value;
  };
};
