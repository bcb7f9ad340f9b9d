import type { Body, KeyedOperationId, PathParams, Query, Result } from './operation-types.js';
import { EventFeed, Paged } from './paging.js';
import { retryRules } from './retry.js';
import { type CallOptions, type HttpRequest, send, type TransportSettings } from './transport.js';

export interface ClientOptions {
  /** The API's address, with the stage's path if it has one: `https://api.example.com`, `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** The publisher's API key (`bsk_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** The fetch to call; the platform's global `fetch` by default. */
  fetch?: typeof fetch;
  /** Each call's total time, all attempts and waits included, in ms (default 10,000). */
  deadlineMs?: number;
  /** At most this many retries of a call a repeat cannot harm (default 4). */
  retries?: number;
  /** The first retry's wait is drawn from [0, baseDelayMs) (default 100); it doubles with each retry. */
  baseDelayMs?: number;
  /** A retry's wait is drawn from at most [0, maxDelayMs) (default 5,000), or is Retry-After if longer. */
  maxDelayMs?: number;
  /** The random source of the jitter, [0, 1) (default Math.random). */
  random?: () => number;
}

type Page<K extends KeyedOperationId> = Result<K>;
type Item<K extends KeyedOperationId> = Result<K> extends { items: Array<infer I> } ? I : never;

/**
 * One method per route of the API that takes a key, named by its operation id (docs/openapi.json,
 * lib/routes.ts), with the game (`X-Game-Id`) first where the route takes one, then its path
 * parameters, then its body or query as an object, then per-call options. Each resolves with the
 * answer's JSON and rejects with an ApiError. Below them, iterators over the paged listings.
 */
export interface BanClient {
  getPolicy(options?: CallOptions): Promise<Result<'getPolicy'>>;
  updatePolicy(patch: Body<'updatePolicy'>, options?: CallOptions): Promise<Result<'updatePolicy'>>;
  getReasons(options?: CallOptions): Promise<Result<'getReasons'>>;
  putReasons(catalogue: Body<'putReasons'>, options?: CallOptions): Promise<Result<'putReasons'>>;
  putPublisher(profile: Body<'putPublisher'>, options?: CallOptions): Promise<Result<'putPublisher'>>;
  listPublishers(query?: Query<'listPublishers'>, options?: CallOptions): Promise<Result<'listPublishers'>>;
  /** Without `idempotency_key` the client makes one, sent again on each retry of this call. */
  createBan(game_id: string, ban: Body<'createBan'>, options?: CallOptions): Promise<Result<'createBan'>>;
  listSocialBans(
    game_id: string,
    device_id: string,
    query?: Query<'listSocialBans'>,
    options?: CallOptions,
  ): Promise<Result<'listSocialBans'>>;
  listCheatBans(
    game_id: string,
    device_id: string,
    query?: Query<'listCheatBans'>,
    options?: CallOptions,
  ): Promise<Result<'listCheatBans'>>;
  listBans(
    game_id: string,
    device_id: string,
    query?: Query<'listBans'>,
    options?: CallOptions,
  ): Promise<Result<'listBans'>>;
  revokeBan(
    game_id: string,
    device_id: string,
    ban_id: PathParams<'revokeBan'>['ban_id'],
    body: Body<'revokeBan'>,
    options?: CallOptions,
  ): Promise<Result<'revokeBan'>>;
  getEnforcement(
    game_id: string,
    device_id: string,
    options?: CallOptions,
  ): Promise<Result<'getEnforcement'>>;
  getEnforcementBatch(
    game_id: string,
    body: Body<'getEnforcementBatch'>,
    options?: CallOptions,
  ): Promise<Result<'getEnforcementBatch'>>;
  /** One page of what can restrict a device in the game now, with the feed cursor to follow it from. */
  getEnforcementSnapshot(
    game_id: string,
    query?: Query<'getEnforcementSnapshot'>,
    options?: CallOptions,
  ): Promise<Result<'getEnforcementSnapshot'>>;
  createKey(key: Body<'createKey'>, options?: CallOptions): Promise<Result<'createKey'>>;
  listKeys(query?: Query<'listKeys'>, options?: CallOptions): Promise<Result<'listKeys'>>;
  revokeKey(key_id: string, options?: CallOptions): Promise<Result<'revokeKey'>>;
  listAudit(query?: Query<'listAudit'>, options?: CallOptions): Promise<Result<'listAudit'>>;
  eraseDevice(device_id: string, options?: CallOptions): Promise<Result<'eraseDevice'>>;
  listDevices(query?: Query<'listDevices'>, options?: CallOptions): Promise<Result<'listDevices'>>;
  listExpiringBans(
    query?: Query<'listExpiringBans'>,
    options?: CallOptions,
  ): Promise<Result<'listExpiringBans'>>;
  listEvents(
    game_id: string,
    query?: Query<'listEvents'>,
    options?: CallOptions,
  ): Promise<Result<'listEvents'>>;
  createWebhook(webhook: Body<'createWebhook'>, options?: CallOptions): Promise<Result<'createWebhook'>>;
  listWebhooks(options?: CallOptions): Promise<Result<'listWebhooks'>>;
  deleteWebhook(webhook_id: string, options?: CallOptions): Promise<void>;
  listWebhookDeliveries(
    webhook_id: string,
    query?: Query<'listWebhookDeliveries'>,
    options?: CallOptions,
  ): Promise<Result<'listWebhookDeliveries'>>;
  testWebhook(webhook_id: string, options?: CallOptions): Promise<Result<'testWebhook'>>;
  /** Without `idempotency_key` the client makes one, sent again on each retry of this call. */
  createAppeal(
    game_id: string,
    appeal: Body<'createAppeal'>,
    options?: CallOptions,
  ): Promise<Result<'createAppeal'>>;
  listAppeals(query?: Query<'listAppeals'>, options?: CallOptions): Promise<Result<'listAppeals'>>;
  appealStats(options?: CallOptions): Promise<Result<'appealStats'>>;
  getAppeal(appeal_id: string, options?: CallOptions): Promise<Result<'getAppeal'>>;
  decideAppeal(
    appeal_id: string,
    decision: Body<'decideAppeal'>,
    options?: CallOptions,
  ): Promise<Result<'decideAppeal'>>;

  /** Every ban of a device the caller sees from the game (listBans), page after page. */
  bans(
    game_id: string,
    device_id: string,
    query?: Query<'listBans'>,
    options?: CallOptions,
  ): Paged<Item<'listBans'>, Page<'listBans'>>;
  /** The audit trail, newest first (listAudit). */
  auditEvents(query?: Query<'listAudit'>, options?: CallOptions): Paged<Item<'listAudit'>, Page<'listAudit'>>;
  /** The publishers that made global bans, each with its record (listPublishers). */
  publishers(
    query?: Query<'listPublishers'>,
    options?: CallOptions,
  ): Paged<Item<'listPublishers'>, Page<'listPublishers'>>;
  /** The devices the publisher banned, by id prefix (listDevices). */
  devices(
    query?: Query<'listDevices'>,
    options?: CallOptions,
  ): Paged<Item<'listDevices'>, Page<'listDevices'>>;
  /** The bans in force that end soon (listExpiringBans). */
  expiringBans(
    query?: Query<'listExpiringBans'>,
    options?: CallOptions,
  ): Paged<Item<'listExpiringBans'>, Page<'listExpiringBans'>>;
  /** The publisher's keys (listKeys). */
  apiKeys(query?: Query<'listKeys'>, options?: CallOptions): Paged<Item<'listKeys'>, Page<'listKeys'>>;
  /** The appeals queue (listAppeals). */
  appeals(
    query?: Query<'listAppeals'>,
    options?: CallOptions,
  ): Paged<Item<'listAppeals'>, Page<'listAppeals'>>;
  /** One webhook's deliveries, newest event first (listWebhookDeliveries). */
  deliveries(
    webhook_id: string,
    query?: Query<'listWebhookDeliveries'>,
    options?: CallOptions,
  ): Paged<Item<'listWebhookDeliveries'>, Page<'listWebhookDeliveries'>>;
  /**
   * The enforcement snapshot of the game (getEnforcementSnapshot), page after page; each page
   * (`pages()`) also carries the policy and `feed_cursor`, where the feed is to be followed from.
   */
  snapshot(
    game_id: string,
    query?: Query<'getEnforcementSnapshot'>,
    options?: CallOptions,
  ): Paged<Item<'getEnforcementSnapshot'>, Page<'getEnforcementSnapshot'>>;
  /** The change feed of the game from `cursor` (listEvents), read until caught up; see EventFeed. */
  events(
    game_id: string,
    from?: Query<'listEvents'>,
    options?: CallOptions,
  ): EventFeed<Item<'listEvents'>, Page<'listEvents'>>;
}

/**
 * Compile-time half of "every route is a method": an operation of the generated types without a
 * method of BanClient makes this line fail to compile, naming it (test/client checks lib/routes.ts).
 */
export type MissingMethods = Exclude<KeyedOperationId, keyof BanClient>;
const everyOperationIsAMethod: [MissingMethods] extends [never] ? true : MissingMethods = true;
void everyOperationIsAMethod;

const segment = (value: string | number) => encodeURIComponent(String(value));

const withIdempotencyKey = <B extends { idempotency_key?: string }>(body: B): B =>
  body.idempotency_key === undefined ? { ...body, idempotency_key: crypto.randomUUID() } : body;

/** A client of the device ban API for one key. See client/README.md. */
export const createBanClient = (options: ClientOptions): BanClient => {
  if (!options.baseUrl) throw new TypeError('createBanClient: baseUrl is required');
  if (!options.apiKey) throw new TypeError('createBanClient: apiKey is required');
  const settings: TransportSettings = {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    apiKey: options.apiKey,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    deadlineMs: options.deadlineMs ?? 10_000,
    retries: options.retries ?? 4,
    baseDelayMs: options.baseDelayMs ?? 100,
    maxDelayMs: options.maxDelayMs ?? 5_000,
    random: options.random ?? Math.random,
  };

  const call = <K extends KeyedOperationId>(
    operation: K,
    req: Omit<HttpRequest, 'retry'>,
    callOptions: CallOptions | undefined,
  ) =>
    send(settings, { ...req, retry: retryRules[operation] !== 'never' }, callOptions) as Promise<Result<K>>;

  const client: BanClient = {
    getPolicy: (o) => call('getPolicy', { method: 'GET', path: '/v1/policy' }, o),
    updatePolicy: (patch, o) => call('updatePolicy', { method: 'PUT', path: '/v1/policy', body: patch }, o),
    getReasons: (o) => call('getReasons', { method: 'GET', path: '/v1/reasons' }, o),
    putReasons: (catalogue, o) =>
      call('putReasons', { method: 'PUT', path: '/v1/reasons', body: catalogue }, o),
    putPublisher: (profile, o) =>
      call('putPublisher', { method: 'PUT', path: '/v1/publisher', body: profile }, o),
    listPublishers: (query, o) => call('listPublishers', { method: 'GET', path: '/v1/publishers', query }, o),
    createBan: (game, ban, o) =>
      call('createBan', { method: 'POST', path: '/v1/bans', game, body: withIdempotencyKey(ban) }, o),
    listSocialBans: (game, device, query, o) =>
      call(
        'listSocialBans',
        { method: 'GET', path: `/v1/device/${segment(device)}/bans/social`, game, query },
        o,
      ),
    listCheatBans: (game, device, query, o) =>
      call(
        'listCheatBans',
        { method: 'GET', path: `/v1/device/${segment(device)}/bans/cheat`, game, query },
        o,
      ),
    listBans: (game, device, query, o) =>
      call('listBans', { method: 'GET', path: `/v1/device/${segment(device)}/bans`, game, query }, o),
    revokeBan: (game, device, banId, body, o) =>
      call(
        'revokeBan',
        { method: 'POST', path: `/v1/device/${segment(device)}/bans/${segment(banId)}/revoke`, game, body },
        o,
      ),
    getEnforcement: (game, device, o) =>
      call('getEnforcement', { method: 'GET', path: `/v1/device/${segment(device)}/enforcement`, game }, o),
    getEnforcementBatch: (game, body, o) =>
      call('getEnforcementBatch', { method: 'POST', path: '/v1/enforcement/batch', game, body }, o),
    getEnforcementSnapshot: (game, query, o) =>
      call('getEnforcementSnapshot', { method: 'GET', path: '/v1/enforcement/snapshot', game, query }, o),
    createKey: (key, o) => call('createKey', { method: 'POST', path: '/v1/keys', body: key }, o),
    listKeys: (query, o) => call('listKeys', { method: 'GET', path: '/v1/keys', query }, o),
    revokeKey: (keyId, o) =>
      call('revokeKey', { method: 'POST', path: `/v1/keys/${segment(keyId)}/revoke` }, o),
    listAudit: (query, o) => call('listAudit', { method: 'GET', path: '/v1/audit', query }, o),
    eraseDevice: (device, o) =>
      call('eraseDevice', { method: 'POST', path: `/v1/device/${segment(device)}/erase` }, o),
    listDevices: (query, o) => call('listDevices', { method: 'GET', path: '/v1/devices', query }, o),
    listExpiringBans: (query, o) =>
      call('listExpiringBans', { method: 'GET', path: '/v1/bans/expiring', query }, o),
    listEvents: (game, query, o) => call('listEvents', { method: 'GET', path: '/v1/events', game, query }, o),
    createWebhook: (webhook, o) =>
      call('createWebhook', { method: 'POST', path: '/v1/webhooks', body: webhook }, o),
    listWebhooks: (o) => call('listWebhooks', { method: 'GET', path: '/v1/webhooks' }, o),
    deleteWebhook: async (webhookId, o) => {
      await call('deleteWebhook', { method: 'DELETE', path: `/v1/webhooks/${segment(webhookId)}` }, o);
    },
    listWebhookDeliveries: (webhookId, query, o) =>
      call(
        'listWebhookDeliveries',
        { method: 'GET', path: `/v1/webhooks/${segment(webhookId)}/deliveries`, query },
        o,
      ),
    testWebhook: (webhookId, o) =>
      call('testWebhook', { method: 'POST', path: `/v1/webhooks/${segment(webhookId)}/test` }, o),
    createAppeal: (game, appeal, o) =>
      call(
        'createAppeal',
        { method: 'POST', path: '/v1/appeals', game, body: withIdempotencyKey(appeal) },
        o,
      ),
    listAppeals: (query, o) => call('listAppeals', { method: 'GET', path: '/v1/appeals', query }, o),
    appealStats: (o) => call('appealStats', { method: 'GET', path: '/v1/appeals/stats' }, o),
    getAppeal: (appealId, o) =>
      call('getAppeal', { method: 'GET', path: `/v1/appeals/${segment(appealId)}` }, o),
    decideAppeal: (appealId, decision, o) =>
      call(
        'decideAppeal',
        { method: 'POST', path: `/v1/appeals/${segment(appealId)}/decision`, body: decision },
        o,
      ),

    bans: (game, device, query = {}, o) =>
      new Paged((cursor) => client.listBans(game, device, { ...query, cursor }, o), query.cursor),
    auditEvents: (query = {}, o) =>
      new Paged((cursor) => client.listAudit({ ...query, cursor }, o), query.cursor),
    publishers: (query = {}, o) =>
      new Paged((cursor) => client.listPublishers({ ...query, cursor }, o), query.cursor),
    devices: (query = {}, o) =>
      new Paged((cursor) => client.listDevices({ ...query, cursor }, o), query.cursor),
    expiringBans: (query = {}, o) =>
      new Paged((cursor) => client.listExpiringBans({ ...query, cursor }, o), query.cursor),
    apiKeys: (query = {}, o) => new Paged((cursor) => client.listKeys({ ...query, cursor }, o), query.cursor),
    appeals: (query = {}, o) =>
      new Paged((cursor) => client.listAppeals({ ...query, cursor }, o), query.cursor),
    deliveries: (webhookId, query = {}, o) =>
      new Paged((cursor) => client.listWebhookDeliveries(webhookId, { ...query, cursor }, o), query.cursor),
    snapshot: (game, query = {}, o) =>
      new Paged((cursor) => client.getEnforcementSnapshot(game, { ...query, cursor }, o), query.cursor),
    events: (game, from = {}, o) =>
      new EventFeed((cursor) => client.listEvents(game, { ...from, cursor }, o), from.cursor),
  };
  return client;
};
