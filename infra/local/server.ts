import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ConsoleSignIn, DEFAULT_IDLE_MINUTES } from '@kernel/sign-in';
import { setClockOffset } from '../../lib/clock';
import { configureSettings, type Settings, settingsFrom } from '../../lib/config';
import {
  authorizerFunction,
  exportJobFunction,
  handlerEntry,
  type RateLimits,
  routes,
} from '../../lib/routes';
import { type LocalDeliveryQueue, useLocalDeliveryQueue } from '../../lib/storage/delivery-queue';
import { bundleLoader } from './bundles';
import { type ChangeRecorder, startChangeRecorder } from './change-log';
import { consoleListener } from './console';
import type { LocalEvents } from './events';
import { startLocalEventsThread } from './events-thread';
import { type ExportJobHandler, type LocalExportJobs, startLocalExportJobs } from './export-jobs';
import { type AuthorizerHandler, answerClientError, createGateway, type ProxyHandler } from './gateway';
import type { LocalIdentity } from './identity';
import { rateLimitsFrom } from './rate-limits';
import { ensureTable, openStore, publishApiUrl, type Store, useStore } from './store';
import { startTtlSweeper, type TtlSweeper, ttlSweepSecondsFrom } from './ttl-sweeper';

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
  /**
   * Whether to record changes and dispatch events (default true). Off only for tests that drive
   * the dispatcher themselves (test/robustness/dispatch-faults.test.ts).
   */
  events?: boolean;
  /** Whether to build and serve the moderator console at /console/ (default true). */
  console?: boolean;
  /**
   * The local identity provider (./identity.ts), on this port (0: any free one); false for none
   * (only API keys are accepted then). Default: on a free port.
   */
  identityPort?: number | false;
  /** How long the local provider's access tokens live (default 900 s, as deployed). */
  accessTokenSeconds?: number;
  /** Minutes without input before the console signs out (DEFAULT_IDLE_MINUTES). */
  idleMinutes?: number;
  /**
   * A synthesized cloud assembly (`cdk synth -o <dir>`) to serve instead of the TypeScript
   * sources: every route's handler, the authorizer, and the events thread's dispatcher and sender,
   * each the very bundle `cdk deploy` uploads (./bundles.ts).
   */
  bundles?: string;
  /**
   * How long each run of an export job is told it has (default the deployed function's 15
   * minutes): a test shortens it, so that a job queues itself again after each part.
   */
  exportRunMs?: number;
}

export interface LocalApi {
  url: string;
  /** Where the moderator console is served (undefined when it is not). */
  consoleUrl: string | undefined;
  /** The local identity provider's issuer (undefined when it does not run). */
  identity: LocalIdentity | undefined;
  store: Store;
  /** The settings this server bound (lib/config.ts), its storage the store's. */
  settings: Settings;
  tableCreated: boolean;
  /** The local change log's dispatcher; absent over a deployed table (its stream does that). */
  events: LocalEvents | undefined;
  /** The export jobs' runner, files and download URLs (./export-jobs.ts). */
  exportJobs: LocalExportJobs;
  /**
   * Moves the clock (lib/clock.ts) of this process and of the events thread by `offsetMs` from the
   * wall clock (0: the wall clock again): a test sets time forward instead of waiting for it.
   */
  setClockOffset(offsetMs: number): void;
  close(): Promise<void>;
}

const sourceModule = (handler: string) =>
  import(new URL(`../../${handlerEntry(handler)}`, import.meta.url).href);

export const startLocalApi = async (options: LocalApiOptions = {}): Promise<LocalApi> => {
  const env = options.env ?? process.env;
  // Read before the store opens: a bad setting fails the start with nothing to clean up.
  const publisherLimits = options.publisherLimits ?? rateLimitsFrom(env);
  // Every setting of the handlers and the events thread (lib/config.ts), bound below with the
  // store; and the local time to live's interval.
  const parsed = settingsFrom(env);
  const sweepSeconds = ttlSweepSecondsFrom(env);
  const store = await openStore({ env, publish: true });
  let sweeper: TtlSweeper | undefined;
  let recorder: ChangeRecorder | undefined;
  let events: LocalEvents | undefined;
  let localQueue: LocalDeliveryQueue | undefined;
  let identity: LocalIdentity | undefined;
  let exportJobs: LocalExportJobs | undefined;
  try {
    const tableCreated = store.embedded || store.endpoint ? await ensureTable(store) : false;
    // Over a local store, writes pass the change log's recorder (the local stream); the API and
    // the dispatcher reach the store through it.
    if (store.endpoint && options.events !== false)
      recorder = await startChangeRecorder({ endpoint: store.endpoint, tableName: store.tableName });
    // Development mode for webhooks: loopback http:// receivers are allowed unless
    // WEBHOOK_ALLOW_LOOPBACK says otherwise; the retry schedule follows WEBHOOK_RETRY_BASE_MS.
    const settings: Settings = useStore(recorder ? { ...store, endpoint: recorder.endpoint } : store, {
      ...parsed,
      webhookAllowLoopback: env.WEBHOOK_ALLOW_LOOPBACK === undefined ? true : parsed.webhookAllowLoopback,
    });
    if (recorder && store.endpoint) {
      events = await startLocalEventsThread({
        recorder,
        storeEndpoint: store.endpoint,
        tableName: store.tableName,
        settings,
        bundles: options.bundles,
      });
      // The API's handlers that queue a delivery (a webhook's test event) queue it on this thread's timers.
      const started = events;
      localQueue = async (refs, dueAt, attempt) => started.enqueue(refs, dueAt, attempt);
      useLocalDeliveryQueue(localQueue);
    }
    // Neither local store applies time to live: the sweeper stands in for it (over a real AWS
    // table, with no endpoint, DynamoDB does).
    if (store.endpoint) sweeper = startTtlSweeper(sweepSeconds);
    const load = options.bundles ? bundleLoader(options.bundles) : sourceModule;
    const handlers = new Map<string, ProxyHandler>();
    for (const route of routes) handlers.set(route.id, (await load(route.handler)).handler as ProxyHandler);
    const authorizer = (await load(authorizerFunction.handler)).handler as AuthorizerHandler;
    // Export jobs run here, their files beside the store, their URLs this server's.
    let baseUrl = '';
    exportJobs = await startLocalExportJobs({
      dataDir: store.dataDir,
      baseUrl: () => baseUrl,
      handler: (await load(exportJobFunction.handler)).handler as ExportJobHandler,
      ...(options.exportRunMs === undefined ? {} : { runMs: options.exportRunMs }),
      // The jobs a stopped server left running go on (a local store only: never a scan of AWS's).
      resume: Boolean(store.endpoint),
    });
    const exportFiles = exportJobs;

    const gateway = createGateway({
      routes,
      handlers,
      authorizer,
      authorizerCacheSeconds: options.authorizerCacheSeconds ?? 0,
      publisherLimits,
    });
    // The moderator console is served at /console/ beside the API, built once here.
    let signIn: ConsoleSignIn | null = null;
    const consolePage = options.console === false ? () => false : consoleListener(undefined, () => signIn);
    const server: Server = createServer((req, res) => {
      if (!exportFiles.listener(req, res) && !consolePage(req, res)) gateway(req, res);
    });
    server.keepAliveTimeout = 5_000;
    server.on('clientError', answerClientError);
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(options.port ?? 3000, options.host ?? '127.0.0.1', () => done());
    });
    const { address, port } = server.address() as AddressInfo;
    const url = `http://${address}:${port}`;
    const unpublish = publishApiUrl(store, url);
    const consoleUrl = `http://${address}:${port}/console/`;
    baseUrl = `http://${address}:${port}`;
    // People sign in at the local provider; the authorizer reads its settings at its next call.
    if (options.identityPort !== false) {
      // Loaded only when people sign in: the provider is the heaviest module of a start.
      const { startLocalIdentity } = await import('./identity');
      identity = await startLocalIdentity({
        port: options.identityPort ?? 0,
        host: address,
        consoleUrl,
        accessTokenSeconds: options.accessTokenSeconds,
      });
      // ...and the people routes manage the local provider's people.
      configureSettings({
        ...settings,
        identityProvider: JSON.stringify(identity.settings),
        peopleDirectory: { kind: 'local' },
      });
      signIn = { ...identity.console, idle_minutes: options.idleMinutes ?? DEFAULT_IDLE_MINUTES };
    }
    return {
      url,
      consoleUrl: options.console === false ? undefined : consoleUrl,
      identity,
      store,
      settings,
      tableCreated,
      events,
      exportJobs,
      setClockOffset: (offsetMs) => {
        setClockOffset(offsetMs);
        events?.setClockOffset(offsetMs);
      },
      // Stop accepting, let requests in flight finish, stop dispatching, then close the store
      // (which flushes it). What was not dispatched yet is in the change log for the next start.
      close: async () => {
        await new Promise<void>((done) => {
          server.close(() => done());
          server.closeIdleConnections();
        });
        unpublish();
        await identity?.close();
        await exportFiles.close();
        await sweeper?.close();
        await events?.close();
        if (localQueue) useLocalDeliveryQueue(undefined);
        await recorder?.close();
        await store.close();
      },
    };
  } catch (error) {
    await identity?.close();
    await exportJobs?.close();
    await sweeper?.close();
    await events?.close();
    await recorder?.close();
    await store.close();
    throw error;
  }
};
