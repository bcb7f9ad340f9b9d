import { createHash, randomBytes } from 'node:crypto';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  paginateQuery,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { scopes as allScopes, isScope, type Scope } from '@kernel/scopes';
import * as clock from '../clock';
import { describeError, log } from '../log';
import { actorFromStored } from '../model/actors';
import { API_KEY_PATTERN, API_KEY_PREFIX } from '../model/api-key-format';
import type { CreateKeyRequest, ListKeysQuery } from '../model/requests';
import type { Actor, ApiKey, ApiKeyList, NewApiKeyResult } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import {
  apiKeyKey,
  KEY_SLOT_PREFIX,
  keyIdKey,
  keySlotKey,
  PUBLISHER_KEY_PREFIX,
  publisherKeyKey,
  publisherPartition,
} from '../storage/keys';
import { eventKeysOf, OPERATOR, recordEvent, undoUnrecorded } from './audit';
import { cursorOf, sortKeyOf } from './cursors';
import { ConflictError, ForbiddenError, IntegrityError, InvalidInputError, NotFoundError } from './errors';
import { provisionPolicy } from './policy';

/**
 * API keys, and their events in the audit trail (./audit.ts): `key.created`, `key.revoked`.
 * Invariants: the key itself is shown once, when made, and only its SHA-256 is stored; a
 * publisher has at most 100 live keys, one slot each. Items (the authorizer's lookup, the
 * publisher's listing, the id item, the slots) and access patterns: docs/data-model.md#the-table.
 */

export { API_KEY_PATTERN } from '../model/api-key-format';

export const hashApiKey = (apiKey: string) => createHash('sha256').update(apiKey).digest('hex');

export interface ApiKeyInfo {
  key_id: string;
  publisher_id: string;
  name: string;
  /** What the key may do; null: every scope, including any added later (keys made without a list). */
  scopes: Scope[] | null;
  /** The games it may name in X-Game-Id; null: every game. */
  games: string[] | null;
  created_at: string;
  /** From then on the key is refused (401); null: never. */
  expires_at: string | null;
  revoked_at: string | null;
  /** The key's last 4 characters, to tell keys apart in a listing; null for keys made before. */
  last4: string | null;
  /** Who made it; null for keys made before it was recorded. */
  created_by: Actor | null;
}

export interface NewApiKey extends ApiKeyInfo {
  api_key: string;
}

export interface KeyGrants {
  scopes?: readonly Scope[] | null;
  games?: readonly string[] | null;
  expiresAt?: string | null;
  /** How the expiry came about, for the audit: by default, chosen, or never (the default: from expiresAt). */
  expiry?: KeyExpiry;
}

/**
 * How a key's expiry came about, as its `key.created` event says: `default` (a person made it and
 * named none: PERSON_KEY_DAYS), `chosen` (a time was given), `never` (none, by choice or by a key).
 */
export type KeyExpiry = 'default' | 'chosen' | 'never';

/** A key a person makes without naming an expiry expires after this many days ("never" is `null`). */
export const PERSON_KEY_DAYS = 90;

const optional = <T>(value: unknown, check: (v: unknown) => v is T): T | null | false =>
  value === undefined ? null : check(value) ? value : false;
const scopeList = (v: unknown): v is Scope[] => Array.isArray(v) && v.every(isScope);
const stringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * Any of a key's three items read back, checked. The optional attributes are absent rather than
 * null: `revoked_at` until revocation (so revoking keeps the first time with if_not_exists), the
 * grants on a key with every scope or game, and what keys made before them lack.
 */
const keyFromItem = (item: Record<string, unknown> | undefined): ApiKeyInfo => {
  const { key_id, publisher_id, name, created_at } = item ?? {};
  const scopes = optional(item?.scopes, scopeList);
  const games = optional(item?.games, stringList);
  const expires_at = optional(item?.expires_at, isString);
  const revoked_at = optional(item?.revoked_at, isString);
  const last4 = optional(item?.last4, isString);
  if (
    !isString(key_id) ||
    !isString(publisher_id) ||
    !isString(name) ||
    !isString(created_at) ||
    scopes === false ||
    games === false ||
    expires_at === false ||
    revoked_at === false ||
    last4 === false
  ) {
    throw new IntegrityError('stored API key item is malformed');
  }
  const created_by = actorFromStored(item?.created_by) ?? null;
  return { key_id, publisher_id, name, scopes, games, created_at, expires_at, revoked_at, last4, created_by };
};

const keyToItem = (key: Record<string, string>, info: ApiKeyInfo, extra = {}) => ({
  ...key,
  ...Object.fromEntries(Object.entries(info).filter(([, value]) => value !== null)),
  ...extra,
});

/** The scopes a key holds in effect. */
export const effectiveScopes = (key: Pick<ApiKeyInfo, 'scopes'>): Scope[] => key.scopes ?? [...allScopes];

const put = (Item: Record<string, unknown>) =>
  dynamo.send(
    new PutCommand({ TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' }),
  );

/**
 * Makes a key for the publisher, writing the publisher's default policy first if it has none.
 * The lookup item is written after the others, so a key never works before its policy and listing
 * exist; then `key.created` is recorded. A failure on the way withdraws what was written (no
 * retry could finish it: the secret was never shown), so a refused request leaves no key.
 */
export const createApiKey = async (
  publisherId: string,
  name = 'default',
  grants: KeyGrants = {},
  actor: Actor = OPERATOR,
): Promise<NewApiKey> => {
  const now = new Date(clock.now());
  await provisionPolicy(publisherId, now);
  const apiKey = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const hash = hashApiKey(apiKey);
  const info: ApiKeyInfo = {
    key_id: `key_${randomBytes(9).toString('base64url')}`,
    publisher_id: publisherId,
    name,
    scopes: grants.scopes ? [...new Set(grants.scopes)] : null,
    games: grants.games ? [...new Set(grants.games)] : null,
    created_at: now.toISOString(),
    expires_at: grants.expiresAt ?? null,
    revoked_at: null,
    last4: apiKey.slice(-4),
    created_by: actor,
  };
  const slot = await claimKeySlot(publisherId, info.key_id);
  try {
    await put(keyToItem(publisherKeyKey(publisherId, info.key_id), info, { key_hash: hash, slot }));
    await put(keyToItem(keyIdKey(info.key_id), info, { key_hash: hash }));
    await put(keyToItem(apiKeyKey(hash), info));
    await recordEvent(publisherId, info.key_id, info.created_at, actor, {
      type: 'key.created',
      key: {
        key_id: info.key_id,
        name: info.name,
        scopes: effectiveScopes(info),
        games: info.games,
        expires_at: info.expires_at,
        expiry: grants.expiry ?? (info.expires_at === null ? 'never' : 'chosen'),
      },
    });
  } catch (error) {
    await undoUnrecorded(
      [
        apiKeyKey(hash),
        ...eventKeysOf(publisherId, 'key.created', info.key_id, info.created_at, actor),
        keyIdKey(info.key_id),
        publisherKeyKey(publisherId, info.key_id),
        keySlotKey(publisherId, slot),
      ],
      `key ${info.key_id}`,
    );
    throw error;
  }
  return { ...info, api_key: apiKey };
};

/** The most live (unrevoked) keys a publisher holds: each takes a slot until it is revoked. */
export const MAX_LIVE_KEYS = 100;

/**
 * Takes the lowest free slot for a new key with a conditional put, so two mints at once never
 * take the same one and the cap holds under any concurrency; ConflictError when all are taken.
 */
const claimKeySlot = async (publisherId: string, keyId: string): Promise<number> => {
  const { Items = [] } = await dynamo.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :slot)',
      ExpressionAttributeValues: { ':pk': publisherPartition(publisherId), ':slot': KEY_SLOT_PREFIX },
      ConsistentRead: true,
    }),
  );
  const taken = new Set(Items.map((item) => String(item.sk)));
  for (let slot = 0; slot < MAX_LIVE_KEYS; slot += 1) {
    if (taken.has(keySlotKey(publisherId, slot).sk)) continue;
    try {
      await put({ ...keySlotKey(publisherId, slot), key_id: keyId });
      return slot;
    } catch (error) {
      // Another mint took it meanwhile: try the next.
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new ConflictError(`This publisher already has ${MAX_LIVE_KEYS} live keys: revoke one first`);
};

/** Frees a revoked key's slot (only if the key still holds it: revoking again repairs a failed free). */
const releaseKeySlot = async (publisherId: string, slot: unknown, keyId: string) => {
  if (typeof slot !== 'number') return;
  try {
    await dynamo.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keySlotKey(publisherId, slot),
        ConditionExpression: 'key_id = :key',
        ExpressionAttributeValues: { ':key': keyId },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

const KEY_ID = /^key_[A-Za-z0-9_-]{12}$/;

/** Every key of the publisher, oldest first (the operator's tool and the local banner). */
export const listApiKeys = async (publisherId: string): Promise<ApiKeyInfo[]> => {
  const keys: ApiKeyInfo[] = [];
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :key)',
      ExpressionAttributeValues: { ':pk': publisherPartition(publisherId), ':key': PUBLISHER_KEY_PREFIX },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) for (const item of page.Items ?? []) keys.push(keyFromItem(item));
  return keys.sort((a, b) => a.created_at.localeCompare(b.created_at));
};

/** The keys a person made (their `created_by`), oldest first, revoked ones included. */
export const keysMadeBy = async (publisherId: string, sub: string): Promise<ApiKeyInfo[]> =>
  (await listApiKeys(publisherId)).filter(
    (key) => key.created_by?.type === 'user' && key.created_by.sub === sub,
  );

/**
 * Revokes every key the person made that is not revoked yet (`npm run users -- disable
 * --revoke-keys`), as the operator; each is audited as `key.revoked`. Returns the keys revoked.
 */
export const revokeKeysMadeBy = async (publisherId: string, sub: string): Promise<ApiKeyInfo[]> => {
  const revoked: ApiKeyInfo[] = [];
  for (const key of await keysMadeBy(publisherId, sub))
    if (key.revoked_at === null) {
      const done = await revokeApiKey(key.key_id, publisherId, OPERATOR);
      if (done) revoked.push(done);
    }
  return revoked;
};

/** One page of the publisher's keys, in key_id order, and the cursor after it. */
const keyPage = async (
  publisherId: string,
  page: { limit: number; cursor?: string },
): Promise<{ keys: ApiKeyInfo[]; hashes: (string | null)[]; next: string | null }> => {
  const pk = publisherPartition(publisherId);
  const reader = `keys ${pk}`;
  const after =
    page.cursor === undefined ? undefined : sortKeyOf(reader, page.cursor, (id) => KEY_ID.test(id));
  const { Items = [] } = await dynamo.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': pk,
        // After the cursor's key ('$' sorts after every key id character but none), to the last key.
        ':from': after ? `${publisherKeyKey(publisherId, after).sk}$` : PUBLISHER_KEY_PREFIX,
        ':to': `${PUBLISHER_KEY_PREFIX}~`,
      },
      ConsistentRead: true,
      Limit: page.limit + 1,
    }),
  );
  const listed = Items.slice(0, page.limit);
  const keys = listed.map(keyFromItem);
  const last = keys.at(-1);
  return {
    keys,
    hashes: listed.map((item) => (typeof item.key_hash === 'string' ? item.key_hash : null)),
    next: Items.length > page.limit && last ? cursorOf(reader, last.key_id) : null,
  };
};

/**
 * Whether the key of this id still opens anything: it exists, is not revoked and has not expired.
 * What a key made stands for it only while it does (a player's page link, lib/domain/player-links.ts).
 * One consistent GetItem of its id item.
 */
export const keyInForce = async (keyId: string): Promise<boolean> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: keyIdKey(keyId), ConsistentRead: true }),
  );
  if (!Item) return false;
  const key = keyFromItem(Item);
  return (
    key.revoked_at === null &&
    (key.expires_at === null || key.expires_at > new Date(clock.now()).toISOString())
  );
};

/**
 * Revokes a key by its public id. The lookup item is revoked first: that is the one the
 * authorizer reads, so the key stops working even if the listing update then fails. Then
 * `key.revoked` is recorded, from the listing item, which keeps the first time and revoker:
 * revoking again records it if the first attempt could not, and never twice. Returns undefined
 * for an unknown key id.
 */
export const revokeApiKey = async (
  keyId: string,
  publisherId?: string,
  actor: Actor = OPERATOR,
): Promise<ApiKeyInfo | undefined> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: keyIdKey(keyId), ConsistentRead: true }),
  );
  // Through the API only the owner may: another publisher's key id is as unknown as a made-up one.
  if (!Item || (publisherId !== undefined && Item.publisher_id !== publisherId)) return undefined;
  const hash = String(Item.key_hash);
  const revoke = async (Key: Record<string, string>) => {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression:
          'SET revoked_at = if_not_exists(revoked_at, :now), revoked_by = if_not_exists(revoked_by, :actor)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': new Date(clock.now()).toISOString(), ':actor': actor },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return {
      key: keyFromItem(Attributes),
      revokedBy: actorFromStored(Attributes?.revoked_by),
      slot: Attributes?.slot,
    };
  };
  await revoke(apiKeyKey(hash));
  await revoke(keyIdKey(keyId));
  const { key, revokedBy, slot } = await revoke(publisherKeyKey(String(Item.publisher_id), keyId));
  await releaseKeySlot(key.publisher_id, slot, keyId);
  // Keys revoked before the audit began name no revoker, and get no event now.
  if (revokedBy && key.revoked_at) {
    await recordEvent(key.publisher_id, key.key_id, key.revoked_at, revokedBy, {
      type: 'key.revoked',
      key: { key_id: key.key_id, name: key.name },
    });
  }
  return key;
};

export interface Caller {
  publisherId: string;
  keyId: string;
  /** The key's name, for the audit trail's actor. */
  name: string;
  /** null: every scope. */
  scopes: Scope[] | null;
  /** null: every game. */
  games: string[] | null;
  /** When the key stops working; null: never. */
  expiresAt: string | null;
}

/**
 * How finely a key's `last_used_at` is kept: the authorizer writes it at most once per this long
 * per key (one conditional UpdateItem), never on every request. With the deployed authorizer
 * cache (300 s), which answers a cached key without calling us, it is within 10 minutes.
 */
export const KEY_USE_PRECISION_MS = 5 * 60_000;

/**
 * Notes that a key was used now, if its stored use is older than KEY_USE_PRECISION_MS: a write
 * on the condition that no other request noted it meanwhile. Best effort: a failure is logged,
 * and the request it came with goes on (the use is noted by a later one).
 */
const noteKeyUse = async (hash: string, stored: unknown, now: Date) => {
  const cutoff = new Date(now.getTime() - KEY_USE_PRECISION_MS).toISOString();
  if (typeof stored === 'string' && stored > cutoff) return;
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: apiKeyKey(hash),
        UpdateExpression: 'SET last_used_at = :now',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(last_used_at) OR last_used_at <= :cutoff)',
        ExpressionAttributeValues: { ':now': now.toISOString(), ':cutoff': cutoff },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) log('warn', 'a key use could not be noted', describeError(error));
  }
};

/** The publisher behind a key, or undefined for a malformed, unknown, revoked or expired key. */
export const authenticate = async (
  apiKey: string,
  now = new Date(clock.now()),
): Promise<Caller | undefined> => {
  if (!API_KEY_PATTERN.test(apiKey)) return undefined;
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: apiKeyKey(hashApiKey(apiKey)), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const key = keyFromItem(Item);
  if (key.revoked_at !== null) return undefined;
  if (key.expires_at !== null && key.expires_at <= now.toISOString()) return undefined;
  await noteKeyUse(hashApiKey(apiKey), Item.last_used_at, now);
  return {
    publisherId: key.publisher_id,
    keyId: key.key_id,
    name: key.name,
    scopes: key.scopes,
    games: key.games,
    expiresAt: key.expires_at,
  };
};

/* The key API (`/v1/keys`): what a key with `keys:manage` may do for its own publisher. */

/** A key as the API shows it: its effective scopes, never its secret. */
const keyView = (key: ApiKeyInfo): ApiKey => ({
  key_id: key.key_id,
  name: key.name,
  scopes: effectiveScopes(key),
  games: key.games,
  created_at: key.created_at,
  expires_at: key.expires_at,
  revoked_at: key.revoked_at,
  last4: key.last4,
  created_by: key.created_by,
});

/** What the calling key holds, as the authorizer resolved it. */
export interface Grantor {
  /** Every scope it holds (a key made without a list holds them all). */
  scopes: readonly Scope[];
  /** The games it is bound to; null: any game. */
  games: readonly string[] | null;
  /** When it expires; null: never (or not known, in an authorizer answer cached from before). */
  expiresAt: string | null;
}

/**
 * Makes a key for the caller's publisher. A key never grants what it does not hold: no scope it
 * lacks, when it is bound to games no game outside them (nor every game, by omitting them), and
 * when it expires no key that outlives it (nor one that never expires).
 */
export const issueApiKey = async (
  publisherId: string,
  grantor: Grantor,
  request: CreateKeyRequest,
  actor: Actor,
  now = new Date(clock.now()),
): Promise<NewApiKeyResult> => {
  const lacking = request.scopes.filter((scope) => !grantor.scopes.includes(scope));
  if (lacking.length > 0)
    throw new InvalidInputError(
      'scopes',
      'not_held',
      `may not include ${lacking.join(', ')}: the calling key lacks it`,
    );
  if (grantor.games) {
    if (!request.games)
      throw new InvalidInputError('games', 'not_held', 'are required: the calling key is bound to games');
    const outside = request.games.filter((game) => !grantor.games?.includes(game));
    if (outside.length > 0)
      throw new InvalidInputError(
        'games',
        'not_held',
        `may not include ${outside.join(', ')}: the calling key is not bound to it`,
      );
  }
  if (grantor.expiresAt) {
    if (!request.expires_at)
      throw new InvalidInputError(
        'expires_at',
        'not_held',
        `is required: the calling key expires at ${grantor.expiresAt}`,
      );
    if (request.expires_at > grantor.expiresAt)
      throw new InvalidInputError(
        'expires_at',
        'not_held',
        `must be no later than ${grantor.expiresAt}, when the calling key expires`,
      );
  }
  if (request.expires_at && request.expires_at <= now.toISOString())
    throw new InvalidInputError('expires_at', 'in_past', 'must be later than now');
  // A person's key outlives nobody's attention by accident: unless they choose `null` (never),
  // it expires after PERSON_KEY_DAYS. A key's keys keep their rule: none named is none.
  const byDefault = request.expires_at === undefined && actor.type === 'user';
  const expiresAt = byDefault
    ? new Date(now.getTime() + PERSON_KEY_DAYS * 86_400_000).toISOString()
    : (request.expires_at ?? null);
  const key = await createApiKey(
    publisherId,
    request.name,
    {
      scopes: request.scopes,
      games: request.games ?? null,
      expiresAt,
      expiry: byDefault ? 'default' : expiresAt === null ? 'never' : 'chosen',
    },
    actor,
  );
  // The listing's view of the key, with the secret instead of what a new key cannot have yet.
  const { revoked_at: _revoked, last4: _last4, created_by: _by, ...view } = keyView(key);
  return { ...view, api_key: key.api_key };
};

/** One page of the publisher's keys, in key_id order (`limit`, `cursor`, `next_cursor`). */
export const listKeys = async (publisherId: string, query: ListKeysQuery): Promise<ApiKeyList> => {
  const { keys, hashes, next } = await keyPage(publisherId, query);
  // When each was last used: on its lookup item, where the authorizer notes it (noteKeyUse).
  const used = await Promise.all(
    hashes.map(async (hash) => {
      if (hash === null) return null;
      const { Item } = await dynamo.send(
        new GetCommand({
          TableName: tableName(),
          Key: apiKeyKey(hash),
          ProjectionExpression: 'last_used_at',
        }),
      );
      return typeof Item?.last_used_at === 'string' ? Item.last_used_at : null;
    }),
  );
  return {
    items: keys.map((key, i) => ({ ...keyView(key), last_used_at: used[i] ?? null })),
    next_cursor: next,
  };
};

/**
 * What a key holds that the caller does not: scopes, games (a key for every game is more than
 * any bound caller holds), nothing when the caller holds all of it.
 */
const beyond = (caller: Grantor, key: ApiKeyInfo): string[] => {
  const scopes = effectiveScopes(key).filter((scope) => !caller.scopes.includes(scope));
  const lacking = scopes.map((scope) => `the scope ${scope}`);
  if (caller.games) {
    if (!key.games) lacking.push('every game');
    else
      for (const game of key.games.filter((g) => !caller.games?.includes(g)))
        lacking.push(`the game ${game}`);
  }
  return lacking;
};

/**
 * Revokes one of the publisher's own keys; anyone else's is NotFound. A key may revoke itself,
 * and any key that holds nothing it does not hold itself (mirroring what it may mint): a key
 * holding more is Forbidden, naming what the caller lacks. Revoking twice keeps the first time.
 */
export const revokeKey = async (
  publisherId: string,
  caller: Grantor & { actor: Actor },
  keyId: string,
  actor: Actor,
): Promise<ApiKey> => {
  if (caller.actor.type !== 'key' || keyId !== caller.actor.key_id) {
    const { Item } = await dynamo.send(
      new GetCommand({
        TableName: tableName(),
        Key: publisherKeyKey(publisherId, keyId),
        ConsistentRead: true,
      }),
    );
    if (!Item) throw new NotFoundError('No such key');
    const lacking = beyond(caller, keyFromItem(Item));
    if (lacking.length > 0)
      throw new ForbiddenError(`This key may not revoke a key holding what it lacks: ${lacking.join(', ')}`);
  }
  const key = await revokeApiKey(keyId, publisherId, actor);
  if (!key) throw new NotFoundError('No such key');
  return keyView(key);
};
