import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DEVICE_ID_PREFIX_PATTERN } from '@kernel/device-ids';
import type { DevicesQuery } from '../model/requests';
import type { BannedDevice, BannedDeviceList } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { READ_BUDGET } from '../storage/filtered-pages';
import { afterBannedDevice, bannedDeviceKey, bannedDevicesPartition } from '../storage/keys';
import type { Ban } from './ban-record';
import { cursorOf, sortKeyOf } from './cursors';

/**
 * The devices a publisher has banned, for finding one by a prefix of its id (a report names
 * "device 7f3a…"). One small item per ban in `BANNED#<publisher>`, keyed `<device_id>#<ban id>`:
 * written beside the ban by the same create (its own item, so no two creates contend for one),
 * deleted with the ban by an erasure. A prefix of a device id is then a prefix of its items' keys,
 * in device id order, and a listing folds each device's items into one answer.
 */

/** The ban's entry: written again as it is by a retry. */
export const noteBannedDevice = async (ban: Ban) => {
  await dynamo.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...bannedDeviceKey(ban.publisher_id, ban.device_id, ban.ban_id),
        device_id: ban.device_id,
        game_id: ban.game_id,
        created_at: ban.created_at,
      },
    }),
  );
};

/**
 * A page of the devices the publisher has banned whose id begins with `prefix`, in id order, each
 * with when it was first and last banned and in which games. A key bound to games finds only the
 * devices banned in its games, and sees only those games. The cursor is the last device answered:
 * the next page starts after all of its items.
 */
export const listBannedDevices = async (
  publisherId: string,
  query: DevicesQuery,
  boundGames: readonly string[] | null,
): Promise<BannedDeviceList> => {
  const pk = bannedDevicesPartition(publisherId);
  const after =
    query.cursor === undefined
      ? undefined
      : sortKeyOf(
          `devices ${pk}`,
          query.cursor,
          (id) =>
            DEVICE_ID_PREFIX_PATTERN.test(id) && (query.prefix === undefined || id.startsWith(query.prefix)),
          'must be a next_cursor this API returned for this prefix',
        );
  const values: Record<string, unknown> = { ':pk': pk };
  const games = boundGames ?? [];
  games.forEach((game, i) => {
    values[`:g${i}`] = game;
  });
  const devices: BannedDevice[] = [];
  let start: Record<string, unknown> | undefined =
    after === undefined ? undefined : { pk, sk: afterBannedDevice(after) };
  let read = 0;
  for (;;) {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression:
          query.prefix === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues:
          query.prefix === undefined ? values : { ...values, ':prefix': query.prefix },
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
      const at = String(item.created_at);
      const last = devices.at(-1);
      if (last?.device_id === deviceId) {
        if (at < last.first_banned_at) last.first_banned_at = at;
        if (at > last.last_banned_at) last.last_banned_at = at;
        if (!last.games.includes(String(item.game_id))) last.games.push(String(item.game_id));
        continue;
      }
      // A device more than the page holds: the page is whole once the one before it is.
      if (devices.length === query.limit) return finish(pk, devices, true);
      devices.push({
        device_id: deviceId,
        first_banned_at: at,
        last_banned_at: at,
        games: [String(item.game_id)],
      });
    }
    if (!page.LastEvaluatedKey) return finish(pk, devices, false);
    start = page.LastEvaluatedKey;
    // Past the budget, the page ends at the last device read whole: the next one may go on.
    if (read >= READ_BUDGET && devices.length > 1) return finish(pk, devices.slice(0, -1), true);
  }
};

const finish = (pk: string, devices: BannedDevice[], more: boolean): BannedDeviceList => {
  for (const device of devices) device.games.sort();
  const last = devices.at(-1);
  return { items: devices, next_cursor: more && last ? cursorOf(`devices ${pk}`, last.device_id) : null };
};
