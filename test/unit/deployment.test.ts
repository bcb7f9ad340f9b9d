import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler as listEvents } from '../../functions/list-events';
import { currentDeploymentId, deploymentIdOf, forgetDeploymentId } from '../../lib/domain/deployment';
import { clearFeedCaches } from '../../lib/domain/feed';
import { defaultPolicyFlags } from '../../lib/domain/policy';
import { tableName } from '../../lib/storage/client';
import { deploymentKey, policyKey } from '../../lib/storage/keys';
import { invoke, proxyEvent } from '../support/events';

/**
 * The deployment id (lib/domain/deployment.ts) against a mocked client: the one item created with
 * a conditional put by the first reader, a lost race reading the winner's, the id read once per
 * process, and a storage fault answered 503 through the usual mapping.
 */

const ddb = mockClient(DynamoDBDocumentClient);
const conditionFailed = () =>
  Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
const RANDOM = 'AAAAAAAAAAAAAAAAAAAAAA';
const WINNER = 'BBBBBBBBBBBBBBBBBBBBBB';
const deploymentGets = () =>
  ddb.commandCalls(GetCommand).filter((call) => call.args[0].input.Key?.pk === deploymentKey().pk);

beforeEach(() => {
  ddb.reset();
  forgetDeploymentId();
  clearFeedCaches();
});

describe('the deployment id', () => {
  it('is created once, with a conditional put of a random id, then answered from the process', async () => {
    ddb.on(GetCommand).resolves({});
    ddb.on(PutCommand).resolves({});
    const id = await currentDeploymentId();

    expect(deploymentGets().map((call) => call.args[0].input)).toEqual([
      { TableName: tableName(), Key: deploymentKey(), ConsistentRead: true },
    ]);
    const puts = ddb.commandCalls(PutCommand).map((call) => call.args[0].input);
    expect(puts).toEqual([
      {
        TableName: tableName(),
        Item: {
          ...deploymentKey(),
          random_id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
          created_at: expect.any(String),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    ]);
    expect(id).toBe(deploymentIdOf(puts[0]?.Item?.random_id, tableName()));
    expect(id).toMatch(/^dep_[A-Za-z0-9_-]{22}$/);

    expect(await currentDeploymentId()).toBe(id);
    expect(await Promise.all([currentDeploymentId(), currentDeploymentId()])).toEqual([id, id]);
    expect(ddb.calls()).toHaveLength(2);
  });

  it('reads a stored id without writing', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...deploymentKey(), random_id: RANDOM } });
    expect(await currentDeploymentId()).toBe(deploymentIdOf(RANDOM, tableName()));
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    expect(ddb.calls()).toHaveLength(1);
  });

  it("reads the winner's id when another reader created the item first", async () => {
    ddb
      .on(GetCommand)
      .resolvesOnce({})
      .resolves({ Item: { ...deploymentKey(), random_id: WINNER } });
    ddb.on(PutCommand).rejects(conditionFailed());
    expect(await currentDeploymentId()).toBe(deploymentIdOf(WINNER, tableName()));
    expect(deploymentGets()).toHaveLength(2);
    expect(deploymentGets()[1]?.args[0].input.ConsistentRead).toBe(true);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(1);
  });

  it('answers another id for the same random id in a table of another name (a restored backup)', () => {
    expect(deploymentIdOf(RANDOM, 'bans-prod')).not.toBe(deploymentIdOf(RANDOM, 'bans-prod-restored'));
    expect(deploymentIdOf(RANDOM, 'bans-prod')).not.toBe(deploymentIdOf(WINNER, 'bans-prod'));
    expect(deploymentIdOf(RANDOM, 'bans-prod')).toBe(deploymentIdOf(RANDOM, 'bans-prod'));
  });

  it('fails closed on an item this code did not write', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...deploymentKey(), random_id: 42 } });
    await expect(currentDeploymentId()).rejects.toThrow('stored deployment item is malformed');
  });

  it('answers the feed 503 on a storage fault, keeps nothing of it, and reads again on the next poll', async () => {
    const policy = {
      ...policyKey('pub-a'),
      publisher_id: 'pub-a',
      ...defaultPolicyFlags,
      updated_at: '2026-11-01T00:00:00.000Z',
    };
    ddb.on(QueryCommand).resolves({ Items: [] });
    ddb.on(GetCommand, { Key: policyKey('pub-a') }).resolves({ Item: policy });
    ddb
      .on(GetCommand, { Key: deploymentKey() })
      .rejectsOnce(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }))
      .resolves({ Item: { ...deploymentKey(), random_id: RANDOM } });
    const poll = () =>
      invoke(listEvents, proxyEvent({ resource: '/v1/events', headers: { 'X-Game-Id': 'g1' } }));

    const failed = await poll();
    expect(failed.statusCode).toBe(503);
    expect(failed.json.error.code).toBe('service_unavailable');
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);

    const answered = await poll();
    expect(answered.statusCode).toBe(200);
    expect(answered.json.deployment_id).toBe(deploymentIdOf(RANDOM, tableName()));
    expect(deploymentGets()).toHaveLength(2);
  });
});
