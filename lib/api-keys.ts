import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, paginateQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { provisionPolicy } from './policy';
import { dynamo, tableName } from './storage/client';

/**
 * API keys. The key itself is shown once, when made; only its SHA-256 is stored. Items:
 *   lookup (authorizer)   `APIKEY#<sha256 hex>` / `APIKEY`
 *   publisher's listing   `PUBLISHER#<publisher_id>` / `KEY#<key_id>`
 *   key id → publisher    `KEYID#<key_id>` / `KEYID`   (so `revoke <key_id>` needs nothing else)
 */

/** `bsk_` + 32 random bytes in base64url: recognisable to secret scanners, 256 bits of entropy. */
export const API_KEY_PATTERN = /^bsk_[A-Za-z0-9_-]{43}$/;

export const hashApiKey = (apiKey: string) => createHash('sha256').update(apiKey).digest('hex');

export const apiKeyLookupKey = (hash: string) => ({ pk: `APIKEY#${hash}`, sk: 'APIKEY' });
export const publisherKeyListingKey = (publisherId: string, keyId: string) => ({
  pk: `PUBLISHER#${publisherId}`,
  sk: `KEY#${keyId}`,
});
export const keyIdKey = (keyId: string) => ({ pk: `KEYID#${keyId}`, sk: 'KEYID' });

export interface ApiKeyInfo {
  key_id: string;
  publisher_id: string;
  name: string;
  created_at: string;
  revoked_at: string | null;
}

export interface NewApiKey extends ApiKeyInfo {
  api_key: string;
}

const keyInfo = (item: Record<string, unknown>): ApiKeyInfo => ({
  key_id: String(item.key_id),
  publisher_id: String(item.publisher_id),
  name: String(item.name),
  created_at: String(item.created_at),
  revoked_at: typeof item.revoked_at === 'string' ? item.revoked_at : null,
});

const put = (Item: Record<string, unknown>) =>
  dynamo.send(
    new PutCommand({ TableName: tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' }),
  );

/**
 * Makes a key for the publisher, writing the publisher's default policy first if it has none.
 * The lookup item is written last, so a key never works before its policy and listing exist.
 */
export const createApiKey = async (publisherId: string, name = 'default'): Promise<NewApiKey> => {
  const now = new Date();
  await provisionPolicy(publisherId, now);
  const apiKey = `bsk_${randomBytes(32).toString('base64url')}`;
  const hash = hashApiKey(apiKey);
  const info: ApiKeyInfo = {
    key_id: `key_${randomBytes(9).toString('base64url')}`,
    publisher_id: publisherId,
    name,
    created_at: now.toISOString(),
    revoked_at: null,
  };
  // revoked_at is absent until revocation, so revoking can keep the first time with if_not_exists.
  const { revoked_at: _unset, ...stored } = info;
  await put({ ...publisherKeyListingKey(publisherId, info.key_id), ...stored, key_hash: hash });
  await put({ ...keyIdKey(info.key_id), ...stored, key_hash: hash });
  await put({ ...apiKeyLookupKey(hash), ...stored });
  return { ...info, api_key: apiKey };
};

export const listApiKeys = async (publisherId: string): Promise<ApiKeyInfo[]> => {
  const keys: ApiKeyInfo[] = [];
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :key)',
      ExpressionAttributeValues: { ':pk': `PUBLISHER#${publisherId}`, ':key': 'KEY#' },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) for (const item of page.Items ?? []) keys.push(keyInfo(item));
  return keys.sort((a, b) => a.created_at.localeCompare(b.created_at));
};

/**
 * Revokes a key by its public id. The lookup item is revoked first: that is the one the
 * authorizer reads, so the key stops working even if the listing update then fails.
 * Revoking twice keeps the first `revoked_at`. Returns undefined for an unknown key id.
 */
export const revokeApiKey = async (keyId: string): Promise<ApiKeyInfo | undefined> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keyIdKey(keyId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const hash = String(Item.key_hash);
  const revoke = async (Key: Record<string, string>) => {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key,
        UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': new Date().toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return keyInfo(Attributes ?? {});
  };
  await revoke(apiKeyLookupKey(hash));
  await revoke(keyIdKey(keyId));
  return revoke(publisherKeyListingKey(String(Item.publisher_id), keyId));
};

export interface Caller {
  publisherId: string;
  keyId: string;
}

/** The publisher behind a key, or undefined for a malformed, unknown or revoked key. */
export const authenticate = async (apiKey: string): Promise<Caller | undefined> => {
  if (!API_KEY_PATTERN.test(apiKey)) return undefined;
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: apiKeyLookupKey(hashApiKey(apiKey)), ConsistentRead: true }),
  );
  if (!Item || typeof Item.revoked_at === 'string') return undefined;
  return { publisherId: String(Item.publisher_id), keyId: String(Item.key_id) };
};
