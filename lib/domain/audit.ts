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
import { AUDIT_EVENT_PREFIX, auditEventKey, auditPartition } from '../storage/keys';
import { cursorOf, sortKeyOf } from './cursors';
import { IntegrityError } from './errors';

/**
 * The audit trail: what each publisher's keys changed, newest first. Invariant, with single-item
 * writes only: the change first, its event after it, each event keyed by what happened, never by
 * when it was recorded; so no event claims a change that did not take effect, a retry records a
 * missing event once, and a change no retry can reach is undone when its event cannot be written
 * (`undoUnrecorded`). Item and rules: docs/data-model.md#the-audit-trail.
 */

/** What an event is about: the event without the parts every event has. */
type Subject<E = AuditEvent> = E extends AuditEvent ? Omit<E, 'event_id' | 'occurred_at' | 'actor'> : never;

/** The actor of what the operator's keys tool does (it holds no API key). */
export const OPERATOR: Actor = { type: 'key', key_id: null, name: 'operator' };

/**
 * The event id: a hash of the publisher, the type and the subject (a ban id, a key id, a policy
 * version, an erasure), so that recording the same change twice names the same item.
 */
export const eventIdOf = (publisherId: string, type: AuditEventType | FeedEventType, subjectId: string) =>
  `evt_${createHash('sha256').update(`${publisherId}\n${type}\n${subjectId}`).digest('base64url').slice(0, 24)}`;

/** The key of the event recording `type` of `subjectId` (for undoing one that may have landed). */
export const eventKeyOf = (
  publisherId: string,
  type: AuditEventType,
  subjectId: string,
  occurredAt: string,
) => auditEventKey(publisherId, occurredAt, eventIdOf(publisherId, type, subjectId));

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
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...auditEventKey(publisherId, occurredAt, eventId),
          type: subject.type,
          ...('device_id' in subject ? { device_id: subject.device_id } : {}),
          event,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    // Recorded before: by this request (its answer was lost and the SDK's retry found it) or by
    // an earlier attempt of the same change.
    if (!isConditionFailure(error)) throw error;
  }
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

const eventFromItem = (item: Record<string, unknown>): AuditEvent => {
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

/**
 * One page of the publisher's events, newest first, of one type and/or about one device if asked.
 * One Query per page of storage; with a filter that matches few events, the answer may stop
 * short of `limit` after reading READ_BUDGET events, with a cursor to go on from.
 */
export const listAuditEvents = async (publisherId: string, query: AuditQuery): Promise<AuditList> => {
  const filters: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {
    ':pk': auditPartition(publisherId),
    ':event': AUDIT_EVENT_PREFIX,
  };
  if (query.type) {
    filters.push('#type = :type');
    names['#type'] = 'type';
    values[':type'] = query.type;
  }
  if (query.device_id) {
    filters.push('device_id = :device');
    values[':device'] = query.device_id;
  }
  if (query.actor) {
    // A key by its id, a person by their subject; either way only this publisher's events.
    filters.push('(#event.#actor.key_id = :actor OR #event.#actor.#sub = :actor)');
    Object.assign(names, { '#event': 'event', '#actor': 'actor', '#sub': 'sub' });
    values[':actor'] = query.actor;
  }
  const input: QueryCommandInput = {
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :event)',
    ExpressionAttributeValues: values,
    ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ScanIndexForward: false,
    ConsistentRead: true,
  };
  const pk = auditPartition(publisherId);
  const reader = `audit ${pk}`;
  const start =
    query.cursor === undefined
      ? undefined
      : {
          pk,
          sk: sortKeyOf(
            reader,
            query.cursor,
            (sk) => sk.startsWith(AUDIT_EVENT_PREFIX) && CURSOR.test(sk.slice(AUDIT_EVENT_PREFIX.length)),
          ),
        };
  const page = await filteredPage(input, query.limit, start, eventFromItem);
  return {
    items: page.items,
    next_cursor: page.resumeAfter === null ? null : cursorOf(reader, page.resumeAfter),
  };
};
