import * as z from 'zod/mini';

/**
 * Every setting of the service, read from an environment once and bound at call time, never at
 * import. The entry points (the route handlers' chain in lib/http, the authorizer, the events
 * dispatcher and webhook sender, infra/local, the CLIs) call `settingsFrom(env)` and `configure()`;
 * the domain reads `settings()` and the storage what `configureStorage()` bound. In Lambda, where
 * nothing binds first, `settings()` parses `process.env` on first use (and so does the storage
 * client, from these settings). Nothing below lib/http reads `process.env` but this module
 * (test/unit/layers.test.ts).
 *
 * The names are the deployed stack's Lambda environment variables (infra/stack), unchanged.
 */

export const DEFAULT_EVENT_RETENTION_DAYS = 30;
/** Ten years: far past any use, and inside DynamoDB's time to live (a ttl is seconds, any future date). */
export const MAX_EVENT_RETENTION_DAYS = 3650;
export const DEFAULT_FEED_CACHE_MS = 1000;
/** A minute: the feed cache is for bursts of identical polls, never a store of its own. */
export const MAX_FEED_CACHE_MS = 60_000;
/** The delay before a webhook delivery's first retry (lib/domain/deliveries.ts). */
export const DEFAULT_RETRY_BASE_MS = 30_000;

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogSetting = (typeof LOG_LEVELS)[number];

const blank = (raw: string | number | undefined): raw is undefined | '' =>
  raw === undefined || (typeof raw === 'string' && raw.trim() === '');

/** `EVENT_RETENTION_DAYS` as days: a positive number (fractions allowed, so tests can keep events seconds). */
export const parseRetentionDays = (raw: string | number | undefined): number => {
  if (blank(raw)) return DEFAULT_EVENT_RETENTION_DAYS;
  const days = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isFinite(days) || days <= 0 || days > MAX_EVENT_RETENTION_DAYS)
    throw new Error(
      `EVENT_RETENTION_DAYS must be a number of days above 0 and at most ${MAX_EVENT_RETENTION_DAYS}, got ${String(raw)}`,
    );
  return days;
};

/** `FEED_CACHE_MS`: milliseconds a feed read is shared for (0: every poll reads the table). */
export const parseFeedCacheMs = (raw: string | undefined): number => {
  if (blank(raw)) return DEFAULT_FEED_CACHE_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_FEED_CACHE_MS)
    throw new Error(`FEED_CACHE_MS must be an integer from 0 to ${MAX_FEED_CACHE_MS}, got ${raw}`);
  return ms;
};

/**
 * `IMPORT_BACKLOG_ROWS`: how many of a publisher's imported rows may wait for their events (the
 * feed, the live set, the rollups) before its next import batch is asked to wait (a 429; 0: never).
 * Enough to keep the dispatcher busy while a waiting client's Retry-After runs out, few enough that
 * a ban made meanwhile reaches the feed after seconds, not after the whole import
 * (lib/domain/import-backlog.ts).
 */
export const DEFAULT_IMPORT_BACKLOG_ROWS = 1_000;
export const parseImportBacklogRows = (raw: string | undefined): number => {
  if (blank(raw)) return DEFAULT_IMPORT_BACKLOG_ROWS;
  const rows = Number(raw);
  if (!Number.isInteger(rows) || rows < 0 || rows > 10_000_000)
    throw new Error(`IMPORT_BACKLOG_ROWS must be an integer from 0 to 10000000, got ${raw}`);
  return rows;
};

/**
 * `DYNAMODB_REQUEST_TIMEOUT_MS`: how long one attempt at the store may take before the SDK gives
 * it up and tries again. Two seconds against DynamoDB, which answers in milliseconds: a hung
 * connection becomes a 503 well inside a function's timeout. An emulator on a busy machine
 * (DynamoDB Local under the test suite, two cores) can take longer to answer a sound request.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 2_000;
export const parseRequestTimeoutMs = (raw: string | undefined): number => {
  if (blank(raw)) return DEFAULT_REQUEST_TIMEOUT_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 100 || ms > 30_000)
    throw new Error(`DYNAMODB_REQUEST_TIMEOUT_MS must be an integer from 100 to 30000, got ${raw}`);
  return ms;
};

/** The most lines one part file of an export job holds (lib/domain/export-job-run.ts). */
export const DEFAULT_EXPORT_PART_ITEMS = 100_000;
/** `EXPORT_PART_ITEMS`: lines per part file of an export job, 1 to 100,000 (fewer: smaller files, more of them). */
export const parseExportPartItems = (raw: string | undefined): number => {
  if (blank(raw)) return DEFAULT_EXPORT_PART_ITEMS;
  const items = Number(raw);
  if (!Number.isInteger(items) || items < 1 || items > DEFAULT_EXPORT_PART_ITEMS)
    throw new Error(
      `EXPORT_PART_ITEMS must be an integer from 1 to ${DEFAULT_EXPORT_PART_ITEMS}, got ${raw}`,
    );
  return items;
};

/** `WEBHOOK_RETRY_BASE_MS` (documented): tests and local runs shorten the whole retry schedule with it. */
export const parseRetryBaseMs = (raw: string | undefined): number => {
  if (blank(raw)) return DEFAULT_RETRY_BASE_MS;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms <= 0)
    throw new Error(`WEBHOOK_RETRY_BASE_MS must be a number of milliseconds above 0, got ${raw}`);
  return ms;
};

const parseLogLevel = (raw: string | undefined): LogSetting => {
  const level = (raw ?? '').trim().toLowerCase();
  if (level === '') return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${raw}`);
  return level as LogSetting;
};

const optionalText = (raw: string | undefined) => (blank(raw) ? undefined : raw.trim());

/** Where the people routes find the publisher's people: the local provider's, or a Cognito pool. */
export type PeopleDirectory = { kind: 'local' } | { kind: 'cognito'; userPoolId: string };

/** `PEOPLE_DIRECTORY`: `local` (npm start) or `cognito:<user pool id>` (the stack); none: people are managed elsewhere. */
export const parsePeopleDirectory = (raw: string | undefined): PeopleDirectory | undefined => {
  if (blank(raw)) return undefined;
  const value = raw.trim();
  if (value === 'local') return { kind: 'local' };
  const pool = /^cognito:([\w-]+_[0-9a-zA-Z]+)$/.exec(value)?.[1];
  if (pool) return { kind: 'cognito', userPoolId: pool };
  throw new Error(`PEOPLE_DIRECTORY must be local or cognito:<user pool id>, got ${raw}`);
};

/** One variable: absent or a string, parsed by `parse`, whose error is the issue's message. */
const variable = <T>(parse: (raw: string | undefined) => T) =>
  z.pipe(
    z.optional(z.string()),
    z.transform((raw: string | undefined, ctx) => {
      try {
        return parse(raw);
      } catch (error) {
        ctx.issues.push({ code: 'custom', input: raw, message: (error as Error).message });
        return z.NEVER;
      }
    }),
  );

export const settingsSchema = z.object({
  /** Any DynamoDB-compatible endpoint (a local store); none: AWS itself. */
  DYNAMODB_ENDPOINT: variable(optionalText),
  DYNAMODB_REQUEST_TIMEOUT_MS: variable(parseRequestTimeoutMs),
  /** The table (the stack passes it to every function that touches storage). */
  TABLE_NAME: variable(optionalText),
  AWS_REGION: variable(optionalText),
  /** Only whether it is there: a local endpoint without AWS credentials gets placeholder ones. */
  AWS_ACCESS_KEY_ID: variable(optionalText),
  /** The webhook deliveries' SQS queue (the stack's DELIVERY_QUEUE_URL). */
  DELIVERY_QUEUE_URL: variable(optionalText),
  /** The export jobs' SQS queue (the stack's EXPORT_QUEUE_URL, lib/storage/export-queue.ts). */
  EXPORT_QUEUE_URL: variable(optionalText),
  /** The export jobs' S3 bucket (the stack's EXPORT_BUCKET, lib/storage/export-files.ts). */
  EXPORT_BUCKET: variable(optionalText),
  EXPORT_PART_ITEMS: variable(parseExportPartItems),
  /** Ours (`silent` turns logging off, as the tests do), else Lambda's application log level. */
  LOG_LEVEL: variable(optionalText),
  AWS_LAMBDA_LOG_LEVEL: variable(optionalText),
  /** The people's identity provider, JSON (lib/domain/people.ts parses it); none: keys only. */
  IDENTITY_PROVIDER: variable(optionalText),
  EVENT_RETENTION_DAYS: variable(parseRetentionDays),
  FEED_CACHE_MS: variable(parseFeedCacheMs),
  IMPORT_BACKLOG_ROWS: variable(parseImportBacklogRows),
  WEBHOOK_RETRY_BASE_MS: variable(parseRetryBaseMs),
  /** `1`: loopback http:// webhook receivers are allowed (the local server's development mode). */
  WEBHOOK_ALLOW_LOOPBACK: variable((raw) => raw === '1'),
  /** Where the people routes manage people (parsePeopleDirectory). */
  PEOPLE_DIRECTORY: variable(parsePeopleDirectory),
});

/** Where the storage client connects (lib/storage/client.ts binds its client to it). */
export interface StorageConfig {
  tableName: string;
  /** Any DynamoDB-compatible endpoint; none: AWS itself. */
  endpoint?: string | undefined;
  /** One attempt's timeout (DYNAMODB_REQUEST_TIMEOUT_MS, parseRequestTimeoutMs); default 2 s. */
  requestTimeoutMs?: number;
  region?: string | undefined;
  /** Whether AWS credentials are at hand (else a local endpoint gets placeholder ones). */
  awsCredentials?: boolean;
  /** The webhook deliveries' SQS queue (lib/storage/delivery-queue.ts). */
  queueUrl?: string | undefined;
}

export interface Settings {
  storage: StorageConfig;
  logLevel: LogSetting;
  identityProvider: string | undefined;
  eventRetentionDays: number;
  feedCacheMs: number;
  /** Imported rows that may wait for their events before an import is asked to wait (0: no limit). */
  importBacklogRows: number;
  webhookRetryBaseMs: number;
  webhookAllowLoopback: boolean;
  peopleDirectory: PeopleDirectory | undefined;
  /** Export jobs (lib/domain/export-jobs.ts): their queue and bucket when deployed, and their parts' size. */
  exportJobs: { queueUrl: string | undefined; bucket: string | undefined; partItems: number };
}

/** The settings an environment names, each checked; every bad one is named in the one error thrown. */
export const settingsFrom = (env: Readonly<Record<string, string | undefined>>): Settings => {
  const parsed = z.safeParse(settingsSchema, env);
  if (!parsed.success)
    throw new Error(
      `invalid settings: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  const v = parsed.data;
  return {
    storage: {
      tableName: v.TABLE_NAME ?? '',
      endpoint: v.DYNAMODB_ENDPOINT,
      requestTimeoutMs: v.DYNAMODB_REQUEST_TIMEOUT_MS,
      region: v.AWS_REGION,
      awsCredentials: v.AWS_ACCESS_KEY_ID !== undefined,
      queueUrl: v.DELIVERY_QUEUE_URL,
    },
    logLevel: parseLogLevel(v.LOG_LEVEL ?? v.AWS_LAMBDA_LOG_LEVEL),
    identityProvider: v.IDENTITY_PROVIDER,
    eventRetentionDays: v.EVENT_RETENTION_DAYS,
    feedCacheMs: v.FEED_CACHE_MS,
    importBacklogRows: v.IMPORT_BACKLOG_ROWS,
    webhookRetryBaseMs: v.WEBHOOK_RETRY_BASE_MS,
    webhookAllowLoopback: v.WEBHOOK_ALLOW_LOOPBACK,
    peopleDirectory: v.PEOPLE_DIRECTORY,
    exportJobs: { queueUrl: v.EXPORT_QUEUE_URL, bucket: v.EXPORT_BUCKET, partItems: v.EXPORT_PART_ITEMS },
  };
};

/**
 * The bound settings live on a global symbol, so that the bundled handlers the local server loads
 * (each with its own copy of this module) read what the server bound.
 */
const BOUND = Symbol.for('device-ban-service.settings');
const slot = globalThis as { [BOUND]?: Settings };

/**
 * Binds these settings for this process, the storage client to their store (a new store: the
 * storage client, and what is cached per store, are made afresh for it on first use).
 */
export const configure = (settings: Settings): Settings => {
  slot[BOUND] = settings;
  return settings;
};

/** Binds these settings but for their storage: the storage client stays bound where it is. */
export const configureSettings = (next: Settings): Settings =>
  configure({ ...next, storage: slot[BOUND]?.storage ?? next.storage });

/** Whether anything bound settings yet. */
export const isConfigured = () => slot[BOUND] !== undefined;

/** Binds the environment's settings unless something bound settings already (Lambda's entry points). */
export const configureFromEnvironment = (env: NodeJS.ProcessEnv = process.env) => {
  if (!isConfigured()) configure(settingsFrom(env));
};

/** The bound settings; in Lambda, where nothing bound them, this process's environment's, bound on first use. */
export const settings = (): Settings => {
  slot[BOUND] ??= settingsFrom(process.env);
  return slot[BOUND];
};
