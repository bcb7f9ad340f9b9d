import { createHash } from 'node:crypto';
import { DeleteCommand, PutCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { defaultPolicyTrust } from '@kernel/policy-trust';
import { describeError, log } from '../log';
import { actorFromStored } from '../model/actors';
import { type AuditEventType, type AuditQuery, auditEventTypes, type FeedEventType } from '../model/requests';
import type { Actor, AuditEvent, AuditList } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import { filteredPage } from '../storage/filtered-pages';
import {
  AUDIT_EVENT_PREFIX,
  auditActorPrefix,
  auditDevicePrefix,
  auditEventKey,
  auditIndexKey,
  auditPartition,
} from '../storage/keys';
import { cursorOf, sortKeyOf } from './cursors';
import { IntegrityError, InvalidInputError } from './errors';

/**
 * The audit trail: what each publisher's keys changed, newest first. Invariant, with single-item
 * writes only: the change first, its event after it, each event keyed by what happened, never by
 * when it was recorded; so no event claims a change that did not take effect, a retry records a
 * missing event once, and a change no retry can reach is undone when its event cannot be written
 * (`undoUnrecorded`). Item and rules: docs/data-model.md#the-audit-trail.
 */

/** What an event is about: the event without the parts every event has. */
type Subject<E = AuditEvent> = E extends AuditEvent ? Omit<E, 'event_id' | 'occurred_at' | 'actor'> : never;
export type AuditSubject = Subject;

/** The actor of what the operator's keys tool does (it holds no API key). */
export const OPERATOR: Actor = { type: 'key', key_id: null, name: 'operator' };

/**
 * The event id: a hash of the publisher, the type and the subject (a ban id, a key id, a policy
 * version, an erasure), so that recording the same change twice names the same item.
 */
export const eventIdOf = (publisherId: string, type: AuditEventType | FeedEventType, subjectId: string) =>
  `evt_${createHash('sha256').update(`${publisherId}\n${type}\n${subjectId}`).digest('base64url').slice(0, 24)}`;

/** Whom an event's actor names, for the `actor` filter: a key by its id, a person by their `sub`; the keys tool none. */
export const actorIdOf = (actor: Actor): string | null => (actor.type === 'user' ? actor.sub : actor.key_id);

/** The index copies of an event (docs/data-model.md#the-audit-trail): under its actor, and its device if it has one. */
const indexKeysOf = (
  publisherId: string,
  occurredAt: string,
  eventId: string,
  actor: Actor,
  deviceId: string | undefined,
) => {
  const actorId = actorIdOf(actor);
  return [
    ...(actorId === null ? [] : [auditIndexKey(publisherId, auditActorPrefix(actorId), occurredAt, eventId)]),
    ...(deviceId === undefined
      ? []
      : [auditIndexKey(publisherId, auditDevicePrefix(deviceId), occurredAt, eventId)]),
  ];
};

/**
 * The keys of the event recording `type` of `subjectId` and of its index copies, for undoing one
 * that may have landed: the event first, as the copies are written after it.
 */
export const eventKeysOf = (
  publisherId: string,
  type: AuditEventType,
  subjectId: string,
  occurredAt: string,
  actor: Actor,
  deviceId?: string,
) => {
  const eventId = eventIdOf(publisherId, type, subjectId);
  return [
    auditEventKey(publisherId, occurredAt, eventId),
    ...indexKeysOf(publisherId, occurredAt, eventId, actor, deviceId),
  ];
};

/**
 * Records that a change took effect, unless that very change is recorded already. Call it after
 * the change is stored, never before: an event must not outlive a change that failed.
 */
export const recordEvent = async (
  publisherId: string,
  subjectId: string,
  occurredAt: string,
  actor: Actor,
  subject: Subject,
  /** Whose change it is, if not the trail's publisher's (an appeal filed on another's ban): the id is the feed's. */
  changeOf: string = publisherId,
): Promise<void> => {
  const eventId = eventIdOf(changeOf, subject.type, subjectId);
  const event = { event_id: eventId, occurred_at: occurredAt, actor, ...subject };
  const deviceId = 'device_id' in subject ? subject.device_id : undefined;
  const actorId = actorIdOf(actor);
  const attributes = {
    type: subject.type,
    ...(deviceId === undefined ? {} : { device_id: deviceId }),
    ...(actorId === null ? {} : { actor_id: actorId }),
    event,
  };
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...auditEventKey(publisherId, occurredAt, eventId), ...attributes },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    // Recorded before: by this request (its answer was lost and the SDK's retry found it) or by
    // an earlier attempt of the same change; its copies are put again below, as they may not be.
    if (!isConditionFailure(error)) throw error;
  }
  // The copies after the event: an event can lack a copy only until its change's retry, or its
  // undo, which deletes the event first; a copy never names an event that was not recorded.
  for (const key of indexKeysOf(publisherId, occurredAt, eventId, actor, deviceId))
    await dynamo.send(new PutCommand({ TableName: tableName(), Item: { ...key, ...attributes } }));
};

/**
 * Undoes the writes of a change whose event could not be recorded and that no retry will reach,
 * so that the failed request leaves neither the change nor an event: items are deleted in the
 * order given (whatever made the change effective first). If the store refuses that too, the
 * change stays without its event: logged, for an operator, since nothing else will notice.
 */
export const undoUnrecorded = async (
  keys: readonly Record<string, string>[],
  what: string,
): Promise<void> => {
  try {
    for (const Key of keys) await dynamo.send(new DeleteCommand({ TableName: tableName(), Key }));
  } catch (error) {
    log('error', 'a change without its audit event could not be undone', { what, ...describeError(error) });
  }
};

/** An event's sort key past AUDIT_EVENT_PREFIX: where a cursor may resume. */
const CURSOR = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#evt_[A-Za-z0-9_-]{24}$/;

export const eventFromItem = (item: Record<string, unknown>): AuditEvent => {
  const event = item.event as Record<string, unknown> | undefined;
  if (
    typeof event?.event_id !== 'string' ||
    !(auditEventTypes as readonly unknown[]).includes(event.type) ||
    typeof event.occurred_at !== 'string'
  ) {
    throw new IntegrityError('stored audit event is malformed');
  }
  // Events recorded before people signed in name keys without a type.
  const actor = actorFromStored(event.actor);
  if (!actor) throw new IntegrityError('stored audit event names no actor');
  // Policy changes recorded before trust settings carry the flags only: those settings were their defaults.
  if (event.type === 'policy.updated')
    return {
      ...event,
      actor,
      before: { ...defaultPolicyTrust, ...(event.before as object) },
      after: { ...defaultPolicyTrust, ...(event.after as object) },
    } as AuditEvent;
  return { ...event, actor } as AuditEvent;
};

/** The filters that pick events, in the order a cursor's reader names them. */
const FILTERS = ['actor', 'device_id', 'type', 'from', 'to'] as const;

/**
 * The reader a trail's cursor is bound to: the publisher's trail and the filters asked for (the
 * unfiltered trail keeps the reader its cursors always had).
 */
export const auditReaderOf = (publisherId: string, query: Pick<AuditQuery, (typeof FILTERS)[number]>) => {
  const asked = FILTERS.filter((name) => query[name] !== undefined).map(
    (name) => `${name}=${encodeURIComponent(String(query[name]))}`,
  );
  return `audit ${auditPartition(publisherId)}${asked.length > 0 ? ` ${asked.join('&')}` : ''}`;
};

/**
 * One page of the publisher's events, newest first, narrowed by the filters asked for. Who made
 * them (`actor`) and the device they are about are Queries of the events' index copies, a time
 * range narrows the sort key of whichever is read; the type, and a device asked for with an actor,
 * are filters within the pages read: the answer may then stop short of `limit` after reading
 * READ_BUDGET events, with a cursor to go on from. A cursor is bound to the filters it was
 * returned with.
 */
export const listAuditEvents = async (publisherId: string, query: AuditQuery): Promise<AuditList> => {
  if (query.from !== undefined && query.to !== undefined && query.from >= query.to)
    throw new InvalidInputError('to', 'too_small', 'must be later than from');
  const prefix =
    query.actor !== undefined
      ? auditActorPrefix(query.actor)
      : query.device_id !== undefined
        ? auditDevicePrefix(query.device_id)
        : AUDIT_EVENT_PREFIX;
  const filters: string[] = [];
  const names: Record<string, string> = {};
  const pk = auditPartition(publisherId);
  // `~` sorts after every character of a time and an event id: the end of the prefix's range.
  const values: Record<string, unknown> = {
    ':pk': pk,
    ':low': `${prefix}${query.from ?? ''}`,
    ':high': `${prefix}${query.to ?? '~'}`,
  };
  if (query.type) {
    filters.push('#type = :type');
    names['#type'] = 'type';
    values[':type'] = query.type;
  }
  if (query.device_id !== undefined && query.actor !== undefined) {
    filters.push('device_id = :device');
    values[':device'] = query.device_id;
  }
  const input: QueryCommandInput = {
    TableName: tableName(),
    // BETWEEN is inclusive: an event at `to` sorts after `<prefix><to>` (its key goes on with `#evt_…`).
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
    ExpressionAttributeValues: values,
    ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ScanIndexForward: false,
    ConsistentRead: true,
  };
  const reader = auditReaderOf(publisherId, query);
  const start =
    query.cursor === undefined
      ? undefined
      : {
          pk,
          sk: sortKeyOf(
            reader,
            query.cursor,
            (sk) =>
              sk.startsWith(prefix) &&
              CURSOR.test(sk.slice(prefix.length)) &&
              sk >= String(values[':low']) &&
              sk <= String(values[':high']),
            'must be a next_cursor this API returned for the same filters',
          ),
        };
  const page = await filteredPage(input, query.limit, start, eventFromItem);
  return {
    items: page.items,
    next_cursor: page.resumeAfter === null ? null : cursorOf(reader, page.resumeAfter),
  };
};
