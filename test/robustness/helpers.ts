import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { devicePartition, idempotencyKey } from '../../lib/storage/keys';
import type { ApiResponse, TestApi } from '../support/api';

/** Helpers shared by the robustness suites. */

/** The eight policy flags, as the code names them (used to generate requests). */
export { policyFlags as POLICY_FLAGS } from '../../lib/model/policy-flags';

const ERROR_CODES = new Set([
  'invalid_json',
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal_error',
  'service_unavailable',
]);

/** Whether a body is exactly the error envelope of the contract, nothing more. */
export const isErrorEnvelope = (body: any): boolean => {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  if (Object.keys(body).sort().join() !== 'error,request_id' || typeof body.request_id !== 'string')
    return false;
  const { error } = body;
  if (!error || typeof error !== 'object') return false;
  const keys = Object.keys(error).filter((k) => !['code', 'message', 'details'].includes(k));
  if (keys.length > 0 || !ERROR_CODES.has(error.code) || typeof error.message !== 'string') return false;
  return (
    error.details === undefined ||
    (Array.isArray(error.details) &&
      error.details.every(
        (d: any) =>
          d && typeof d.field === 'string' && typeof d.issue === 'string' && Object.keys(d).length === 2,
      ))
  );
};

export const ban = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  device_id: 'device-1',
  ban_type: 'social',
  scope: 'global',
  reason_code: 'toxicity',
  ...overrides,
});

/** The 503 a client must see when storage is throttled or down: envelope, Retry-After, no internals. */
export const expectUnavailable = (res: ApiResponse) => {
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
  expect(res.body).toEqual({
    error: { code: 'service_unavailable', message: expect.any(String) },
    request_id: res.headers.get('x-request-id'),
  });
  expect(res.text).not.toMatch(/throttl|provisioned|ECONNRESET|timed? ?out|InternalServerError|dynamo/i);
};

/** Every social ban of a device that the key's publisher sees (all statuses, every page). */
export const listAll = async (api: TestApi, key: string, game: string, device: string) => {
  const res = await api.request('GET', `/v1/device/${encodeURIComponent(device)}/bans/social?status=all`, {
    key,
    game,
  });
  expect(res.status).toBe(200);
  expect(res.body.next_cursor).toBeNull();
  return res.body as { counts: { active: number; inactive: number; total: number }; items: any[] };
};

/** The storage client the API in this process uses; only valid once startTestApi() has chosen the store. */
const storage = () => import('../../lib/storage/client');

/** The ban items stored for a device (a Query, not a scan: the suites make thousands of items). */
export const storedBans = async (device: string) => {
  const { dynamo, tableName } = await storage();
  const { Items } = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': devicePartition(device) },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
};

export const storedRecord = async (publisher: string, game: string, key: string) => {
  const { dynamo, tableName } = await storage();
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: idempotencyKey(publisher, game, key),
      ConsistentRead: true,
    }),
  );
  return Item;
};

let sequence = 0;
/** A name no other case of this run uses, so each case reads only its own data. */
export const unique = (prefix: string) => `${prefix}-${++sequence}-${Math.random().toString(36).slice(2, 8)}`;
