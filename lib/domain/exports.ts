import { GetCommand, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { type ExportKind, exportKinds } from '@kernel/exports';
import * as clock from '../clock';
import { mapWithConcurrency } from '../concurrency';
import type {
  Actor,
  AuditEvent,
  DeviceData,
  ExportedAppeal,
  ExportedBan,
  ExportedKey,
  ExportPage,
  Policy,
} from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import {
  AUDIT_EVENT_PREFIX,
  auditDevicePrefix,
  auditPartition,
  BAN_PREFIX,
  BANNED_DEVICES_BY_ID_FROM,
  banKey,
  bannedDevicesPartition,
  devicePartition,
} from '../storage/keys';
import { listApiKeys } from './api-keys';
import { readAppeal, type StoredAppeal } from './appeal-record';
import { toAppealView } from './appeals';
import { eventFromItem, recordEvent } from './audit';
import { appealIdsOf, type Ban, banFromItem } from './ban-record';
import { cursorOf, sortKeyOf } from './cursors';
import { IntegrityError } from './errors';
import { getPolicy } from './policy';
import { getReasons } from './reasons';
import { publisherWebhooks, toWebhookView } from './webhooks';

/**
 * Everything a publisher holds, kind by kind (`GET /v1/exports/{kind}`, docs/import-export.md#export),
 * and all of it about one device (`GET /v1/device/{device_id}/data`). No HTTP here: the pages API
 * and the export job read the same pages.
 *
 * A listing's first page fixes `as_of` (now); every page, that one included, leaves out what was
 * made at or after it (later pages carry it in their cursor), and each kind is read in the order of a key that never changes for
 * an item (a ban's entry in the index of banned devices, an event's key in the trail), so an export
 * read while writes go on lists each item that existed at `as_of` exactly once and nothing newer.
 * What changed on an item after `as_of` (a ban revoked meanwhile) is read as it is now.
 */

/**
 * Past every entry by id in the index of banned devices: DEL sorts after `~`, the highest
 * character a device id may hold, so an id that begins with `~` is still before it.
 */
const AFTER_BANNED_DEVICES = '\u007f';

/** Bans (and appeals) read at once within a page. */
const READ_CONCURRENCY = 16;

/** A cursor's position, bound to its kind and publisher by the cursor's tag (./cursors.ts). */
interface Position {
  as_of: string;
  after: string;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const readerOf = (publisherId: string, kind: string) => `export ${kind} ${publisherId}`;

const positionOf = (publisherId: string, kind: ExportKind, cursor: string): Position => {
  let position: Position | undefined;
  sortKeyOf(readerOf(publisherId, kind), cursor, (text) => {
    try {
      const value = JSON.parse(text) as Partial<Position>;
      if (typeof value.as_of !== 'string' || !TIMESTAMP.test(value.as_of) || typeof value.after !== 'string')
        return false;
      position = { as_of: value.as_of, after: value.after };
      return true;
    } catch {
      return false;
    }
  });
  if (!position) throw new IntegrityError('cursor read without its position');
  return position;
};

/** A page's cursor: where the next page of `kind` starts, and the export's `as_of`. */
export const exportCursor = (publisherId: string, kind: ExportKind, position: Position) =>
  cursorOf(readerOf(publisherId, kind), JSON.stringify(position));

/** A stored statement as a create takes it: its nulls and an empty country list are "not given". */
const statementRow = (statement: Ban['statement']) => {
  if (!statement) return undefined;
  const row: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(statement)) {
    if (value === null || (Array.isArray(value) && value.length === 0)) continue;
    row[field] = value;
  }
  return row;
};

/**
 * A ban as an import row takes it (lib/model/imports.ts importRowSchema), so an export imports
 * again as it is, with what only the export carries: its id, when its expiry last moved, and its
 * owner's view of its appeals.
 */
export const exportedBan = (ban: Ban, imported: unknown, appeals: readonly ExportedAppeal[]): ExportedBan => {
  const importedId =
    typeof imported === 'object' && imported !== null && 'external_id' in imported
      ? (imported as { external_id: unknown }).external_id
      : undefined;
  const statement = statementRow(ban.statement);
  return {
    external_id: typeof importedId === 'string' ? importedId : `ban:${ban.ban_id}`,
    device_id: ban.device_id,
    ban_type: ban.ban_type,
    scope: ban.scope,
    reason_code: ban.reason_code,
    game_id: ban.game_id,
    created_at: ban.created_at,
    expires_at: ban.expires_at,
    revoked_at: ban.revoked_at,
    ...(ban.revoke_reason_code === undefined ? {} : { revoke_reason_code: ban.revoke_reason_code }),
    ...(ban.details_json === undefined
      ? {}
      : { details: JSON.parse(ban.details_json) as Record<string, unknown> }),
    ...(ban.player_message === undefined ? {} : { player_message: ban.player_message }),
    ...(ban.appealable === undefined ? {} : { appealable: ban.appealable }),
    ...(statement === undefined ? {} : { statement }),
    ...(ban.translations === undefined ? {} : { translations: ban.translations }),
    ban_id: ban.ban_id,
    ...(ban.updated_at === undefined ? {} : { updated_at: ban.updated_at }),
    ...(ban.previous_expires_at === undefined ? {} : { previous_expires_at: ban.previous_expires_at }),
    appeals: [...appeals],
  };
};

/** An appeal with its record's fields: the owner's view (all of it) or the filer's, and who filed it. */
const exportedAppeal = (appeal: StoredAppeal, view: 'owner' | 'filer'): ExportedAppeal => ({
  ...toAppealView(appeal, view),
  created_by: appeal.created_by,
});

/** The ban's appeals made by `asOf`, as its owner sees them, oldest first. */
const appealsOfBan = async (ban: Ban, asOf: string): Promise<ExportedAppeal[]> => {
  const appeals = await mapWithConcurrency(appealIdsOf(ban), READ_CONCURRENCY, readAppeal);
  return appeals
    .filter((appeal): appeal is StoredAppeal => appeal !== undefined && appeal.created_at < asOf)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.appeal_id.localeCompare(b.appeal_id))
    .map((appeal) => exportedAppeal(appeal, 'owner'));
};

const readBanItem = async (deviceId: string, banId: number) =>
  (
    await dynamo.send(
      new GetCommand({ TableName: tableName(), Key: banKey(deviceId, banId), ConsistentRead: true }),
    )
  ).Item;

/**
 * Reads entries of a partition in key order after `after`, up to `bound` (inclusive), handing
 * each page to `take`, which answers how many of them it used; stops once `want` are used.
 * Answers the key of the last entry used, and whether any are left.
 */
const readInOrder = async (
  pk: string,
  from: string,
  bound: string,
  after: string,
  want: number,
  take: (items: Record<string, unknown>[]) => Promise<{ used: number; consumed: number }>,
): Promise<{ last: string; more: boolean }> => {
  let last = after;
  let taken = 0;
  for (;;) {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': bound },
        ConsistentRead: true,
        Limit: Math.max(want - taken, 1),
        ...(last === '' ? {} : { ExclusiveStartKey: { pk, sk: last } }),
      }),
    );
    const items = page.Items ?? [];
    const { used, consumed } = await take(items);
    taken += used;
    const lastConsumed = items[consumed - 1];
    if (lastConsumed) last = String(lastConsumed.sk);
    if (consumed < items.length) return { last, more: true };
    if (!page.LastEvaluatedKey) return { last, more: false };
    if (taken >= want) return { last, more: true };
  }
};

/** The bans' page: the publisher's entries in the index of banned devices, each ban read whole. */
const bansPage = async (publisherId: string, position: Position, limit: number) => {
  const items: ExportedBan[] = [];
  const { last, more } = await readInOrder(
    bannedDevicesPartition(publisherId),
    BANNED_DEVICES_BY_ID_FROM,
    AFTER_BANNED_DEVICES,
    position.after,
    limit,
    async (entries) => {
      const wanted = entries.filter((entry) => String(entry.created_at) < position.as_of);
      const read = await mapWithConcurrency(wanted, READ_CONCURRENCY, async (entry) => {
        const banId = Number(String(entry.sk).split('#').at(-1));
        const item = await readBanItem(String(entry.device_id), banId);
        // Erased between the index's read and the ban's: gone, as an erasure means.
        if (!item) return undefined;
        const ban = banFromItem(item);
        if (ban.publisher_id !== publisherId || ban.created_at >= position.as_of) return undefined;
        return exportedBan(ban, item.imported, await appealsOfBan(ban, position.as_of));
      });
      for (const ban of read) if (ban) items.push(ban);
      return { used: wanted.length, consumed: entries.length };
    },
  );
  return { items, last, more };
};

/**
 * The appeals' page: those of the publisher's bans (whoever filed them), in the order of the bans'
 * index, then those it filed on others' bans, in the order of their `appeal.created` events in its
 * trail. A position is `own:<index key>` or `filed:<event key>`.
 */
const appealsPage = async (publisherId: string, position: Position, limit: number) => {
  const items: ExportedAppeal[] = [];
  const [phase, ...rest] = position.after === '' ? ['own'] : position.after.split(':');
  let after = rest.join(':');
  if (phase === 'own') {
    const own = await readInOrder(
      bannedDevicesPartition(publisherId),
      BANNED_DEVICES_BY_ID_FROM,
      AFTER_BANNED_DEVICES,
      after,
      limit,
      async (entries) => {
        // A ban's appeals stay on one page: the page ends before a ban whose appeals would overflow it.
        let consumed = 0;
        let used = 0;
        for (const entry of entries) {
          if (String(entry.created_at) < position.as_of) {
            const banId = Number(String(entry.sk).split('#').at(-1));
            const item = await readBanItem(String(entry.device_id), banId);
            const ban = item ? banFromItem(item) : undefined;
            const appeals =
              ban && ban.publisher_id === publisherId ? await appealsOfBan(ban, position.as_of) : [];
            if (items.length > 0 && items.length + appeals.length > limit) break;
            items.push(...appeals);
            used += appeals.length;
          }
          consumed += 1;
          if (items.length >= limit) break;
        }
        return { used, consumed };
      },
    );
    if (own.more) return { items, last: `own:${own.last}`, more: true };
    after = '';
  }
  if (items.length >= limit) return { items, last: 'filed:', more: true };
  const pk = auditPartition(publisherId);
  const filed = await readInOrder(
    pk,
    AUDIT_EVENT_PREFIX,
    `${AUDIT_EVENT_PREFIX}${position.as_of}`,
    after,
    limit - items.length,
    async (entries) => {
      const ids = entries
        .filter((entry) => entry.type === 'appeal.created')
        .map((entry) => eventFromItem(entry))
        .flatMap((event) =>
          event.type === 'appeal.created' && event.appeal.ban_publisher_id !== publisherId
            ? [event.appeal.appeal_id]
            : [],
        );
      const appeals = await mapWithConcurrency(ids, READ_CONCURRENCY, readAppeal);
      for (const appeal of appeals)
        if (appeal && appeal.filer_publisher_id === publisherId) items.push(exportedAppeal(appeal, 'filer'));
      return { used: ids.length, consumed: entries.length };
    },
  );
  return { items, last: `filed:${filed.last}`, more: filed.more };
};

/** The trail's page, oldest first, up to `as_of`. */
const auditPage = async (publisherId: string, position: Position, limit: number) => {
  const items: AuditEvent[] = [];
  const { last, more } = await readInOrder(
    auditPartition(publisherId),
    AUDIT_EVENT_PREFIX,
    `${AUDIT_EVENT_PREFIX}${position.as_of}`,
    position.after,
    limit,
    async (entries) => {
      for (const entry of entries) items.push(eventFromItem(entry));
      return { used: entries.length, consumed: entries.length };
    },
  );
  return { items, last, more };
};

/** The policy's trust settings: whose global bans count, and how many must agree. */
const trustOf = (policy: Policy) => ({
  global_sources: policy.global_sources,
  global_quorum: policy.global_quorum,
  rep_global_sources: policy.rep_global_sources,
  rep_global_quorum: policy.rep_global_quorum,
});

/** Keys as the export shows them: never a secret, a hash nor the last characters of one. */
const exportedKeys = async (publisherId: string, asOf: string): Promise<ExportedKey[]> =>
  (await listApiKeys(publisherId))
    .filter((key) => key.created_at < asOf)
    .map((key) => ({
      key_id: key.key_id,
      name: key.name,
      scopes: key.scopes ?? null,
      games: key.games,
      created_at: key.created_at,
      expires_at: key.expires_at,
      revoked_at: key.revoked_at,
      created_by: key.created_by,
    }));

/** The kinds read whole in one page: what the publisher holds of them is one item or a few. */
const wholeKind = async (publisherId: string, kind: ExportKind, asOf: string): Promise<unknown[]> => {
  switch (kind) {
    case 'policy':
      return [await getPolicy(publisherId)];
    case 'trust':
      return [trustOf(await getPolicy(publisherId))];
    case 'reasons':
      return [await getReasons(publisherId)];
    case 'webhooks':
      return (await publisherWebhooks(publisherId))
        .filter((webhook) => webhook.created_at < asOf)
        .map(toWebhookView);
    case 'keys':
      return exportedKeys(publisherId, asOf);
    default:
      throw new IntegrityError(`export kind ${kind} is paged`);
  }
};

/**
 * One page of an export. The first page (no cursor) fixes `as_of` and, once read, records
 * `data.exported` (the kind and `as_of`) in the trail, once per export, by `actor`: at `as_of`, so
 * the export's own event is never in it, and a first page the store failed to read records none.
 */
export const exportPage = async (
  publisherId: string,
  kind: ExportKind,
  cursor: string | undefined,
  limit: number,
  actor: Actor,
): Promise<ExportPage> => {
  if (!exportKinds.includes(kind)) throw new IntegrityError(`unknown export kind ${kind}`);
  const position =
    cursor === undefined
      ? { as_of: new Date(clock.now()).toISOString(), after: '' }
      : positionOf(publisherId, kind, cursor);
  const page =
    kind === 'bans'
      ? await bansPage(publisherId, position, limit)
      : kind === 'appeals'
        ? await appealsPage(publisherId, position, limit)
        : kind === 'audit'
          ? await auditPage(publisherId, position, limit)
          : { items: await wholeKind(publisherId, kind, position.as_of), last: '', more: false };
  if (cursor === undefined)
    await recordEvent(publisherId, `${kind}@${position.as_of}`, position.as_of, actor, {
      type: 'data.exported',
      kind,
      as_of: position.as_of,
    });
  return {
    kind,
    as_of: position.as_of,
    items: page.items,
    next_cursor: page.more
      ? exportCursor(publisherId, kind, { as_of: position.as_of, after: page.last })
      : null,
  } as ExportPage;
};

/**
 * Everything the publisher holds on one device (a data subject's request, GDPR Art. 15): its bans
 * there, whole, with their appeals; the appeals it filed on others' bans there; the events of its
 * trail about the device, oldest first. Recorded as `data.exported` of kind `device`.
 */
export const deviceData = async (
  publisherId: string,
  deviceId: string,
  actor: Actor,
): Promise<DeviceData> => {
  const asOf = new Date(clock.now()).toISOString();
  const banItems: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page: QueryCommandOutput = await dynamo.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ban)',
        ExpressionAttributeValues: { ':pk': devicePartition(deviceId), ':ban': BAN_PREFIX },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    banItems.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  const bans: ExportedBan[] = [];
  const filedIds: string[] = [];
  for (const item of banItems) {
    const ban = banFromItem(item);
    if (ban.publisher_id === publisherId)
      bans.push(exportedBan(ban, item.imported, await appealsOfBan(ban, asOf)));
    else {
      const own = ban.appeals?.[publisherId]?.appeal_id;
      if (own !== undefined) filedIds.push(own);
      else if (ban.appeal_id !== undefined) filedIds.push(ban.appeal_id);
    }
  }
  const filed = (await mapWithConcurrency(filedIds, READ_CONCURRENCY, readAppeal))
    .filter((appeal): appeal is StoredAppeal => appeal?.filer_publisher_id === publisherId)
    .map((appeal) => exportedAppeal(appeal, 'filer'));
  const audit: AuditEvent[] = [];
  const prefix = auditDevicePrefix(deviceId);
  start = undefined;
  do {
    const page: QueryCommandOutput = await dynamo.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :device)',
        ExpressionAttributeValues: { ':pk': auditPartition(publisherId), ':device': prefix },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) audit.push(eventFromItem(item));
    start = page.LastEvaluatedKey;
  } while (start);
  // Recorded once read, at `as_of`: a request the store failed records none.
  await recordEvent(publisherId, `device:${deviceId}@${asOf}`, asOf, actor, {
    type: 'data.exported',
    kind: 'device',
    as_of: asOf,
    device_id: deviceId,
  });
  return { device_id: deviceId, as_of: asOf, bans, appeals_filed: filed, audit };
};
