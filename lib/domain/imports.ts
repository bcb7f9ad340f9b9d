import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { resolveStatement } from '@kernel/statement-of-reasons';
import type { core } from 'zod/mini';
import * as clock from '../clock';
import { mapWithConcurrency } from '../concurrency';
import { actorFromStored } from '../model/actors';
import {
  type ImportCounts,
  type ImportRequest,
  type ImportResult,
  type ImportRow,
  type ImportRowResult,
  importRowSchema,
} from '../model/imports';
import type { Actor, ReasonCatalogue } from '../model/responses';
import { batchGetItems, batchPutItems } from '../storage/batches';
import { claimOrRead } from '../storage/claims';
import { dynamo, tableName } from '../storage/client';
import { importBatchKey, importedRowKey } from '../storage/keys';
import { appealRefusal, importAppeals, withImportedAppeals } from './appeal-imports';
import { recordEvent } from './audit';
import { allocateImportedIds, IMPORT_EARLIEST_MS } from './ban-ids';
import { translationRefusal } from './ban-locales';
import { type Ban, banFromCopy } from './ban-record';
import { bannedDeviceItems } from './banned-devices';
import { banOfRequest, putBanIfAbsent, statementRefusal } from './bans';
import { ConflictError, IntegrityError } from './errors';
import { expiringBanItem } from './expiring-bans';
import { admitImport, noteImported } from './import-backlog';
import { getReasons } from './reasons';

/**
 * Imports (POST /v1/imports): a studio's ban history, each row made a ban exactly as a create
 * makes one, with the row's own times. Invariant, with single-item writes and no transactions, in
 * an order a retry of the same batch completes: each external id is made one ban at most (its
 * record, claimed with a conditional put, holds the whole ban), a retried batch answers what the
 * first attempt made (the same ban ids), and nothing a row refused is stored. The rules, the
 * statuses and the limits: docs/import-export.md#import.
 */

/** Writes in flight at once (claims, ban puts). */
const WRITE_CONCURRENCY = 25;

type Refusal = NonNullable<ImportRowResult['error']>;

/** A row that passed every check: what it makes, and what it is compared by. */
interface CheckedRow {
  index: number;
  row: ImportRow;
  /** The row's content as compared with a later import of the same external id. */
  content: Record<string, unknown>;
  digest: string;
  /** The ban it makes, but for its id (taken only when it is written). */
  ban: Omit<Ban, 'ban_id'>;
}

/** The stored record of an imported row. */
interface RowRecord {
  batch_id: string;
  digest: string;
  content: Record<string, unknown>;
  ban: Ban;
}

/** One key order everywhere, so two equal contents serialise equal. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, entry) =>
    entry && typeof entry === 'object' && !Array.isArray(entry)
      ? Object.fromEntries(Object.entries(entry).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : entry,
  );

const refused = (field: string, issue: string, message: string): Refusal => ({ field, issue, message });

/** A row's first schema issue, named as the HTTP layer names a body's (field, issue). */
const schemaRefusal = (issues: readonly core.$ZodIssue[], input: unknown): Refusal => {
  const [issue] = issues;
  if (!issue) return refused('row', 'invalid', 'is not valid');
  if (issue.code === 'unrecognized_keys') {
    const field = [...issue.path, issue.keys[0]].map(String).join('.');
    return refused(field, 'unknown_field', 'is not a known field');
  }
  const field = issue.path.map(String).join('.') || 'row';
  const at = issue.path.reduce<unknown>(
    (node, key) =>
      node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined,
    input,
  );
  if (issue.code === 'invalid_type' && at === undefined) return refused(field, 'required', 'is required');
  const name =
    issue.code === 'custom'
      ? String((issue.params as { issue?: string } | undefined)?.issue ?? 'invalid')
      : issue.code;
  return refused(field, name, issue.message);
};

/** The checks a row's shape cannot make: times against each other and now, reach, the catalogue. */
const ruleRefusal = (
  row: ImportRow,
  gameId: string,
  now: string,
  boundGames: readonly string[] | null,
  catalogue: ReasonCatalogue,
  statement: ReturnType<typeof resolveStatement>,
): Refusal | undefined => {
  if (Date.parse(row.created_at) < IMPORT_EARLIEST_MS)
    return refused('created_at', 'too_early', 'must be 1990-01-01T00:00:00Z or later');
  if (row.created_at > now) return refused('created_at', 'in_future', 'must not be in the future');
  if (row.expires_at && row.expires_at <= row.created_at)
    return refused('expires_at', 'not_after_created', 'must be later than created_at');
  if (row.revoked_at) {
    if (row.revoked_at < row.created_at)
      return refused('revoked_at', 'before_created', 'must not be earlier than created_at');
    if (row.revoked_at > now) return refused('revoked_at', 'in_future', 'must not be in the future');
    if (row.revoke_reason_code === undefined)
      return refused('revoke_reason_code', 'required', 'is required with revoked_at');
  } else if (row.revoke_reason_code !== undefined)
    return refused('revoke_reason_code', 'not_revoked', 'may be given only with revoked_at');
  if (boundGames) {
    if (row.scope !== 'game')
      return refused(
        'scope',
        'forbidden',
        `this key is bound to games: a ${row.scope} ban reaches every ${row.scope === 'global' ? 'publisher' : 'game'}, so it may import only game bans`,
      );
    if (!boundGames.includes(gameId))
      return refused('game_id', 'forbidden', 'is not one of the games this key is bound to');
  }
  const reason = catalogue.reasons.find((r) => r.code === row.reason_code);
  if (catalogue.strict_reasons && !reason)
    return refused(
      'reason_code',
      'not_in_catalogue',
      'must be a code of the reason catalogue (strict_reasons is on)',
    );
  const statementProblem = statementRefusal(row, statement);
  if (statementProblem)
    return refused(statementProblem.field, statementProblem.issue, statementProblem.message);
  const translationProblem = translationRefusal(row.translations, catalogue.default_locale, {
    player_message: row.player_message,
    statement,
  });
  return translationProblem;
};

/** The ban a checked row makes, as createBan builds one, with the row's times and its origin. */
const banOfRow = (
  publisherId: string,
  gameId: string,
  row: ImportRow,
  batchId: string,
  actor: Actor,
  catalogue: ReasonCatalogue,
  statement: ReturnType<typeof resolveStatement>,
): Omit<Ban, 'ban_id'> => {
  const revoked = row.revoked_at ?? null;
  return {
    ...banOfRequest(publisherId, gameId, row, catalogue, statement),
    created_at: row.created_at,
    expires_at: row.expires_at ?? null,
    revoked_at: revoked,
    ...(revoked === null ? {} : { revoke_reason_code: row.revoke_reason_code, revoked_by: actor }),
    created_by: actor,
    imported: { batch_id: batchId, external_id: row.external_id },
  };
};

/** What a row holds, with its defaults filled in: what a later import of its external id is compared with. */
const contentOf = (row: ImportRow, gameId: string): Record<string, unknown> =>
  JSON.parse(
    canonical({
      ...row,
      game_id: gameId,
      expires_at: row.expires_at ?? null,
      revoked_at: row.revoked_at ?? null,
      details: row.details ?? null,
      appealable: row.appealable ?? true,
    }),
  );

const recordOf = (item: Record<string, unknown> | undefined): RowRecord | undefined => {
  if (!item) return undefined;
  if (
    typeof item.batch_id !== 'string' ||
    typeof item.digest !== 'string' ||
    typeof item.content !== 'object'
  )
    throw new IntegrityError('stored import record is malformed');
  return {
    batch_id: item.batch_id,
    digest: item.digest,
    content: item.content as Record<string, unknown>,
    ban: banFromCopy(item.ban),
  };
};

/** The fields whose content differs between a stored import and a row of the same external id. */
const changedFields = (stored: Record<string, unknown>, now: Record<string, unknown>): string[] =>
  [...new Set([...Object.keys(stored), ...Object.keys(now)])]
    .filter((field) => canonical(stored[field] ?? null) !== canonical(now[field] ?? null))
    .sort();

/** What an external id's record makes of a row of this batch. */
const outcomeOf = (
  checked: CheckedRow,
  record: RowRecord,
  batchId: string,
): Pick<ImportRowResult, 'status' | 'ban_id' | 'device_id' | 'changed_fields'> => {
  const base = { ban_id: record.ban.ban_id, device_id: record.ban.device_id };
  if (record.digest !== checked.digest)
    return { status: 'changed', ...base, changed_fields: changedFields(record.content, checked.content) };
  return { status: record.batch_id === batchId ? 'created' : 'already_imported', ...base };
};

/**
 * Claims the batch: its record with when it began and who began it, or the record of an earlier
 * attempt of the same batch, whose start (the audit event's time) and actor a repeat keeps.
 */
const claimBatch = async (
  publisherId: string,
  batchId: string,
  rowsDigest: string,
  now: string,
  actor: Actor,
): Promise<{ startedAt: string; actor: Actor }> => {
  const claim = await claimOrRead({
    ...importBatchKey(publisherId, batchId),
    publisher_id: publisherId,
    batch_id: batchId,
    rows_digest: rowsDigest,
    started_at: now,
    actor,
  });
  if (claim.claimed) return { startedAt: now, actor };
  const Item = claim.holder;
  const by = actorFromStored(Item?.actor);
  if (typeof Item?.started_at !== 'string' || !by)
    throw new IntegrityError('import batch record is malformed');
  // A repeat is the same rows again; other rows under the name would be counted by the first
  // request's audit event and webhook, so they are refused.
  if (Item.rows_digest !== rowsDigest)
    throw new ConflictError(
      'This batch_id named a batch of other rows: a new batch needs a batch_id of its own',
    );
  return { startedAt: Item.started_at, actor: by };
};

/** Claims an external id for a ban; undefined when the claim is new, else the record that holds it. */
const claimRow = async (
  publisherId: string,
  batchId: string,
  checked: CheckedRow,
  ban: Ban,
): Promise<RowRecord | undefined> => {
  const claim = await claimOrRead({
    ...importedRowKey(publisherId, checked.row.external_id),
    publisher_id: publisherId,
    external_id: checked.row.external_id,
    batch_id: batchId,
    digest: checked.digest,
    content: checked.content,
    ban,
  });
  if (claim.claimed) return undefined;
  const record = recordOf(claim.holder);
  if (!record) throw new IntegrityError('import record vanished after a failed claim');
  // Our own record: the put landed but its answer was lost. Ban ids are unique, so only this
  // attempt holds this one.
  return record.ban.ban_id === ban.ban_id ? undefined : record;
};

const countsOf = (rows: readonly ImportRowResult[]): ImportCounts => ({
  created: rows.filter((row) => row.status === 'created').length,
  already_imported: rows.filter((row) => row.status === 'already_imported').length,
  changed: rows.filter((row) => row.status === 'changed').length,
  refused: rows.filter((row) => row.status === 'refused').length,
});

/**
 * Imports one batch of rows for the publisher. Each row is checked on its own; storage, in an
 * order a retry of the same batch completes:
 *   1. the batch's record claimed (a repeat keeps the first attempt's start and actor), beside
 *      the reason catalogue's read;
 *   2. the rows' records read in batches: an external id imported before is `already_imported`
 *      (the same content), `changed` (not applied), or this batch's own earlier attempt (`created`);
 *   3. ids taken for the new rows (./ban-ids.ts), and each row's record claimed with its whole ban
 *      (a conditional put: two imports of one row at once make one ban);
 *   4. the bans put (only where missing: an earlier attempt's may have been revoked since) and
 *      their index entries written in batches;
 *   5. the batch's one audit event, then its record completed with the counts (that change is
 *      the `bans.imported` webhook event, lib/domain/change-events.ts).
 * A dry run checks and looks up the same, and writes nothing.
 */
export const importBans = async (
  publisherId: string,
  gameId: string,
  request: ImportRequest,
  actor: Actor,
  boundGames: readonly string[] | null = null,
): Promise<ImportResult> => {
  const dryRun = request.dry_run === true;
  // Before anything is stored: while earlier batches' events are still being written, this one waits.
  if (!dryRun) await admitImport(publisherId);
  const nowIso = new Date(clock.now()).toISOString();
  const [catalogue, batch] = await Promise.all([
    getReasons(publisherId),
    dryRun
      ? undefined
      : claimBatch(
          publisherId,
          request.batch_id,
          createHash('sha256').update(canonical(request.rows)).digest('base64url'),
          nowIso,
          actor,
        ),
  ]);
  const results: ImportRowResult[] = [];
  const checked: CheckedRow[] = [];
  const seen = new Set<string>();
  for (const [index, input] of request.rows.entries()) {
    const externalId =
      input &&
      typeof input === 'object' &&
      typeof (input as { external_id?: unknown }).external_id === 'string'
        ? (input as { external_id: string }).external_id
        : null;
    const deviceId =
      input && typeof input === 'object' && typeof (input as { device_id?: unknown }).device_id === 'string'
        ? (input as { device_id: string }).device_id
        : null;
    const refuse = (error: Refusal) =>
      void results.push({
        index,
        external_id: externalId,
        status: 'refused',
        ban_id: null,
        device_id: deviceId,
        error,
      });
    const parsed = importRowSchema.safeParse(input);
    if (!parsed.success) {
      refuse(schemaRefusal(parsed.error.issues, input));
      continue;
    }
    const row = parsed.data;
    const rowGame = row.game_id ?? gameId;
    const reason = catalogue.reasons.find((r) => r.code === row.reason_code);
    const statement = resolveStatement(row.statement, reason?.statement, {
      ban_type: row.ban_type,
      reason_code: row.reason_code,
      reason_label: reason?.label,
      player_message: row.player_message ?? reason?.player_message ?? undefined,
      actor: actor.type === 'user' ? 'person' : 'key',
    });
    const problem =
      ruleRefusal(row, rowGame, nowIso, boundGames, catalogue, statement) ??
      appealRefusal(row, rowGame, nowIso, boundGames, publisherId);
    if (problem) {
      refuse(problem);
      continue;
    }
    if (seen.has(row.external_id)) {
      refuse(
        refused(
          'external_id',
          'duplicate_in_batch',
          'repeats the external_id of an earlier row of this batch',
        ),
      );
      continue;
    }
    seen.add(row.external_id);
    const content = contentOf(row, rowGame);
    checked.push({
      index,
      row,
      content,
      digest: createHash('sha256').update(canonical(content)).digest('base64url'),
      ban: banOfRow(publisherId, rowGame, row, request.batch_id, batch?.actor ?? actor, catalogue, statement),
    });
    results.push({
      index,
      external_id: row.external_id,
      status: 'created',
      ban_id: null,
      device_id: row.device_id,
    });
  }

  // 2. What was imported before under these external ids.
  const stored = new Map<string, RowRecord>();
  for (const item of await batchGetItems(
    checked.map((c) => importedRowKey(publisherId, c.row.external_id)),
  )) {
    const record = recordOf(item);
    if (record && typeof item.external_id === 'string') stored.set(item.external_id, record);
  }
  // Rows by index and by external id: each is looked up per row, and a batch has 500.
  const resultByIndex = new Map(results.map((r) => [r.index, r]));
  const resultOf = (c: CheckedRow) => resultByIndex.get(c.index) as ImportRowResult;
  const checkedByIndex = new Map(checked.map((c) => [c.index, c]));
  const checkedByExternalId = new Map(checked.map((c) => [c.row.external_id, c]));
  /** The bans this batch puts (new, or an earlier attempt's or import's whose put may be missing). */
  const toPut: Ban[] = [];
  const fresh: CheckedRow[] = [];
  for (const c of checked) {
    const record = stored.get(c.row.external_id);
    if (!record) {
      fresh.push(c);
      continue;
    }
    const outcome = outcomeOf(c, record, request.batch_id);
    Object.assign(resultOf(c), outcome);
    if (outcome.status !== 'changed') toPut.push(record.ban);
  }

  if (!dryRun && batch) {
    // 3. Ids in created_at order, then each row's claim.
    const ids = await allocateImportedIds(fresh.map((c) => Date.parse(c.row.created_at)));
    const numbered = fresh.map((c, i) => ({ c, banId: ids[i] as number }));
    const claims = await mapWithConcurrency(numbered, WRITE_CONCURRENCY, async ({ c, banId }) => {
      const ban = withImportedAppeals({ ...c.ban, ban_id: banId } as Ban, c.row, publisherId);
      const holder = await claimRow(publisherId, request.batch_id, c, ban);
      return { c, ban, holder };
    });
    for (const { c, ban, holder } of claims) {
      if (!holder) {
        Object.assign(resultOf(c), { status: 'created', ban_id: ban.ban_id, device_id: ban.device_id });
        toPut.push(ban);
        continue;
      }
      const outcome = outcomeOf(c, holder, request.batch_id);
      Object.assign(resultOf(c), outcome);
      if (outcome.status !== 'changed') toPut.push(holder.ban);
    }
    // 4. The bans, then their index entries.
    await mapWithConcurrency(toPut, WRITE_CONCURRENCY, putBanIfAbsent);
    // Counted once: only the rows this request claimed (a retry finds them claimed).
    await noteImported(publisherId, claims.filter(({ holder }) => !holder).length);
    await batchPutItems(
      toPut.flatMap((ban) => [
        ...bannedDeviceItems(ban),
        ...[expiringBanItem(ban)].filter((item) => item !== undefined),
      ]),
    );
    // 4b. The owner's appeals of those bans, with their queue entries (./appeal-imports.ts).
    await importAppeals(
      publisherId,
      batch.actor,
      toPut.map((ban) => ({
        ban,
        row: checkedByExternalId.get(ban.imported?.external_id ?? '')?.row,
      })),
    );
  }

  results.sort((a, b) => a.index - b.index);
  const counts = countsOf(results);
  if (!dryRun && batch) {
    // 5. One event for the batch, then its completion.
    await recordEvent(publisherId, request.batch_id, batch.startedAt, batch.actor, {
      type: 'bans.imported',
      batch_id: request.batch_id,
      ...counts,
    });
    const games = [
      ...new Set(
        results.flatMap((r) => {
          if (r.status !== 'created') return [];
          const c = checkedByIndex.get(r.index);
          return c ? [c.ban.game_id] : [];
        }),
      ),
    ].sort();
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: importBatchKey(publisherId, request.batch_id),
        UpdateExpression:
          'SET #counts = :counts, games = :games, finished_at = if_not_exists(finished_at, :now)',
        ExpressionAttributeNames: { '#counts': 'counts' },
        ExpressionAttributeValues: {
          ':counts': counts,
          ':games': games,
          ':now': new Date(clock.now()).toISOString(),
        },
      }),
    );
  }
  return { batch_id: request.batch_id, dry_run: dryRun, counts, rows: results };
};
