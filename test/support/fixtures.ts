import { GetCommand, PutCommand, paginateQuery, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { appealQueuePartition, devicePartition, idempotencyKey, partitions } from '../../lib/storage/keys';
import { type ApiResponse, type RequestOptions, startTestApi, type TestApi } from './api';

/**
 * What the integration and robustness suites set up, written once: the test API with a key per
 * publisher, ban bodies, creating and revoking through the API, and reading back what was stored.
 * Fault injection, the 503 a storage failure must give and the fail-then-retry helper are in
 * ./faults.ts.
 */

/* ------------------------------------------------------------------------------------------------ */
/* Publishers                                                                                       */

/**
 * Starts the test API (./api.ts) and makes one key for each publisher, in order.
 * The caller closes `api` (afterAll).
 */
export const startWithPublishers = async <P extends string>(
  publishers: readonly P[],
  options: Parameters<typeof startTestApi>[0] = {},
): Promise<{ api: TestApi; keys: Record<P, string> }> => {
  const api = await startTestApi(options);
  const keys = {} as Record<P, string>;
  for (const publisher of publishers) keys[publisher] = (await api.createKey(publisher)).api_key;
  return { api, keys };
};

/** One publisher: the test API and a key of `publisher`. The caller closes `api`. */
export const startWithPublisher = async (
  publisher: string,
  options: Parameters<typeof startTestApi>[0] = {},
): Promise<{ api: TestApi; key: string }> => {
  const { api, keys } = await startWithPublishers([publisher], options);
  return { api, key: keys[publisher] as string };
};

export const PUBLISHER_A = 'pub-a';
export const PUBLISHER_B = 'pub-b';

/**
 * The two-publisher setup most suites share: the test API, a key of `pub-a` and a key of `pub-b`.
 *
 *   beforeAll(async () => ({ api, keyA, keyB } = await startTwoPublishers()));
 *   afterAll(() => api?.close());
 */
export const startTwoPublishers = async (
  a: string = PUBLISHER_A,
  b: string = PUBLISHER_B,
): Promise<{ api: TestApi; keyA: string; keyB: string }> => {
  const { api, keys } = await startWithPublishers([a, b]);
  return { api, keyA: keys[a] as string, keyB: keys[b] as string };
};

/* ------------------------------------------------------------------------------------------------ */
/* Bodies                                                                                           */

export type Body = Record<string, unknown>;

/** A valid create-ban body (a game cheat ban of `device-1`), with `overrides` on top. */
export const banBody = (overrides: Body = {}): Body => ({
  device_id: 'device-1',
  ban_type: 'cheat',
  scope: 'game',
  reason_code: 'aimbot',
  ...overrides,
});

/** A valid global social ban body of `device-1`, with `overrides` on top (the robustness suites' ban). */
export const socialBanBody = (overrides: Body = {}): Body =>
  banBody({ ban_type: 'social', scope: 'global', reason_code: 'toxicity', ...overrides });

/* ------------------------------------------------------------------------------------------------ */
/* Creating and revoking through the API                                                            */

/** POST /v1/bans as `key` in `game`; the answer, whatever it is. */
export const postBan = (api: TestApi, key: string, game: string, body: unknown) =>
  api.request('POST', '/v1/bans', { key, game, body });

/**
 * Creates a ban that must be created (201) and gives its id: a second ban of the same terms too
 * (`allow_duplicate`, unless the body says otherwise), as the suites' set-ups make them.
 */
export const createBan = async (api: TestApi, key: string, game: string, body: Body) => {
  const res = await postBan(api, key, game, { allow_duplicate: true, ...body });
  expect(res.status).toBe(201);
  return res.body.ban_id as number;
};

/** POST /v1/device/{device}/bans/{banId}/revoke as `key` in `game`; the answer, whatever it is. */
export const revokeBan = (
  api: TestApi,
  key: string,
  game: string,
  device: string,
  banId: number | string,
  body: unknown,
) => api.request('POST', `/v1/device/${device}/bans/${banId}/revoke`, { key, game, body });

/** Every social ban of a device that the key's publisher sees (all statuses, every page). */
export const listAll = async (api: TestApi, key: string, game: string, device: string) => {
  const res = await api.request('GET', `/v1/device/${encodeURIComponent(device)}/bans/social?status=all`, {
    key,
    game,
  });
  expect(res.status).toBe(200);
  expect(res.body.next_cursor).toBeNull();
  return res.body as { counts: { active: number; inactive: number; total: number }; items: any[] };
};

/* ------------------------------------------------------------------------------------------------ */
/* What was stored                                                                                  */

/** The storage client the API in this process uses; only valid once startTestApi() has chosen the store. */
const storage = () => import('../../lib/storage/client');

/** The ban items stored for a device (a Query, not a scan: the suites make thousands of items). */
export const storedBans = async (device: string) => {
  const { dynamo, tableName: boundTable } = await storage();
  const tableName = boundTable();
  const { Items } = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': devicePartition(device) },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
};

/** The item stored under `key`, if any (a consistent read). */
export const storedItem = async (key: { pk: string; sk: string }) => {
  const { dynamo, tableName: boundTable } = await storage();
  const tableName = boundTable();
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
  );
  return Item;
};

/** Stores an item as it is, for a state no request leaves behind on its own (a request cut short). */
export const storeItem = async (item: { pk: string; sk: string } & Record<string, unknown>) => {
  const { dynamo, tableName: boundTable } = await storage();
  const tableName = boundTable();
  await dynamo.send(new PutCommand({ TableName: tableName, Item: item }));
};

/** The idempotency record of (publisher, game, key), if stored. */
export const storedRecord = (publisher: string, game: string, key: string) =>
  storedItem(idempotencyKey(publisher, game, key));

/**
 * Every item of partition `pk`, through the SDK's paginator (consistent reads); with `skFrom`, only
 * those whose sort key is that or later; `newestFirst` reads the sort keys backwards.
 */
export const storedPartition = async (
  pk: string,
  options: { skFrom?: string; newestFirst?: boolean } = {},
): Promise<Array<Record<string, any>>> => {
  const { dynamo, tableName: boundTable } = await storage();
  const items: Array<Record<string, any>> = [];
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: boundTable(),
      KeyConditionExpression: options.skFrom === undefined ? 'pk = :pk' : 'pk = :pk AND sk >= :from',
      ExpressionAttributeValues: {
        ':pk': pk,
        ...(options.skFrom === undefined ? {} : { ':from': options.skFrom }),
      },
      ScanIndexForward: !options.newestFirst,
      ConsistentRead: true,
    },
  );
  for await (const page of pages) items.push(...(page.Items ?? []));
  return items;
};

/** The entries of an appeal in its owner's queue (`OPEN#…`, `DONE#…`). */
export const queueEntries = async (owner: string, appealId: string) =>
  (await storedPartition(appealQueuePartition(owner))).filter((entry) =>
    String(entry.sk).endsWith(`#${appealId}`),
  );

/** Every stored copy of an appeal (the record, its queue entries' copies) that still holds a player's text. */
export const appealTextsStored = async (api: TestApi, appealId: string) =>
  (await api.items())
    .filter((e) => e.pk === `${partitions.appeal}${appealId}` || String(e.sk).endsWith(`#${appealId}`))
    .map((e) => (e.sk === 'APPEAL' ? e : e.appeal) as Record<string, unknown>)
    .filter((copy) => copy.message !== undefined || copy.contact !== undefined);

/* ------------------------------------------------------------------------------------------------ */
/* Answers                                                                                          */

const ERROR_CODES = new Set([
  'invalid_json',
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'cursor_expired',
  'method_not_allowed',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal_error',
  'service_unavailable',
]);

/** Whether a body is exactly the error envelope of the contract, nothing more. */
export const isErrorEnvelope = (body: any): boolean => {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  if (Object.keys(body).sort().join() !== 'error,request_id' || typeof body.request_id !== 'string')
    return false;
  const { error } = body;
  if (!error || typeof error !== 'object') return false;
  const keys = Object.keys(error).filter((k) => !['code', 'message', 'details'].includes(k));
  if (keys.length > 0 || !ERROR_CODES.has(error.code) || typeof error.message !== 'string') return false;
  return (
    error.details === undefined ||
    (Array.isArray(error.details) &&
      error.details.every(
        (d: any) =>
          d && typeof d.field === 'string' && typeof d.issue === 'string' && Object.keys(d).length === 2,
      ))
  );
};

/* ------------------------------------------------------------------------------------------------ */

let sequence = 0;

/**
 * How a property over the real API runs: in `npm test` a third of its full depth (at least 2),
 * with a seed printed so a failure or a run can be repeated; `npm run test:deep` (PROPERTY_DEPTH=
 * full) makes every run, on DynamoDB Local. PROPERTY_SEED=<n> repeats a printed seed.
 */
export const propertyRuns = (full: number) =>
  process.env.PROPERTY_DEPTH === 'full' ? full : Math.max(2, Math.round(full / 3));

/** fast-check's options for a property over the real API: its runs and a printed seed. */
export const propertyOptions = (name: string, full: number) => {
  const seed = Number(process.env.PROPERTY_SEED) || Math.floor(Math.random() * 2 ** 31);
  const numRuns = propertyRuns(full);
  console.info(
    `property ${name}: ${numRuns} of ${full} runs, seed ${seed} (repeat: PROPERTY_SEED=${seed} PROPERTY_DEPTH=full)`,
  );
  return { numRuns, seed };
};

/** A name no other case of this run uses, so each case reads only its own data. */
export const unique = (prefix: string) => `${prefix}-${++sequence}-${Math.random().toString(36).slice(2, 8)}`;

export type { ApiResponse, RequestOptions, TestApi };
