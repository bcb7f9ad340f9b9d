import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { configure, type Settings, settingsFrom } from '../../lib/config';
import { connectionConfig } from '../../lib/storage/connection';
import { LOCAL_TABLE_NAME, TABLE_KEYS } from '../../lib/storage/table';

/**
 * Where the local API and the keys tool keep their data:
 * - `DYNAMODB_ENDPOINT` (any DynamoDB-compatible endpoint) or `TABLE_NAME` alone (real AWS, with
 *   the usual credentials): used as they are;
 * - otherwise an embedded dynalite whose LevelDB lives in `DATA_DIR` (default `./.data`), or in
 *   memory with `DATA_DIR=:memory:`.
 * LevelDB allows one process per folder, so a running `npm start` publishes its endpoint in
 * `DATA_DIR/store.json` and the keys tool talks to it instead of opening the folder itself.
 */

export interface Store {
  endpoint: string | undefined;
  tableName: string;
  /** True when this process owns an embedded store (and must close it). */
  embedded: boolean;
  dataDir: string | undefined;
  close(): Promise<void>;
}

export interface StoreOptions {
  env?: NodeJS.ProcessEnv;
  /** Publish the endpoint for other processes (npm start does; the keys tool does not). */
  publish?: boolean;
}

const STORE_FILE = 'store.json';
/** Where a running `npm start` says its API listens, for the tools that call it (`npm run import`). */
const API_FILE = 'api.json';

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The endpoint of an embedded store that another live process serves from `dataDir`, if any. */
const runningStore = (dataDir: string): string | undefined => {
  try {
    const { endpoint, pid } = JSON.parse(readFileSync(join(dataDir, STORE_FILE), 'utf8'));
    return typeof endpoint === 'string' && typeof pid === 'number' && pid !== process.pid && isAlive(pid)
      ? endpoint
      : undefined;
  } catch {
    return undefined;
  }
};

const listen = (server: ReturnType<typeof dynalite>) =>
  new Promise<string>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => done(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });

type ReturnableIterator = { close(): Promise<void>; next(): Promise<unknown>; [RETURNED]?: true };

interface LevelIteratorClass {
  prototype: {
    return?: (this: ReturnableIterator) => Promise<void>;
    next(this: ReturnableIterator): Promise<unknown>;
  };
}

/** Marks an iterator closed by `return()`: its stream has ended, whatever it asks for next. */
const RETURNED = Symbol.for('device-ban-service.iterator-returned');

/**
 * Makes dynalite close the LevelDB iterators it reads through. Each Query and Scan reads through a
 * stream over an abstract-level iterator, and the stream ends or is destroyed by calling the
 * iterator's `return()`, which abstract-level's iterators do not have (they have `close()`): no
 * iterator was ever closed, and each stayed attached to its database (a native iterator and its
 * snapshot on disk, the iterator and what it holds in memory), some 20 kB per read for as long as
 * the store was open. Giving the iterator classes that `return()` routes both paths to `close()`.
 * Applied at run time to the copies of abstract-level that dynalite's stores use (idempotent);
 * test/unit/local-store.test.ts fails if an iterator stays open after a read, or if one returned
 * rejects a read its stream had started ahead.
 */
export const closeDynaliteIterators = () => {
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  // Its in-memory store, and `level`'s on-disk one (classic-level), each with its abstract-level.
  const stores = [fromDynalite.resolve('memory-level'), fromDynalite.resolve('level')];
  try {
    stores.push(createRequire(fromDynalite.resolve('level')).resolve('classic-level'));
  } catch {
    // A level without classic-level (the browser build) has no on-disk store to mend.
  }
  const levels = new Set<Record<string, LevelIteratorClass | undefined>>(
    stores.map((store) => createRequire(store)('abstract-level')),
  );
  for (const level of levels)
    for (const name of ['AbstractIterator', 'AbstractKeyIterator', 'AbstractValueIterator']) {
      const prototype = level[name]?.prototype;
      if (!prototype || Object.hasOwn(prototype, 'return')) continue;
      Object.defineProperty(prototype, 'return', {
        value: function (this: ReturnableIterator) {
          this[RETURNED] = true;
          return this.close();
        },
        configurable: true,
        writable: true,
      });
      // dynalite's stream reads ahead: a read it started before the iterator was returned would
      // otherwise reject (LEVEL_ITERATOR_NOT_OPEN) into an error event no one listens to any more,
      // an uncaught exception. A returned iterator has simply ended.
      const next = prototype.next;
      Object.defineProperty(prototype, 'next', {
        value: function (this: ReturnableIterator) {
          return this[RETURNED] ? Promise.resolve(undefined) : next.call(this);
        },
        configurable: true,
        writable: true,
      });
    }
};

/** The URL of the API that a live `npm start` serves over `dataDir`, if any. */
export const runningApiUrl = (dataDir: string): string | undefined => {
  try {
    const { url, pid } = JSON.parse(readFileSync(join(dataDir, API_FILE), 'utf8'));
    return typeof url === 'string' && typeof pid === 'number' && isAlive(pid) ? url : undefined;
  } catch {
    return undefined;
  }
};

/** Says where this process's API listens, beside the store it owns; returns what takes it back. */
export const publishApiUrl = (store: Store, url: string): (() => void) => {
  if (!store.embedded || !store.dataDir) return () => {};
  const file = join(store.dataDir, API_FILE);
  writeFileSync(file, JSON.stringify({ url, pid: process.pid }));
  return () => rmSync(file, { force: true });
};

/** Whether `env` names a table in AWS itself (TABLE_NAME without DYNAMODB_ENDPOINT): a deployed stage's. */
export const namesAwsTable = (env: NodeJS.ProcessEnv) => Boolean(env.TABLE_NAME) && !env.DYNAMODB_ENDPOINT;

export const openStore = async ({
  env = process.env,
  publish = false,
}: StoreOptions = {}): Promise<Store> => {
  const tableName = env.TABLE_NAME || LOCAL_TABLE_NAME;
  if (env.DYNAMODB_ENDPOINT || env.TABLE_NAME) {
    return {
      endpoint: env.DYNAMODB_ENDPOINT || undefined,
      tableName,
      embedded: false,
      dataDir: undefined,
      close: async () => {},
    };
  }
  const memory = env.DATA_DIR === ':memory:';
  const dataDir = memory ? undefined : resolve(env.DATA_DIR || '.data');
  if (dataDir) {
    const endpoint = runningStore(dataDir);
    if (endpoint) return { endpoint, tableName, embedded: false, dataDir, close: async () => {} };
    mkdirSync(dataDir, { recursive: true });
  }
  closeDynaliteIterators();
  const server = dynalite({
    ...(dataDir ? { path: join(dataDir, 'dynalite') } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  const endpoint = await listen(server);
  const storeFile = dataDir && join(dataDir, STORE_FILE);
  if (publish && storeFile) writeFileSync(storeFile, JSON.stringify({ endpoint, pid: process.pid }));
  return {
    endpoint,
    tableName,
    embedded: true,
    dataDir,
    close: () =>
      new Promise<void>((done, fail) => {
        if (publish && storeFile) rmSync(storeFile, { force: true });
        // dynalite's close also closes LevelDB, which flushes every acknowledged write.
        server.close((error) => (error ? fail(error) : done()));
      }),
  };
};

/** Creates the table when it is missing (local and custom endpoints only). Returns whether it did. */
export const ensureTable = async (store: Store): Promise<boolean> => {
  const client = new DynamoDBClient(connectionConfig(store.endpoint));
  try {
    return await createTableIfMissing(client, store.tableName);
  } finally {
    client.destroy();
  }
};

const createTableIfMissing = async (client: DynamoDBClient, tableName: string): Promise<boolean> => {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return false;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
          { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
        ],
      }),
    );
  } catch (error) {
    // Another process created it between our describe and create.
    if ((error as Error).name !== 'ResourceInUseException') throw error;
    return false;
  }
  await waitUntilTableExists(
    { client, maxWaitTime: 30, minDelay: 0.1, maxDelay: 0.5 },
    { TableName: tableName },
  );
  return true;
};

/**
 * Binds this process's settings (lib/config.ts), by default the environment's, with its storage
 * client pointed at the store. Returns the settings bound.
 */
export const useStore = (store: Store, settings: Settings = settingsFrom(process.env)): Settings =>
  configure({
    ...settings,
    storage: { ...settings.storage, tableName: store.tableName, endpoint: store.endpoint },
  });
