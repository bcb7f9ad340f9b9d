import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { defaultPolicyFlags, getPolicy, provisionPolicy, updatePolicy } from '../../lib/domain/policy';
import { policyKey } from '../../lib/storage/keys';

const ddb = mockClient(DynamoDBDocumentClient);
const conditionFailed = () =>
  Object.assign(new Error('conditional'), { name: 'ConditionalCheckFailedException' });

beforeEach(() => ddb.reset());

describe('policy', () => {
  it('reads the policy item with a consistent read', async () => {
    ddb.on(GetCommand).resolves({ Item: { publisher_id: 'p', ...defaultPolicyFlags, updated_at: 't' } });
    await expect(getPolicy('p')).resolves.toEqual({
      publisher_id: 'p',
      ...defaultPolicyFlags,
      updated_at: 't',
    });
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toMatchObject({
      Key: policyKey('p'),
      ConsistentRead: true,
    });
  });

  it('sets only the flags sent, plus updated_at, in one conditional UpdateItem', async () => {
    ddb.on(UpdateCommand).resolves({
      Attributes: { publisher_id: 'p', ...defaultPolicyFlags, enforce_global: false, updated_at: 't2' },
    });
    const policy = await updatePolicy('p', { enforce_global: false, rep_include_game: true });

    expect(policy.enforce_global).toBe(false);
    expect(ddb.calls()).toHaveLength(1);
    const input = ddb.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(input?.UpdateExpression).toBe(
      'SET #updated_at = :now, #enforce_global = :enforce_global, #rep_include_game = :rep_include_game',
    );
    expect(input?.ConditionExpression).toBe('attribute_exists(pk)');
    expect(input?.ReturnValues).toBe('ALL_NEW');
    expect(input?.ExpressionAttributeValues).toMatchObject({
      ':enforce_global': false,
      ':rep_include_game': true,
    });
  });

  it('changes only updated_at for an empty patch', async () => {
    ddb
      .on(UpdateCommand)
      .resolves({ Attributes: { publisher_id: 'p', ...defaultPolicyFlags, updated_at: 't3' } });
    await updatePolicy('p', {});
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input.UpdateExpression).toBe('SET #updated_at = :now');
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
