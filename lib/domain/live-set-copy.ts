import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { RuleBan } from '@kernel/policy-rules';
import * as clock from '../clock';
import { banScopes, banTypes } from '../model/requests';
import { dynamo, perStore, tableName } from '../storage/client';
import { FEED_ENTRY_PREFIX, FEED_HEAD_SK, feedEntryKey, LIVE_BAN_PREFIX } from '../storage/keys';
import type { ChangeEvent } from './change-events';
import { IntegrityError } from './errors';
import { lastSeq, seqOf } from './feed-end';
import { liveSetWrite } from './live-set';

/**
 * This process's copies of feed partitions' live sets (lib/domain/live-set.ts), as the policy
 * rules read them, kept current by the feed: a copy is one whole read of the live set after its
 * partition's end position was read, and before each use it folds in every entry appended since
 * (one consistent Query while nothing changed), by the same write each event makes to the live
 * set, under the same conditions. Those writes do not depend on order and are safe to repeat, so a
 * copy holds exactly what a whole read made after the feed's positions read at its use would hold
 * of every event appended by then (the live set takes an event just before it is appended: one
 * still being dispatched counts once it is in the feed). A missing position (past the retention),
 * a long way behind, an hour's age or a failed read make the copy be read whole again.
 * Per bound store, in module scope (one per Lambda container, one per local server).
 */

/** A live ban as the rules read it, and its device. */
export type LiveRuleBan = RuleBan & { device_id: string };

/** One live item of a copy: when its event happened and its ban, or no ban (a tombstone). */
interface Held {
  readonly occurredAt: string;
  readonly ban: LiveRuleBan | undefined;
}

interface Copy {
  /** By live item sort key. */
  readonly items: Map<string, Held>;
  /** Every entry up to this position is folded in. */
  seq: number;
  readonly builtAt: number;
}

/** A copy is read whole again past this age, so it sheds what time to live removed from the store. */
const COPY_MAX_AGE_MS = 3_600_000;
/** Partitions copied at most (the global one, and a publisher's and a game's per preview); least recently used go. */
const MAX_COPIES = 64;

const LIVE_FIELDS = ['device_id', 'scope', 'ban_type', 'publisher_id', 'revoked_at', 'expires_at'] as const;

const isTimeOrNull = (value: unknown) => value === null || typeof value === 'string';

/** The rules' fields of one live item (as stored or as its event would write it), checked. */
const heldOf = (item: Record<string, unknown>): Held => {
  if (typeof item.occurred_at !== 'string') throw new IntegrityError('stored live ban is malformed');
  if (item.gone === true) return { occurredAt: item.occurred_at, ban: undefined };
  const ban = item.ban as Record<string, unknown> | undefined;
  const ok =
    typeof ban === 'object' &&
    ban !== null &&
    typeof item.device_id === 'string' &&
    (banScopes as readonly unknown[]).includes(ban.scope) &&
    (banTypes as readonly unknown[]).includes(ban.ban_type) &&
    typeof ban.publisher_id === 'string' &&
    isTimeOrNull(ban.revoked_at) &&
    isTimeOrNull(ban.expires_at);
  if (!ok) throw new IntegrityError('stored live ban is malformed');
  return {
    occurredAt: item.occurred_at,
    ban: {
      device_id: item.device_id as string,
      scope: ban.scope as RuleBan['scope'],
      ban_type: ban.ban_type as RuleBan['ban_type'],
      publisher_id: ban.publisher_id as string,
      revoked_at: ban.revoked_at as string | null,
      expires_at: ban.expires_at as string | null,
    },
  };
};

/** A partition's whole live set, tombstones too, with only what the rules and the folding read. */
const readWhole = async (partition: string): Promise<Map<string, Held>> => {
  const items = new Map<string, Held>();
  const names = Object.fromEntries(LIVE_FIELDS.map((field) => [`#${field}`, field]));
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :live)',
        ExpressionAttributeValues: { ':pk': partition, ':live': LIVE_BAN_PREFIX },
        ExpressionAttributeNames: { ...names, '#ban': 'ban', '#gone': 'gone', '#at': 'occurred_at' },
        ProjectionExpression: [
          'sk',
          '#gone',
          '#at',
          '#device_id',
          ...LIVE_FIELDS.slice(1).map((field) => `#ban.#${field}`),
        ].join(', '),
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) items.set(String(item.sk), heldOf(item));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

/**
 * Folds one feed entry's event into a copy as lib/domain/live-set.ts writes it to the store: a
 * tombstone over anything, a ban only where there is nothing or an earlier copy of it.
 */
const fold = (items: Map<string, Held>, partition: string, event: ChangeEvent) => {
  const write = liveSetWrite(partition, event);
  if (!write) return;
  const item = write.Item as Record<string, unknown>;
  const sk = String(item.sk);
  const held = heldOf(item);
  const was = items.get(sk);
  if (held.ban && was && (was.ban === undefined || was.occurredAt > held.occurredAt)) return;
  items.set(sk, held);
};

/**
 * Folds in the entries after the copy's position, in order. False when positions are missing (past
 * the retention, gone before they were read) or there are more than reading the copy whole costs.
 */
const catchUp = async (copy: Copy, partition: string): Promise<boolean> => {
  const most = copy.items.size + 1_000;
  let read = 0;
  let head = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': partition,
          ':from': feedEntryKey(partition, copy.seq + 1).sk,
          ':to': FEED_HEAD_SK,
        },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      if (item.sk === FEED_HEAD_SK) {
        head = Number(item.seq) || 0;
        continue;
      }
      if (!String(item.sk).startsWith(FEED_ENTRY_PREFIX) || seqOf(item.sk) !== copy.seq + 1) return false;
      if (typeof item.event !== 'object' || item.event === null)
        throw new IntegrityError('stored feed entry is malformed');
      fold(copy.items, partition, item.event as ChangeEvent);
      copy.seq += 1;
      read += 1;
    }
    if (read > most) return false;
    start = page.LastEvaluatedKey;
  } while (start);
  // A head past the last entry read: the positions between are gone.
  return head <= copy.seq;
};

/** A copy read whole: the end first, so every entry after it is folded in at its next use. */
const build = async (partition: string): Promise<Copy> => {
  const builtAt = clock.now();
  const seq = await lastSeq(partition);
  return { items: await readWhole(partition), seq, builtAt };
};

interface Slot {
  copy: Copy | undefined;
  /** The latest refresh: each use waits for one that began after it was asked, so none is missed. */
  turn: Promise<Copy | undefined>;
}

const slots = perStore(() => new Map<string, Slot>());

const refresh = async (slot: Slot, partition: string): Promise<Copy> => {
  const { copy } = slot;
  slot.copy = undefined;
  if (copy && clock.now() - copy.builtAt < COPY_MAX_AGE_MS && (await catchUp(copy, partition))) {
    slot.copy = copy;
    return copy;
  }
  slot.copy = await build(partition);
  return slot.copy;
};

/**
 * The live bans (tombstones left out) of a partition's live set as of now: every event appended
 * to its feed before this call began is in them. Safe to call concurrently; the copy must not be
 * changed by the caller.
 */
export const liveRuleBans = async (partition: string): Promise<LiveRuleBan[]> => {
  const copies = slots();
  let slot = copies.get(partition);
  if (slot) copies.delete(partition);
  else slot = { copy: undefined, turn: Promise.resolve(undefined) };
  // Re-inserted: Map order is use order, so the least recently used go first.
  copies.set(partition, slot);
  for (const key of copies.keys()) {
    if (copies.size <= MAX_COPIES) break;
    copies.delete(key);
  }
  const current = slot;
  // A refresh that failed leaves no copy (read whole next time) and does not stop the next one.
  const turn = current.turn.catch(() => undefined).then(() => refresh(current, partition));
  current.turn = turn;
  const copy = await turn;
  const bans: LiveRuleBan[] = [];
  for (const held of copy.items.values()) if (held.ban) bans.push(held.ban);
  return bans;
};

/** Forgets this process's copies of the bound store (tests and the benchmark's cold runs). */
export const clearLiveSetCopies = () => slots().clear();
