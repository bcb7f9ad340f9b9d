import { type Role, roleScopes } from '@kernel/people';
import { type ScopeNeed, scopesOf } from '@kernel/scopes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Route, routes } from '../../lib/routes';
import { startTestApi, type TestApi } from '../support/api';
import { documentPaths, exampleRequest } from '../support/examples';
import { type Receiver, startReceiver } from '../support/receiver';
import { signIn } from '../support/sign-in';

/**
 * The conformance walk: every row of the route table called through the gateway once valid, once
 * invalid, without credentials, with a key, and with a person's token of each role; then the event
 * path, a write to a signed webhook delivery. `npm test` runs it on the bundles `cdk deploy`
 * uploads (API_BUNDLES, with the dispatcher and the sender from their bundles too), on the
 * Lambda's Node; the behaviour of each route is the integration suite's, on DynamoDB Local.
 *
 * Valid requests are the document's own examples (docs/openapi.json: every parameter and body
 * example), sent as `acme`, the publisher they are written for: each must be an answer the
 * document lists (every response is checked against it) and never a refusal of the request
 * itself (400, 401, 403) or a fault (5xx). Invalid ones must be a 400 in the envelope that
 * changes nothing stored.
 */

const PUBLISHER = 'acme';
const table = routes as readonly Route[];
const keyed = table.filter((route) => route.auth);

/** The request the document's examples make of `route`. */
const exampleOf = (route: Route) => {
  const operation = documentPaths[route.path]?.[route.method.toLowerCase()];
  if (!operation)
    throw new Error(`${route.id}: no operation ${route.method} ${route.path} in docs/openapi.json`);
  return exampleRequest(route.path, operation);
};

/**
 * One request the route must refuse as invalid: a body that is not an object, a missing game, a path
 * parameter no id can be, or a query value out of range, in that order of what the route takes.
 */
const invalidRequest = (route: Route) => {
  const valid = exampleOf(route);
  if (route.request.body) return { ...valid, body: [valid.body], field: 'body' };
  if (route.request.game) {
    const { 'X-Game-Id': _game, ...headers } = valid.headers;
    return { ...valid, headers, field: 'X-Game-Id' };
  }
  if (route.request.path) {
    const name = /\{(\w+)\}/.exec(route.path)?.[1] as string;
    return { ...valid, path: route.path.replace(`{${name}}`, 'x'.repeat(300)), field: name };
  }
  if (route.request.query) return { ...valid, path: `${route.path}?limit=0`, field: 'limit' };
  return undefined;
};

/** The routes that take nothing a caller could get wrong: no body, game, path or query. */
const NOTHING_TO_REFUSE = [
  'appealStats',
  'health',
  'getPolicy',
  'getDeviceFormats',
  'getReasons',
  'listGames',
  'listPeople',
  'listWebhooks',
  'openapi',
];

const mayCall = (role: Role, need: ScopeNeed | null) =>
  need === null || scopesOf(need).some((scope) => (roleScopes[role] as readonly string[]).includes(scope));

let api: TestApi;
let key: string;
/** A real link to the player's page of the document's device and game: the page's routes need one. */
let playerLink: string;
const tokens = {} as Record<Role, string>;

beforeAll(async () => {
  api = await startTestApi({ people: true });
  key = (await api.createKey(PUBLISHER, 'conformance')).api_key;
  const linkRoute = table.find((route) => route.id === 'createPlayerLink') as Route;
  const example = exampleOf(linkRoute);
  const minted = await api.request('POST', example.path, {
    key,
    headers: example.headers,
    body: { ...(example.body as object), appeal: true },
  });
  if (minted.status !== 201) throw new Error(`no player link: ${minted.text}`);
  playerLink = minted.body.secret;
  for (const role of ['viewer', 'moderator', 'admin'] as const) {
    const made = await api.createPerson(PUBLISHER, role);
    const result = await signIn(api.identity.issuer, api.identity.redirectUri, made.email, made.password);
    if (!result.ok) throw new Error(`${role} could not sign in: ${result.status}`);
    tokens[role] = result.tokens.access_token;
  }
});
afterAll(() => api?.close());

/** Sends the request, then waits for an export job it started to end, so none writes during the next one. */
const send = async (route: Route, request: ReturnType<typeof exampleOf>, auth?: string) => {
  const res = await api.request(route.method, request.path, {
    headers: {
      ...request.headers,
      ...(auth ? { Authorization: `Bearer ${auth}` } : {}),
      ...(route.request.playerLink ? { 'X-Player-Link': playerLink } : {}),
    },
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  await api.exportsSettled();
  return res;
};

describe('every route of the table', () => {
  it('is documented, and the routes with nothing to refuse are the ones listed', () => {
    const without = table.filter((route) => invalidRequest(route) === undefined).map((route) => route.id);
    expect(without.sort()).toEqual([...NOTHING_TO_REFUSE].sort());
  });

  it.each(table.map((route) => [route.id, route] as const))(
    '%s answers its documented example with a key, as a documented answer',
    async (_id, route) => {
      const res = await send(route, exampleOf(route), route.auth ? key : undefined);
      expect(res.status, `${route.method} ${route.path}: ${res.text}`).toBeLessThan(500);
      expect([400, 401, 403], `${route.method} ${route.path}: ${res.text}`).not.toContain(res.status);
    },
  );

  it.each(table.flatMap((route) => (invalidRequest(route) ? [[route.id, route] as const] : [])))(
    '%s refuses an invalid request with 400 in the envelope, storing nothing',
    async (_id, route) => {
      const invalid = invalidRequest(route) as NonNullable<ReturnType<typeof invalidRequest>>;
      // An earlier test's writes still being dispatched (feed, rollups) are not this request's.
      await api.settle();
      const before = await api.items();
      const res = await send(route, invalid, route.auth ? key : undefined);
      expect(res.status, `${route.method} ${invalid.path}: ${res.text}`).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(typeof res.body.request_id).toBe('string');
      expect(await api.items()).toEqual(before);
    },
  );

  it.each(keyed.map((route) => [route.id, route] as const))(
    '%s refuses a call without credentials with 401, storing nothing',
    async (_id, route) => {
      // An earlier test's writes still being dispatched (feed, rollups) are not this request's.
      await api.settle();
      const before = await api.items();
      const res = await send(route, exampleOf(route));
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
      expect(await api.items()).toEqual(before);
    },
  );

  it.each(
    keyed.flatMap((route) =>
      (['viewer', 'moderator', 'admin'] as const).map((role) => [route.id, role, route] as const),
    ),
  )('%s with a %s token: served if the role may, else 403 storing nothing', async (_id, role, route) => {
    await api.settle();
    const before = await api.items();
    const res = await send(route, exampleOf(route), tokens[role]);
    if (mayCall(role, route.scope)) {
      expect(res.status, `${route.method} ${route.path}: ${res.text}`).toBeLessThan(500);
      expect([400, 401, 403], `${route.method} ${route.path}: ${res.text}`).not.toContain(res.status);
    } else {
      expect(res.status, `${route.method} ${route.path}: ${res.text}`).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(await api.items()).toEqual(before);
    }
  });
});

describe('the event path', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver?.close());

  it('turns a ban into a feed event and one signed delivery to the webhook', async () => {
    const hook = await api.request('POST', '/v1/webhooks', {
      key,
      body: { url: `${receiver.url}/hook`, events: ['ban.created'] },
    });
    expect(hook.status).toBe(201);
    const created = await api.request('POST', '/v1/bans', {
      key,
      game: 'conformance-game',
      body: { device_id: 'conformance-device', ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
    });
    expect(created.status).toBe(201);
    await api.settle();
    const feed = await api.request('GET', '/v1/events', { key, game: 'conformance-game' });
    expect(feed.status).toBe(200);
    const event = feed.body.items.find(
      (item: { type: string; ban?: { ban_id: number } }) =>
        item.type === 'ban.created' && item.ban?.ban_id === created.body.ban_id,
    );
    expect(event).toBeDefined();
    await receiver.waitFor((received) => received.some((r) => r.headers['webhook-id'] === event.event_id));
    const signed = receiver.verified(hook.body.secret);
    expect(signed.filter((body) => body.event_id === event.event_id)).toHaveLength(1);
  });
});
