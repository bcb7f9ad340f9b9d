import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../concurrency';
import type { ImportAppeal, ImportRow, ImportRowResult } from '../model/imports';
import type { Actor } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import { appealDayKey, appealIdOf, appealKey, decidedAppealKey } from '../storage/keys';
import { putOpenEntry, readAppeal, type StoredAppeal, type StoredDecision } from './appeal-record';
import type { Ban, BanAppeal } from './ban-record';
import { IntegrityError } from './errors';

/**
 * The appeals of imported bans (POST /v1/imports, a row's `appeals`, in the shape the export writes
 * them): the ban owner's own appeal of each row is made an appeal of the imported ban, filed by the
 * importing publisher, with its history (filed, decided) and the entries an appeal of its status
 * has (the queue, the ban's `appeal#<publisher>` attribute, the day's stats rollup). An appeal
 * another publisher filed is not imported: that publisher need not exist in this deployment, and
 * its appeal is its own to move. Who filed and who decided is the importing actor, as an imported
 * ban's maker and revoker are: the old deployment's keys and people are not this one's (its audit
 * export keeps their names). Idempotent with the row: the appeal's id derives from the ban's and
 * the publisher's (lib/storage/keys.ts appealIdOf), its item is put once (a conditional put), and
 * its entries are put again on a retry only while the appeal is as the import made it (an appeal
 * decided here since keeps what its decision wrote). The rules: docs/import-export.md.
 */

type Refusal = NonNullable<ImportRowResult['error']>;

const WRITE_CONCURRENCY = 16;

const refused = (field: string, issue: string, message: string): Refusal => ({ field, issue, message });

/** Whether the ban's owner filed it (so it is imported): no `filed_by`, or one naming the ban's publisher. */
const isOwners = (appeal: ImportAppeal, publisherId: string) =>
  appeal.filed_by === undefined || appeal.filed_by.publisher_id === (appeal.ban_publisher_id ?? publisherId);

/** The row's appeal that is imported (the owner's), with its index in `appeals`, if it has one. */
export const ownAppealOf = (
  row: ImportRow,
  publisherId: string,
): { appeal: ImportAppeal; index: number } | undefined => {
  const index = (row.appeals ?? []).findIndex((appeal) => isOwners(appeal, publisherId));
  const appeal = row.appeals?.[index];
  return appeal ? { appeal, index } : undefined;
};

/**
 * What a row's appeals break, if anything: times out of the ban's history or of order, a status
 * that disagrees with the decision, an expiry given to an outcome other than `shortened` (or none
 * to it), two appeals of the owner (a publisher appeals a ban once), or a filing game a key bound
 * to games does not hold. Appeals other publishers filed are checked as well: a row is refused for
 * a malformed one even though it is not imported.
 */
export const appealRefusal = (
  row: ImportRow,
  rowGame: string,
  now: string,
  boundGames: readonly string[] | null,
  publisherId: string,
): Refusal | undefined => {
  let owners = 0;
  for (const [index, appeal] of (row.appeals ?? []).entries()) {
    const at = (field: string) => `appeals.${index}${field === '' ? '' : `.${field}`}`;
    if (appeal.created_at < row.created_at)
      return refused(at('created_at'), 'before_created', "must not be earlier than the ban's created_at");
    if (appeal.created_at > now) return refused(at('created_at'), 'in_future', 'must not be in the future');
    const decision = appeal.decision ?? null;
    const status = decision ? 'decided' : 'open';
    if (appeal.status !== undefined && appeal.status !== status)
      return refused(
        at('status'),
        'mismatch',
        decision ? 'must be decided: the appeal has a decision' : 'must be open: the appeal has no decision',
      );
    if (decision) {
      if (decision.decided_at < appeal.created_at)
        return refused(
          at('decision.decided_at'),
          'before_created',
          "must not be earlier than the appeal's created_at",
        );
      if (decision.decided_at > now)
        return refused(at('decision.decided_at'), 'in_future', 'must not be in the future');
      const until = decision.expires_at ?? null;
      if (decision.outcome === 'shortened' && until === null)
        return refused(at('decision.expires_at'), 'required', 'is required for the outcome shortened');
      if (decision.outcome !== 'shortened' && until !== null)
        return refused(at('decision.expires_at'), 'not_allowed', 'is only for the outcome shortened');
    }
    if (!isOwners(appeal, publisherId)) continue;
    owners += 1;
    if (owners > 1)
      return refused(at(''), 'duplicate', "repeats the ban owner's appeal: a publisher appeals a ban once");
    const game = appeal.filed_by?.game_id ?? rowGame;
    if (boundGames && !boundGames.includes(game))
      return refused(at('filed_by.game_id'), 'forbidden', 'is not one of the games this key is bound to');
  }
  return undefined;
};

/** The stored appeal the import makes of the owner's appeal of `ban`. */
const storedAppealOf = (
  ban: Ban,
  appeal: ImportAppeal,
  publisherId: string,
  actor: Actor,
): StoredAppeal & { imported: NonNullable<Ban['imported']> } => {
  if (!ban.imported) throw new IntegrityError('an imported appeal of a ban that was not imported');
  const decision = appeal.decision ?? null;
  const stored: StoredDecision | undefined = decision
    ? {
        outcome: decision.outcome,
        ...(decision.note == null ? {} : { note: decision.note }),
        ...(decision.player_message == null ? {} : { player_message: decision.player_message }),
        ...(decision.expires_at == null ? {} : { expires_at: decision.expires_at }),
        decided_at: decision.decided_at,
        decided_by: actor,
      }
    : undefined;
  return {
    appeal_id: appealIdOf(ban.ban_id, publisherId),
    status: stored ? 'decided' : 'open',
    device_id: ban.device_id,
    ban_id: ban.ban_id,
    ban_publisher_id: publisherId,
    ban_scope: ban.scope,
    ban_game_id: ban.game_id,
    filer_publisher_id: publisherId,
    filer_game_id: appeal.filed_by?.game_id ?? ban.game_id,
    ...(appeal.message == null ? {} : { message: appeal.message }),
    ...(appeal.contact == null ? {} : { contact: appeal.contact }),
    created_at: appeal.created_at,
    created_by: actor,
    ...(stored ? { decision: stored, applied_at: decision?.applied_at ?? stored.decided_at } : {}),
    ...(appeal.erased_at == null ? {} : { erased_at: appeal.erased_at }),
    imported: ban.imported,
  };
};

/**
 * The imported ban with what its appeals left on it: the owner's appeal named in its
 * `appeal#<publisher>` attribute (as a listing shows it), and, when a decision gave the player a
 * new message (the row's `player_message` is that message), the mark that the translations it
 * carries are of the message it was made with.
 */
export const withImportedAppeals = (ban: Ban, row: ImportRow, publisherId: string): Ban => {
  const own = ownAppealOf(row, publisherId)?.appeal;
  const replaced = (row.appeals ?? []).some(
    (appeal) =>
      appeal.decision?.player_message != null && appeal.decision.player_message === row.player_message,
  );
  if (!own && !replaced) return ban;
  const decision = own?.decision ?? null;
  const entry: BanAppeal | undefined = own
    ? {
        appeal_id: appealIdOf(ban.ban_id, publisherId),
        status: decision ? 'decided' : 'open',
        ...(decision ? { outcome: decision.outcome } : {}),
        at: decision ? decision.decided_at : own.created_at,
      }
    : undefined;
  return {
    ...ban,
    ...(entry ? { appeals: { ...ban.appeals, [publisherId]: entry } } : {}),
    ...(replaced ? { player_message_replaced: true } : {}),
  };
};

const secondsBetween = (from: string, to: string) =>
  Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));

/** Puts the appeal's item once; the appeal as it is stored now (ours, or as changed here since). */
const putAppealOnce = async (appeal: StoredAppeal): Promise<StoredAppeal | undefined> => {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...appealKey(appeal.appeal_id), ...appeal },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return appeal;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  return readAppeal(appeal.appeal_id);
};

/**
 * The decided appeal's queue entry (what the stats count), and its decision in the day's rollup
 * when that day was rolled up already (lib/domain/appeals.ts appealStats): once, by the appeal's
 * id in the rollup's set of imported appeals. A day not rolled up yet is counted from its entries.
 */
const putDecidedEntry = async (appeal: StoredAppeal, decision: StoredDecision): Promise<void> => {
  const seconds = secondsBetween(appeal.created_at, decision.decided_at);
  await dynamo.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...decidedAppealKey(appeal.ban_publisher_id, decision.decided_at, appeal.appeal_id),
        appeal,
        seconds,
      },
    }),
  );
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: appealDayKey(appeal.ban_publisher_id, decision.decided_at.slice(0, 10)),
        UpdateExpression:
          'SET outcomes.#outcome = if_not_exists(outcomes.#outcome, :zero) + :one, ' +
          'seconds = list_append(seconds, :seconds) ADD imported_appeals :ids',
        ConditionExpression: 'attribute_exists(pk) AND NOT contains(imported_appeals, :id)',
        ExpressionAttributeNames: { '#outcome': decision.outcome },
        ExpressionAttributeValues: {
          ':zero': 0,
          ':one': 1,
          ':seconds': [seconds],
          ':ids': new Set([appeal.appeal_id]),
          ':id': appeal.appeal_id,
        },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * Makes the owner's appeal of each imported ban (a row just created, or imported before: a retry
 * completes what a fault left), after the bans are stored. The appeal's item is put once; its
 * entries follow the appeal as stored, and only while it is as the import made it.
 */
export const importAppeals = async (
  publisherId: string,
  actor: Actor,
  imported: ReadonlyArray<{ ban: Ban; row: ImportRow | undefined }>,
): Promise<void> => {
  const appeals = imported.flatMap(({ ban, row }) => {
    const own = row ? ownAppealOf(row, publisherId)?.appeal : undefined;
    return own ? [storedAppealOf(ban, own, publisherId, actor)] : [];
  });
  await mapWithConcurrency(appeals, WRITE_CONCURRENCY, async (appeal) => {
    const stored = await putAppealOnce(appeal);
    // Gone (erased with its ban), or not the import's: nothing of the import's to complete.
    if (stored?.imported?.external_id !== appeal.imported.external_id) return;
    if (!stored || stored.status !== appeal.status) return;
    if (stored.status === 'open') await putOpenEntry(stored);
    else if (stored.decision && stored.decision.decided_at === appeal.decision?.decided_at)
      await putDecidedEntry(stored, stored.decision);
  });
};
