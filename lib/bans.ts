import { GetCommand, PutCommand, paginateQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  BanCreationResult,
  BanList,
  banScopes,
  banTypes,
  CreateBanRequest,
  ListBansQuery,
  ListedBan,
} from './http/schemas';
import { dynamo, tableName } from './storage/client';
import { isConditionFailure } from './storage/failures';

/**
 * Bans. Items:
 *   ban                `DEVICE#<device_id>` / `BAN#<ban_id, 16 digits>`   (newest first by sk)
 *   ban id counter     `COUNTER` / `BAN_ID`
 *   idempotency record `IDEM#<publisher>#<game>#<key>` / `IDEM`            (holds the whole ban)
 */

type BanType = (typeof banTypes)[number];
type BanScope = (typeof banScopes)[number];

/** A ban as stored, without its keys. `game_id` is always the game the ban was created from. */
export interface Ban {
  ban_id: number;
  device_id: string;
  ban_type: BanType;
  scope: BanScope;
  publisher_id: string;
  game_id: string;
  reason_code: string;
  /** The caller's `details`, serialised: stored as a string so any JSON survives DynamoDB's type rules. */
  details_json?: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

const BAN_ID_DIGITS = 16;
export const banKey = (deviceId: string, banId: number) => ({
  pk: `DEVICE#${deviceId}`,
  sk: `BAN#${String(banId).padStart(BAN_ID_DIGITS, '0')}`,
});
export const counterKey = { pk: 'COUNTER', sk: 'BAN_ID' } as const;
export const idempotencyKey = (publisherId: string, gameId: string, key: string) => ({
  pk: `IDEM#${publisherId}#${gameId}#${key}`,
  sk: 'IDEM',
});

const banFromItem = (item: Record<string, unknown>): Ban => {
  const { pk: _pk, sk: _sk, ...ban } = item;
  return ban as unknown as Ban;
};

/** Active: not revoked, and permanent or expiring after `now`. Timestamps are all UTC ISO strings. */
export const isActive = (ban: Pick<Ban, 'revoked_at' | 'expires_at'>, now: string): boolean =>
  ban.revoked_at === null && (ban.expires_at === null || ban.expires_at > now);

/** The next ban id: an atomic ADD on the counter item, so ids are unique and increasing. */
const nextBanId = async (): Promise<number> => {
  const { Attributes } = await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: counterKey,
      UpdateExpression: 'ADD #value :one',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.value);
};

/** Puts the ban item unless it is there already (a retry or a racing repeat put it first). */
const putBanItem = async (ban: Ban): Promise<void> => {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...banKey(ban.device_id, ban.ban_id), ...ban },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * Claims an idempotency key for `ban`. Returns undefined when the claim is new, or the ban the
 * key was first claimed for.
 */
const claimIdempotencyKey = async (
  publisherId: string,
  gameId: string,
  key: string,
  ban: Ban,
): Promise<Ban | undefined> => {
  const Key = idempotencyKey(publisherId, gameId, key);
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...Key, ban },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return undefined;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const { Item } = await dynamo.send(new GetCommand({ TableName: tableName, Key, ConsistentRead: true }));
  if (!Item) throw new Error('idempotency record vanished after a failed claim');
  return Item.ban as Ban;
};

const creationResult = (ban: Ban, status: BanCreationResult['status']): BanCreationResult => ({
  ban_id: ban.ban_id,
  device_id: ban.device_id,
  ban_type: ban.ban_type,
  scope: ban.scope,
  publisher_id: ban.publisher_id,
  game_id: ban.game_id,
  status,
});

/**
 * Records a ban. Single-item conditional writes only (no transactions):
 *   1. take the next ban id;
 *   2. with an idempotency key, claim it with a record holding the whole ban; if it was claimed
 *      before, make sure that ban's item exists and answer it as `idempotent_ok`;
 *   3. put the ban item.
 * A crash between 2 and 3 leaves a record whose retry completes the ban.
 */
export const createBan = async (
  publisherId: string,
  gameId: string,
  request: CreateBanRequest,
): Promise<BanCreationResult> => {
  const ban: Ban = {
    ban_id: await nextBanId(),
    device_id: request.device_id,
    ban_type: request.ban_type,
    scope: request.scope,
    publisher_id: publisherId,
    game_id: gameId,
    reason_code: request.reason_code,
    ...(request.details ? { details_json: JSON.stringify(request.details) } : {}),
    created_at: new Date().toISOString(),
    expires_at: request.expires_at ?? null,
    revoked_at: null,
  };
  if (request.idempotency_key !== undefined) {
    const original = await claimIdempotencyKey(publisherId, gameId, request.idempotency_key, ban);
    if (original) {
      await putBanItem(original);
      return creationResult(original, 'idempotent_ok');
    }
  }
  await putBanItem(ban);
  return creationResult(ban, 'created');
};

/** How a ban reads to `publisherId`: metadata is private to its owner, game_id only for game bans. */
export const toListedBan = (ban: Ban, publisherId: string): ListedBan => ({
  ban_id: ban.ban_id,
  ban_type: ban.ban_type,
  scope: ban.scope,
  publisher_id: ban.publisher_id,
  game_id: ban.scope === 'game' ? ban.game_id : null,
  reason_code: ban.reason_code,
  details_json: ban.publisher_id === publisherId && ban.details_json ? JSON.parse(ban.details_json) : null,
  created_at: ban.created_at,
  expires_at: ban.expires_at,
  revoked_at: ban.revoked_at,
});

/**
 * Every ban of `type` on the device that (publisher, game) may see, newest first: its game bans
 * for this game, its publisher bans, and every publisher's global bans. One Query per storage
 * page; the visibility rule runs in DynamoDB as a filter so only visible bans cross the wire.
 */
export const visibleBans = async (
  publisherId: string,
  gameId: string,
  deviceId: string,
  type: BanType,
): Promise<Ban[]> => {
  const bans: Ban[] = [];
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ban)',
      FilterExpression:
        '#type = :type AND (#scope = :global OR (#publisher = :publisher AND (#scope = :publisherScope OR (#scope = :gameScope AND #game = :game))))',
      ExpressionAttributeNames: {
        '#type': 'ban_type',
        '#scope': 'scope',
        '#publisher': 'publisher_id',
        '#game': 'game_id',
      },
      ExpressionAttributeValues: {
        ':pk': `DEVICE#${deviceId}`,
        ':ban': 'BAN#',
        ':type': type,
        ':global': 'global',
        ':publisher': publisherId,
        ':publisherScope': 'publisher',
        ':gameScope': 'game',
        ':game': gameId,
      },
      ScanIndexForward: false,
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) bans.push(banFromItem(item));
  }
  return bans;
};

/**
 * One page of the device's visible bans of `type`. Counts cover every visible ban of that type
 * (not the page, not the status filter); the cursor is the last returned ban_id.
 */
export const listBans = async (
  publisherId: string,
  gameId: string,
  deviceId: string,
  type: BanType,
  query: ListBansQuery,
): Promise<BanList> => {
  const bans = await visibleBans(publisherId, gameId, deviceId, type);
  const now = new Date().toISOString();
  let active = 0;
  const page: Ban[] = [];
  let more = false;
  for (const ban of bans) {
    const isBanActive = isActive(ban, now);
    if (isBanActive) active += 1;
    if (more) continue;
    if (query.cursor !== undefined && ban.ban_id >= query.cursor) continue;
    if (query.status !== 'all' && isBanActive !== (query.status === 'active')) continue;
    if (page.length === query.limit) more = true;
    else page.push(ban);
  }
  return {
    device_id: deviceId,
    status: query.status,
    counts: { active, inactive: bans.length - active, total: bans.length },
    items: page.map((ban) => toListedBan(ban, publisherId)),
    next_cursor: more ? (page.at(-1)?.ban_id ?? null) : null,
  };
};

export const listSocialBans = (publisherId: string, gameId: string, deviceId: string, query: ListBansQuery) =>
  listBans(publisherId, gameId, deviceId, 'social', query);
