import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler as createBan } from '../../functions/create-ban';
import { handler as getPolicy } from '../../functions/get-policy';
import { handler as health } from '../../functions/health';
import { handler as listSocialBans } from '../../functions/list-social-bans';
import { handler as putPolicy } from '../../functions/put-policy';
import { defaultPolicyFlags } from '../../lib/domain/policy';
import { policyKey, reasonsKey } from '../../lib/storage/keys';
import { invoke, proxyEvent } from '../support/events';

/** The storage round trips of every operation: the floor DESIGN.md sets. */

const ddb = mockClient(DynamoDBDocumentClient);
const policyItem = {
  ...policyKey('pub-a'),
  publisher_id: 'pub-a',
  ...defaultPolicyFlags,
  updated_at: '2026-01-01T00:00:00.000Z',
};
const banBody = { device_id: 'dev-1', ban_type: 'social', scope: 'game', reason_code: 'spam' };

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({ Item: policyItem });
  // No reason catalogue: a create reads it and finds none.
  ddb.on(GetCommand, { Key: reasonsKey('pub-a') }).resolves({});
  ddb.on(UpdateCommand).resolves({ Attributes: { ...policyItem, value: 1 } });
  ddb.on(PutCommand).resolves({});
  ddb.on(QueryCommand).resolves({ Items: [] });
});

describe('storage calls per operation', () => {
  it('health answers ok with no storage call', async () => {
    const res = await invoke(health, proxyEvent({ resource: '/health', publisherId: null }));
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ ok: true });
    expect(ddb.calls()).toHaveLength(0);
  });

  it('get policy makes 1 call', async () => {
    const res = await invoke(getPolicy, proxyEvent({ resource: '/v1/policy' }));
    expect(res.statusCode).toBe(200);
    expect(res.json).toMatchObject({ publisher_id: 'pub-a', enforce_social_global: false });
    expect(ddb.calls()).toHaveLength(1);
  });

  it('put policy makes 3 calls: the update, then its audit event and its copy under the actor', async () => {
    const res = await invoke(
      putPolicy,
      proxyEvent({ method: 'PUT', resource: '/v1/policy', body: { enforce_game: false } }),
    );
    expect(res.statusCode).toBe(200);
    expect(ddb.calls()).toHaveLength(3);
  });

  it('create without a key makes 9 calls (counter, the reason catalogue and the device Query, ban and its two entries among banned devices, event and its copies under actor and device) and answers 201', async () => {
    const res = await invoke(
      createBan,
      proxyEvent({ method: 'POST', resource: '/v1/bans', headers: { 'X-Game-Id': 'g1' }, body: banBody }),
    );
    expect(res.statusCode).toBe(201);
    expect(ddb.calls()).toHaveLength(9);
  });

  it('create with a new key makes 10 calls (counter, the reason catalogue and the device Query, record, ban and its two entries, event and its two copies)', async () => {
    const res = await invoke(
      createBan,
      proxyEvent({
        method: 'POST',
        resource: '/v1/bans',
        headers: { 'x-game-id': 'g1' },
        body: { ...banBody, idempotency_key: 'abc' },
      }),
    );
    expect(res.statusCode).toBe(201);
    expect(ddb.calls()).toHaveLength(10);
  });

  it('listing makes 1 policy read and 1 Query for a device whose bans fit one storage page', async () => {
    const res = await invoke(
      listSocialBans,
      proxyEvent({
        resource: '/v1/device/{device_id}/bans/social',
        headers: { 'X-Game-Id': 'g1' },
        pathParameters: { device_id: 'dev-1' },
      }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({
      device_id: 'dev-1',
      status: 'active',
      counts: { active: 0, inactive: 0, total: 0 },
      items: [],
      next_cursor: null,
    });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(1);
    expect(ddb.calls()).toHaveLength(2);
  });
});

describe('the shared chain', () => {
  it('answers bad input 400 with every field named, before any storage call', async () => {
    const res = await invoke(
      createBan,
      proxyEvent({
        method: 'POST',
        resource: '/v1/bans',
        body: { device_id: 'a#b', ban_type: 'rude', scope: 'game', expire_at: '2030-01-01T00:00:00Z' },
      }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json.error.code).toBe('invalid_request');
    expect(res.json.error.details).toEqual(
      expect.arrayContaining([
        { field: 'X-Game-Id', issue: 'required' },
        { field: 'device_id', issue: 'invalid_format' },
        { field: 'ban_type', issue: 'invalid_value' },
        { field: 'reason_code', issue: 'required' },
        { field: 'expire_at', issue: 'unknown_field' },
      ]),
    );
    expect(res.json.request_id).toBe('req-test');
    expect(ddb.calls()).toHaveLength(0);
  });

  it('fails closed with 401 when the authorizer context carries no publisher', async () => {
    const res = await invoke(getPolicy, proxyEvent({ resource: '/v1/policy', publisherId: null }));
    expect(res.statusCode).toBe(401);
    expect(res.headers?.['WWW-Authenticate']).toBe('Bearer');
    expect(ddb.calls()).toHaveLength(0);
  });

  it.each([
    ['ProvisionedThroughputExceededException'],
    ['ThrottlingException'],
    ['InternalServerError'],
    ['TimeoutError'],
  ])('answers a DynamoDB %s with 503 and Retry-After', async (name) => {
    ddb.on(GetCommand).rejects(Object.assign(new Error('storage says no'), { name }));
    const res = await invoke(getPolicy, proxyEvent({ resource: '/v1/policy' }));
    expect(res.statusCode).toBe(503);
    expect(res.headers?.['Retry-After']).toBe('1');
    expect(res.json.error).toEqual({ code: 'service_unavailable', message: expect.any(String) });
  });

  it('answers a network error with 503', async () => {
    ddb.on(GetCommand).rejects(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const res = await invoke(getPolicy, proxyEvent({ resource: '/v1/policy' }));
    expect(res.statusCode).toBe(503);
  });

  it('answers a bug with 500 that says nothing internal', async () => {
    ddb.on(GetCommand).rejects(new TypeError('cannot read properties of undefined (reading secretThing)'));
    const res = await invoke(getPolicy, proxyEvent({ resource: '/v1/policy' }));
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('secretThing');
    expect(res.json.error.code).toBe('internal_error');
  });

  it('answers a missing policy item with 500 rather than inventing flags', async () => {
    ddb.on(GetCommand).resolves({});
    const res = await invoke(getPolicy, proxyEvent({ resource: '/v1/policy' }));
    expect(res.statusCode).toBe(500);
  });

  it.each([
    ['{"enforce_game": tru', 'invalid_json', 400],
    ['{"__proto__": {"x": 1}}', 'invalid_request', 400],
  ])('answers the body %s with %s', async (rawBody, code, status) => {
    const res = await invoke(
      putPolicy,
      proxyEvent({
        method: 'PUT',
        resource: '/v1/policy',
        rawBody,
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(res.statusCode).toBe(status);
    expect(res.json.error.code).toBe(code);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('answers a body without a JSON content type with 415', async () => {
    const res = await invoke(
      putPolicy,
      proxyEvent({
        method: 'PUT',
        resource: '/v1/policy',
        rawBody: '{}',
        headers: { 'Content-Type': 'text/plain' },
      }),
    );
    expect(res.statusCode).toBe(415);
    expect(res.json.error.code).toBe('unsupported_media_type');
  });

  it('answers a body over 64 KiB with 413', async () => {
    const rawBody = JSON.stringify({ enforce_game: true, pad: 'x'.repeat(70_000) });
    const res = await invoke(
      putPolicy,
      proxyEvent({
        method: 'PUT',
        resource: '/v1/policy',
        rawBody,
        headers: { 'Content-Type': 'application/json' },
      }),
    );
    expect(res.statusCode).toBe(413);
  });
});
