import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { encodeGrant } from '@kernel/scopes';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler as createBan } from '../../functions/create-ban';
import { handler as listCheatBans } from '../../functions/list-cheat-bans';
import { handler as openapi } from '../../functions/openapi';
import { MAX_BODY_BYTES } from '../../lib/http/chain';
import { invoke, proxyEvent } from '../support/events';

/**
 * The order of the shared chain: what a key may do is decided before anything about the request
 * is looked at; headers that must come once are counted in any letter case, in the shape API
 * Gateway passes them; a body is scanned for repeated members and depth before it is parsed;
 * the served document names the stage's own domain, never a client's Host. No call reaches
 * storage in any of these.
 */

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => ddb.reset());

const keyContext = (scopes: string[] | null, games: string[] | null) => ({
  publisherId: 'pub-a',
  keyId: 'key_test',
  keyName: 'test',
  scopes: encodeGrant(scopes),
  games: encodeGrant(games),
  expiresAt: '',
});

const withKey = (event: ReturnType<typeof proxyEvent>, context: Record<string, unknown>) => {
  event.requestContext.authorizer = context;
  return event;
};

const banRequest = (context: Record<string, unknown>, overrides: Parameters<typeof proxyEvent>[0] = {}) =>
  withKey(
    proxyEvent({
      method: 'POST',
      resource: '/v1/bans',
      headers: { 'X-Game-Id': 'g1', 'Content-Type': 'application/json' },
      rawBody: '{"device_id":"d","ban_type":"cheat","scope":"game","reason_code":"r"}',
      ...overrides,
    }),
    context,
  );

describe('the key is checked before the body or the query', () => {
  const readOnly = keyContext(['bans:read'], null);

  it.each([
    ['invalid JSON', { rawBody: '{"device_id":' }],
    ['a body over the limit', { rawBody: `{"x":"${'a'.repeat(MAX_BODY_BYTES)}"}` }],
    ['no JSON content type', { headers: { 'X-Game-Id': 'g1', 'Content-Type': 'text/plain' } }],
    ['a body nesting 3,000 levels', { rawBody: `${'['.repeat(3000)}${']'.repeat(3000)}` }],
  ])('answers 403 to a key lacking the scope whatever the body: %s', async (_name, overrides) => {
    const res = await invoke(createBan, banRequest(readOnly, overrides));
    expect(res.statusCode).toBe(403);
    expect(res.json.error).toMatchObject({
      code: 'forbidden',
      message: 'This key lacks the scope bans:write',
    });
    expect(ddb.calls()).toHaveLength(0);
  });

  it('answers 403 to a key bound to g1 calling g2 with a bad query, not the 400', async () => {
    const event = withKey(
      proxyEvent({
        resource: '/v1/device/{device_id}/bans/cheat',
        headers: { 'X-Game-Id': 'g2' },
        pathParameters: { device_id: 'd' },
        query: { limit: 'abc', bogus: '1' },
      }),
      keyContext(['bans:read'], ['g1']),
    );
    const res = await invoke(listCheatBans, event);
    expect(res.statusCode).toBe(403);
    expect(res.json.error.message).toBe('This key is not bound to game g2');
    expect(ddb.calls()).toHaveLength(0);
  });

  it('answers a bound key its own game with the 400 the bad query earns', async () => {
    const event = withKey(
      proxyEvent({
        resource: '/v1/device/{device_id}/bans/cheat',
        headers: { 'X-Game-Id': 'g1' },
        pathParameters: { device_id: 'd' },
        query: { limit: 'abc' },
      }),
      keyContext(['bans:read'], ['g1']),
    );
    const res = await invoke(listCheatBans, event);
    expect(res.statusCode).toBe(400);
    expect(res.json.error.details).toEqual([{ field: 'limit', issue: 'invalid_format' }]);
  });
});

describe('headers that must come once, in any letter case', () => {
  const full = keyContext(null, null);
  // API Gateway's REST proxy event: multiValueHeaders keyed by each name as sent, with its values.
  it.each([
    ['X-Game-Id', { 'X-Game-Id': ['g1'], 'x-game-id': ['g2'] }],
    ['X-Game-Id', { 'X-Game-Id': ['g1', 'g2'] }],
    ['Authorization', { Authorization: ['Bearer a'], authorization: ['Bearer b'] }],
    ['Content-Type', { 'Content-Type': ['application/json'], 'content-type': ['application/json'] }],
  ])('refuses %s twice (%j) with 400 repeated before anything else', async (name, multi) => {
    const event = banRequest(full);
    event.multiValueHeaders = { ...event.multiValueHeaders, ...multi };
    for (const [header, values] of Object.entries(multi)) event.headers[header] = values.at(-1) as string;
    const res = await invoke(createBan, event);
    expect(res.statusCode).toBe(400);
    expect(res.json.error.details).toEqual([{ field: name, issue: 'repeated' }]);
    expect(ddb.calls()).toHaveLength(0);
  });
});

describe('the body is scanned before it is parsed', () => {
  const full = keyContext(null, null);

  it.each([
    ['{"device_id":"d","ban_type":"cheat","scope":"game","scope":"global","reason_code":"r"}', 'scope'],
    [
      '{"device_id":"d","ban_type":"cheat","scope":"game","reason_code":"r","details":{"a":1,"\\u0061":2}}',
      'details.a',
    ],
  ])('refuses a member named twice (%s), naming it, instead of keeping the last', async (rawBody, field) => {
    const res = await invoke(createBan, banRequest(full, { rawBody }));
    expect(res.statusCode).toBe(400);
    expect(res.json.error.details).toEqual([{ field, issue: 'duplicate' }]);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('refuses a body nesting past 64 levels as too deep, naming the member, not as invalid JSON', async () => {
    for (const depth of [65, 3000]) {
      const rawBody = `{"details":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
      const res = await invoke(createBan, banRequest(full, { rawBody }));
      expect(res.statusCode).toBe(400);
      expect(res.json.error).toMatchObject({
        code: 'invalid_request',
        message: 'details nests deeper than 64 levels',
        details: [{ field: 'details', issue: 'too_deep' }],
      });
    }
    expect(ddb.calls()).toHaveLength(0);
  });
});

describe('the served document names the stage that served it', () => {
  it("takes the stage's domain from the request context, not from Host or X-Forwarded-Proto", async () => {
    const event = proxyEvent({
      resource: '/openapi.json',
      publisherId: null,
      headers: { Host: 'evil.example', 'X-Forwarded-Proto': 'http' },
    });
    event.path = '/openapi.json';
    event.requestContext = {
      ...event.requestContext,
      apiId: 'abc123defg',
      domainName: 'abc123defg.execute-api.eu-west-1.amazonaws.com',
      path: '/prod/openapi.json',
    };
    const res = await invoke(openapi, event);
    expect(res.json.servers[0].url).toBe('https://abc123defg.execute-api.eu-west-1.amazonaws.com/prod');
    expect(res.body).not.toContain('evil.example');
  });
});
