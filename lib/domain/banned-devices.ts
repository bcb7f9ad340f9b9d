import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DEVICE_ID_PREFIX_PATTERN } from '@kernel/device-ids';
import * as clock from '../clock';
import type { DevicesQuery } from '../model/requests';
import type { BannedDevice, BannedDeviceList, GlobalDevice } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { READ_BUDGET } from '../storage/filtered-pages';
import {
  afterBannedDevice,
  afterReversedBannedDevice,
  BANNED_DEVICES_BY_ID_FROM,
  bannedDeviceKeys,
  bannedDevicesPartition,
  GLOBAL_FEED_PARTITION,
  LIVE_BAN_PREFIX,
  REVERSED_DEVICE_PREFIX,
  reversedDeviceId,
} from '../storage/keys';
import { type Ban, banFromCopy } from './ban-record';
import { cursorOf, sortKeyOf } from './cursors';
import { normalisedPrefix } from './device-formats';

/**
 * The devices a publisher has banned, for finding one by a prefix of its id (a report names
 * "device 7f3a…"). One small item per ban in `BANNED#<publisher>`, keyed `<device_id>#<ban id>`:
 * written beside the ban by the same create (its own item, so no two creates contend for one),
 * deleted with the ban by an erasure. A prefix of a device id is then a prefix of its items' keys,
 * in device id order, and a listing folds each device's items into one answer. Beside it, the same
 * entry under the id reversed (`#<reversed id>#<ban id>`), so the end of an id is a prefix too.
 */

/** The ban's entry: written again as it is by a retry. */
export const noteBannedDevice = async (ban: Ban) => {
  await Promise.all(
    bannedDeviceItems(ban).map((Item) => dynamo.send(new PutCommand({ TableName: tableName(), Item }))),
  );
};

/** The index entries of a ban, as noteBannedDevice puts them (an import writes them in batches). */
export const bannedDeviceItems = (
  ban: Pick<Ban, 'publisher_id' | 'device_id' | 'ban_id' | 'game_id' | 'created_at'>,
) =>
  bannedDeviceKeys(ban.publisher_id, ban.device_id, ban.ban_id).map((key) => ({
    ...key,
    device_id: ban.device_id,
    game_id: ban.game_id,
    created_at: ban.created_at,
  }));

/**
 * The console's search: `listBannedDevices`, with a prefix that is a whole platform id typed bare
 * searched as the publisher's declared device id format spells it (lib/domain/device-formats.ts),
 * unless asked `as_typed`. The answer says what was searched instead; the next page's request
 * repeats the prefix as typed and is read the same way.
 */
export const searchBannedDevices = async (
  publisherId: string,
  query: DevicesQuery,
  boundGames: readonly string[] | null,
): Promise<BannedDeviceList> => {
  const normalised =
    query.prefix === undefined || query.as_typed === 'true'
      ? undefined
      : await normalisedPrefix(publisherId, query.prefix);
  if (!normalised) return listBannedDevices(publisherId, query, boundGames);
  const list = await listBannedDevices(publisherId, { ...query, prefix: normalised.searched }, boundGames);
  return { ...list, normalised };
};

/**
 * A page of the devices the publisher has banned whose id begins with `prefix` (in id order) or
 * ends with `suffix` (in order of the id read backwards; with both, in id order), each with when it was first and last
 * banned and in which games. A key bound to games finds only the devices banned in its games, and
 * sees only those games. The cursor is the last device answered: the next page starts after all of
 * its items. The first page of a prefix search also names the devices only other publishers'
 * global bans in force name (`others_global`).
 */
export const listBannedDevices = async (
  publisherId: string,
  query: DevicesQuery,
  boundGames: readonly string[] | null,
): Promise<BannedDeviceList> => {
  const pk = bannedDevicesPartition(publisherId);
  // With both ends, the start is read and the end checked on each entry.
  const byEnd = query.suffix !== undefined && query.prefix === undefined;
  // Each end has a reader of its own, so a cursor of one is no cursor of the other.
  const reader = `${byEnd ? 'devices-by-end' : 'devices'} ${pk}`;
  const after =
    query.cursor === undefined
      ? undefined
      : sortKeyOf(
          reader,
          query.cursor,
          (id) =>
            DEVICE_ID_PREFIX_PATTERN.test(id) &&
            (query.prefix === undefined || id.startsWith(query.prefix)) &&
            (query.suffix === undefined || id.endsWith(query.suffix)),
          `must be a next_cursor this API returned for this ${byEnd ? 'suffix' : 'prefix'}`,
        );
  const values: Record<string, unknown> = { ':pk': pk };
  const games = boundGames ?? [];
  games.forEach((game, i) => {
    values[`:g${i}`] = game;
  });
  const [condition, bound] =
    byEnd && query.suffix !== undefined
      ? ['pk = :pk AND begins_with(sk, :from)', `${REVERSED_DEVICE_PREFIX}${reversedDeviceId(query.suffix)}`]
      : query.prefix !== undefined
        ? ['pk = :pk AND begins_with(sk, :from)', query.prefix]
        : // Past the reversed entries: every entry by id.
          ['pk = :pk AND sk >= :from', BANNED_DEVICES_BY_ID_FROM];
  const devices: BannedDevice[] = [];
  let start: Record<string, unknown> | undefined =
    after === undefined
      ? undefined
      : { pk, sk: byEnd ? afterReversedBannedDevice(after) : afterBannedDevice(after) };
  let read = 0;
  for (;;) {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: condition,
        ExpressionAttributeValues: { ...values, ':from': bound },
        ...(boundGames === null
          ? {}
          : { FilterExpression: `game_id IN (${games.map((_, i) => `:g${i}`).join(', ')})` }),
        ConsistentRead: true,
        Limit: 200,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    read += page.ScannedCount ?? 0;
    for (const item of page.Items ?? []) {
      const deviceId = String(item.device_id);
      if (query.suffix !== undefined && !deviceId.endsWith(query.suffix)) continue;
      const at = String(item.created_at);
      const last = devices.at(-1);
      if (last?.device_id === deviceId) {
        if (at < last.first_banned_at) last.first_banned_at = at;
        if (at > last.last_banned_at) last.last_banned_at = at;
        if (!last.games.includes(String(item.game_id))) last.games.push(String(item.game_id));
        continue;
      }
      // A device more than the page holds: the page is whole once the one before it is.
      if (devices.length === query.limit) return finish(publisherId, query, reader, devices, true);
      devices.push({
        device_id: deviceId,
        first_banned_at: at,
        last_banned_at: at,
        games: [String(item.game_id)],
      });
    }
    if (!page.LastEvaluatedKey) return finish(publisherId, query, reader, devices, false);
    start = page.LastEvaluatedKey;
    // Past the budget, the page ends at the last device read whole: the next one may go on.
    if (read >= READ_BUDGET && devices.length > 1)
      return finish(publisherId, query, reader, devices.slice(0, -1), true);
  }
};

const finish = async (
  publisherId: string,
  query: DevicesQuery,
  reader: string,
  devices: BannedDevice[],
  more: boolean,
): Promise<BannedDeviceList> => {
  for (const device of devices) device.games.sort();
  const last = devices.at(-1);
  const others =
    query.prefix === undefined || query.cursor !== undefined
      ? []
      : await othersGlobalDevices(publisherId, query.prefix, query.limit, devices, more);
  return {
    items: devices,
    next_cursor: more && last ? cursorOf(reader, last.device_id) : null,
    others_global: others,
  };
};

/**
 * The devices whose id begins with `prefix` that other publishers' global bans in force name and
 * the publisher has not banned, from the global feed's live set (lib/domain/live-set.ts), which
 * every publisher may read (global bans are visible to all; only ids and publishers are answered).
 * Kept by the dispatcher, so a global ban made a moment ago may not be in it yet. A device the
 * publisher's own page leaves open (its listing goes on past it) is checked with one more Query.
 */
const othersGlobalDevices = async (
  publisherId: string,
  prefix: string,
  limit: number,
  own: readonly BannedDevice[],
  more: boolean,
): Promise<GlobalDevice[]> => {
  const now = new Date(clock.now()).toISOString();
  const found: GlobalDevice[] = [];
  let start: Record<string, unknown> | undefined;
  let read = 0;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :from)',
        ExpressionAttributeValues: { ':pk': GLOBAL_FEED_PARTITION, ':from': `${LIVE_BAN_PREFIX}${prefix}` },
        Limit: 200,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    read += page.ScannedCount ?? 0;
    for (const item of page.Items ?? []) {
      if (item.gone === true || item.ban === undefined) continue;
      const ban = banFromCopy(item.ban);
      if (ban.publisher_id === publisherId || ban.revoked_at !== null) continue;
      if (ban.expires_at !== null && ban.expires_at <= now) continue;
      const last = found.at(-1);
      if (last?.device_id === ban.device_id) {
        if (!last.publishers.includes(ban.publisher_id)) last.publishers.push(ban.publisher_id);
        continue;
      }
      if (found.length === limit + own.length) break;
      found.push({ device_id: ban.device_id, publishers: [ban.publisher_id] });
    }
    start = page.LastEvaluatedKey;
  } while (start && read < READ_BUDGET && found.length < limit + own.length);
  const listed = new Set(own.map((d) => d.device_id));
  const lastOwn = own.at(-1)?.device_id;
  const candidates = found.filter((d) => !listed.has(d.device_id));
  // Past the own page's last device, the publisher may have banned it on a later page.
  const unsettled = (id: string) => more && lastOwn !== undefined && id > lastOwn;
  const banned = await Promise.all(
    candidates.map((d) => (unsettled(d.device_id) ? hasBanned(publisherId, d.device_id) : false)),
  );
  const answer = candidates.filter((_, i) => !banned[i]).slice(0, limit);
  for (const device of answer) device.publishers.sort();
  return answer;
};

const hasBanned = async (publisherId: string, deviceId: string) => {
  const page = await dynamo.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :device)',
      ExpressionAttributeValues: { ':pk': bannedDevicesPartition(publisherId), ':device': `${deviceId}#` },
      Limit: 1,
    }),
  );
  return (page.Items ?? []).length > 0;
};
