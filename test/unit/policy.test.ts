import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { defaultPolicyTrust } from '@kernel/policy-trust';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { defaultPolicyFlags, getPolicy, provisionPolicy, updatePolicy } from '../../lib/domain/policy';
import { policyKey } from '../../lib/storage/keys';

/** An item without trust settings (from before them) reads and records them as their defaults. */
const settings = { ...defaultPolicyFlags, ...defaultPolicyTrust };

const ddb = mockClient(DynamoDBDocumentClient);
const conditionFailed = () =>
  Object.assign(new Error('conditional'), { name: 'ConditionalCheckFailedException' });

const actor = { type: 'key' as const, key_id: 'key_abcdefghijkl', name: 'ops' };

beforeEach(() => ddb.reset());

describe('policy', () => {
  it('reads the policy item with a consistent read', async () => {
    ddb.on(GetCommand).resolves({ Item: { publisher_id: 'p', ...defaultPolicyFlags, updated_at: 't' } });
    await expect(getPolicy('p')).resolves.toEqual({
      publisher_id: 'p',
      ...settings,
      updated_at: 't',
    });
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toMatchObject({
      Key: policyKey('p'),
      ConsistentRead: true,
    });
  });

  it('sets the flags sent, then records the change with the flags before and after', async () => {
    ddb.on(UpdateCommand).resolves({
      Attributes: { publisher_id: 'p', ...defaultPolicyFlags, updated_at: 't1' },
    });
    ddb.on(PutCommand).resolves({});
    const policy = await updatePolicy('p', { enforce_global: false, rep_include_game: true }, actor);

    expect(policy).toMatchObject({ enforce_global: false, rep_include_game: true });
    const input = ddb.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(input?.UpdateExpression).toContain('#enforce_global = :enforce_global');
    expect(input?.UpdateExpression).toContain('#before_enforce_global = #enforce_global');
    expect(input?.UpdateExpression).toContain('#version = if_not_exists(#version, :zero) + :one');
    expect(input?.UpdateExpression).not.toContain('#enforce_game = :enforce_game');
    // The policy must exist, and this request's own update must not be in it already.
    expect(input?.ConditionExpression).toBe(
      'attribute_exists(pk) AND (attribute_not_exists(#request) OR #request <> :request)',
    );
    expect(input?.UpdateExpression).toContain('#request = :request');
    expect(input?.ReturnValues).toBe('ALL_OLD');
    // The item before had no recorded change (it predates the audit): one event, for this one,
    // and its copy under the actor.
    const puts = ddb.commandCalls(PutCommand).map((c) => c.args[0].input);
    const events = puts.filter((put) => String(put.Item?.sk).startsWith('EVENT#'));
    expect(events).toHaveLength(1);
    expect(puts.map((put) => String(put.Item?.sk).split('#')[0])).toEqual(['EVENT', 'BY']);
    expect(events[0]?.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(events[0]?.Item?.event).toMatchObject({
      type: 'policy.updated',
      actor,
      before: defaultPolicyFlags,
      after: { ...defaultPolicyFlags, enforce_global: false, rep_include_game: true },
    });
  });

  it("records the previous change's event too, when the item says one was made (a retry finds it there)", async () => {
    const previous = { type: 'key' as const, key_id: 'key_previousone', name: 'other' };
    ddb.on(UpdateCommand).resolves({
      Attributes: {
        publisher_id: 'p',
        ...defaultPolicyFlags,
        enforce_global: false,
        ...Object.fromEntries(Object.entries(defaultPolicyFlags).map(([f, v]) => [`before_${f}`, v])),
        version: 4,
        changed_by: previous,
        updated_at: '2026-01-01T00:00:00.000Z',
      },
    });
    ddb.on(PutCommand).resolves({});
    await updatePolicy('p', { enforce_global: true }, actor);

    const events = ddb
      .commandCalls(PutCommand)
      .map((c) => c.args[0].input.Item)
      .filter((item) => String(item?.sk).startsWith('EVENT#'))
      .map((item) => item?.event);
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          actor: previous,
          occurred_at: '2026-01-01T00:00:00.000Z',
          before: settings,
          after: { ...settings, enforce_global: false },
        }),
        expect.objectContaining({
          actor,
          before: { ...settings, enforce_global: false },
          after: settings,
        }),
      ]),
    );
    expect(events).toHaveLength(2);
  });

  it('writes the defaults only when the publisher has no policy yet', async () => {
    ddb.on(PutCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    await expect(provisionPolicy('p')).resolves.toBe(true);
    await expect(provisionPolicy('p')).resolves.toBe(false);
    const put = ddb.commandCalls(PutCommand)[0]?.args[0].input;
    expect(put?.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put?.Item).toMatchObject({
      ...policyKey('p'),
      ...defaultPolicyFlags,
      enforce_social_global: false,
    });
  });
});
