import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { defaultPolicyFlags, type PolicyFlag, policyFlags } from '../model/policy-flags';
import type { PolicyPatch } from '../model/requests';
import type { Policy } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import { policyKey } from '../storage/keys';
import { IntegrityError } from './errors';

/**
 * The per-publisher policy: one item, `PUBLISHER#<publisher_id>` / `POLICY`, written with its
 * defaults when the publisher's first API key is made, and changed flag by flag afterwards.
 */

export { defaultPolicyFlags } from '../model/policy-flags';

/** The policy item read back, checked: every flag a boolean, the id and time strings. */
const policyFromItem = (item: Record<string, unknown> | undefined): Policy => {
  const flags = {} as Record<PolicyFlag, boolean>;
  for (const flag of policyFlags) {
    const value = item?.[flag];
    if (typeof value !== 'boolean') throw new IntegrityError(`policy item has no boolean ${flag}`);
    flags[flag] = value;
  }
  const { publisher_id, updated_at } = item ?? {};
  if (typeof publisher_id !== 'string' || typeof updated_at !== 'string') {
    throw new IntegrityError('policy item has no publisher_id or updated_at');
  }
  return { publisher_id, ...flags, updated_at };
};

const policyToItem = (policy: Policy) => ({ ...policyKey(policy.publisher_id), ...policy });

// Every key is written together with its publisher's policy, so a publisher that passed the
// authorizer without one means the data was damaged: fail closed rather than invent flags.
const missingPolicy = (publisherId: string) =>
  new IntegrityError(`policy item missing for publisher ${publisherId}`);

export const getPolicy = async (publisherId: string): Promise<Policy> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: policyKey(publisherId), ConsistentRead: true }),
  );
  if (!Item) throw missingPolicy(publisherId);
  return policyFromItem(Item);
};

/** Changes only the flags given, in one conditional UpdateItem, so concurrent partial updates all land. */
export const updatePolicy = async (publisherId: string, patch: PolicyPatch): Promise<Policy> => {
  const names: Record<string, string> = { '#updated_at': 'updated_at' };
  const values: Record<string, unknown> = { ':now': new Date().toISOString() };
  const sets = ['#updated_at = :now'];
  for (const flag of policyFlags) {
    const value = patch[flag];
    if (value === undefined) continue;
    names[`#${flag}`] = flag;
    values[`:${flag}`] = value;
    sets.push(`#${flag} = :${flag}`);
  }
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: policyKey(publisherId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return policyFromItem(Attributes);
  } catch (error) {
    if (isConditionFailure(error)) throw missingPolicy(publisherId);
    throw error;
  }
};

/** Writes the default policy unless the publisher already has one. Returns whether it wrote. */
export const provisionPolicy = async (publisherId: string, now = new Date()): Promise<boolean> => {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
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
