import type { Body, KeyedOperationId, OperationId, PathParams, Query, Result } from './operation-types.js';
import { type OperationRow, operationTable } from './operations.js';
import { EventFeed, Paged } from './paging.js';
import { type CallOptions, send, type TransportSettings } from './transport.js';

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
/** What an export reads: `bans`, `appeals`, `audit`, `policy`, `trust`, `reasons`, `webhooks` or `keys`. */
export type ExportKind = PathParams<'exportData'>['kind'];

/** The language an enforcement answer reads its bans' texts in: sent as `?locale=` (docs/api.md#languages). */
export interface LocaleOption {
  locale?: string;
}

const localeQuery = (options: LocaleOption | undefined) =>
  options?.locale === undefined ? undefined : { locale: options.locale };

/**
 * One method per route of the API that takes a key, named by its operation id (docs/openapi.json,
 * lib/routes.ts), with the game (`X-Game-Id`) first where the route takes one, then its path
 * parameters, then its body or query as an object, then per-call options. Each resolves with the
 * answer's JSON and rejects with an ApiError. Below them, iterators over the paged listings.
 */
export interface BanClient {
  getPolicy(options?: CallOptions): Promise<Result<'getPolicy'>>;
  updatePolicy(patch: Body<'updatePolicy'>, options?: CallOptions): Promise<Result<'updatePolicy'>>;
  /** How many devices of the game a policy draft would restrict or free; saves nothing. */
  previewPolicy(
    game_id: string,
    draft: Body<'previewPolicy'>,
    options?: CallOptions,
  ): Promise<Result<'previewPolicy'>>;
  getReasons(options?: CallOptions): Promise<Result<'getReasons'>>;
  putReasons(catalogue: Body<'putReasons'>, options?: CallOptions): Promise<Result<'putReasons'>>;
  getDeviceFormats(options?: CallOptions): Promise<Result<'getDeviceFormats'>>;
  putDeviceFormats(
    formats: Body<'putDeviceFormats'>,
    options?: CallOptions,
  ): Promise<Result<'putDeviceFormats'>>;
  putPublisher(profile: Body<'putPublisher'>, options?: CallOptions): Promise<Result<'putPublisher'>>;
  listPublishers(query?: Query<'listPublishers'>, options?: CallOptions): Promise<Result<'listPublishers'>>;
  /** Without `idempotency_key` the client makes one, sent again on each retry of this call. */
  createBan(game_id: string, ban: Body<'createBan'>, options?: CallOptions): Promise<Result<'createBan'>>;
  /**
   * Imports up to 500 bans with their history (scope `bans:import`); each row is answered on its
   * own. Safe to retry: a repeat of the same `batch_id` answers the same rows and ban ids.
   */
  importBans(
    game_id: string,
    batch: Body<'importBans'>,
    options?: CallOptions,
  ): Promise<Result<'importBans'>>;
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
  /** `options.locale`: the language to read the bans' texts in (else the ban's own). */
  getEnforcement(
    game_id: string,
    device_id: string,
    options?: CallOptions & LocaleOption,
  ): Promise<Result<'getEnforcement'>>;
  getEnforcementBatch(
    game_id: string,
    body: Body<'getEnforcementBatch'>,
    options?: CallOptions & LocaleOption,
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
  listPeople(options?: CallOptions): Promise<Result<'listPeople'>>;
  invitePerson(person: Body<'invitePerson'>, options?: CallOptions): Promise<Result<'invitePerson'>>;
  updatePerson(
    person_id: string,
    change: Body<'updatePerson'>,
    options?: CallOptions,
  ): Promise<Result<'updatePerson'>>;
  listAudit(query?: Query<'listAudit'>, options?: CallOptions): Promise<Result<'listAudit'>>;
  listDsaStatements(
    query?: Query<'listDsaStatements'>,
    options?: CallOptions,
  ): Promise<Result<'listDsaStatements'>>;
  eraseDevice(device_id: string, options?: CallOptions): Promise<Result<'eraseDevice'>>;
  listDevices(query?: Query<'listDevices'>, options?: CallOptions): Promise<Result<'listDevices'>>;
  listGames(options?: CallOptions): Promise<Result<'listGames'>>;
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
  /**
   * A link to the player's page for one device in the game: hand the player `path` on the API's
   * origin (its `secret` opens the page, so give it to that player only). Never retried: a repeat
   * would mint a second link.
   */
  createPlayerLink(
    game_id: string,
    link: Body<'createPlayerLink'>,
    options?: CallOptions,
  ): Promise<Result<'createPlayerLink'>>;
  appealStats(options?: CallOptions): Promise<Result<'appealStats'>>;
  getAppeal(appeal_id: string, options?: CallOptions): Promise<Result<'getAppeal'>>;
  decideAppeal(
    appeal_id: string,
    decision: Body<'decideAppeal'>,
    options?: CallOptions,
  ): Promise<Result<'decideAppeal'>>;
  /** Holds an open appeal for a while (claimAppeal); again, renews it. */
  claimAppeal(
    appeal_id: string,
    claim?: Body<'claimAppeal'>,
    options?: CallOptions,
  ): Promise<Result<'claimAppeal'>>;
  releaseAppealClaim(appeal_id: string, options?: CallOptions): Promise<Result<'releaseAppealClaim'>>;
  /** The report as JSON: the CSV (`format=csv`) is for a browser or curl, not this client. */
  /** One page of an export of `kind` (the first page fixes `as_of`; pass `next_cursor` on). */
  exportData(
    kind: ExportKind,
    query?: Query<'exportData'>,
    options?: CallOptions,
  ): Promise<Result<'exportData'>>;
  /** Everything the publisher holds on one device (a data subject's request). */
  deviceData(device_id: string, options?: CallOptions): Promise<Result<'deviceData'>>;
  /** Starts an export job: the service writes the kinds (default all) into files to download. */
  startExportJob(request?: Body<'startExportJob'>, options?: CallOptions): Promise<Result<'startExportJob'>>;
  /** An export job's state, and once done a download URL per file (15 minutes). */
  getExportJob(export_id: string, options?: CallOptions): Promise<Result<'getExportJob'>>;
  transparencyReport(
    query: Omit<Query<'transparencyReport'>, 'format'>,
    options?: CallOptions,
  ): Promise<Result<'transparencyReport'>>;

  /** Every ban of a device the caller sees from the game (listBans), page after page. */
  bans(
    game_id: string,
    device_id: string,
    query?: Query<'listBans'>,
    options?: CallOptions,
  ): Paged<Item<'listBans'>, Page<'listBans'>>;
  /** Everything of one kind the publisher holds, as of the first page (exportData), page after page. */
  exportItems(
    kind: ExportKind,
    query?: Query<'exportData'>,
    options?: CallOptions,
  ): Paged<Item<'exportData'>, Page<'exportData'>>;
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

type Table = typeof operationTable;
/** One value per path parameter, in the template's order (a tuple as long as the names). */
type Values<Names extends readonly string[]> = { readonly [I in keyof Names]: string | number };

/**
 * What a method hands the table-driven call: the path parameters' values in the template's order
 * (required exactly when the operation has some, as many as it has), the game exactly when the
 * operation takes X-Game-Id, and its query or body. The method and the path come from the table.
 */
type Request<K extends KeyedOperationId> = (Table[K]['pathParams'] extends readonly []
  ? { path?: never }
  : { path: Values<Table[K]['pathParams']> }) &
  (Table[K]['game'] extends true ? { game: string } : { game?: never }) & {
    query?: object | undefined;
    body?: unknown;
  };

const segment = (value: string | number | undefined) => encodeURIComponent(String(value));

const withIdempotencyKey = (body: unknown): unknown =>
  typeof body === 'object' &&
  body !== null &&
  (body as { idempotency_key?: unknown }).idempotency_key === undefined
    ? { ...body, idempotency_key: crypto.randomUUID() }
    : body;

/** Each operation's retry rule, read off the generated table (kept for callers of the package). */
export const retryRules = Object.fromEntries(
  Object.entries(operationTable).map(([id, row]) => [id, row.retry]),
) as { readonly [K in OperationId]: Table[K]['retry'] };

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

  /**
   * One call of `operation`, as its row of the generated table (./operations.ts) says: its method,
   * its path with the values filled in, and its retry rule. An `idempotency_key` operation gets a
   * key in its body when the caller gave none, the same on every retry of the call.
   */
  const call = <K extends KeyedOperationId>(
    operation: K,
    req: Request<K>,
    callOptions: CallOptions | undefined,
  ) => {
    const row: OperationRow = operationTable[operation];
    const values: readonly (string | number)[] = req.path ?? [];
    const path = row.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      segment(values[row.pathParams.indexOf(name)]),
    );
    const body = row.retry === 'idempotency_key' ? withIdempotencyKey(req.body) : req.body;
    return send(
      settings,
      { method: row.method, path, game: req.game, query: req.query, body, retry: row.retry !== 'never' },
      callOptions,
    ) as Promise<Result<K>>;
  };

  const client: BanClient = {
    getPolicy: (o) => call('getPolicy', {}, o),
    updatePolicy: (patch, o) => call('updatePolicy', { body: patch }, o),
    previewPolicy: (game, draft, o) => call('previewPolicy', { game, body: draft }, o),
    getReasons: (o) => call('getReasons', {}, o),
    putReasons: (catalogue, o) => call('putReasons', { body: catalogue }, o),
    getDeviceFormats: (o) => call('getDeviceFormats', {}, o),
    putDeviceFormats: (formats, o) => call('putDeviceFormats', { body: formats }, o),
    putPublisher: (profile, o) => call('putPublisher', { body: profile }, o),
    listPublishers: (query, o) => call('listPublishers', { query }, o),
    createBan: (game, ban, o) => call('createBan', { game, body: ban }, o),
    importBans: (game, batch, o) => call('importBans', { game, body: batch }, o),
    listSocialBans: (game, device, query, o) => call('listSocialBans', { game, path: [device], query }, o),
    listCheatBans: (game, device, query, o) => call('listCheatBans', { game, path: [device], query }, o),
    listBans: (game, device, query, o) => call('listBans', { game, path: [device], query }, o),
    revokeBan: (game, device, banId, body, o) => call('revokeBan', { game, path: [device, banId], body }, o),
    getEnforcement: (game, device, o) =>
      call('getEnforcement', { game, path: [device], query: localeQuery(o) }, o),
    getEnforcementBatch: (game, body, o) =>
      call('getEnforcementBatch', { game, body, query: localeQuery(o) }, o),
    getEnforcementSnapshot: (game, query, o) => call('getEnforcementSnapshot', { game, query }, o),
    createKey: (key, o) => call('createKey', { body: key }, o),
    listKeys: (query, o) => call('listKeys', { query }, o),
    revokeKey: (keyId, o) => call('revokeKey', { path: [keyId] }, o),
    listPeople: (o) => call('listPeople', {}, o),
    invitePerson: (person, o) => call('invitePerson', { body: person }, o),
    updatePerson: (personId, change, o) => call('updatePerson', { path: [personId], body: change }, o),
    listAudit: (query, o) => call('listAudit', { query }, o),
    listDsaStatements: (query, o) => call('listDsaStatements', { query }, o),
    eraseDevice: (device, o) => call('eraseDevice', { path: [device] }, o),
    listDevices: (query, o) => call('listDevices', { query }, o),
    listGames: (o) => call('listGames', {}, o),
    listExpiringBans: (query, o) => call('listExpiringBans', { query }, o),
    listEvents: (game, query, o) => call('listEvents', { game, query }, o),
    createWebhook: (webhook, o) => call('createWebhook', { body: webhook }, o),
    listWebhooks: (o) => call('listWebhooks', {}, o),
    deleteWebhook: async (webhookId, o) => {
      await call('deleteWebhook', { path: [webhookId] }, o);
    },
    listWebhookDeliveries: (webhookId, query, o) =>
      call('listWebhookDeliveries', { path: [webhookId], query }, o),
    testWebhook: (webhookId, o) => call('testWebhook', { path: [webhookId] }, o),
    createAppeal: (game, appeal, o) => call('createAppeal', { game, body: appeal }, o),
    listAppeals: (query, o) => call('listAppeals', { query }, o),
    createPlayerLink: (game, link, o) => call('createPlayerLink', { game, body: link }, o),
    appealStats: (o) => call('appealStats', {}, o),
    getAppeal: (appealId, o) => call('getAppeal', { path: [appealId] }, o),
    decideAppeal: (appealId, decision, o) => call('decideAppeal', { path: [appealId], body: decision }, o),
    claimAppeal: (appealId, claim = {}, o) => call('claimAppeal', { path: [appealId], body: claim }, o),
    releaseAppealClaim: (appealId, o) => call('releaseAppealClaim', { path: [appealId] }, o),
    transparencyReport: (query, o) => call('transparencyReport', { query }, o),
    exportData: (kind, query, o) => call('exportData', { path: [kind], query }, o),
    deviceData: (device, o) => call('deviceData', { path: [device] }, o),
    startExportJob: (request, o) => call('startExportJob', { body: request ?? {} }, o),
    getExportJob: (exportId, o) => call('getExportJob', { path: [exportId] }, o),
    exportItems: (kind, query = {}, o) =>
      new Paged((cursor) => client.exportData(kind, { ...query, cursor }, o), query.cursor),

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
