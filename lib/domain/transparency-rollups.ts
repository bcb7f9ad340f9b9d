import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ReportModerator, roundDecisionSeconds } from '@kernel/transparency';
import * as clock from '../clock';
import { mapWithConcurrency } from '../concurrency';
import { whichExist } from '../storage/batches';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import { reportDayKey, reportMarkerKey } from '../storage/keys';
import { TIME_TO_LIVE_ATTRIBUTE } from '../storage/table';
import { statementOfBan } from './bans';
import type { ChangeEvent } from './change-events';

/**
 * The transparency report's rollups (DSA Art. 15 and 24; the report: lib/domain/transparency.ts),
 * kept by the dispatcher (lib/domain/dispatch.ts) from the change events, never by the requests
 * that make bans and appeals: a create, revoke, filing or decision costs what it did. One item per
 * publisher (the ban's owner) and UTC day of the event, holding counters added to with ADD.
 * Invariant: each event is counted exactly once however often its record is handed on again, in
 * any order, without transactions: its mark (`m_<event_id>`) and its counts are one conditional
 * UpdateItem of its day's item, as the directory of publishers does (lib/domain/publishers.ts);
 * and a mark that left the item for a marker item is never missed, however a count races its
 * move (`moves`, below). Items and reasons: docs/data-model.md#the-transparency-report.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
/** How long a counted event is marked on its day's item before its own marker item takes over: short, so a busy day's item holds few marks. */
export const REPORT_MARK_MS = 5 * MINUTE;
/** The item's marks are moved off once the oldest is this old. */
export const REPORT_MARK_MOVE_AFTER_MS = 10 * MINUTE;
/** How long a marker item is kept (its `ttl`): longer than a change record can be handed on again (24 h). */
export const REPORT_MARKER_ITEM_MS = 3 * 86_400_000;
/** Events counted in one UpdateItem: its expression stays far inside DynamoDB's 4 KB. */
const EVENTS_PER_UPDATE = 25;
/** Attributes removed in one UpdateItem. */
const REMOVES_PER_UPDATE = 100;

export const MARK_PREFIX = 'm_';
/**
 * How many times marks left the day's item (absent: never). A count reads it before it checks the
 * marker items, and its update requires it unchanged: a move (marker items put, then the marks
 * removed and this added to in one update) between the two fails the update, which is then tried
 * again and finds the marker items.
 */
export const MOVES_ATTRIBUTE = 'moves';
/** Rounds of a day's count before it gives up (the batch is handed on again): marks move every few minutes at most. */
const COUNT_ROUNDS = 5;
/** Decisions by their time to decision, rounded (roundDecisionSeconds): `t_<seconds>`. */
export const DECISION_TIME_PREFIX = 't_';

/** The counter of restrictions by one value of one dimension: `type_cheat`, `category_violence`, `automated_detection_true`. */
export const restrictionAttribute = (dimension: string, value: string) => `${dimension}_${value}`;

/** Restrictions by the ban's reason code: `reason_<reason_code>`. */
export const REASON_PREFIX = 'reason_';
export const reasonAttribute = (reasonCode: string) => `${REASON_PREFIX}${reasonCode}`;

/** Decisions by who made them and their outcome: `decider_<type>:<id>_<outcome>`, e.g. `decider_key:k_1_upheld`. */
export const DECIDER_PREFIX = 'decider_';
export const deciderAttribute = (moderator: ReportModerator, outcome: string) =>
  `${DECIDER_PREFIX}${moderator.type}:${moderator.id}_${outcome}`;

/**
 * Who decided each `appeal.decided` event's appeal, by event id. The event does not say (its shape
 * is the feed's and webhooks'); the change record it came from does: the appeal item's decision.
 */
export type DecidersByEventId = ReadonlyMap<string, ReportModerator>;

/** What one event adds to its day's item. */
export interface ReportContribution {
  event_id: string;
  publisher_id: string;
  /** The UTC day it is counted on: when the ban was made or revoked, the appeal filed or decided. */
  day: string;
  adds: Map<string, number>;
}

const dayOf = (at: string) => new Date(Date.parse(at)).toISOString().slice(0, 10);

export const reportContributionOf = (
  event: ChangeEvent,
  deciders: DecidersByEventId = new Map(),
): ReportContribution | undefined => {
  const adds = new Map<string, number>();
  let at: string | null = null;
  switch (event.type) {
    case 'ban.created': {
      const { ban } = event;
      at = ban.created_at;
      adds.set('restrictions', 1);
      adds.set(restrictionAttribute('type', ban.ban_type), 1);
      adds.set(restrictionAttribute('scope', ban.scope), 1);
      adds.set(reasonAttribute(ban.reason_code), 1);
      const statement = statementOfBan(ban);
      if (statement) {
        adds.set(restrictionAttribute('ground', statement.ground), 1);
        adds.set(restrictionAttribute('category', statement.category), 1);
        adds.set(restrictionAttribute('automated_detection', String(statement.automated_detection)), 1);
        adds.set(restrictionAttribute('automated_decision', statement.automated_decision), 1);
      }
      break;
    }
    case 'ban.revoked':
      at = event.ban.revoked_at;
      adds.set('revocations', 1);
      break;
    case 'appeal.created':
      at = event.appeal.created_at;
      adds.set('appeals_received', 1);
      break;
    case 'appeal.decided': {
      const { appeal } = event;
      if (appeal.outcome === null || appeal.decided_at === null) return undefined;
      at = appeal.decided_at;
      adds.set('appeals_decided', 1);
      adds.set(`appeals_${appeal.outcome}`, 1);
      // A decision whose decider is not known (the operator's keys tool has no key id) is counted under no moderator.
      const decider = deciders.get(event.event_id);
      if (decider) adds.set(deciderAttribute(decider, appeal.outcome), 1);
      const seconds = (Date.parse(appeal.decided_at) - Date.parse(appeal.created_at)) / SECOND;
      adds.set(`${DECISION_TIME_PREFIX}${roundDecisionSeconds(seconds)}`, 1);
      break;
    }
    default:
      // An erasure is a privacy deletion: the ban stays counted as made. Updates and policies count for nothing.
      return undefined;
  }
  if (at === null) return undefined;
  return { event_id: event.event_id, publisher_id: event.publisher_id, day: dayOf(at), adds };
};

type Item = Record<string, unknown>;
const numberOf = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** Whether each event's own marker item says it was counted (minutes ago or more). */
const countedLongAgo = (eventIds: readonly string[]) => whichExist(eventIds.map(reportMarkerKey));

/** The day item's moves (MOVES_ATTRIBUTE; 0 without an item or a move). One consistent GetItem. */
const movesOf = async (publisherId: string, day: string): Promise<number> => {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName(),
      Key: reportDayKey(publisherId, day),
      ProjectionExpression: '#moves',
      ExpressionAttributeNames: { '#moves': MOVES_ATTRIBUTE },
      ConsistentRead: true,
    }),
  );
  return numberOf(Item?.[MOVES_ATTRIBUTE]);
};

/**
 * Counts these events (one publisher's, one day's) in one UpdateItem, on condition that none is
 * marked yet and no mark moved off the item since `moves` was read. Returns the item after it, or
 * false when the condition failed.
 */
const countTogether = async (
  publisherId: string,
  day: string,
  batch: readonly ReportContribution[],
  moves: number,
  now: number,
): Promise<Item | false> => {
  const names: Record<string, string> = { '#day': 'day', '#moves': MOVES_ATTRIBUTE };
  const values: Record<string, unknown> = {
    ':now': now,
    ':p': publisherId,
    ':d': day,
    ':at': new Date(now).toISOString(),
  };
  const set = ['publisher_id = :p', '#day = :d', 'updated_at = :at'];
  const conditions: string[] = [];
  if (moves === 0) conditions.push('attribute_not_exists(#moves)');
  else {
    conditions.push('#moves = :moves');
    values[':moves'] = moves;
  }
  const adds = new Map<string, number>();
  batch.forEach((contribution, i) => {
    names[`#m${i}`] = `${MARK_PREFIX}${contribution.event_id}`;
    set.push(`#m${i} = :now`);
    conditions.push(`attribute_not_exists(#m${i})`);
    for (const [attribute, amount] of contribution.adds)
      adds.set(attribute, (adds.get(attribute) ?? 0) + amount);
  });
  const add = [...adds].map(([attribute, amount], n) => {
    names[`#a${n}`] = attribute;
    values[`:a${n}`] = amount;
    return `#a${n} :a${n}`;
  });
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: reportDayKey(publisherId, day),
        UpdateExpression: `SET ${set.join(', ')}${add.length > 0 ? ` ADD ${add.join(', ')}` : ''}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ?? {};
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/**
 * Keeps the item small, every step safe to repeat or to race: once its oldest mark is ten minutes
 * old, the marks older than five are put as marker items of their own, then removed from it, each
 * removal adding to its `moves`.
 */
const moveMarks = async (publisherId: string, day: string, item: Item, now: number): Promise<void> => {
  const marks = Object.entries(item).filter(([name]) => name.startsWith(MARK_PREFIX));
  if (marks.length === 0) return;
  const oldest = Math.min(...marks.map(([, at]) => numberOf(at)));
  if (oldest > now - REPORT_MARK_MOVE_AFTER_MS) return;
  const stale = marks.filter(([, at]) => numberOf(at) <= now - REPORT_MARK_MS);
  await mapWithConcurrency(stale, 10, ([name, at]) =>
    dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...reportMarkerKey(name.slice(MARK_PREFIX.length)),
          publisher_id: publisherId,
          day,
          counted_at: new Date(numberOf(at)).toISOString(),
          [TIME_TO_LIVE_ATTRIBUTE]: Math.ceil((numberOf(at) + REPORT_MARKER_ITEM_MS) / SECOND),
        },
      }),
    ),
  );
  for (let i = 0; i < stale.length; i += REMOVES_PER_UPDATE) {
    const names: Record<string, string> = {};
    const removed = stale.slice(i, i + REMOVES_PER_UPDATE).map(([name], n) => {
      names[`#x${n}`] = name;
      return `#x${n}`;
    });
    names['#moves'] = MOVES_ATTRIBUTE;
    try {
      await dynamo.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: reportDayKey(publisherId, day),
          UpdateExpression: `REMOVE ${removed.join(', ')} ADD #moves :one`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':one': 1 },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
};

/**
 * Counts one publisher's events of one day: together when none was counted yet, else one by one.
 * Each round reads the item's moves, then the events' marker items, then updates on condition of
 * both; an event whose update failed while the moves stayed was marked (counted) already, one whose
 * update failed because marks moved meanwhile is tried again in the next round.
 */
const countDay = async (publisherId: string, day: string, contributions: readonly ReportContribution[]) => {
  let pending = contributions;
  let latest: Item | undefined;
  for (let round = 1; pending.length > 0; round += 1) {
    if (round > COUNT_ROUNDS)
      throw new Error(
        `transparency rollup ${publisherId} ${day}: its marks kept moving, to be counted again`,
      );
    const moves = await movesOf(publisherId, day);
    const counted = await countedLongAgo(pending.map((c) => c.event_id));
    const fresh = pending.filter((_, i) => !counted[i]);
    const again: ReportContribution[] = [];
    for (let i = 0; i < fresh.length; i += EVENTS_PER_UPDATE) {
      const batch = fresh.slice(i, i + EVENTS_PER_UPDATE);
      const together = await countTogether(publisherId, day, batch, moves, clock.now());
      if (together) {
        latest = together;
        continue;
      }
      // Some were counted already (this batch handed on again), or marks moved: each on its own.
      for (const one of batch) {
        const alone = await countTogether(publisherId, day, [one], moves, clock.now());
        if (alone) latest = alone;
        else if ((await movesOf(publisherId, day)) !== moves) again.push(one);
      }
    }
    pending = again;
  }
  if (latest) await moveMarks(publisherId, day, latest, clock.now());
};

/**
 * The dispatcher's part: counts a batch's bans made and revoked and appeals filed and decided in
 * their owners' day items, each exactly once however often the batch is handed on; each decision
 * also under who made it (`deciders`, from the change records: decidersOfChange).
 */
export const countInReport = async (
  events: readonly ChangeEvent[],
  deciders: DecidersByEventId = new Map(),
): Promise<void> => {
  const byDay = new Map<string, ReportContribution[]>();
  for (const event of events) {
    const contribution = reportContributionOf(event, deciders);
    if (!contribution) continue;
    const key = `${contribution.publisher_id}\n${contribution.day}`;
    const list = byDay.get(key) ?? [];
    // A record twice in one batch is one event.
    if (list.some((c) => c.event_id === contribution.event_id)) continue;
    list.push(contribution);
    byDay.set(key, list);
  }
  await mapWithConcurrency([...byDay.values()], 4, (list) => {
    const [first] = list as [ReportContribution];
    return countDay(first.publisher_id, first.day, list);
  });
};
