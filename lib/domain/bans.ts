import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  paginateQuery,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { DEFAULT_LOCALE } from '@kernel/locales';
import { isActive, judgeBans } from '@kernel/policy-rules';
import {
  missingForGround,
  otherGroundFields,
  resolveStatement,
  type Statement,
} from '@kernel/statement-of-reasons';
import * as clock from '../clock';
import { mapWithConcurrency } from '../concurrency';
import { actorFromStored } from '../model/actors';
import type { BanScope, BanType, CreateBanRequest, ListAllBansQuery, ListBansQuery } from '../model/requests';
import type {
  Actor,
  BanCreationResult,
  BanList,
  Erasure,
  ListedBan,
  Policy,
  ReasonCatalogue,
  RevokedBan,
} from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import {
  BAN_PREFIX,
  banAppealAttribute,
  banKey,
  bannedDeviceKeys,
  devicePartition,
  erasureKey,
  idempotencyKey,
  importedRowKey,
} from '../storage/keys';
import { appealsToErase, eraseAppealTexts } from './appeal-record';
import { eventKeysOf, recordEvent, undoUnrecorded } from './audit';
import { nextBanId } from './ban-ids';
import { localiseBan, translationRefusal, translationsForBan } from './ban-locales';
import { appealIdsOf, type Ban, banFromItem, banToItem, statementOfBan } from './ban-record';
import { noteBannedDevice } from './banned-devices';
import { ForbiddenError, IntegrityError, InvalidInputError, NotFoundError } from './errors';
import { expiringBanKeysOf, noteExpiringBan } from './expiring-bans';
import { getPolicy } from './policy';
import { getReasons } from './reasons';

/**
 * Bans, and their events in the audit trail (./audit.ts): `ban.created`, `ban.revoked`.
 * Invariant: no transactions, single-item writes in an order a retry completes, so nothing is made
 * twice and nothing the client was told was created is lost. Items (the ban, the id counters of ./ban-ids.ts, the idempotency
 * record holding the whole ban) and access patterns: docs/data-model.md#the-table.
 */

/**
 * Puts the ban item unless it is there already (a retry or a racing repeat put it first, and it
 * may have been revoked since: never overwritten).
 */
export const putBanIfAbsent = async (ban: Ban): Promise<void> => {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: banToItem(ban),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * Puts the ban item unless it is there already, and at once its entry in the publisher's index of
 * banned devices (./banned-devices.ts), its own item: the same again on a retry, and no item two
 * creates write.
 */
const putBanItem = async (ban: Ban): Promise<void> => {
  await Promise.all([putBanIfAbsent(ban), noteBannedDevice(ban), noteExpiringBan(ban)]);
};

/** One ban by its device and id (one consistent GetItem); undefined when there is none (erased). */
export const readBan = async (deviceId: string, banId: number): Promise<Ban | undefined> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: banKey(deviceId, banId), ConsistentRead: true }),
  );
  return Item ? banFromItem(Item) : undefined;
};

/** The ban an idempotency key was first claimed for, if it was. */
const recordedBan = async (publisherId: string, gameId: string, key: string): Promise<Ban | undefined> => {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName(),
      Key: idempotencyKey(publisherId, gameId, key),
      ConsistentRead: true,
    }),
  );
  return Item ? banFromItem(Item.ban as Record<string, unknown> | undefined) : undefined;
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
        TableName: tableName(),
        Item: { ...Key, ban },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return undefined;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const original = await recordedBan(publisherId, gameId, key);
  if (!original) throw new IntegrityError('idempotency record vanished after a failed claim');
  // Our own record: the put landed but its answer was lost, and the SDK's retry then failed the
  // condition against it. Ban ids are unique, so only this request can hold this one.
  return original.ban_id === ban.ban_id ? undefined : original;
};

/** What the audit says about a ban: what and where, never its details. */
const banSubject = (ban: Ban) => ({
  device_id: ban.device_id,
  ban_id: ban.ban_id,
  ban_type: ban.ban_type,
  scope: ban.scope,
  game_id: ban.game_id,
  reason_code: ban.reason_code,
});

/** Records `ban.created` (bans from before the audit, which name no creator, have none). */
const recordCreated = async (ban: Ban): Promise<void> => {
  if (!ban.created_by) return;
  await recordEvent(ban.publisher_id, String(ban.ban_id), ban.created_at, ban.created_by, {
    type: 'ban.created',
    ...banSubject(ban),
    expires_at: ban.expires_at,
  });
};

/**
 * Puts a ban no retry can reach (made without an idempotency key) and records `ban.created`: if
 * either fails, the ban is withdrawn (its put may have landed with its answer lost), so that the
 * 503 means it was not made.
 */
const putAndRecordOrUndo = async (ban: Ban): Promise<void> => {
  try {
    await putBanItem(ban);
    await recordCreated(ban);
  } catch (error) {
    await undoUnrecorded(
      [
        // The event first: its put may have landed with its answer lost.
        ...(ban.created_by
          ? eventKeysOf(
              ban.publisher_id,
              'ban.created',
              String(ban.ban_id),
              ban.created_at,
              ban.created_by,
              ban.device_id,
            )
          : []),
        ...bannedDeviceKeys(ban.publisher_id, ban.device_id, ban.ban_id),
        ...expiringBanKeysOf(ban),
        banKey(ban.device_id, ban.ban_id),
      ],
      `ban ${ban.ban_id} on ${ban.device_id}`,
    );
    throw error;
  }
};

const creationResult = (ban: Ban, status: 'created' | 'idempotent_ok'): BanCreationResult => ({
  ban_id: ban.ban_id,
  device_id: ban.device_id,
  ban_type: ban.ban_type,
  scope: ban.scope,
  publisher_id: ban.publisher_id,
  game_id: ban.game_id,
  status,
});

/** The answer for a ban already in force: the ban as made, and how long it lasts. */
const alreadyActiveResult = (ban: Ban): BanCreationResult => ({
  ban_id: ban.ban_id,
  device_id: ban.device_id,
  ban_type: ban.ban_type,
  scope: ban.scope,
  publisher_id: ban.publisher_id,
  game_id: ban.game_id,
  status: 'already_active',
  reason_code: ban.reason_code,
  created_at: ban.created_at,
  expires_at: ban.expires_at,
});

/**
 * The publisher's own active ban that `request` would repeat: the same device, type, scope and
 * reason, and for a `game` ban the same game (a publisher or global ban reaches every game
 * whichever game made it). Its expiry does not matter: a second ban adds nothing while one is in
 * force. Of several (made with allow_duplicate), the one that ends last. One Query of the device's
 * partition (its bans of every publisher are few), the match filtered in DynamoDB.
 */
const activeDuplicate = async (
  publisherId: string,
  gameId: string,
  request: CreateBanRequest,
  now: string,
): Promise<Ban | undefined> => {
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ban)',
      FilterExpression: `publisher_id = :publisher AND ban_type = :type AND #scope = :scope AND reason_code = :reason AND revoked_at = :null${
        request.scope === 'game' ? ' AND game_id = :game' : ''
      }`,
      ExpressionAttributeNames: { '#scope': 'scope' },
      ExpressionAttributeValues: {
        ':pk': devicePartition(request.device_id),
        ':ban': BAN_PREFIX,
        ':publisher': publisherId,
        ':type': request.ban_type,
        ':scope': request.scope,
        ':reason': request.reason_code,
        ':null': null,
        ...(request.scope === 'game' ? { ':game': gameId } : {}),
      },
      ConsistentRead: true,
    },
  );
  let found: Ban | undefined;
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const ban = banFromItem(item);
      if (!isActive(ban, now)) continue;
      if (!found || endsLater(ban, found)) found = ban;
    }
  }
  return found;
};

/** Whether `a` lasts longer than `b` (permanent is longest; a tie goes to the newer). */
const endsLater = (a: Ban, b: Ban): boolean => {
  if (a.expires_at === b.expires_at) return a.ban_id > b.ban_id;
  if (a.expires_at === null) return true;
  if (b.expires_at === null) return false;
  return a.expires_at > b.expires_at;
};

/**
 * Records a ban. Single-item conditional writes only (no transactions):
 *   1. take the next ban id;
 *   2. with an idempotency key, claim it with a record holding the whole ban; if it was claimed
 *      before, make sure that ban's item and its event exist and answer it as `idempotent_ok`;
 *   3. put the ban item;
 *   4. record `ban.created` in the audit trail.
 * Before 2, unless `allow_duplicate`, the caller's own active ban of the same device, type, scope,
 * reason (and game, for a game ban) answers `already_active` and nothing is written (activeDuplicate).
 * Two creates of the same ban at the same instant may both pass that read: it is a guard against
 * repeats, not a lock (docs/api.md says so); an idempotency key makes one request's retries exact.
 * A crash after 2 leaves a record whose retry completes the ban and its event. Without an
 * idempotency key no retry can, so a failure at 4 withdraws the ban.
 */
/**
 * A key bound to games acts within them: a `publisher` ban reaches every game of the publisher and
 * a `global` one every publisher, so only `game` bans are within a bound key's reach.
 */
export const checkBanReach = (scope: BanScope, boundGames: readonly string[] | null) => {
  if (boundGames && scope !== 'game')
    throw new ForbiddenError(
      `This key is bound to games: a ${scope} ban reaches every ${scope === 'global' ? 'publisher' : 'game'}, so it may make or revoke only game bans`,
    );
};

/**
 * What a statement may not be: an `illegal` one without its law and explanation (from the create or
 * the catalogue reason), or one given fields of the ground it is not on.
 */
export const statementRefusal = (request: Pick<CreateBanRequest, 'statement'>, statement: Statement) => {
  const [stray] = otherGroundFields(request.statement ?? {}, statement.ground);
  if (stray !== undefined)
    return new InvalidInputError(
      `statement.${stray}`,
      'not_for_ground',
      `must not be given for a statement on the ground ${statement.ground}`,
    );
  const [missing] = missingForGround(statement);
  if (missing !== undefined)
    return new InvalidInputError(
      `statement.${missing}`,
      'required',
      'is required for a statement on the ground illegal (from the request or the catalogue reason)',
    );
  return undefined;
};

/** What a ban holds of the request that makes it (a create's, or an import's row), but its times and makers. */
export type BanRequestFields = Pick<
  CreateBanRequest,
  | 'device_id'
  | 'ban_type'
  | 'scope'
  | 'reason_code'
  | 'details'
  | 'player_message'
  | 'appealable'
  | 'statement'
  | 'translations'
>;

/**
 * The ban a request makes in `gameId`, with its resolved statement, before its id, times and
 * makers: one construction for a create and an import alike.
 */
export const banOfRequest = (
  publisherId: string,
  gameId: string,
  request: BanRequestFields,
  catalogue: ReasonCatalogue,
  statement: Statement,
) => {
  const reason = catalogue.reasons.find((r) => r.code === request.reason_code);
  const translations = translationsForBan(request, reason, statement);
  return {
    device_id: request.device_id,
    ban_type: request.ban_type,
    scope: request.scope,
    publisher_id: publisherId,
    game_id: gameId,
    reason_code: request.reason_code,
    ...(request.details ? { details_json: JSON.stringify(request.details) } : {}),
    ...(request.player_message === undefined ? {} : { player_message: request.player_message }),
    ...(request.appealable === false ? { appealable: false } : {}),
    statement,
    // Its language stored only when not the default: bans without it read as en (ban-locales.ts).
    ...(catalogue.default_locale === DEFAULT_LOCALE ? {} : { locale: catalogue.default_locale }),
    ...(translations === undefined ? {} : { translations }),
  } satisfies Partial<Ban>;
};

export const createBan = async (
  publisherId: string,
  gameId: string,
  request: CreateBanRequest,
  actor: Actor,
  boundGames: readonly string[] | null = null,
): Promise<BanCreationResult> => {
  checkBanReach(request.scope, boundGames);
  if (request.expires_at && request.expires_at <= new Date(clock.now()).toISOString()) {
    // A repeat of a key answers its original ban, even once that ban has expired (a client that
    // retries late must learn what happened, not get an error); only a new ban must end later.
    const original =
      request.idempotency_key === undefined
        ? undefined
        : await recordedBan(publisherId, gameId, request.idempotency_key);
    if (!original) throw new InvalidInputError('expires_at', 'in_past', 'must be in the future');
    await putBanItem(original);
    await recordCreated(original);
    return creationResult(original, 'idempotent_ok');
  }
  // The catalogue and the device's bans are read beside the id counter, not after it: one round
  // trip, not two (an id taken for a ban that is not made is a gap, which ids may have).
  const now = new Date(clock.now()).toISOString();
  const [banId, catalogue, duplicate] = await Promise.all([
    nextBanId(),
    getReasons(publisherId),
    request.allow_duplicate === true ? undefined : activeDuplicate(publisherId, gameId, request, now),
  ]);
  const reason = catalogue.reasons.find((r) => r.code === request.reason_code);
  const statement = resolveStatement(request.statement, reason?.statement, {
    ban_type: request.ban_type,
    reason_code: request.reason_code,
    reason_label: reason?.label,
    player_message: request.player_message ?? reason?.player_message ?? undefined,
    actor: actor.type === 'user' ? 'person' : 'key',
  });
  const translationProblem = translationRefusal(request.translations, catalogue.default_locale, {
    player_message: request.player_message,
    statement,
  });
  const refusal =
    catalogue.strict_reasons && !reason
      ? new InvalidInputError(
          'reason_code',
          'not_in_catalogue',
          'must be a code of the reason catalogue (strict_reasons is on)',
        )
      : (statementRefusal(request, statement) ??
        (translationProblem &&
          new InvalidInputError(
            translationProblem.field,
            translationProblem.issue,
            translationProblem.message,
          )));
  if (refusal) {
    // A repeat of a key answers its original ban, even when the catalogue changed since.
    const original =
      request.idempotency_key === undefined
        ? undefined
        : await recordedBan(publisherId, gameId, request.idempotency_key);
    if (!original) throw refusal;
    await putBanItem(original);
    await recordCreated(original);
    return creationResult(original, 'idempotent_ok');
  }
  if (duplicate) {
    // A repeated idempotency key still answers its own ban; anything else writes nothing.
    const original =
      request.idempotency_key === undefined
        ? undefined
        : await recordedBan(publisherId, gameId, request.idempotency_key);
    if (!original) return alreadyActiveResult(duplicate);
    await putBanItem(original);
    await recordCreated(original);
    return creationResult(original, 'idempotent_ok');
  }
  const ban: Ban = {
    ban_id: banId,
    ...banOfRequest(publisherId, gameId, request, catalogue, statement),
    created_at: now,
    expires_at: request.expires_at ?? null,
    revoked_at: null,
    created_by: actor,
    ...(request.idempotency_key === undefined ? {} : { idempotency_key: request.idempotency_key }),
  };
  if (request.idempotency_key === undefined) {
    await putAndRecordOrUndo(ban);
    return creationResult(ban, 'created');
  }
  const original = await claimIdempotencyKey(publisherId, gameId, request.idempotency_key, ban);
  await putBanItem(original ?? ban);
  await recordCreated(original ?? ban);
  return creationResult(original ?? ban, original ? 'idempotent_ok' : 'created');
};

/**
 * Whether each of `bans` restricts the device now under the policy, in their order: its flags, its
 * source's trust and the quorum (kernel/policy-rules.ts judgeBans). `bans` must hold every
 * global ban of the device of each type it holds one of (a listing of a type reads them all; the
 * feed and the snapshot read them with deviceGlobalBans when the quorum needs them).
 */
export const enforcedEach = (policy: Policy, bans: readonly Ban[], now: string): boolean[] =>
  judgeBans(policy, bans, now).map((verdict) => verdict.applies);

/**
 * Whether judging `ban` needs the device's other global bans: only a trusted, active global ban of
 * another publisher that the flags enforce, under a quorum above 1 (alone it has 1 of the quorum).
 * Everything else is decided by the ban alone.
 */
export const needsQuorumContext = (policy: Policy, ban: Ban, now: string): boolean => {
  const alone = judgeBans(policy, [ban], now)[0];
  return alone !== undefined && !alone.applies && alone.because === 'quorum';
};

/** Every global ban of the device, of every publisher (all are visible to all): one Query per storage page. */
export const deviceGlobalBans = async (deviceId: string): Promise<Ban[]> => {
  const bans: Ban[] = [];
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ban)',
      FilterExpression: '#scope = :global',
      ExpressionAttributeNames: { '#scope': 'scope' },
      ExpressionAttributeValues: {
        ':pk': devicePartition(deviceId),
        ':ban': BAN_PREFIX,
        ':global': 'global',
      },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) for (const item of page.Items ?? []) bans.push(banFromItem(item));
  return bans;
};

/**
 * Whether `ban` (as an event or a live set holds it) restricts the device now, judged beside the
 * device's global bans `others` as they are stored: its own copy stands for the stored one.
 */
export const enforcedAmong = (policy: Policy, ban: Ban, others: readonly Ban[], now: string): boolean => {
  const all = [ban, ...others.filter((other) => other.ban_id !== ban.ban_id)];
  return judgeBans(policy, all, now)[0]?.applies ?? false;
};

/**
 * The appeal a listing shows on a ban: to a publisher that filed one, its own; to the ban's owner,
 * the one that changed last (filed or decided: as the feed's last appeal event of the ban says);
 * to anyone else none, so another publisher's appeal never stands in for the one it may file. A
 * ban appealed when a ban had one appeal in all shows that one to whoever has none of its own.
 */
const appealShownTo = (ban: Ban, reader: string): ListedBan['appeal'] => {
  const appeals = ban.appeals ?? {};
  const latest = Object.values(appeals).sort((a, b) =>
    a.at === b.at ? a.appeal_id.localeCompare(b.appeal_id) : a.at.localeCompare(b.at),
  );
  const shown = appeals[reader] ?? (reader === ban.publisher_id ? latest.at(-1) : undefined);
  if (shown) return { appeal_id: shown.appeal_id, status: shown.status, outcome: shown.outcome ?? null };
  if (ban.appeal_id === undefined) return null;
  return {
    appeal_id: ban.appeal_id,
    status: ban.appeal_status ?? 'open',
    outcome: ban.appeal_outcome ?? null,
  };
};

export { statementOfBan };

/**
 * How the caller reads a ban's texts: the languages it wants (kernel/locales.ts wantedLocales; none:
 * the ban's own), and whether its owner is answered the translations themselves (not on the hot
 * enforcement path, which answers the picked language alone).
 */
export interface BanView {
  wanted?: readonly string[];
  translations?: boolean;
}

/**
 * How a ban reads to the caller: metadata is private to its owner, game_id only for game bans,
 * and `enforced`, whether the caller's policy makes it apply now, as the caller judged it with the
 * device's other bans (enforcedEach).
 */
export const toListedBan = (ban: Ban, policy: Policy, enforced: boolean, view: BanView = {}): ListedBan => {
  const own = ban.publisher_id === policy.publisher_id;
  const { message_locale, player_message, statement } = localiseBan(ban, view.wanted ?? []);
  return {
    ban_id: ban.ban_id,
    ban_type: ban.ban_type,
    scope: ban.scope,
    publisher_id: ban.publisher_id,
    game_id: ban.scope === 'game' ? ban.game_id : null,
    reason_code: ban.reason_code,
    details_json:
      ban.publisher_id === policy.publisher_id && ban.details_json ? JSON.parse(ban.details_json) : null,
    created_at: ban.created_at,
    expires_at: ban.expires_at,
    revoked_at: ban.revoked_at,
    revoke_reason_code: ban.revoke_reason_code ?? null,
    player_message,
    appealable: ban.appealable ?? true,
    statement,
    message_locale,
    translations: own && view.translations !== false ? (ban.translations ?? null) : null,
    appeal: appealShownTo(ban, policy.publisher_id),
    created_by: own ? (ban.created_by ?? null) : null,
    enforced,
  };
};

const VISIBLE =
  '(#scope = :global OR (#publisher = :publisher AND (#scope = :publisherScope OR (#scope = :gameScope AND #game = :game))))';

/**
 * The Query for every ban (of `type`, or of any type) on the device that (publisher, game) may
 * see, newest first: its game bans for this game, its publisher bans, and every publisher's
 * global bans. The visibility rule runs in DynamoDB as a filter so only visible bans cross the
 * wire (a filter does not change the read units consumed).
 */
export const visibleBansQuery = (publisherId: string, gameId: string, deviceId: string, type?: BanType) =>
  ({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ban)',
    FilterExpression: type ? `#type = :type AND ${VISIBLE}` : VISIBLE,
    ExpressionAttributeNames: {
      ...(type ? { '#type': 'ban_type' } : {}),
      '#scope': 'scope',
      '#publisher': 'publisher_id',
      '#game': 'game_id',
    },
    ExpressionAttributeValues: {
      ':pk': devicePartition(deviceId),
      ':ban': BAN_PREFIX,
      ...(type ? { ':type': type } : {}),
      ':global': 'global',
      ':publisher': publisherId,
      ':publisherScope': 'publisher',
      ':gameScope': 'game',
      ':game': gameId,
    },
    ScanIndexForward: false,
    ConsistentRead: true,
  }) satisfies QueryCommandInput;

/** Every visible ban (see visibleBansQuery): one Query per storage page. */
export const visibleBans = async (
  publisherId: string,
  gameId: string,
  deviceId: string,
  type?: BanType,
): Promise<Ban[]> => {
  const bans: Ban[] = [];
  const pages = paginateQuery({ client: dynamo }, visibleBansQuery(publisherId, gameId, deviceId, type));
  for await (const page of pages) {
    for (const item of page.Items ?? []) bans.push(banFromItem(item));
  }
  return bans;
};

/**
 * One page of the device's visible bans (of `type`, or all). Counts cover every visible ban of
 * that type (not the page, not the status filter); the cursor is the last returned ban_id. The
 * policy (for `enforced`) is read alongside the bans, not before them.
 */
export const listBans = async (
  publisherId: string,
  gameId: string,
  deviceId: string,
  type: BanType | undefined,
  query: ListBansQuery,
  wanted: readonly string[] = [],
): Promise<BanList> => {
  const [policy, bans] = await Promise.all([
    getPolicy(publisherId),
    visibleBans(publisherId, gameId, deviceId, type),
  ]);
  const now = new Date(clock.now()).toISOString();
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
  // Judged among every visible ban of the type (or all): a listing reads every global ban of each
  // type it lists, so the quorum needs no further read.
  const enforced = new Map<number, boolean>();
  if (page.length > 0) {
    const verdicts = enforcedEach(policy, bans, now);
    bans.forEach((ban, i) => {
      enforced.set(ban.ban_id, verdicts[i] ?? false);
    });
  }
  return {
    device_id: deviceId,
    status: query.status,
    counts: { active, inactive: bans.length - active, total: bans.length },
    items: page.map((ban) => toListedBan(ban, policy, enforced.get(ban.ban_id) ?? false, { wanted })),
    next_cursor: more ? (page.at(-1)?.ban_id ?? null) : null,
  };
};

export const listSocialBans = (
  publisherId: string,
  gameId: string,
  deviceId: string,
  query: ListBansQuery,
  wanted: readonly string[] = [],
) => listBans(publisherId, gameId, deviceId, 'social', query, wanted);

export const listCheatBans = (
  publisherId: string,
  gameId: string,
  deviceId: string,
  query: ListBansQuery,
  wanted: readonly string[] = [],
) => listBans(publisherId, gameId, deviceId, 'cheat', query, wanted);

export const listAllBans = (
  publisherId: string,
  gameId: string,
  deviceId: string,
  { type, ...query }: ListAllBansQuery,
  wanted: readonly string[] = [],
) => listBans(publisherId, gameId, deviceId, type, query, wanted);

const banNotFound = () => new NotFoundError('No such ban on this device');

/** Records `ban.revoked` for a ban revoked since the audit began (it names its revoker). */
export const recordRevoked = async (ban: Ban): Promise<void> => {
  if (!ban.revoked_by || ban.revoked_at === null) return;
  await recordEvent(ban.publisher_id, String(ban.ban_id), ban.revoked_at, ban.revoked_by, {
    type: 'ban.revoked',
    ...banSubject(ban),
    revoke_reason_code: ban.revoke_reason_code ?? '',
  });
};

/** Records `ban.updated`: an appeal's decision moved its expiry or replaced its player message. */
export const recordUpdated = async (ban: Ban): Promise<void> => {
  if (!ban.updated_by || ban.updated_at === undefined) return;
  await recordEvent(ban.publisher_id, `${ban.ban_id}\n${ban.updated_at}`, ban.updated_at, ban.updated_by, {
    type: 'ban.updated',
    ...banSubject(ban),
    previous_expires_at: ban.previous_expires_at ?? null,
    expires_at: ban.expires_at,
  });
};

/**
 * Revokes a ban. Only its owner may, and only through a game that can see it (a game ban through
 * its own game, as listings show it): anyone else gets the same 404 as for a ban that does not
 * exist, so ban ids reveal nothing. One conditional UpdateItem, then its `ban.revoked` event
 * (beside the policy read for `enforced`); revoking again returns the ban as it is, first
 * revocation time, reason and revoker kept, and records the event if the first attempt could not.
 */
export const revokeBan = async (
  publisherId: string,
  gameId: string,
  deviceId: string,
  banId: number,
  reasonCode: string,
  actor: Actor,
  boundGames: readonly string[] | null = null,
): Promise<RevokedBan> => {
  const Key = banKey(deviceId, banId);
  const revoke = async (): Promise<Ban> => {
    try {
      const { Attributes } = await dynamo.send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'SET revoked_at = :now, revoke_reason_code = :reason, revoked_by = :actor',
          // A bound key's reach is game bans only (checkBanReach, on what the Get below finds).
          ConditionExpression: `attribute_exists(pk) AND publisher_id = :publisher AND revoked_at = :null AND ${
            boundGames
              ? '#scope = :gameScope AND game_id = :game'
              : '(#scope <> :gameScope OR game_id = :game)'
          }`,
          ExpressionAttributeNames: { '#scope': 'scope' },
          ExpressionAttributeValues: {
            ':now': new Date(clock.now()).toISOString(),
            ':reason': reasonCode,
            ':actor': actor,
            ':publisher': publisherId,
            ':null': null,
            ':gameScope': 'game',
            ':game': gameId,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return banFromItem(Attributes);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const { Item } = await dynamo.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }));
    const ban = Item && banFromItem(Item);
    if (!ban || ban.publisher_id !== publisherId || (ban.scope === 'game' && ban.game_id !== gameId)) {
      throw banNotFound();
    }
    checkBanReach(ban.scope, boundGames);
    return ban;
  };
  const revokeAndRecord = async () => {
    const ban = await revoke();
    await recordRevoked(ban);
    return ban;
  };
  const [ban, policy] = await Promise.all([revokeAndRecord(), getPolicy(publisherId)]);
  // A revoked ban is inactive: it applies nowhere, whatever the device's other bans (no quorum to read).
  return toListedBan(
    ban,
    policy,
    enforcedEach(policy, [ban], new Date(clock.now()).toISOString())[0] ?? false,
  );
};

/** Deletes in flight at once during an erasure. */
const ERASE_CONCURRENCY = 10;

/**
 * Erases what the publisher holds on a device: every ban it owns there, whatever its scope or
 * game, and each idempotency record holding a copy of one. Other publishers' bans stay. The audit
 * keeps one `device.erased` event with the count, never what the bans were.
 *
 * Retry-safe without transactions: before deleting anything it writes an erasure marker in the
 * device's partition (the ban ids it is erasing, when it began, who asked); the Query that finds
 * the bans finds an unfinished marker too, so a retry after a fault half-way erases the rest and
 * reports the whole count once. A record is deleted before its ban, so no record outlives the
 * ban through which it is found. An erasure that finds nothing writes nothing (and no event).
 */
export const eraseDevice = async (publisherId: string, deviceId: string, actor: Actor): Promise<Erasure> => {
  for (let round = 1; ; round += 1) {
    try {
      return await eraseOnce(publisherId, deviceId, actor);
    } catch (error) {
      // Another erasure of the same device put or removed the marker first: start again from
      // what it left, so that concurrent erasures are one erasure with one event.
      if (!isConditionFailure(error)) throw error;
      if (round === ERASE_ROUNDS)
        throw Object.assign(new Error('erasure kept racing another'), {
          name: 'TransactionConflictException',
        });
    }
  }
};

/** Rounds an erasure may lose to concurrent ones before it answers 503 (a retry then finishes). */
const ERASE_ROUNDS = 5;

const eraseOnce = async (publisherId: string, deviceId: string, actor: Actor): Promise<Erasure> => {
  const markerKey = erasureKey(deviceId, publisherId);
  const bans: Ban[] = [];
  /** Other publishers' bans with an appeal: one this publisher filed loses its texts. */
  const appealed: Ban[] = [];
  let marker: Record<string, unknown> | undefined;
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      // The publisher's bans and its own erasure marker (both carry its publisher_id), and the
      // bans it appealed (their player's texts go too), or that have their one appeal of old.
      FilterExpression:
        'publisher_id = :publisher OR attribute_exists(#filed) OR attribute_exists(appeal_id)',
      ExpressionAttributeNames: { '#filed': banAppealAttribute(publisherId) },
      ExpressionAttributeValues: { ':pk': devicePartition(deviceId), ':publisher': publisherId },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const sk = String(item.sk);
      if (sk === markerKey.sk) marker = item;
      else if (!sk.startsWith(BAN_PREFIX)) continue;
      else if (item.publisher_id === publisherId) bans.push(banFromItem(item));
      else appealed.push(banFromItem(item));
    }
  }
  const erased = new Set<number>(Array.isArray(marker?.ban_ids) ? (marker.ban_ids as number[]) : []);
  const known = erased.size;
  for (const ban of bans) erased.add(ban.ban_id);
  // An appeal's texts go before its ban, through which a retry finds them.
  const filed = await appealsToErase(publisherId, appealed);
  await mapWithConcurrency(filed, ERASE_CONCURRENCY, (appealId) =>
    eraseAppealTexts(appealId, new Date(clock.now()).toISOString()),
  );
  if (erased.size === 0) return { device_id: deviceId, erased_bans: 0 };

  const startedAt =
    typeof marker?.started_at === 'string' ? marker.started_at : new Date(clock.now()).toISOString();
  const by = actorFromStored(marker?.actor) ?? actor;
  if (!marker || erased.size > known) {
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...markerKey,
          publisher_id: publisherId,
          started_at: startedAt,
          actor: by,
          ban_ids: [...erased],
        },
        // A new marker only where there is none; a grown one only over the one this read.
        ...(marker
          ? {
              ConditionExpression: 'started_at = :started',
              ExpressionAttributeValues: { ':started': startedAt },
            }
          : { ConditionExpression: 'attribute_not_exists(pk)' }),
      }),
    );
  }
  await mapWithConcurrency(bans, ERASE_CONCURRENCY, async (ban) => {
    for (const appealId of appealIdsOf(ban)) await eraseAppealTexts(appealId, startedAt);
    if (ban.idempotency_key !== undefined) {
      await dynamo.send(
        new DeleteCommand({
          TableName: tableName(),
          Key: idempotencyKey(publisherId, ban.game_id, ban.idempotency_key),
        }),
      );
    }
    // An imported ban's record holds a copy of it, and would make a re-import put it back.
    if (ban.imported !== undefined) {
      await dynamo.send(
        new DeleteCommand({
          TableName: tableName(),
          Key: importedRowKey(publisherId, ban.imported.external_id),
        }),
      );
    }
    // Its entries in the indexes before the ban, through which a retry finds them.
    await Promise.all(
      [...bannedDeviceKeys(publisherId, deviceId, ban.ban_id), ...expiringBanKeysOf(ban)].map((Key) =>
        dynamo.send(new DeleteCommand({ TableName: tableName(), Key })),
      ),
    );
    await dynamo.send(new DeleteCommand({ TableName: tableName(), Key: banKey(deviceId, ban.ban_id) }));
  });
  await recordEvent(publisherId, `${deviceId}\n${startedAt}`, startedAt, by, {
    type: 'device.erased',
    device_id: deviceId,
    erased_bans: erased.size,
  });
  await dynamo.send(new DeleteCommand({ TableName: tableName(), Key: markerKey }));
  return { device_id: deviceId, erased_bans: erased.size };
};
