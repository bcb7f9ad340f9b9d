import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as clock from '../clock';
import { actorFromStored } from '../model/actors';
import type { Actor } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { type AuditSubject, recordEvent } from './audit';

/**
 * A publisher's setting kept as one item and replaced whole by each change (the reason catalogue,
 * the device id formats), each change recorded in the audit trail once. The change is one PutItem
 * returning the item it replaced; then its event is recorded, and beside it the replaced item's
 * (whose request may have failed after its put): so a change whose event was lost to a fault gets
 * it from the next change, and never twice. Each change has its own id (not a version count, which
 * a put cannot take from the item it replaces), so two racing replacements record two events.
 */

/** The event an item records of itself, or undefined when it is damaged (nothing true to record). */
export type EventOfItem = (item: Record<string, unknown>) => AuditSubject | undefined;

const recordChangeOf = async (
  publisherId: string,
  item: Record<string, unknown> | undefined,
  eventOf: EventOfItem,
) => {
  if (!item) return;
  const { change_id, updated_at, changed_by } = item;
  const actor = actorFromStored(changed_by);
  if (typeof change_id !== 'string' || typeof updated_at !== 'string' || !actor) return;
  const event = eventOf(item);
  if (event) await recordEvent(publisherId, change_id, updated_at, actor, event);
};

/** Replaces the item at `key` with `fields` (and its change id, actor and time); returns the time. */
export const replaceSetting = async (
  publisherId: string,
  key: { pk: string; sk: string },
  fields: Record<string, unknown>,
  actor: Actor,
  eventOf: EventOfItem,
): Promise<string> => {
  const updatedAt = new Date(clock.now()).toISOString();
  const item = {
    ...key,
    publisher_id: publisherId,
    ...fields,
    updated_at: updatedAt,
    change_id: randomUUID(),
    changed_by: actor,
  };
  const { Attributes: replaced } = await dynamo.send(
    new PutCommand({ TableName: tableName(), Item: item, ReturnValues: 'ALL_OLD' }),
  );
  await Promise.all([
    // The SDK's retry of a put whose answer was lost returns our own item: recorded once all the same.
    replaced?.change_id === item.change_id ? undefined : recordChangeOf(publisherId, replaced, eventOf),
    recordChangeOf(publisherId, item, eventOf),
  ]);
  return updatedAt;
};
