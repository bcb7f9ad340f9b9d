import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as clock from '../clock';
import { mapWithConcurrency } from '../concurrency';
import type { ExpiringBansQuery } from '../model/requests';
import type { ExpiringBan, ExpiringBanList } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { READ_BUDGET } from '../storage/filtered-pages';
import { banKey, expiringBanKey, expiringBansPartition } from '../storage/keys';
import { TIME_TO_LIVE_ATTRIBUTE } from '../storage/table';
import { type Ban, banFromItem } from './ban-record';
import { cursorOf, sortKeyOf } from './cursors';

/**
 * A publisher's bans that end, by when they end (the console's "expiring in the next 24 hours"),
 * from an index of one small item per expiry a ban has had. Invariant: the entries are hints, the
 * ban is the truth: a listing answers only bans still in force whose expiry is the entry's, so a
 * revoke touches no entry and no write order can leave the listing wrong. Items and reasons:
 * docs/data-model.md#the-bans-that-end-soon.
 */

/** Entries outlive their time by a day: long enough for any clock between us and DynamoDB. */
const KEPT_AFTER_EXPIRY_SECONDS = 86_400;

/** The ban's entry, when it has an expiry: written again as it is by a retry. */
export const noteExpiringBan = async (
  ban: Pick<Ban, 'publisher_id' | 'device_id' | 'ban_id' | 'expires_at'>,
) => {
  const Item = expiringBanItem(ban);
  if (Item) await dynamo.send(new PutCommand({ TableName: tableName(), Item }));
};

/** A ban's entry as noteExpiringBan puts it; undefined for a permanent ban (an import batches them). */
export const expiringBanItem = (ban: Pick<Ban, 'publisher_id' | 'device_id' | 'ban_id' | 'expires_at'>) =>
  ban.expires_at === null
    ? undefined
    : {
        ...expiringBanKey(ban.publisher_id, ban.expires_at, ban.ban_id),
        device_id: ban.device_id,
        ban_id: ban.ban_id,
        [TIME_TO_LIVE_ATTRIBUTE]: Math.ceil(Date.parse(ban.expires_at) / 1000) + KEPT_AFTER_EXPIRY_SECONDS,
      };

/** The keys of every entry a ban may have: its expiry, and the one before an appeal shortened it. */
export const expiringBanKeysOf = (ban: Ban) =>
  [...new Set([ban.expires_at, ban.previous_expires_at ?? null])]
    .filter((at): at is string => typeof at === 'string')
    .map((at) => expiringBanKey(ban.publisher_id, at, ban.ban_id));

/** Reads of the entries' bans at once (a page of 100 entries is 100 GetItems, 10 at a time). */
const BAN_READS = 10;

/** A timestamp's form in an entry's key, so a cursor can be checked without trusting it. */
const ENTRY_KEY = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#\d+$/;

/**
 * The publisher's bans in force that end within the next `within_hours`, soonest first. A key
 * bound to games sees the bans made in its games. A page stops at `limit` bans, or once 1,000
 * entries were read (then it may hold fewer, and `next_cursor` goes on from there).
 */
export const listExpiringBans = async (
  publisherId: string,
  query: ExpiringBansQuery,
  boundGames: readonly string[] | null,
): Promise<ExpiringBanList> => {
  const now = new Date(clock.now()).toISOString();
  const until = new Date(clock.now() + query.within_hours * 3_600_000).toISOString();
  const pk = expiringBansPartition(publisherId);
  const after =
    query.cursor === undefined
      ? undefined
      : sortKeyOf(`expiring ${pk}`, query.cursor, (sk) => ENTRY_KEY.test(sk) && sk.slice(0, 24) <= until);
  const items: ExpiringBan[] = [];
  let start: Record<string, unknown> | undefined =
    after !== undefined && after > now ? { pk, sk: after } : undefined;
  let read = 0;
  for (;;) {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: tableName(),
        // `#~` after the last second's ban ids: every entry up to `until` itself.
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': pk, ':from': now, ':to': `${until}#~` },
        ConsistentRead: true,
        Limit: query.limit - items.length,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    const entries = page.Items ?? [];
    read += entries.length;
    const bans = await mapWithConcurrency(entries, BAN_READS, async (entry) => {
      const { Item } = await dynamo.send(
        new GetCommand({
          TableName: tableName(),
          Key: banKey(String(entry.device_id), Number(entry.ban_id)),
          ConsistentRead: true,
        }),
      );
      return Item ? banFromItem(Item) : undefined;
    });
    entries.forEach((entry, i) => {
      const ban = bans[i];
      if (!ban || ban.revoked_at !== null || ban.expires_at === null || ban.expires_at <= now) return;
      // An entry left behind by an appeal that moved the expiry: the ban's own entry answers.
      if (!String(entry.sk).startsWith(`${ban.expires_at}#`)) return;
      if (boundGames !== null && !boundGames.includes(ban.game_id)) return;
      items.push({
        device_id: ban.device_id,
        ban_id: ban.ban_id,
        ban_type: ban.ban_type,
        scope: ban.scope,
        game_id: ban.game_id,
        reason_code: ban.reason_code,
        created_at: ban.created_at,
        expires_at: ban.expires_at,
        created_by: ban.created_by ?? null,
      });
    });
    const last = entries.at(-1);
    if (!page.LastEvaluatedKey || !last) return { items, next_cursor: null };
    if (items.length >= query.limit || read >= READ_BUDGET)
      return { items, next_cursor: cursorOf(`expiring ${pk}`, String(last.sk)) };
    start = page.LastEvaluatedKey;
  }
};
