import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { actorFromStored } from '../model/actors';
import type { AppealOutcome } from '../model/requests';
import type { Actor, AppealSubject } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import { appealKey, decidedAppealKey, openAppealKey } from '../storage/keys';
import type { Ban } from './ban-record';
import { ConflictError, IntegrityError } from './errors';

/**
 * The appeal entity as stored (`APPEAL#<appeal_id>` / `APPEAL`, lib/storage/keys.ts): its type,
 * its id rule and its mapping, apart from lib/domain/appeals.ts so that the events dispatcher
 * reads appeals from the stream without the routes' code.
 */

/** The decision as stored on the appeal item. */
export interface StoredDecision {
  outcome: AppealOutcome;
  note?: string;
  player_message?: string;
  expires_at?: string;
  decided_at: string;
  decided_by: Actor;
}

/**
 * A moderator's claim on an open appeal (lib/domain/appeal-claims.ts). A release keeps the claim
 * with `released_at` (so a retried release finds what it released and records its event); a claim
 * is in force while it is not released and `until` is later than now.
 */
export interface StoredClaim {
  /** Who holds it, as one string: `user:<sub>` or `key:<key_id>` (holderIdOf). */
  holder: string;
  by: Actor;
  /** When this holder's claim began (a renewal keeps it). */
  claimed_at: string;
  until: string;
  /** The holder it was taken from, when an admin took it over. */
  taken_over_from?: Actor;
  released_at?: string;
  released_by?: Actor;
}

/** One string per actor: the claim's holder, compared in conditional writes. */
export const holderIdOf = (actor: Actor) =>
  actor.type === 'user' ? `user:${actor.sub}` : `key:${actor.key_id ?? 'operator'}`;

/** The claim in force at `now` (ISO), if any: none on a decided appeal. */
export const claimInForce = (appeal: StoredAppeal, now: string): StoredClaim | undefined =>
  appeal.status === 'open' &&
  appeal.claim &&
  appeal.claim.released_at === undefined &&
  appeal.claim.until > now
    ? appeal.claim
    : undefined;

/** The appeal as stored, without its keys. */
export interface StoredAppeal {
  appeal_id: string;
  status: 'open' | 'decided';
  device_id: string;
  ban_id: number;
  ban_publisher_id: string;
  /** The ban's scope and game, for the reach of a key bound to games. */
  ban_scope: Ban['scope'];
  ban_game_id: string;
  filer_publisher_id: string;
  filer_game_id: string;
  message?: string;
  contact?: string;
  idempotency_key?: string;
  /** Filed by the player through their page (lib/domain/player-links.ts): the link's id. */
  player_link_id?: string;
  created_at: string;
  created_by: Actor;
  decision?: StoredDecision;
  applied_at?: string;
  erased_at?: string;
  claim?: StoredClaim;
  /** Counts the claim's changes, never reset: a queue entry's copy of the claim is only ever replaced by a later one. */
  claim_version?: number;
  /** Imported with its ban (lib/domain/appeal-imports.ts): the ban's batch and external id. */
  imported?: { batch_id: string; external_id: string };
}

/** Who an appeal concerns: its ban's owner (and the game of a `game` ban), and its filer (and the game it filed from). */
export interface AppealParties {
  ban_publisher_id: string;
  /** A `game` ban's game; null for a `publisher` or `global` ban, which no one game holds. */
  ban_game_id: string | null;
  filer_publisher_id: string;
  filer_game_id: string;
}

/**
 * How a reader of `publisherId` bound to `games` (null: every game) reaches an appeal: as its
 * owner, when it is the ban's publisher and holds the game of a `game` ban; as its filer, when it
 * filed it from one of its games. One rule for reads by id, the change feed and webhooks.
 */
export const appealReach = (
  parties: AppealParties,
  publisherId: string,
  games: readonly string[] | null,
): { owner: boolean; filer: boolean } => ({
  owner:
    parties.ban_publisher_id === publisherId &&
    (games === null || (parties.ban_game_id !== null && games.includes(parties.ban_game_id))),
  filer:
    parties.filer_publisher_id === publisherId && (games === null || games.includes(parties.filer_game_id)),
});

/** The parties of a stored appeal. */
export const partiesOf = (appeal: StoredAppeal): AppealParties => ({
  ban_publisher_id: appeal.ban_publisher_id,
  ban_game_id: appeal.ban_scope === 'game' ? appeal.ban_game_id : null,
  filer_publisher_id: appeal.filer_publisher_id,
  filer_game_id: appeal.filer_game_id,
});

export const appealFromItem = (item: Record<string, unknown> | undefined): StoredAppeal | undefined => {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, ...rest } = item;
  const appeal = rest as unknown as StoredAppeal;
  if (
    typeof appeal.appeal_id !== 'string' ||
    (appeal.status !== 'open' && appeal.status !== 'decided') ||
    typeof appeal.ban_id !== 'number' ||
    typeof appeal.ban_publisher_id !== 'string' ||
    typeof appeal.filer_publisher_id !== 'string' ||
    typeof appeal.created_at !== 'string'
  )
    throw new IntegrityError('stored appeal is malformed');
  const createdBy = actorFromStored(appeal.created_by);
  if (!createdBy) throw new IntegrityError('stored appeal names no filer');
  const decidedBy = appeal.decision ? actorFromStored(appeal.decision.decided_by) : undefined;
  return {
    ...appeal,
    created_by: createdBy,
    ...(appeal.decision && decidedBy ? { decision: { ...appeal.decision, decided_by: decidedBy } } : {}),
    ...(appeal.claim ? { claim: claimFromStored(appeal.claim) } : {}),
  };
};

const claimFromStored = (claim: StoredClaim): StoredClaim => {
  const by = actorFromStored(claim.by);
  if (!by || typeof claim.holder !== 'string' || typeof claim.until !== 'string')
    throw new IntegrityError('stored appeal claim is malformed');
  const from = claim.taken_over_from === undefined ? undefined : actorFromStored(claim.taken_over_from);
  const releasedBy = claim.released_by === undefined ? undefined : actorFromStored(claim.released_by);
  return {
    ...claim,
    by,
    ...(from ? { taken_over_from: from } : {}),
    ...(releasedBy ? { released_by: releasedBy } : {}),
  };
};

/** What the audit, the feed and webhooks say of an appeal: never its texts. */
export const appealSubject = (appeal: StoredAppeal): AppealSubject => ({
  appeal_id: appeal.appeal_id,
  ban_id: appeal.ban_id,
  ban_publisher_id: appeal.ban_publisher_id,
  filed_by: { publisher_id: appeal.filer_publisher_id, game_id: appeal.filer_game_id },
  status: appeal.status,
  outcome: appeal.decision?.outcome ?? null,
  created_at: appeal.created_at,
  decided_at: appeal.decision?.decided_at ?? null,
});

export const readAppeal = async (appealId: string): Promise<StoredAppeal | undefined> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: appealKey(appealId), ConsistentRead: true }),
  );
  return appealFromItem(Item);
};

/** The 409 of a change refused because another holds the appeal: names them and until when. */
export const claimedConflict = (claim: StoredClaim) =>
  new ConflictError(
    `This appeal is claimed by ${actorWords(claim.by)} until ${claim.until}: they decide it, or an admin takes it over`,
    { reason: 'claimed', actor: claim.by, at: claim.claimed_at, until: claim.until },
  );

/** The 409 of a change refused because the appeal was decided: names who decided and when. */
export const decidedConflict = (appeal: StoredAppeal) => {
  const decision = appeal.decision;
  if (!decision) throw new IntegrityError('decided appeal without its decision');
  return new ConflictError(
    `This appeal was decided (${decision.outcome}) by ${actorWords(decision.decided_by)} at ${decision.decided_at}: an appeal is decided once`,
    { reason: 'decided', actor: decision.decided_by, at: decision.decided_at, until: null },
  );
};

const actorWords = (actor: Actor) =>
  actor.type === 'user'
    ? `${actor.email ?? actor.sub} (${actor.role})`
    : `key ${actor.name} (${actor.key_id ?? 'operator'})`;

/**
 * Copies the appeal's claim into its open queue entry, so that the queue shows who holds each
 * appeal. Only a later version replaces an earlier one (two claims' copies may land in either
 * order); a missing entry (decided meanwhile) is left missing.
 */
export const copyClaimToEntry = async (appeal: StoredAppeal): Promise<void> => {
  if (appeal.claim === undefined || appeal.claim_version === undefined) return;
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: openAppealKey(appeal.ban_publisher_id, appeal.created_at, appeal.appeal_id),
        UpdateExpression: 'SET #appeal.claim = :claim, #appeal.claim_version = :version',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(#appeal.claim_version) OR #appeal.claim_version < :version)',
        ExpressionAttributeNames: { '#appeal': 'appeal' },
        ExpressionAttributeValues: { ':claim': appeal.claim, ':version': appeal.claim_version },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/** Drops the player's texts from a queue entry's copy of an appeal, if the entry exists. */
export const eraseEntryTexts = async (Key: { pk: string; sk: string }, erasedAt: string): Promise<void> => {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: 'REMOVE #appeal.message, #appeal.contact SET #appeal.erased_at = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#appeal': 'appeal' },
        ExpressionAttributeValues: { ':at': erasedAt },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * Drops an appeal's player texts (an erasure of its device), from the record and then its queue
 * entries, every step again on a retry. A filing or a decision that copies the appeal into an
 * entry meanwhile reads the record after its copy and drops the texts itself (lib/domain/appeals.ts).
 */
export const eraseAppealTexts = async (appealId: string, erasedAt: string): Promise<void> => {
  const appeal = await readAppeal(appealId);
  if (!appeal) return;
  if (appeal.message !== undefined || appeal.contact !== undefined || appeal.erased_at === undefined)
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: appealKey(appealId),
        UpdateExpression: 'REMOVE message, contact SET erased_at = if_not_exists(erased_at, :at)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': erasedAt },
      }),
    );
  await eraseEntryTexts(openAppealKey(appeal.ban_publisher_id, appeal.created_at, appealId), erasedAt);
  if (appeal.decision)
    await eraseEntryTexts(
      decidedAppealKey(appeal.ban_publisher_id, appeal.decision.decided_at, appealId),
      erasedAt,
    );
};

/**
 * The appeals an erasure of the device by `publisherId` concerns, of other publishers' bans: those
 * it filed (its own bans' appeals, whoever filed them, are erased with the bans: appealIdsOf).
 */
export const appealsToErase = async (publisherId: string, bans: readonly Ban[]): Promise<string[]> => {
  const ids: string[] = [];
  for (const ban of bans) {
    const own = ban.appeals?.[publisherId];
    if (own) ids.push(own.appeal_id);
    // A ban appealed when a ban had one appeal in all names no filer: its appeal says.
    else if (
      ban.appeal_id !== undefined &&
      (await readAppeal(ban.appeal_id))?.filer_publisher_id === publisherId
    )
      ids.push(ban.appeal_id);
  }
  return ids;
};

/**
 * The open entry's put: the queue shows an appeal while it is open. A decision deletes the entry
 * after it decides, so a filing (or its retry) that read the appeal as open may put the entry back
 * after a decision's delete. Hence the read after the put: an appeal still open then is decided,
 * if ever, later, and that decision deletes the entry; one decided or withdrawn meanwhile has its
 * entry deleted here. An erasure made meanwhile reaches the entry too. A filing and an imported
 * open appeal both put their entry through here.
 */
export const putOpenEntry = async (appeal: StoredAppeal): Promise<StoredAppeal> => {
  const Key = openAppealKey(appeal.ban_publisher_id, appeal.created_at, appeal.appeal_id);
  await dynamo.send(new PutCommand({ TableName: tableName(), Item: { ...Key, appeal } }));
  const now = await readAppeal(appeal.appeal_id);
  if (now?.status !== 'open') await dynamo.send(new DeleteCommand({ TableName: tableName(), Key }));
  else {
    if (now.erased_at !== undefined) await eraseEntryTexts(Key, now.erased_at);
    // A retried filing put the entry back without the claim a moderator made meanwhile.
    await copyClaimToEntry(now);
  }
  return now ?? appeal;
};
