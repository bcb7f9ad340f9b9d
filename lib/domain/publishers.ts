import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as clock from '../clock';
import { mapWithConcurrency } from '../concurrency';
import { actorFromStored } from '../model/actors';
import type { ListPublishersQuery, PutPublisherRequest } from '../model/requests';
import type { Actor, Directory, DirectoryEntry, PublisherProfile } from '../model/responses';
import { whichExist } from '../storage/batches';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import {
  DIRECTORY_PARTITION,
  directoryKey,
  directoryMarkerKey,
  displayNameKey,
  profileKey,
} from '../storage/keys';
import { TIME_TO_LIVE_ATTRIBUTE } from '../storage/table';
import { recordEvent } from './audit';
import type { ChangeEvent } from './change-events';
import { skeletonDigest } from './display-names';
import { ConflictError, IntegrityError, InvalidInputError } from './errors';

/**
 * The directory of publishers that make global bans (`GET /v1/publishers`), counted by the
 * dispatcher (lib/domain/dispatch.ts) from the change events of global bans, and each publisher's
 * own name in it (`PUT /v1/publisher`). Invariants: a page is one Query, with no scan and no count
 * of bans; each event is counted exactly once, in whatever order events arrive, without
 * transactions (its mark and its counts are one conditional UpdateItem of the entry). Items,
 * attributes and the reasons for them: docs/data-model.md#the-directory-of-publishers.
 */

const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** "Revoked within 30 days" of being made. */
export const REVOKE_WINDOW_MS = 30 * DAY;
/** Bans lasting at most this long (from creation) are counted as active to the second. */
export const SECOND_BUCKETS_UP_TO_MS = 6 * HOUR;
/** Bans lasting at most this long (from creation) are counted as active to the hour; longer ones to the day. */
export const HOUR_BUCKETS_UP_TO_MS = 45 * DAY;
/** How long a counted event is marked on the entry itself, before its own marker item takes over. */
export const ENTRY_MARKER_MS = HOUR;
/** The entry's markers are moved off once the oldest is this old: about once an hour per busy publisher. */
export const ENTRY_MARKER_MOVE_AFTER_MS = 2 * HOUR;
/** How long a marker item is kept (its `ttl`): longer than a change record can be handed on again. */
export const MARKER_ITEM_MS = 3 * DAY;
/** Past buckets of ended bans are removed once there are this many (reads skip them anyway). */
const PAST_BUCKETS_PRUNED_AT = 50;
/** Events counted in one UpdateItem: its expression stays far inside DynamoDB's 4 KB. */
const EVENTS_PER_UPDATE = 25;
/** Attributes removed in one UpdateItem. */
const REMOVES_PER_UPDATE = 100;

const MARKER_PREFIX = 'm_';
const BUCKET = /^([shdcr])(\d+)$/;

// ─── What each event adds ───────────────────────────────────────────────────────────────────────

/** Where an active ban is counted until it ends: its bucket, rounded up to its granularity. */
export const activeBucketOf = (createdAt: string, expiresAt: string | null): string => {
  if (expiresAt === null) return 'permanent_active';
  const ends = Date.parse(expiresAt);
  const lasts = ends - Date.parse(createdAt);
  if (lasts <= SECOND_BUCKETS_UP_TO_MS) return `s${Math.ceil(ends / SECOND)}`;
  if (lasts <= HOUR_BUCKETS_UP_TO_MS) return `h${Math.ceil(ends / HOUR)}`;
  return `d${Math.ceil(ends / DAY)}`;
};

const dayOf = (at: string) => Math.floor(Date.parse(at) / DAY);

/** What one event changes on its publisher's entry, or undefined: it is not about a global ban, or changes no count. */
export interface Contribution {
  event_id: string;
  publisher_id: string;
  /** Attribute → amount to add. */
  adds: Map<string, number>;
  /** A ban made: the entry's first and last times take it in; and the entry may be made. */
  created_at?: string;
}

export const contributionOf = (event: ChangeEvent): Contribution | undefined => {
  if (!('ban' in event) || event.ban.scope !== 'global') return undefined;
  const { ban } = event;
  const adds = new Map<string, number>();
  const add = (attribute: string, amount: number) => adds.set(attribute, (adds.get(attribute) ?? 0) + amount);
  const bucket = activeBucketOf(ban.created_at, ban.expires_at);
  let createdAt: string | undefined;
  switch (event.type) {
    case 'ban.created':
      add('global_bans', 1);
      add(`c${dayOf(ban.created_at)}`, 1);
      add(bucket, 1);
      createdAt = ban.created_at;
      break;
    case 'ban.revoked':
      add(bucket, -1);
      if (
        ban.revoked_at !== null &&
        Date.parse(ban.revoked_at) - Date.parse(ban.created_at) <= REVOKE_WINDOW_MS
      ) {
        add('revoked_30d', 1);
        add(`r${dayOf(ban.created_at)}`, 1);
      }
      break;
    case 'ban.erased':
      // A privacy deletion, not a revocation: it ends the ban if it was in force, and the ban stays
      // counted as made (the counts hold nothing of the player).
      if (ban.revoked_at === null) add(bucket, -1);
      break;
    case 'ban.updated':
      // An appeal moved its end: from the bucket of its old end to that of its new one.
      if (
        ban.revoked_at === null &&
        ban.previous_expires_at !== undefined &&
        ban.previous_expires_at !== ban.expires_at
      ) {
        add(activeBucketOf(ban.created_at, ban.previous_expires_at), -1);
        add(bucket, 1);
      }
      break;
  }
  for (const [attribute, amount] of adds) if (amount === 0) adds.delete(attribute);
  if (adds.size === 0) return undefined;
  return {
    event_id: event.event_id,
    publisher_id: event.publisher_id,
    adds,
    ...(createdAt ? { created_at: createdAt } : {}),
  };
};

// ─── Counting, in the dispatcher ─────────────────────────────────────────────────────────────────

type Item = Record<string, unknown>;
const numberOf = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** Whether each event's own marker item says it was counted (more than an hour ago). */
const countedLongAgo = (eventIds: readonly string[]) => whichExist(eventIds.map(directoryMarkerKey));

/**
 * Counts these events (one publisher's) in one UpdateItem, on condition that none is marked yet;
 * for events other than creations, also that the entry exists (a ban made before the directory
 * was counted by nothing: its end changes nothing here either). Returns the entry as it was
 * before, or false when the condition failed.
 */
const countTogether = async (
  publisherId: string,
  batch: readonly Contribution[],
  now: number,
): Promise<{ before: Item | undefined } | false> => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {
    ':now': now,
    ':p': publisherId,
    ':at': new Date(now).toISOString(),
  };
  const set = ['publisher_id = :p', 'updated_at = :at'];
  const conditions: string[] = [];
  const adds = new Map<string, number>();
  batch.forEach((contribution, i) => {
    names[`#m${i}`] = `${MARKER_PREFIX}${contribution.event_id}`;
    set.push(`#m${i} = :now`);
    conditions.push(`attribute_not_exists(#m${i})`);
    for (const [attribute, amount] of contribution.adds)
      adds.set(attribute, (adds.get(attribute) ?? 0) + amount);
  });
  const created = batch.flatMap((c) => (c.created_at ? [c.created_at] : [])).sort();
  if (created.length > 0) {
    set.push(
      'first_global_ban_at = if_not_exists(first_global_ban_at, :first)',
      'last_global_ban_at = :last',
    );
    values[':first'] = created[0];
    values[':last'] = created[created.length - 1];
  } else {
    conditions.push('attribute_exists(pk)');
  }
  const add: string[] = [];
  let n = 0;
  for (const [attribute, amount] of adds) {
    if (amount === 0) continue;
    names[`#a${n}`] = attribute;
    values[`:a${n}`] = amount;
    add.push(`#a${n} :a${n}`);
    n++;
  }
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: directoryKey(publisherId),
        UpdateExpression: `SET ${set.join(', ')}${add.length > 0 ? ` ADD ${add.join(', ')}` : ''}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_OLD',
      }),
    );
    // A first or last time an earlier write had beyond these (events from two shards, in either order).
    const before = Attributes;
    if (before && created.length > 0) {
      const [first, last] = [created[0] as string, created[created.length - 1] as string];
      if (typeof before.last_global_ban_at === 'string' && before.last_global_ban_at > last)
        await setIf(publisherId, 'last_global_ban_at', before.last_global_ban_at, '<');
      if (typeof before.first_global_ban_at === 'string' && before.first_global_ban_at > first)
        await setIf(publisherId, 'first_global_ban_at', first, '>');
    }
    return { before };
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** Sets a time only where it moves it the right way (the last later, the first earlier). */
const setIf = async (publisherId: string, attribute: string, value: string, comparison: '<' | '>') => {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: directoryKey(publisherId),
        UpdateExpression: 'SET #t = :t',
        ConditionExpression: `#t ${comparison} :t`,
        ExpressionAttributeNames: { '#t': attribute },
        ExpressionAttributeValues: { ':t': value },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/** The entry after a count: as it was, with what was added and marked (concurrent writes aside). */
const afterCount = (before: Item | undefined, batch: readonly Contribution[], now: number): Item => {
  const after: Item = { ...before };
  for (const contribution of batch) {
    after[`${MARKER_PREFIX}${contribution.event_id}`] = now;
    for (const [attribute, amount] of contribution.adds)
      after[attribute] = numberOf(after[attribute]) + amount;
  }
  return after;
};

/** When a bucket stops counting: the end of the second, hour or day it stands for. */
const bucketEnd = (kind: string, n: number) => n * (kind === 's' ? SECOND : kind === 'h' ? HOUR : DAY);
/** When every ban of creation day `n` is past its 30 days. */
const dayMatures = (n: number) => (n + 1) * DAY + REVOKE_WINDOW_MS;

/**
 * Keeps the entry small, every step safe to repeat or to race: markers older than an hour are put
 * as items of their own, then removed from the entry; buckets of bans that ended are removed (no
 * read counts them); creation days whose 30 days are over are folded into the matured totals, on
 * condition that their counts are still what was read (else the next count does it).
 */
const tidy = async (publisherId: string, entry: Item, now: number): Promise<void> => {
  const markers = Object.entries(entry).filter(([name]) => name.startsWith(MARKER_PREFIX)) as [
    string,
    number,
  ][];
  const oldest = Math.min(...markers.map(([, at]) => numberOf(at)));
  const stale =
    oldest <= now - ENTRY_MARKER_MOVE_AFTER_MS
      ? markers.filter(([, at]) => numberOf(at) <= now - ENTRY_MARKER_MS)
      : [];
  const past: string[] = [];
  const matured: [string, number][] = [];
  for (const [name, value] of Object.entries(entry)) {
    const match = BUCKET.exec(name);
    if (!match) continue;
    const kind = match[1] as string;
    const n = Number(match[2]);
    if ('shd'.includes(kind) && bucketEnd(kind, n) <= now) past.push(name);
    if ('cr'.includes(kind) && dayMatures(n) <= now) matured.push([name, numberOf(value)]);
  }
  if (stale.length === 0 && matured.length === 0 && past.length < PAST_BUCKETS_PRUNED_AT) return;

  await mapWithConcurrency(stale, 10, ([name, at]) =>
    dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...directoryMarkerKey(name.slice(MARKER_PREFIX.length)),
          publisher_id: publisherId,
          counted_at: new Date(numberOf(at)).toISOString(),
          [TIME_TO_LIVE_ATTRIBUTE]: Math.ceil((numberOf(at) + MARKER_ITEM_MS) / SECOND),
        },
      }),
    ),
  );
  const removals = [...stale.map(([name]) => name), ...past];
  const update = async (remove: readonly string[], fold: readonly [string, number][]) => {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const conditions: string[] = ['attribute_exists(pk)'];
    const removed = [...remove, ...fold.map(([name]) => name)].map((name, i) => {
      names[`#x${i}`] = name;
      return `#x${i}`;
    });
    fold.forEach(([name, value], i) => {
      values[`:f${i}`] = value;
      conditions.push(`#x${remove.length + i} = :f${i}`);
      void name;
    });
    const sum = (kind: string) => fold.filter(([name]) => name[0] === kind).reduce((s, [, v]) => s + v, 0);
    let add = '';
    if (fold.length > 0) {
      values[':mb'] = sum('c');
      values[':mr'] = sum('r');
      add = ' ADD matured_bans :mb, matured_revoked_30d :mr';
    }
    try {
      await dynamo.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: directoryKey(publisherId),
          UpdateExpression: `REMOVE ${removed.join(', ')}${add}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  };
  // The fold first and alone (its condition must not hold the removals back), then the removals.
  if (matured.length > 0) await update([], matured);
  for (let i = 0; i < removals.length; i += REMOVES_PER_UPDATE)
    await update(removals.slice(i, i + REMOVES_PER_UPDATE), []);
};

/**
 * The first time an entry is counted, the name its publisher set before (if any) is copied onto
 * it. `PUT /v1/publisher` writes the profile, then the entry if it exists; this reads the profile
 * after the entry exists: so whichever comes second sees the other, and the later name wins by
 * its `updated_at`.
 */
const copyName = async (publisherId: string): Promise<void> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: profileKey(publisherId), ConsistentRead: true }),
  );
  let profile: StoredProfile | undefined;
  try {
    profile = Item ? profileFromItem(Item) : undefined;
  } catch {
    // A damaged profile names nothing to copy; the feed must not wait on it.
  }
  if (profile && (await setName(publisherId, profile.display_name, profile.updated_at))) return;
  // No name set, or the entry holds this one or a later one already: only note that it was read.
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: directoryKey(publisherId),
        UpdateExpression: 'SET name_synced = :t',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': true },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * The name on the publisher's directory entry, if it has one and holds no later name: true when
 * written. The entry keeps the `updated_at` of the profile change it copied.
 */
const setName = async (publisherId: string, name: string, at: string): Promise<boolean> => {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: directoryKey(publisherId),
        UpdateExpression: 'SET display_name = :n, display_name_at = :at, name_synced = :t',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(display_name_at) OR display_name_at < :at)',
        ExpressionAttributeValues: { ':n': name, ':at': at, ':t': true },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** Counts one publisher's events: together when none was counted yet, else one by one. */
const countForPublisher = async (publisherId: string, contributions: readonly Contribution[]) => {
  const counted = await countedLongAgo(contributions.map((c) => c.event_id));
  const fresh = contributions.filter((_, i) => !counted[i]);
  let entry: Item | undefined;
  let named = true;
  const note = (batch: readonly Contribution[], before: Item | undefined, now: number) => {
    entry = afterCount(before, batch, now);
    if (before?.name_synced !== true) named = false;
  };
  for (let i = 0; i < fresh.length; i += EVENTS_PER_UPDATE) {
    const batch = fresh.slice(i, i + EVENTS_PER_UPDATE);
    const now = clock.now();
    const together = await countTogether(publisherId, batch, now);
    if (together) {
      note(batch, together.before, now);
      continue;
    }
    // Some were counted already (this batch handed on again): each on its own, once.
    for (const one of batch) {
      const at = clock.now();
      const alone = await countTogether(publisherId, [one], at);
      if (alone) note([one], alone.before, at);
    }
  }
  if (!entry) return;
  if (!named) await copyName(publisherId);
  await tidy(publisherId, entry, clock.now());
};

/**
 * The dispatcher's part: counts the global bans' events of a batch in their publishers' entries,
 * each exactly once however often the batch is handed on. Publishers in parallel, each one's
 * events in order.
 */
export const countInDirectory = async (events: readonly ChangeEvent[]): Promise<void> => {
  const byPublisher = new Map<string, Contribution[]>();
  for (const event of events) {
    const contribution = contributionOf(event);
    if (!contribution) continue;
    const list = byPublisher.get(contribution.publisher_id) ?? [];
    list.push(contribution);
    byPublisher.set(contribution.publisher_id, list);
  }
  await mapWithConcurrency([...byPublisher], 4, ([publisherId, list]) =>
    countForPublisher(publisherId, list),
  );
};

// ─── Reading the directory ───────────────────────────────────────────────────────────────────────

const SHARE_DIGITS = 10_000;

/** An entry as `GET /v1/publishers` answers it at `now`: the buckets that have not ended, the days whose 30 days are over. */
export const directoryEntryFromItem = (item: Item, now: number): DirectoryEntry => {
  const { publisher_id, display_name, global_bans, first_global_ban_at, last_global_ban_at } = item;
  if (
    typeof publisher_id !== 'string' ||
    typeof global_bans !== 'number' ||
    typeof first_global_ban_at !== 'string' ||
    typeof last_global_ban_at !== 'string' ||
    !(display_name === undefined || typeof display_name === 'string')
  )
    throw new IntegrityError('directory entry is malformed');
  let active = numberOf(item.permanent_active);
  let maturedBans = numberOf(item.matured_bans);
  let maturedRevoked = numberOf(item.matured_revoked_30d);
  for (const [name, value] of Object.entries(item)) {
    const match = BUCKET.exec(name);
    if (!match) continue;
    const kind = match[1] as string;
    const n = Number(match[2]);
    if ('shd'.includes(kind) && bucketEnd(kind, n) > now) active += numberOf(value);
    if (kind === 'c' && dayMatures(n) <= now) maturedBans += numberOf(value);
    if (kind === 'r' && dayMatures(n) <= now) maturedRevoked += numberOf(value);
  }
  return {
    publisher_id,
    display_name: display_name ?? null,
    active_global_bans: Math.max(0, active),
    global_bans,
    revoked_within_30_days: numberOf(item.revoked_30d),
    global_bans_past_30_days: maturedBans,
    revoked_within_30_days_share:
      maturedBans > 0
        ? Math.round((Math.min(maturedRevoked, maturedBans) / maturedBans) * SHARE_DIGITS) / SHARE_DIGITS
        : null,
    first_global_ban_at,
    last_global_ban_at,
  };
};

const cursorOf = (publisherId: string) => Buffer.from(publisherId).toString('base64url');
const PUBLISHER_CURSOR = /^[a-z0-9._-]{1,64}$/;
const cursorKey = (cursor: string) => {
  const publisherId = Buffer.from(cursor, 'base64url').toString();
  if (!PUBLISHER_CURSOR.test(publisherId) || cursorOf(publisherId) !== cursor)
    throw new InvalidInputError('cursor', 'invalid', 'must be a next_cursor this API returned');
  return directoryKey(publisherId);
};

/** One page of the directory, in publisher_id order: one Query (two when an entry page of 1 MB stops short). */
export const listPublishers = async (query: ListPublishersQuery): Promise<Directory> => {
  const { Items = [], LastEvaluatedKey } = await dynamo.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': DIRECTORY_PARTITION },
      ...(query.cursor === undefined ? {} : { ExclusiveStartKey: cursorKey(query.cursor) }),
      // One more than the page: whether there is a next one, without an empty last page.
      Limit: query.limit + 1,
      ConsistentRead: true,
    }),
  );
  const now = clock.now();
  const page = Items.slice(0, query.limit);
  const more = Items.length > query.limit || LastEvaluatedKey !== undefined;
  const last = page[page.length - 1];
  return {
    items: page.map((item) => directoryEntryFromItem(item, now)),
    next_cursor: more && last ? cursorOf(String(last.sk)) : null,
  };
};

// ─── The publisher's own name ────────────────────────────────────────────────────────────────────

interface StoredProfile extends PublisherProfile {
  previous_display_name: string | null;
  change_id: string;
  changed_by: Actor | undefined;
}

const profileFromItem = (item: Item): StoredProfile => {
  const { publisher_id, display_name, previous_display_name, updated_at, change_id, changed_by } = item;
  if (
    typeof publisher_id !== 'string' ||
    typeof display_name !== 'string' ||
    typeof updated_at !== 'string' ||
    typeof change_id !== 'string' ||
    !(previous_display_name === null || typeof previous_display_name === 'string')
  )
    throw new IntegrityError('publisher profile item is malformed');
  return {
    publisher_id,
    display_name,
    previous_display_name,
    updated_at,
    change_id,
    changed_by: actorFromStored(changed_by),
  };
};

/** Records the `publisher.updated` event of the change a profile item records on itself: once, whoever records it. */
const recordChangeOf = async (publisherId: string, item: Item | undefined) => {
  if (!item) return;
  let profile: StoredProfile;
  try {
    profile = profileFromItem(item);
  } catch {
    // A damaged item the update just replaced: nothing true to record of it.
    return;
  }
  if (!profile.changed_by) return;
  await recordEvent(publisherId, profile.change_id, profile.updated_at, profile.changed_by, {
    type: 'publisher.updated',
    display_name: profile.display_name,
    previous_display_name: profile.previous_display_name,
  });
};

/**
 * How long a skeleton is held for a name that never became the holder's: longer than any request
 * (a claim is followed by the profile's write in the same request), so a name still being set is
 * never taken from under it.
 */
const UNUSED_CLAIM_MS = 5 * 60_000;

const LOOKS_TAKEN = "display_name looks like another publisher's name in the directory";

/**
 * Takes the skeleton of a name for the publisher: one PutItem, on condition that no other
 * publisher holds it, so two racing for look-alike names cannot both have one. A name that looks
 * like another publisher's is a 409, and changes nothing. A claim its holder no longer uses (its
 * request failed after the claim, or it moved on and its release failed) is taken over once it is
 * older than any request, on condition that it is still that claim: nothing is held forever for
 * a name nobody has.
 */
const claimSkeleton = async (publisherId: string, digest: string, now: Date) => {
  const claim = (condition: string, values: Record<string, unknown>) =>
    dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...displayNameKey(digest), publisher_id: publisherId, claimed_at: now.toISOString() },
        ConditionExpression: condition,
        ExpressionAttributeValues: values,
      }),
    );
  try {
    await claim('attribute_not_exists(pk) OR publisher_id = :p', { ':p': publisherId });
    return;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const { Item: held } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: displayNameKey(digest), ConsistentRead: true }),
  );
  const holder = held?.publisher_id;
  const claimedAt = typeof held?.claimed_at === 'string' ? Date.parse(held.claimed_at) : 0;
  if (typeof holder !== 'string' || now.getTime() - claimedAt < UNUSED_CLAIM_MS)
    throw new ConflictError(LOOKS_TAKEN);
  const { Item: profile } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: profileKey(holder), ConsistentRead: true }),
  );
  const name = profile?.display_name;
  if (typeof name === 'string' && skeletonDigest(name) === digest) throw new ConflictError(LOOKS_TAKEN);
  try {
    await claim('publisher_id = :holder AND claimed_at = :at', {
      ':holder': holder,
      ':at': held?.claimed_at,
    });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw new ConflictError(LOOKS_TAKEN);
  }
};

/** Lets go of the skeleton of a name the publisher no longer has, if it still holds it. */
const releaseSkeleton = async (publisherId: string, digest: string) => {
  try {
    await dynamo.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: displayNameKey(digest),
        ConditionExpression: 'publisher_id = :p',
        ExpressionAttributeValues: { ':p': publisherId },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * Sets the publisher's display name: its confusable skeleton taken first (claimSkeleton), then one UpdateItem of its profile (the name before kept on it, so
 * the item describes its own change), returning what it replaced; then, at once, its event (and
 * the replaced change's, whose request may have failed after its write: recorded once either way)
 * and the name on its directory entry, if it has one and holds no later name. Not in the change
 * feed: a name changes no enforcement.
 */
export const putPublisher = async (
  publisherId: string,
  request: PutPublisherRequest,
  actor: Actor,
): Promise<PublisherProfile> => {
  const now = new Date(clock.now());
  const digest = skeletonDigest(request.display_name);
  await claimSkeleton(publisherId, digest, now);
  const updatedAt = now.toISOString();
  const changeId = randomUUID();
  const { Attributes: replaced } = await dynamo.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: profileKey(publisherId),
      UpdateExpression:
        'SET previous_display_name = if_not_exists(display_name, :none), publisher_id = :p, ' +
        'display_name = :n, updated_at = :at, change_id = :c, changed_by = :by',
      ExpressionAttributeValues: {
        ':none': null,
        ':p': publisherId,
        ':n': request.display_name,
        ':at': updatedAt,
        ':c': changeId,
        ':by': actor,
      },
      ReturnValues: 'ALL_OLD',
    }),
  );
  // The SDK's retry of an update whose answer was lost returns our own change: its name before is on it.
  const ours = replaced?.change_id === changeId;
  const previous = ours
    ? ((replaced?.previous_display_name as string | null | undefined) ?? null)
    : typeof replaced?.display_name === 'string'
      ? replaced.display_name
      : null;
  const item = {
    publisher_id: publisherId,
    display_name: request.display_name,
    previous_display_name: previous,
    updated_at: updatedAt,
    change_id: changeId,
    changed_by: actor,
  };
  const previousDigest = previous === null ? undefined : skeletonDigest(previous);
  await Promise.all([
    ours ? undefined : recordChangeOf(publisherId, replaced),
    recordChangeOf(publisherId, item),
    // Not in the directory yet: the dispatcher copies the name when it is.
    setName(publisherId, request.display_name, updatedAt),
    previousDigest === undefined || previousDigest === digest
      ? undefined
      : releaseSkeleton(publisherId, previousDigest),
  ]);
  return { publisher_id: publisherId, display_name: request.display_name, updated_at: updatedAt };
};
