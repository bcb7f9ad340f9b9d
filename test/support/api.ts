import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Role } from '@kernel/people';
import * as people from '../../infra/local/people';
import { startLocalApi } from '../../infra/local/server';
import {
  type ApiKeyInfo,
  createApiKey,
  type KeyGrants,
  type NewApiKey,
  revokeApiKey,
} from '../../lib/domain/api-keys';
import { dynamo } from '../../lib/storage/client';
import { partitions } from '../../lib/storage/keys';
import { checkResponse } from './contract';

/**
 * An API served over real HTTP by the local gateway on an in-memory store, for integration tests.
 * `API_BUNDLES=<cdk.out dir>` serves the bundled Lambda assets instead of the TypeScript sources,
 * so the same suite proves the deployed code. `TEST_DYNAMODB_ENDPOINT=<url>` runs it against another
 * DynamoDB-compatible store (such as AWS's DynamoDB Local), one fresh table per test file.
 *
 * Every response `request()` gets is checked against docs/openapi.json (./contract.ts): an
 * undocumented status, header or field fails the test that made the request.
 */

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  game?: string;
  body?: unknown;
  /** Sent as is, instead of JSON.stringify(body). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestApi {
  url: string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  createKey(publisherId: string, name?: string, grants?: KeyGrants): Promise<NewApiKey>;
  revokeKey(keyId: string): Promise<ApiKeyInfo | undefined>;
  /**
   * Every item in the table, to assert what was (not) stored: what requests store, without what
   * the dispatcher derives from it in the background (feed, deliveries, the change log), unless
   * `derived` is asked for.
   */
  items(options?: { derived?: boolean; keyUse?: boolean }): Promise<Record<string, unknown>[]>;
  /** The local identity provider's issuer, and where it sends people back (the console). */
  identity: { issuer: string; redirectUri: string };
  /** Adds a person of the local identity provider, with a password of their own. */
  createPerson(publisherId: string, role: Role): Promise<{ sub: string; email: string; password: string }>;
  /** Disables a person of the local identity provider. */
  disablePerson(email: string): Promise<void>;
  /** Waits until every change made so far has been dispatched (feed appended, deliveries queued, records pruned). */
  settle(): Promise<void>;
  /** Waits until every export job queued so far has run to its end (done or failed), retries included. */
  exportsSettled(): Promise<void>;
  /** Sets the API's and its dispatcher's clock `offsetMs` ahead of the wall clock (undone by close). */
  setClockOffset(offsetMs: number): void;
  close(): Promise<void>;
}

/** The partitions the dispatcher writes in the background (lib/storage/keys.ts). */
const DERIVED = [
  partitions.feed,
  partitions.delivery,
  partitions.changeLog,
  partitions.directory,
  partitions.directoryMarker,
  partitions.gamesUsed,
  partitions.report,
  partitions.reportMarker,
];

export const startTestApi = async (
  options: {
    env?: NodeJS.ProcessEnv;
    events?: boolean;
    /**
     * Whether people sign in: the local identity provider and the console it sends them back to.
     * Off by default: most suites call with keys, and the provider is the costliest part of a start.
     */
    people?: boolean;
    /** How long each export job run is told it has (LocalApiOptions.exportRunMs). */
    exportRunMs?: number;
  } = {},
): Promise<TestApi> => {
  // test/node24/run.ts asks for the runtime's major: a run on any other Node must not pass for it.
  const major = process.env.EXPECT_NODE_MAJOR;
  if (major && process.versions.node.split('.')[0] !== major)
    throw new Error(`expected Node ${major}, running ${process.version}`);
  const bundles = process.env.API_BUNDLES;
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  // DynamoDB Local beside the browser pass on two cores can take seconds to answer a sound request:
  // the 2-second attempt of production (lib/config.ts) would turn that into a 503 the suite did
  // not ask for. A fault a suite wants, it injects.
  const storeEnv = endpoint
    ? {
        DYNAMODB_ENDPOINT: endpoint,
        TABLE_NAME: `test-${randomUUID()}`,
        DYNAMODB_REQUEST_TIMEOUT_MS: '10000',
      }
    : { DYNAMODB_ENDPOINT: '', TABLE_NAME: '', DATA_DIR: ':memory:' };
  const api = await startLocalApi({
    port: 0,
    // The suites read the feed right after settle(): the feed's one-second cache of pages
    // (lib/domain/feed-cache.ts) is off unless a test turns it on (feed-retention.test.ts does).
    env: { ...process.env, ...storeEnv, FEED_CACHE_MS: '0', ...options.env },
    ...(bundles ? { bundles } : {}),
    ...(options.events === undefined ? {} : { events: options.events }),
    ...(options.exportRunMs === undefined ? {} : { exportRunMs: options.exportRunMs }),
    ...(options.people ? {} : { identityPort: false as const, console: false }),
  });
  // The storage client is bound to the store the API chose (lib/config.ts), at call time.
  const tableName = api.store.tableName;
  let personCount = 0;

  const request = async (method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key !== undefined) headers.Authorization = `Bearer ${opts.key}`;
    if (opts.game !== undefined) headers['X-Game-Id'] = opts.game;
    let body: string | Buffer | undefined = opts.rawBody;
    if (body === undefined && opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(`${api.url}${path}`, { method, headers, body });
    const text = await res.text();
    checkResponse({ method, path, status: res.status, headers: res.headers, text });
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  const items = async ({ derived = false, keyUse = false } = {}) => {
    const all: Record<string, unknown>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await dynamo.send(
        new ScanCommand({ TableName: tableName, ExclusiveStartKey, ConsistentRead: true }),
      );
      all.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    const kept = derived
      ? all
      : all.filter((item) => !DERIVED.some((prefix) => String(item.pk).startsWith(prefix)));
    // A key's last use (`last_used_at`, lib/domain/api-keys.ts) is noted by the authorizer on any
    // request it lets through, a refused one too: bookkeeping, not what the request stored, so
    // "nothing stored" compares the items without it unless asked (`keyUse`).
    return keyUse
      ? kept
      : kept.map((item) => {
          if (!String(item.pk).startsWith(partitions.apiKey) || !('last_used_at' in item)) return item;
          const { last_used_at: _noted, ...rest } = item;
          return rest;
        });
  };

  return {
    url: api.url,
    request,
    createKey: (publisherId, name, grants) => createApiKey(publisherId, name, grants),
    revokeKey: (keyId) => revokeApiKey(keyId),
    items,
    identity: { issuer: api.identity?.issuer ?? '', redirectUri: api.consoleUrl ?? `${api.url}/console/` },
    createPerson: async (publisherId, role) => {
      personCount += 1;
      const email = `${role}-${personCount}-${randomUUID().slice(0, 8)}@${publisherId}.example`;
      const password = people.newPassword();
      const made = await people.createLocalPerson({ email, publisher_id: publisherId, role }, password);
      return { sub: made.sub, email, password };
    },
    disablePerson: async (email) => {
      await people.disableLocalPerson(email);
    },
    settle: async () => api.events?.drain(),
    exportsSettled: () => api.exportJobs.drain(),
    setClockOffset: (offsetMs) => api.setClockOffset(offsetMs),
    close: async () => {
      api.setClockOffset(0);
      await api.close();
    },
  };
};
