import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, paginateScan, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { defaultPolicyFlags, type PolicyFlag, policyFlags } from '@kernel/policy-flags';
import {
  defaultPolicyTrust,
  isGlobalSources,
  isQuorum,
  type PolicyTrust,
  type TrustField,
  trustFields,
} from '@kernel/policy-trust';
import * as clock from '../clock';
import { actorFromStored } from '../model/actors';
import type { PolicyPatch } from '../model/requests';
import type { Actor, Policy } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import { partitions, policyKey } from '../storage/keys';
import { recordEvent } from './audit';
import { IntegrityError } from './errors';

/**
 * The per-publisher policy: one item, `PUBLISHER#<publisher_id>` / `POLICY`, written with its
 * defaults when the publisher's first API key is made, and changed setting by setting afterwards
 * (the eight flags, and the four trust settings of kernel/policy-trust.ts), each change recorded
 * in the audit trail as `policy.updated`. An item from before trust settings reads as their defaults.
 */

export { defaultPolicyFlags } from '@kernel/policy-flags';

/** The eight flags an item holds (under `prefix`), or undefined unless every one is a boolean. */
const flagsOf = (item: Record<string, unknown>, prefix = ''): Record<PolicyFlag, boolean> | undefined => {
  const flags = {} as Record<PolicyFlag, boolean>;
  for (const flag of policyFlags) {
    const value = item[`${prefix}${flag}`];
    if (typeof value !== 'boolean') return undefined;
    flags[flag] = value;
  }
  return flags;
};

/**
 * The four trust settings an item holds (under `prefix`), each its default when absent (an item
 * written before trust settings, or an update's `before_` copy from before them). A value that is
 * there but malformed is damaged data: fail closed.
 */
const trustOf = (item: Record<string, unknown>, prefix = ''): PolicyTrust => {
  const trust = { ...defaultPolicyTrust } as Record<TrustField, unknown>;
  for (const field of trustFields) {
    const value = item[`${prefix}${field}`];
    if (value === undefined) continue;
    const valid = field.endsWith('_sources') ? isGlobalSources(value) : isQuorum(value);
    if (!valid) throw new IntegrityError(`policy item has a malformed ${prefix}${field}`);
    trust[field] = value;
  }
  return trust as unknown as PolicyTrust;
};

/** A policy as an event stored before trust settings carries it: with their defaults. */
export const withTrustDefaults = <P extends object>(policy: P): P & PolicyTrust => ({
  ...defaultPolicyTrust,
  ...policy,
});

/** The policy item read back, checked: every flag a boolean, the trust settings, the id and time strings. */
export const policyFromItem = (item: Record<string, unknown> | undefined): Policy => {
  const flags = flagsOf(item ?? {});
  if (!flags) {
    const missing = policyFlags.find((flag) => typeof item?.[flag] !== 'boolean');
    throw new IntegrityError(`policy item has no boolean ${missing}`);
  }
  const { publisher_id, updated_at } = item ?? {};
  if (typeof publisher_id !== 'string' || typeof updated_at !== 'string') {
    throw new IntegrityError('policy item has no publisher_id or updated_at');
  }
  return { publisher_id, ...flags, ...trustOf(item ?? {}), updated_at };
};

const policyToItem = (policy: Omit<Policy, TrustField>) => ({ ...policyKey(policy.publisher_id), ...policy });

// Every key is written together with its publisher's policy, so a publisher that passed the
// authorizer without one means the data was damaged: fail closed rather than invent flags.
const missingPolicy = (publisherId: string) =>
  new IntegrityError(`policy item missing for publisher ${publisherId}`);

export const getPolicy = async (publisherId: string): Promise<Policy> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: policyKey(publisherId), ConsistentRead: true }),
  );
  if (!Item) throw missingPolicy(publisherId);
  return policyFromItem(Item);
};

/**
 * Records the `policy.updated` event of the change an item (as it was before this update) last
 * recorded on itself, if it records one: every update keeps its version, actor and the flags
 * before it on the item, so the next update can record that change's event if its own request
 * could not (a conditional put: normally it finds the event there).
 */
const recordLastChange = async (publisherId: string, old: Record<string, unknown>): Promise<void> => {
  const beforeFlags = flagsOf(old, 'before_');
  const afterFlags = flagsOf(old);
  const { version, changed_by, updated_at } = old;
  const actor = actorFromStored(changed_by);
  if (!beforeFlags || !afterFlags || typeof version !== 'number' || typeof updated_at !== 'string') return;
  if (!actor) return;
  await recordEvent(publisherId, String(version), updated_at, actor, {
    type: 'policy.updated',
    before: { ...beforeFlags, ...trustOf(old, 'before_') },
    after: { ...afterFlags, ...trustOf(old) },
  });
};

/**
 * Changes only the flags given, in one conditional UpdateItem, so concurrent partial updates all
 * land, then records `policy.updated` with the flags before and after. The update returns the
 * item as it was (each update sees exactly the state it changed, however many race), and writes
 * onto the item its version, actor and the flags before it: so the event of a change whose
 * request failed after the update is recorded by the next update, and never twice.
 */
export const updatePolicy = async (
  publisherId: string,
  patch: PolicyPatch,
  actor: Actor,
): Promise<Policy> => {
  const now = new Date(clock.now()).toISOString();
  // This request's mark on the item: when the SDK sends the update again because the answer of an
  // attempt that landed was lost, the condition finds the mark and the change is not made twice.
  const request = randomUUID();
  const names: Record<string, string> = {
    '#updated_at': 'updated_at',
    '#version': 'version',
    '#changed_by': 'changed_by',
    '#request': 'request',
  };
  const values: Record<string, unknown> = {
    ':now': now,
    ':zero': 0,
    ':one': 1,
    ':actor': actor,
    ':request': request,
  };
  const patched: Partial<Record<PolicyFlag, boolean> & PolicyTrust> = {};
  const sets = [
    '#updated_at = :now',
    '#version = if_not_exists(#version, :zero) + :one',
    '#changed_by = :actor',
    '#request = :request',
  ];
  for (const flag of policyFlags) {
    names[`#${flag}`] = flag;
    names[`#before_${flag}`] = `before_${flag}`;
    // Operands read the item as it was before this update, so this keeps the old value.
    sets.push(`#before_${flag} = #${flag}`);
    const value = patch[flag];
    if (value === undefined) continue;
    values[`:${flag}`] = value;
    sets.push(`#${flag} = :${flag}`);
    patched[flag] = value;
  }
  for (const field of trustFields) {
    names[`#${field}`] = field;
    names[`#before_${field}`] = `before_${field}`;
    // An item from before trust settings has none: its value was the default.
    values[`:default_${field}`] = defaultPolicyTrust[field];
    sets.push(`#before_${field} = if_not_exists(#${field}, :default_${field})`);
    const value = patch[field];
    if (value === undefined) continue;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
    (patched as Record<TrustField, unknown>)[field] = value;
  }
  let old: Record<string, unknown>;
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: policyKey(publisherId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(#request) OR #request <> :request)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_OLD',
      }),
    );
    old = Attributes ?? {};
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return landedBefore(publisherId, request, actor);
  }
  const { publisher_id, updated_at: _before, ...before } = policyFromItem(old);
  const after = { ...before, ...patched };
  const version = (typeof old.version === 'number' ? old.version : 0) + 1;
  await Promise.all([
    recordLastChange(publisherId, old),
    recordEvent(publisherId, String(version), now, actor, { type: 'policy.updated', before, after }),
  ]);
  return { publisher_id, ...after, updated_at: now };
};

/**
 * The answer of an update whose condition failed: no policy (404), or this very request's update,
 * which an earlier attempt made (its answer lost, the SDK sent it again). If the item still holds
 * its mark, nothing came after it: its event is recorded from the flags before and after it that
 * the item keeps. If another update came after, that update recorded this one's event (from the
 * item as it found it) and the answer is the policy as it now stands.
 */
const landedBefore = async (publisherId: string, request: string, actor: Actor): Promise<Policy> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: policyKey(publisherId), ConsistentRead: true }),
  );
  if (!Item) throw missingPolicy(publisherId);
  const current = policyFromItem(Item);
  const beforeFlags = flagsOf(Item, 'before_');
  if (Item.request !== request || !beforeFlags || typeof Item.version !== 'number') return current;
  const { publisher_id, updated_at, ...after } = current;
  await recordEvent(publisherId, String(Item.version), updated_at, actor, {
    type: 'policy.updated',
    before: { ...beforeFlags, ...trustOf(Item, 'before_') },
    after,
  });
  return current;
};

/**
 * Writes the default policy unless the publisher already has one. Returns whether it wrote. The
 * trust settings are left out: absent, they read as their defaults (as on items from before them).
 */
export const provisionPolicy = async (publisherId: string, now = new Date(clock.now())): Promise<boolean> => {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: policyToItem({
          publisher_id: publisherId,
          ...defaultPolicyFlags,
          updated_at: now.toISOString(),
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/**
 * Every publisher, by its policy item (written before its first key): for operators only (the keys
 * tool's `quota --all`), since it scans the whole table.
 */
export const listPublishers = async (): Promise<string[]> => {
  const publishers: string[] = [];
  const pages = paginateScan(
    { client: dynamo },
    {
      TableName: tableName(),
      FilterExpression: 'begins_with(pk, :publisher) AND sk = :policy',
      ExpressionAttributeValues: { ':publisher': partitions.publisher, ':policy': policyKey('').sk },
      ProjectionExpression: 'publisher_id',
      ConsistentRead: true,
    },
  );
  for await (const page of pages)
    for (const item of page.Items ?? []) publishers.push(String(item.publisher_id));
  return publishers.sort();
};
