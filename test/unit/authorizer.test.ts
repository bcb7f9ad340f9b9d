import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler } from '../../functions/authorizer';
import { API_KEY_PATTERN, createApiKey, hashApiKey, KEY_USE_PRECISION_MS } from '../../lib/domain/api-keys';
import { publisherQuotaKey } from '../../lib/domain/quotas';
import { bearerToken, stageWildcard } from '../../lib/http/authorizer';
import { apiKeyKey, auditPartition, keyIdKey, policyKey, publisherPartition } from '../../lib/storage/keys';

const ddb = mockClient(DynamoDBDocumentClient);
const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/v1/policy';
const key = `bsk_${'A'.repeat(43)}`;

beforeEach(() => ddb.reset());

describe('authorizer', () => {
  it('allows every method of the stage for a known key, with the publisher in the context and its quota key', async () => {
    ddb.on(GetCommand).resolves({
      Item: { publisher_id: 'pub-a', key_id: 'key_1', name: 'ci', created_at: '2025-12-01T00:00:00.000Z' },
    });
    const result = await handler({ type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn });
    expect(result).toEqual({
      principalId: 'pub-a',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Action: 'execute-api:Invoke',
            Effect: 'Allow',
            Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/*',
          },
        ],
      },
      usageIdentifierKey: publisherQuotaKey('pub-a'),
      context: {
        publisherId: 'pub-a',
        keyId: 'key_1',
        keyName: 'ci',
        expiresAt: '',
        scopes: '*',
        games: '*',
      },
    });
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input.Key).toEqual(apiKeyKey(hashApiKey(key)));
  });

  it('notes a key use older than 5 minutes with one conditional update on its lookup item, and answers even when that write fails', async () => {
    const old = new Date(Date.now() - 6 * 60_000).toISOString();
    ddb.on(GetCommand).resolves({
      Item: {
        publisher_id: 'pub-a',
        key_id: 'key_3',
        name: 'ci',
        created_at: '2025-12-01T00:00:00.000Z',
        last_used_at: old,
      },
    });
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    const result = await handler({ type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn });
    expect(result.context?.keyId).toBe('key_3');
    const [update] = ddb.commandCalls(UpdateCommand);
    expect(update?.args[0].input).toMatchObject({
      Key: apiKeyKey(hashApiKey(key)),
      UpdateExpression: 'SET last_used_at = :now',
      ConditionExpression:
        'attribute_exists(pk) AND (attribute_not_exists(last_used_at) OR last_used_at <= :cutoff)',
    });
    const { ':now': now, ':cutoff': cutoff } = update?.args[0].input.ExpressionAttributeValues ?? {};
    expect(Date.parse(now) - Date.parse(cutoff)).toBe(KEY_USE_PRECISION_MS);
    expect(ddb.calls()).toHaveLength(2);
  });

  it("passes a scoped key's scopes and games in the context, in the same one read", async () => {
    ddb.on(GetCommand).resolves({
      Item: {
        publisher_id: 'pub-a',
        key_id: 'key_2',
        name: 'game server',
        scopes: ['bans:read', 'bans:write'],
        games: ['g1', 'g2'],
        created_at: '2025-12-01T00:00:00.000Z',
        expires_at: '2999-01-01T00:00:00.000Z',
        last4: 'AAAA',
        // Used a moment ago: no use to note.
        last_used_at: new Date(Date.now() - 1_000).toISOString(),
      },
    });
    const result = await handler({ type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn });
    expect(result.context).toEqual({
      publisherId: 'pub-a',
      keyId: 'key_2',
      keyName: 'game server',
      expiresAt: '2999-01-01T00:00:00.000Z',
      scopes: 'bans:read bans:write',
      games: 'g1 g2',
    });
    expect(ddb.calls()).toHaveLength(1);
  });

  it.each([
    ['an unknown key', {}],
    [
      'an expired key',
      {
        Item: {
          publisher_id: 'pub-a',
          key_id: 'key_1',
          name: 'ci',
          created_at: '2025-12-01T00:00:00.000Z',
          expires_at: '2026-01-01T00:00:00.000Z',
        },
      },
    ],

    [
      'a revoked key',
      {
        Item: {
          publisher_id: 'pub-a',
          key_id: 'key_1',
          name: 'ci',
          created_at: '2025-12-01T00:00:00.000Z',
          revoked_at: '2026-01-01T00:00:00.000Z',
        },
      },
    ],
  ])('refuses %s with Unauthorized', async (_, output) => {
    ddb.on(GetCommand).resolves(output);
    await expect(handler({ type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn })).rejects.toThrow(
      'Unauthorized',
    );
  });

  it.each([
    '',
    key,
    `Basic ${key}`,
    `Bearer  ${key}`,
    `Bearer ${key} x`,
    'Bearer bsk_short',
    `Bearer ${key}\n`,
  ])('refuses the header %j without a storage call', async (header) => {
    await expect(handler({ type: 'TOKEN', authorizationToken: header, methodArn })).rejects.toThrow(
      'Unauthorized',
    );
    expect(ddb.calls()).toHaveLength(0);
  });

  it('fails loudly, not as a refusal, on a key item naming a scope that does not exist', async () => {
    ddb.on(GetCommand).resolves({
      Item: {
        publisher_id: 'pub-a',
        key_id: 'key_1',
        name: 'ci',
        created_at: '2025-12-01T00:00:00.000Z',
        scopes: ['bans:everything'],
      },
    });
    await expect(handler({ type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn })).rejects.toThrow(
      'stored API key item is malformed',
    );
  });

  it("counts every key of a publisher under the publisher's one quota key, and no other publisher's", async () => {
    const item = (publisherId: string, keyId: string) => ({
      Item: { publisher_id: publisherId, key_id: keyId, name: 'k', created_at: '2025-12-01T00:00:00.000Z' },
    });
    const usageKeyOf = async (publisherId: string, keyId: string) => {
      ddb.reset();
      ddb.on(GetCommand).resolves(item(publisherId, keyId));
      return (await handler({ type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn }))
        .usageIdentifierKey;
    };
    const first = await usageKeyOf('pub-a', 'key_1');
    expect(await usageKeyOf('pub-a', 'key_2')).toBe(first);
    expect(await usageKeyOf('pub-b', 'key_3')).not.toBe(first);
    // An API Gateway API key value: 20-128 alphanumeric characters.
    expect(first).toMatch(/^[A-Za-z0-9]{20,128}$/);
  });

  it('takes the scheme case-insensitively', () => {
    expect(bearerToken(`bEaReR ${key}`)).toBe(key);
  });

  it('lets a storage failure propagate (the gateway answers it as an authorizer failure)', async () => {
    ddb.on(GetCommand).rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    await expect(
      handler({ type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn }),
    ).rejects.toMatchObject({ name: 'ThrottlingException' });
  });

  it('builds the stage wildcard from any method ARN', () => {
    expect(stageWildcard('arn:aws:execute-api:r:1:api/stage/POST/v1/device/x/bans/social')).toBe(
      'arn:aws:execute-api:r:1:api/stage/*',
    );
  });
});

describe('createApiKey', () => {
  it('stores only the hash, writes the policy first, takes a live-key slot, the lookup item after the others, then its event', async () => {
    ddb.on(PutCommand).resolves({});
    ddb.on(QueryCommand).resolves({ Items: [{ sk: 'KEYSLOT#000' }] });
    const made = await createApiKey('pub-a', 'ci');

    expect(made.api_key).toMatch(API_KEY_PATTERN);
    const puts = ddb.commandCalls(PutCommand).map((c) => c.args[0].input);
    expect(puts.map((p) => p.Item?.pk)).toEqual([
      publisherPartition('pub-a'),
      publisherPartition('pub-a'),
      publisherPartition('pub-a'),
      keyIdKey(made.key_id).pk,
      apiKeyKey(hashApiKey(made.api_key)).pk,
      auditPartition('pub-a'),
    ]);
    // The lowest free slot, taken only if still free; the listing item names it.
    expect(puts[1]).toMatchObject({
      Item: { sk: 'KEYSLOT#001', key_id: made.key_id },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(puts[2]?.Item).toMatchObject({ sk: `KEY#${made.key_id}`, slot: 1 });
    expect(puts[5]?.Item?.event).toMatchObject({
      type: 'key.created',
      actor: { type: 'key', key_id: null, name: 'operator' },
      key: { key_id: made.key_id, name: 'ci' },
    });
    expect(puts[0]?.Item?.sk).toBe(policyKey('pub-a').sk);
    expect(JSON.stringify(puts)).not.toContain(made.api_key);
  });
});
