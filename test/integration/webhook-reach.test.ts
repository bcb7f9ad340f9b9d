import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';

/**
 * A webhook is a standing read credential: making one needs the read scopes of the events it
 * carries, and a key bound to games may ask only for its games; a bound key sees and deletes only
 * webhooks within its games. Making and deleting a webhook are audited, never with the secret.
 * Every refusal stores nothing; another publisher sees none of it.
 */

let api: TestApi;
let full: string;
let other: string;
beforeAll(async () => {
  api = await startTestApi({ events: false });
  full = (await api.createKey('hook-a', 'full')).api_key;
  other = (await api.createKey('hook-b', 'other')).api_key;
});
afterAll(() => api?.close());

const key = async (grants: Parameters<TestApi['createKey']>[2]) =>
  (await api.createKey('hook-a', 'k', grants)).api_key;
const url = 'https://hooks.example.com/receive?token=t0ps3cret';
const webhooks = async (caller: string) =>
  (await api.request('GET', '/v1/webhooks', { key: caller })).body.items;

describe('making a webhook needs what reading its events needs', () => {
  it('refuses a keys:manage-only key with 400 not_held on events, storing nothing', async () => {
    const manager = await key({ scopes: ['keys:manage'] });
    const before = await api.items();
    const res = await api.request('POST', '/v1/webhooks', { key: manager, body: { url } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'events', issue: 'not_held' }]);
    expect(res.body.error.message).toContain('bans:read and policy:read');
    expect(await api.items()).toEqual(before);
  });

  it('takes ban events from a key with bans:read, but not policy events without policy:read', async () => {
    const reader = await key({ scopes: ['keys:manage', 'bans:read'] });
    const refused = await api.request('POST', '/v1/webhooks', {
      key: reader,
      body: { url, events: ['ban.created', 'policy.updated'] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('policy:read');
    const made = await api.request('POST', '/v1/webhooks', {
      key: reader,
      body: { url, events: ['ban.created'] },
    });
    expect(made.status).toBe(201);
    await api.request('DELETE', `/v1/webhooks/${made.body.webhook_id}`, { key: full });
  });

  it.each([
    ['leaving games out (every game)', {}],
    ['naming a game outside its binding', { games: ['g1', 'g2'] }],
  ])('refuses a key bound to g1 %s, storing nothing', async (_name, extra) => {
    const bound = await key({ scopes: ['keys:manage', 'bans:read'], games: ['g1'] });
    const before = await api.items();
    const res = await api.request('POST', '/v1/webhooks', {
      key: bound,
      body: { url, events: ['ban.created'], ...extra },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'games', issue: 'not_held' }]);
    expect(await api.items()).toEqual(before);
  });
});

describe('a key bound to games and webhooks', () => {
  it('sees, and deletes, only the webhooks within its games; the others are 404 and stay', async () => {
    const bound = await key({ scopes: ['keys:manage', 'bans:read'], games: ['g1'] });
    const mine = await api.request('POST', '/v1/webhooks', {
      key: bound,
      body: { url, events: ['ban.created'], games: ['g1'] },
    });
    expect(mine.status).toBe(201);
    const everyGame = await api.request('POST', '/v1/webhooks', { key: full, body: { url } });
    const twoGames = await api.request('POST', '/v1/webhooks', {
      key: full,
      body: { url, games: ['g1', 'g2'] },
    });
    expect((await webhooks(bound)).map((w: { webhook_id: string }) => w.webhook_id)).toEqual([
      mine.body.webhook_id,
    ]);
    expect((await webhooks(full)).length).toBeGreaterThanOrEqual(3);
    for (const hidden of [everyGame.body.webhook_id, twoGames.body.webhook_id]) {
      expect((await api.request('DELETE', `/v1/webhooks/${hidden}`, { key: bound })).status).toBe(404);
      expect((await api.request('GET', `/v1/webhooks/${hidden}/deliveries`, { key: bound })).status).toBe(
        404,
      );
    }
    const ids = (await webhooks(full)).map((w: { webhook_id: string }) => w.webhook_id);
    expect(ids).toEqual(expect.arrayContaining([everyGame.body.webhook_id, twoGames.body.webhook_id]));
    expect((await api.request('DELETE', `/v1/webhooks/${mine.body.webhook_id}`, { key: bound })).status).toBe(
      204,
    );
    for (const id of [everyGame.body.webhook_id, twoGames.body.webhook_id])
      await api.request('DELETE', `/v1/webhooks/${id}`, { key: full });
  });
});

describe('the audit trail of webhooks', () => {
  it('records webhook.created and webhook.deleted by origin, never the secret or the URL token; another publisher sees neither', async () => {
    const made = await api.request('POST', '/v1/webhooks', { key: full, body: { url, games: ['g7'] } });
    expect(made.status).toBe(201);
    const secret = made.body.secret as string;
    expect((await api.request('DELETE', `/v1/webhooks/${made.body.webhook_id}`, { key: full })).status).toBe(
      204,
    );
    const trail = await api.request('GET', '/v1/audit', { key: full });
    const events = trail.body.items.filter(
      (e: { webhook?: { webhook_id: string } }) => e.webhook?.webhook_id === made.body.webhook_id,
    );
    expect(events.map((e: { type: string }) => e.type)).toEqual(['webhook.deleted', 'webhook.created']);
    expect(events[1]).toMatchObject({
      actor: { name: 'full' },
      webhook: {
        webhook_id: made.body.webhook_id,
        url_origin: 'https://hooks.example.com',
        events: [
          'ban.created',
          'ban.revoked',
          'ban.erased',
          'policy.updated',
          'ban.updated',
          'appeal.created',
          'appeal.decided',
        ],
        games: ['g7'],
      },
    });
    expect(events[0]).toMatchObject({
      webhook: { webhook_id: made.body.webhook_id, url_origin: 'https://hooks.example.com' },
    });
    expect(trail.text).not.toContain(secret);
    expect(trail.text).not.toContain('t0ps3cret');
    // Nothing of the deleted webhook is left: not listed, its secret gone.
    expect((await webhooks(full)).map((w: { webhook_id: string }) => w.webhook_id)).not.toContain(
      made.body.webhook_id,
    );
    expect(JSON.stringify(await api.items())).not.toContain(secret);
    const others = await api.request('GET', '/v1/audit', { key: other });
    expect(others.text).not.toContain(made.body.webhook_id);
    expect(await webhooks(other)).toEqual([]);
  });
});
