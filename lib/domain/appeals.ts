import {
  DeleteCommand,
  PutCommand,
  paginateQuery,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { isActive, judgeBans } from '@kernel/policy-rules';
import type { Scope } from '@kernel/scopes';
import * as clock from '../clock';
import type {
  AppealDecisionRequest,
  AppealOutcome,
  AppealsQuery,
  CreateAppealRequest,
} from '../model/requests';
import type { Actor, Appeal, AppealCreation, AppealList, AppealStats } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import { filteredPage } from '../storage/filtered-pages';
import { itemsBetween } from '../storage/key-ranges';
import {
  APPEAL_DAY_PREFIX,
  appealDayKey,
  appealIdOf,
  appealKey,
  appealQueuePartition,
  banAppealAttribute,
  banKey,
  DECIDED_APPEAL_PREFIX,
  decidedAppealKey,
  OPEN_APPEAL_PREFIX,
  openAppealKey,
} from '../storage/keys';
import {
  appealFromItem,
  appealReach,
  appealSubject,
  claimedConflict,
  claimInForce,
  decidedConflict,
  eraseEntryTexts,
  holderIdOf,
  partiesOf,
  putOpenEntry,
  readAppeal,
  type StoredAppeal,
  type StoredClaim,
  type StoredDecision,
} from './appeal-record';
import { recordEvent } from './audit';
import { type Ban, type BanAppeal, banFromItem } from './ban-record';
import { readBan, recordRevoked, recordUpdated, visibleBans } from './bans';
import { cursorOf, sortKeyOf } from './cursors';
import { ConflictError, IntegrityError, InvalidInputError, NotFoundError } from './errors';
import { noteExpiringBan } from './expiring-bans';
import { getPolicy } from './policy';

/**
 * Appeals: a player contests a ban enforced against their device; the ban's owner decides.
 * Invariants: one appeal per ban and filing publisher (its id derived from both, taken with a
 * conditional put), and filing and deciding are single-item conditional writes in an order that a
 * retry of the same request completes. Items, the order of the writes and the reasons:
 * docs/data-model.md#appeals.
 */

/**
 * How an appeal reads: its owner (moderators holding `appeals:decide`) sees all of it; its filer,
 * and anyone filing, the same without the owner's note and decider.
 */
export const toAppealView = (appeal: StoredAppeal, view: 'owner' | 'filer'): Appeal => {
  const owner = view === 'owner';
  const { decision } = appeal;
  return {
    appeal_id: appeal.appeal_id,
    status: appeal.status,
    device_id: appeal.device_id,
    ban_id: appeal.ban_id,
    ban_publisher_id: appeal.ban_publisher_id,
    filed_by: { publisher_id: appeal.filer_publisher_id, game_id: appeal.filer_game_id },
    player_link_id: appeal.player_link_id ?? null,
    message: appeal.message ?? null,
    contact: appeal.contact ?? null,
    created_at: appeal.created_at,
    decision: decision
      ? {
          outcome: decision.outcome,
          note: owner ? (decision.note ?? null) : null,
          player_message: decision.player_message ?? null,
          expires_at: decision.expires_at ?? null,
          decided_at: decision.decided_at,
          decided_by: owner ? decision.decided_by : null,
          applied_at: appeal.applied_at ?? null,
        }
      : null,
    erased_at: appeal.erased_at ?? null,
    ...claimView(owner ? claimInForce(appeal, new Date(clock.now()).toISOString()) : undefined),
  };
};

/** The claim as an appeal shows it: who holds it and until when, or nulls. */
const claimView = (claim: StoredClaim | undefined) => ({
  claimed_by: claim?.by ?? null,
  claimed_until: claim?.until ?? null,
});

/** The same appeal again: the same filer, game and key, or, without a key, the same words. */
const isRepeat = (appeal: StoredAppeal, publisherId: string, gameId: string, request: CreateAppealRequest) =>
  appeal.filer_publisher_id === publisherId &&
  appeal.filer_game_id === gameId &&
  appeal.device_id === request.device_id &&
  (request.idempotency_key !== undefined
    ? appeal.idempotency_key === request.idempotency_key
    : appeal.idempotency_key === undefined &&
      appeal.message === request.message &&
      appeal.contact === request.contact);

const alreadyAppealed = (appeal: StoredAppeal) =>
  new ConflictError(
    appeal.status === 'open'
      ? `This ban already has an open appeal from your publisher: ${appeal.appeal_id}`
      : `Your publisher's appeal ${appeal.appeal_id} of this ban was decided (${appeal.decision?.outcome ?? 'decided'}): a publisher appeals a ban once`,
  );

/** Why a ban visible to the caller cannot be appealed from this game now, if it cannot. */
const notAppealable = (ban: Ban, enforced: boolean, now: string): ConflictError | undefined => {
  if (ban.revoked_at !== null) return new ConflictError(`This ban was revoked at ${ban.revoked_at}`);
  if (!isActive(ban, now)) return new ConflictError(`This ban expired at ${ban.expires_at}`);
  if (!enforced)
    return new ConflictError('This ban is not enforced against the device in this game under your policy');
  if (ban.appealable === false) return new ConflictError('This ban cannot be appealed (appealable: false)');
  return undefined;
};

/**
 * Files an appeal of a ban enforced against the device in the caller's game. Answers the appeal
 * and whether this request filed it: a repeat (the same key, or the same words without one)
 * answers the appeal as it is now, at any stage of its life. Any other second appeal of the ban
 * is a 409 naming the first.
 */
export const fileAppeal = async (
  publisherId: string,
  gameId: string,
  request: CreateAppealRequest,
  actor: Actor,
  /** The player's page link it is filed through, if the player filed it. */
  playerLinkId?: string,
): Promise<AppealCreation> => {
  const [policy, bans] = await Promise.all([
    getPolicy(publisherId),
    visibleBans(publisherId, gameId, request.device_id),
  ]);
  const ban = bans.find((found) => found.ban_id === request.ban_id);
  if (!ban) throw new NotFoundError('No such ban on this device');
  const appealId = appealIdOf(ban.ban_id, publisherId);
  const now = new Date(clock.now()).toISOString();
  const appeal: StoredAppeal = {
    appeal_id: appealId,
    status: 'open',
    device_id: ban.device_id,
    ban_id: ban.ban_id,
    ban_publisher_id: ban.publisher_id,
    ban_scope: ban.scope,
    ban_game_id: ban.game_id,
    filer_publisher_id: publisherId,
    filer_game_id: gameId,
    message: request.message,
    ...(request.contact === undefined ? {} : { contact: request.contact }),
    ...(request.idempotency_key === undefined ? {} : { idempotency_key: request.idempotency_key }),
    ...(playerLinkId === undefined ? {} : { player_link_id: playerLinkId }),
    created_at: now,
    created_by: actor,
  };
  // 1. The appeal item: one per ban and filing publisher.
  let filed = appeal;
  let result: AppealCreation['result'] = 'created';
  try {
    // A ban appealed when a ban had one appeal in all: that one is its filer's appeal.
    const single = ban.appeal_id === undefined ? undefined : await readAppeal(ban.appeal_id);
    if (single?.filer_publisher_id === publisherId) {
      if (isRepeat(single, publisherId, gameId, request)) return finishFiling(single, 'idempotent_ok');
      throw alreadyAppealed(single);
    }
    // Judged among the device's visible bans, which hold all its global bans (the quorum).
    const enforced = judgeBans(policy, bans, now)[bans.indexOf(ban)]?.applies ?? false;
    const refusal = notAppealable(ban, enforced, now);
    if (ban.appeals?.[publisherId] !== undefined || refusal) {
      // A repeat of an appeal made before is answered as it is, whatever the ban became since.
      const existing = await readAppeal(appealId);
      if (existing && isRepeat(existing, publisherId, gameId, request))
        return finishFiling(existing, 'idempotent_ok');
      if (existing) throw alreadyAppealed(existing);
      if (refusal) throw refusal;
    }
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...appealKey(appealId), ...appeal },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const existing = await readAppeal(appealId);
    if (!existing) throw new IntegrityError('appeal vanished after a failed put');
    if (!isRepeat(existing, publisherId, gameId, request)) throw alreadyAppealed(existing);
    filed = existing;
    result = 'idempotent_ok';
  }
  return finishFiling(filed, result);
};

/**
 * The rest of a filing, safe to repeat: the ban names its appeal (a condition keeps a revoked,
 * expired or unappealable ban from being claimed; such an appeal is withdrawn, 409), the queue
 * shows it, and the filer's audit trail records it.
 */
const finishFiling = async (
  appeal: StoredAppeal,
  result: AppealCreation['result'],
): Promise<AppealCreation> => {
  if (appeal.status === 'open') {
    try {
      await dynamo.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: banKey(appeal.device_id, appeal.ban_id),
          // The filer's own attribute: other publishers' appeals of the ban are theirs to claim.
          UpdateExpression: 'SET #filed = if_not_exists(#filed, :entry)',
          ConditionExpression:
            'attribute_exists(pk) AND (#filed.appeal_id = :id OR (revoked_at = :null ' +
            'AND (attribute_not_exists(appealable) OR appealable = :true) AND (expires_at = :null OR expires_at > :now)))',
          ExpressionAttributeNames: { '#filed': banAppealAttribute(appeal.filer_publisher_id) },
          ExpressionAttributeValues: {
            ':id': appeal.appeal_id,
            ':entry': {
              appeal_id: appeal.appeal_id,
              status: 'open',
              at: appeal.created_at,
            } satisfies BanAppeal,
            ':null': null,
            ':true': true,
            ':now': new Date(clock.now()).toISOString(),
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Revoked, expired or erased between the read and the claim: the appeal is withdrawn
      // (unless its owner, who can read it by id, decided it meanwhile).
      const ban = await readBan(appeal.device_id, appeal.ban_id);
      try {
        await dynamo.send(
          new DeleteCommand({
            TableName: tableName(),
            Key: appealKey(appeal.appeal_id),
            ConditionExpression: '#status = :open',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':open': 'open' },
          }),
        );
      } catch (deleteError) {
        if (!isConditionFailure(deleteError)) throw deleteError;
      }
      if (!ban) throw new NotFoundError('No such ban on this device');
      throw (
        notAppealable(ban, true, new Date(clock.now()).toISOString()) ??
        new ConflictError('This ban cannot be appealed')
      );
    }
    // The answer is the appeal as it is now: decided already, if its owner was that quick.
    const now = await putOpenEntry(appeal);
    await recordAppealCreated(appeal);
    return { ...toAppealView(now, 'filer'), result };
  }
  await recordAppealCreated(appeal);
  return { ...toAppealView(appeal, 'filer'), result };
};

/**
 * `appeal.created` in the filer's trail (its key acted); the owner learns of it from its queue,
 * the feed and webhooks. Its id is the feed's for the same change (keyed by the owner).
 */
const recordAppealCreated = (appeal: StoredAppeal) =>
  recordEvent(
    appeal.filer_publisher_id,
    appeal.appeal_id,
    appeal.created_at,
    appeal.created_by,
    {
      type: 'appeal.created',
      device_id: appeal.device_id,
      appeal: appealSubject({ ...appeal, status: 'open', decision: undefined } as StoredAppeal),
    },
    appeal.ban_publisher_id,
  );

/**
 * An appeal the caller may read: as its ban's owner, all of it, only with `appeals:decide` (the
 * moderators' scope); as its filer, the filer's view. A key bound to games reaches, as owner, the
 * appeals of its games' game bans, and as filer those filed from its games (appealReach). Anything
 * else is a 404, as an unknown id.
 */
export const getAppeal = async (
  publisherId: string,
  appealId: string,
  reader: { scopes: readonly Scope[]; games: readonly string[] | null },
): Promise<Appeal> => {
  const appeal = await readAppeal(appealId);
  const reach = appeal ? appealReach(partiesOf(appeal), publisherId, reader.games) : undefined;
  const asOwner = reach?.owner === true && reader.scopes.includes('appeals:decide');
  if (!appeal || (!asOwner && !reach?.filer)) throw new NotFoundError('No such appeal');
  return toAppealView(appeal, asOwner ? 'owner' : 'filer');
};

const sameDecision = (decision: StoredDecision | undefined, request: AppealDecisionRequest) =>
  decision !== undefined &&
  decision.outcome === request.outcome &&
  (decision.note ?? null) === (request.note ?? null) &&
  (decision.player_message ?? null) === (request.player_message ?? null) &&
  (decision.expires_at ?? null) === (request.expires_at ?? null);

/**
 * Decides an appeal of one of the publisher's bans. Exactly one decision wins (a conditional
 * update from open); its effect on the ban follows: `overturned` revokes the ban as a revoke does
 * (reason `appeal_overturned`), `shortened` moves its expiry earlier, and a new `player_message`
 * replaces the ban's. A repeat of the winning decision (the same body) finishes whatever a fault
 * left undone and answers 200; any other decision of a decided appeal is a 409.
 */
export const decideAppeal = async (
  publisherId: string,
  appealId: string,
  request: AppealDecisionRequest,
  actor: Actor,
  boundGames: readonly string[] | null = null,
): Promise<Appeal> => {
  if (request.outcome !== 'shortened' && request.expires_at !== undefined)
    throw new InvalidInputError('expires_at', 'not_allowed', 'is only for the outcome shortened');
  if (request.outcome === 'shortened' && (request.expires_at === undefined || request.expires_at === null))
    throw new InvalidInputError('expires_at', 'required', 'is required for the outcome shortened');
  const appeal = await readAppeal(appealId);
  if (!appeal || !appealReach(partiesOf(appeal), publisherId, boundGames).owner)
    throw new NotFoundError('No such appeal');
  const decidedAlready = (found: StoredAppeal) => {
    if (sameDecision(found.decision, request)) return found;
    throw decidedConflict(found);
  };
  const me = holderIdOf(actor);
  /** Another's claim in force: only its holder decides (an admin takes it over first). */
  const othersClaim = (found: StoredAppeal, now: string) => {
    const claim = claimInForce(found, now);
    return claim && claim.holder !== me ? claimedConflict(claim) : undefined;
  };
  let decided: StoredAppeal;
  if (appeal.status === 'decided') decided = decidedAlready(appeal);
  else {
    const now = new Date(clock.now()).toISOString();
    const held = othersClaim(appeal, now);
    if (held) throw held;
    if (request.outcome === 'shortened') {
      const ban = await readBan(appeal.device_id, appeal.ban_id);
      if (!ban || ban.revoked_at !== null || !isActive(ban, now))
        throw new ConflictError('The ban is no longer in force: there is no expiry to shorten');
      const until = request.expires_at as string;
      if (until <= now) throw new InvalidInputError('expires_at', 'in_past', 'must be in the future');
      if (ban.expires_at !== null && until >= ban.expires_at)
        throw new InvalidInputError(
          'expires_at',
          'too_big',
          `must be earlier than the ban's expiry (${ban.expires_at})`,
        );
    }
    const decision: StoredDecision = {
      outcome: request.outcome,
      ...(request.note === undefined ? {} : { note: request.note }),
      ...(request.player_message === undefined ? {} : { player_message: request.player_message }),
      ...(typeof request.expires_at === 'string' ? { expires_at: request.expires_at } : {}),
      decided_at: now,
      decided_by: actor,
    };
    try {
      await dynamo.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: appealKey(appealId),
          UpdateExpression: 'SET #status = :decided, decision = :decision',
          // Open, and not claimed by another now (no claim, released, ended, or the caller's).
          ConditionExpression:
            '#status = :open AND (attribute_not_exists(#claim) OR attribute_exists(#claim.#released) ' +
            'OR #claim.#until <= :now OR #claim.#holder = :me)',
          ExpressionAttributeNames: {
            '#status': 'status',
            '#claim': 'claim',
            '#released': 'released_at',
            '#until': 'until',
            '#holder': 'holder',
          },
          ExpressionAttributeValues: {
            ':decided': 'decided',
            ':open': 'open',
            ':decision': decision,
            ':now': now,
            ':me': me,
          },
        }),
      );
      decided = { ...appeal, status: 'decided', decision };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const found = await readAppeal(appealId);
      if (!found) throw new IntegrityError('appeal vanished while being decided');
      if (found.status === 'open')
        throw othersClaim(found, now) ?? new ConflictError('The appeal changed meanwhile: try again');
      decided = decidedAlready(found);
    }
  }
  return toAppealView(await applyDecision(decided), 'owner');
};

/**
 * A decision's effects, each safe to repeat: the ban (its event after it), the owner's
 * `appeal.decided`, the queue (the decided entry, the open one deleted), then `applied_at`, which
 * says all of it was done and which the decided entry carries already.
 */
const applyDecision = async (appeal: StoredAppeal): Promise<StoredAppeal> => {
  const decision = appeal.decision;
  if (!decision) throw new IntegrityError('decided appeal without its decision');
  if (appeal.applied_at !== undefined) return appeal;
  await applyToBan(appeal, decision);
  await recordEvent(appeal.ban_publisher_id, appeal.appeal_id, decision.decided_at, decision.decided_by, {
    type: 'appeal.decided',
    device_id: appeal.device_id,
    appeal: appealSubject(appeal),
  });
  const appliedAt = new Date(clock.now()).toISOString();
  const entry = decidedAppealKey(appeal.ban_publisher_id, decision.decided_at, appeal.appeal_id);
  await dynamo.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...entry,
        appeal: { ...appeal, applied_at: appliedAt },
        seconds: secondsBetween(appeal.created_at, decision.decided_at),
      },
    }),
  );
  await dynamo.send(
    new DeleteCommand({
      TableName: tableName(),
      Key: openAppealKey(appeal.ban_publisher_id, appeal.created_at, appeal.appeal_id),
    }),
  );
  const { Attributes } = await dynamo.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: appealKey(appeal.appeal_id),
      UpdateExpression: 'SET applied_at = if_not_exists(applied_at, :now)',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':now': appliedAt },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const applied = appealFromItem(Attributes) ?? { ...appeal, applied_at: appliedAt };
  // An erasure that came in while the entry copied the appeal: its texts go from the copy too.
  if (applied.erased_at !== undefined) await eraseEntryTexts(entry, applied.erased_at);
  return applied;
};

const secondsBetween = (from: string, to: string) =>
  Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));

/**
 * The decision's effect on the ban, in one conditional update: the appeal's outcome, and per
 * outcome a revoke (if it is not revoked already), an earlier expiry, a new player message. An
 * erased ban takes no effect. The event of the change (`ban.revoked`, `ban.updated`) follows.
 */
const applyToBan = async (appeal: StoredAppeal, decision: StoredDecision): Promise<void> => {
  const Key = banKey(appeal.device_id, appeal.ban_id);
  const entry: BanAppeal = {
    appeal_id: appeal.appeal_id,
    status: 'decided',
    outcome: decision.outcome,
    at: decision.decided_at,
  };
  const names = { '#filed': banAppealAttribute(appeal.filer_publisher_id) };
  const set = ['#filed = :entry'];
  const values: Record<string, unknown> = { ':entry': entry };
  const changesBan = decision.outcome === 'shortened' || decision.player_message !== undefined;
  if (decision.outcome === 'overturned') {
    set.push('revoked_at = :at', 'revoke_reason_code = :reason', 'revoked_by = :by');
    Object.assign(values, {
      ':at': decision.decided_at,
      ':reason': 'appeal_overturned',
      ':by': decision.decided_by,
    });
  }
  if (changesBan) {
    set.push('updated_at = :at', 'updated_by = :by', 'previous_expires_at = expires_at');
    Object.assign(values, { ':at': decision.decided_at, ':by': decision.decided_by });
  }
  if (decision.outcome === 'shortened') {
    set.push('expires_at = :until');
    values[':until'] = decision.expires_at;
  }
  if (decision.player_message !== undefined) {
    // The translations the ban carries are of the message it was made with, not of this one.
    set.push('player_message = :message', 'player_message_replaced = :replaced');
    values[':message'] = decision.player_message;
    values[':replaced'] = true;
  }
  // Applied once: a ban whose attribute for this filer says decided was changed by an earlier
  // attempt. A ban revoked meanwhile (by its owner, by another appeal's overturn, or erased) keeps
  // that; only the appeal's outcome is noted.
  const attempt = async (
    update: string[],
    condition: string,
    extra: Record<string, unknown>,
    extraNames: Record<string, string> = {},
  ) => {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: `SET ${update.join(', ')}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: { ...names, ...extraNames },
        ExpressionAttributeValues: { ...extra },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return banFromItem(Attributes);
  };
  try {
    const ban = await attempt(
      set,
      'attribute_exists(pk) AND publisher_id = :publisher AND revoked_at = :null AND ' +
        '(attribute_not_exists(#filed) OR #filed.#status <> :decided)',
      { ...values, ':publisher': appeal.ban_publisher_id, ':null': null, ':decided': 'decided' },
      { '#status': 'status' },
    );
    if (decision.outcome === 'overturned') await recordRevoked(ban);
    // The ban's entry at its new end (the one at its old end is left for the listing to pass by).
    if (decision.outcome === 'shortened') await noteExpiringBan(ban);
    if (changesBan) await recordUpdated(ban);
    return;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const ban = await readBan(appeal.device_id, appeal.ban_id);
  if (!ban || ban.publisher_id !== appeal.ban_publisher_id) return;
  const named = ban.appeals?.[appeal.filer_publisher_id];
  if (named?.status === 'decided' && named.outcome === decision.outcome) {
    // Changed by an earlier attempt whose events may not have been recorded.
    if (decision.outcome === 'overturned') await recordRevoked(ban);
    if (decision.outcome === 'shortened' && ban.updated_at === decision.decided_at)
      await noteExpiringBan(ban);
    if (changesBan && ban.updated_at === decision.decided_at) await recordUpdated(ban);
    return;
  }
  // Revoked meanwhile: the ban stays as it was left; it names the appeal's outcome.
  await attempt(set.slice(0, 1), 'attribute_exists(pk)', { ':entry': entry });
};

const CURSOR = /^(OPEN|DONE)#(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)#(apl_[A-Za-z0-9_-]{22})$|^DONE#$/;

const entryAppeal = (item: Record<string, unknown>) => {
  const appeal = appealFromItem(item.appeal as Record<string, unknown> | undefined);
  if (!appeal) throw new IntegrityError('appeal queue entry without its appeal');
  return appeal;
};

/**
 * The publisher's appeals: open ones oldest first (the queue), then decided ones newest first;
 * `status` keeps one of the two. One Query per page of storage; a filter by ban or device reads
 * on (at most 1,000 entries a request, lib/storage/filtered-pages.ts) and may answer fewer.
 */
export const listAppeals = async (publisherId: string, query: AppealsQuery): Promise<AppealList> => {
  const phases = (
    query.status === 'open'
      ? [OPEN_APPEAL_PREFIX]
      : query.status === 'decided'
        ? [DECIDED_APPEAL_PREFIX]
        : [OPEN_APPEAL_PREFIX, DECIDED_APPEAL_PREFIX]
  ) as string[];
  const pk = appealQueuePartition(publisherId);
  const reader = `appeals ${pk}`;
  const after =
    query.cursor === undefined ? undefined : sortKeyOf(reader, query.cursor, (sk) => CURSOR.test(sk));
  const filters: string[] = [];
  const values: Record<string, unknown> = { ':pk': pk };
  if (query.ban_id !== undefined) {
    filters.push('#appeal.ban_id = :ban');
    values[':ban'] = query.ban_id;
  }
  if (query.device_id !== undefined) {
    filters.push('#appeal.device_id = :device');
    values[':device'] = query.device_id;
  }
  const items: Appeal[] = [];
  let start = phases.findIndex((prefix) => after?.startsWith(prefix));
  if (after !== undefined && start === -1)
    throw new InvalidInputError('cursor', 'invalid', 'is for another status');
  if (start === -1) start = 0;
  for (let index = start; index < phases.length; index += 1) {
    const prefix = phases[index] as string;
    const resume = index === start && after !== undefined && after !== prefix ? after : undefined;
    const input: QueryCommandInput = {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ...values, ':prefix': prefix },
      ...(filters.length > 0
        ? { FilterExpression: filters.join(' AND '), ExpressionAttributeNames: { '#appeal': 'appeal' } }
        : {}),
      ScanIndexForward: prefix === OPEN_APPEAL_PREFIX,
      ConsistentRead: true,
    };
    const page = await filteredPage(
      input,
      query.limit - items.length,
      resume === undefined ? undefined : { pk: values[':pk'], sk: resume },
      (item) => toAppealView(entryAppeal(item), 'owner'),
    );
    items.push(...page.items);
    if (page.resumeAfter !== null) return { items, next_cursor: cursorOf(reader, page.resumeAfter) };
    const next = phases[index + 1];
    if (items.length === query.limit)
      return { items, next_cursor: next === undefined ? null : cursorOf(reader, next) };
  }
  return { items, next_cursor: null };
};

/** The stats window: the last 30 days (UTC calendar days, today included). */
export const STATS_WINDOW_DAYS = 30;
/** A day is rolled up this long after it ends: a decision's entry is written moments after its time. */
const ROLLUP_GRACE_MS = 10 * 60 * 1000;

interface DayRollup {
  outcomes: Record<AppealOutcome, number>;
  /** Every decision's time to decision in seconds, sorted: exact percentiles over any set of days. */
  seconds: number[];
}

const emptyRollup = (): DayRollup => ({ outcomes: { upheld: 0, overturned: 0, shortened: 0 }, seconds: [] });

/** The decisions made on one UTC day, from its decided entries (one Query per storage page). */
const decisionsOf = async (publisherId: string, day: string): Promise<DayRollup> => {
  const rollup = emptyRollup();
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :day)',
      ProjectionExpression: '#appeal.decision.outcome, seconds',
      ExpressionAttributeNames: { '#appeal': 'appeal' },
      ExpressionAttributeValues: {
        ':pk': appealQueuePartition(publisherId),
        ':day': `${DECIDED_APPEAL_PREFIX}${day}`,
      },
      ConsistentRead: true,
    },
  );
  for await (const page of pages)
    for (const item of page.Items ?? []) {
      const outcome = (item.appeal as { decision?: { outcome?: AppealOutcome } } | undefined)?.decision
        ?.outcome;
      if (outcome) rollup.outcomes[outcome] += 1;
      if (typeof item.seconds === 'number') rollup.seconds.push(item.seconds);
    }
  rollup.seconds.sort((a, b) => a - b);
  return rollup;
};

const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The nearest-rank percentile of sorted values. */
const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0 ? null : (sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? null);

/**
 * A team lead's numbers. Never a read of every appeal: the open entries are counted (the queue,
 * not the history), each complete day of the window is one rollup item written the first time a
 * stats call needs it (a conditional put, so concurrent calls agree), and only the days not
 * rolled up yet (today, and yesterday in its first minutes) are read from their decided entries.
 */
export const appealStats = async (publisherId: string): Promise<AppealStats> => {
  const nowMs = clock.now();
  const now = new Date(nowMs).toISOString();
  const days = Array.from({ length: STATS_WINDOW_DAYS }, (_, back) => dayOf(nowMs - back * 86_400_000));
  const rolled = (day: string) => Date.parse(`${day}T00:00:00.000Z`) + 86_400_000 + ROLLUP_GRACE_MS <= nowMs;
  const [open, oldest, stored] = await Promise.all([
    countOpen(publisherId),
    oldestOpen(publisherId),
    storedRollups(publisherId, days.at(-1) as string, days[0] as string),
  ]);
  const perDay = await Promise.all(
    days.map(async (day) => {
      const found = stored.get(day);
      if (found) return found;
      const rollup = await decisionsOf(publisherId, day);
      if (rolled(day)) await storeRollup(publisherId, day, rollup);
      return rollup;
    }),
  );
  const total = emptyRollup();
  for (const day of perDay) {
    for (const outcome of Object.keys(total.outcomes) as AppealOutcome[])
      total.outcomes[outcome] += day.outcomes[outcome];
    total.seconds.push(...day.seconds);
  }
  total.seconds.sort((a, b) => a - b);
  return {
    open,
    oldest_open_at: oldest,
    oldest_open_age_seconds: oldest === null ? null : secondsBetween(oldest, now),
    window_days: STATS_WINDOW_DAYS,
    decided: total.seconds.length,
    outcomes: total.outcomes,
    time_to_decision_seconds: { median: percentile(total.seconds, 50), p90: percentile(total.seconds, 90) },
    computed_at: now,
  };
};

const countOpen = async (publisherId: string): Promise<number> => {
  let open = 0;
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :open)',
      ExpressionAttributeValues: { ':pk': appealQueuePartition(publisherId), ':open': OPEN_APPEAL_PREFIX },
      Select: 'COUNT',
      ConsistentRead: true,
    },
  );
  for await (const page of pages) open += page.Count ?? 0;
  return open;
};

const oldestOpen = async (publisherId: string): Promise<string | null> => {
  const { Items } = await dynamo.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :open)',
      ExpressionAttributeValues: { ':pk': appealQueuePartition(publisherId), ':open': OPEN_APPEAL_PREFIX },
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const sk = Items?.[0]?.sk;
  return typeof sk === 'string' ? (sk.slice(OPEN_APPEAL_PREFIX.length).split('#')[0] ?? null) : null;
};

const storedRollups = async (publisherId: string, first: string, last: string) => {
  const found = new Map<string, DayRollup>();
  const items = await itemsBetween(
    appealQueuePartition(publisherId),
    appealDayKey(publisherId, first).sk,
    appealDayKey(publisherId, last).sk,
  );
  for (const item of items) {
    const day = String(item.sk).slice(APPEAL_DAY_PREFIX.length);
    const outcomes = item.outcomes as DayRollup['outcomes'] | undefined;
    const seconds = item.seconds as number[] | undefined;
    if (!outcomes || !Array.isArray(seconds)) throw new IntegrityError('stored appeal rollup is malformed');
    found.set(day, { outcomes: { ...emptyRollup().outcomes, ...outcomes }, seconds: [...seconds] });
  }
  return found;
};

const storeRollup = async (publisherId: string, day: string, rollup: DayRollup) => {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...appealDayKey(publisherId, day), outcomes: rollup.outcomes, seconds: rollup.seconds },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    // Another call rolled the same day up first: the same decisions, the same numbers.
    if (!isConditionFailure(error)) throw error;
  }
};
