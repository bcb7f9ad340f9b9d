import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { failThenRetry, injectFaults } from '../support/faults';
import { type Receiver, startReceiver } from '../support/receiver';

/**
 * A webhook's health on the listing (its latest attempt, its failures in 24 hours) and the test
 * event a publisher sends to one webhook: a signed `webhook.test` delivery that goes the same way
 * as every event (stored, queued, signed, retried, listed) and to no other webhook. Another
 * publisher can neither test a webhook nor see its health or its test; a bound key only its games'.
 */

let api: TestApi;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  api = await startTestApi({ env: { WEBHOOK_RETRY_BASE_MS: '50' } });
});
afterAll(async () => {
  await api?.close();
  await receiver?.close();
});

let n = 0;
const unique = (prefix: string) => {
  n += 1;
  return `${prefix}-${Date.now().toString(36)}-${n}`;
};

const publisher = async (grants?: Parameters<TestApi['createKey']>[2]) => {
  const id = unique('pub');
  return { id, key: (await api.createKey(id, 'health test', grants)).api_key };
};

const hook = async (key: string, path: string, body: Record<string, unknown> = {}) => {
  const res = await api.request('POST', '/v1/webhooks', {
    key,
    body: { url: `${receiver.url}${path}`, ...body },
  });
  expect(res.status).toBe(201);
  return res.body as { webhook_id: string; secret: string };
};

const listed = async (key: string, webhookId: string) => {
  const res = await api.request('GET', '/v1/webhooks', { key });
  expect(res.status).toBe(200);
  return res.body.items.find((item: { webhook_id: string }) => item.webhook_id === webhookId);
};

const test = (key: string, webhookId: string) =>
  api.request('POST', `/v1/webhooks/${webhookId}/test`, { key });

/** The trail's `webhook.tested` events, newest first. */
const testsAudited = async (key: string) =>
  (await api.request('GET', '/v1/audit?type=webhook.tested', { key })).body.items;

const deliveries = async (key: string, webhookId: string, query = '') =>
  (await api.request('GET', `/v1/webhooks/${webhookId}/deliveries${query}`, { key })).body.items;

/** Waits until `check` holds of the webhook as listed. */
const listedUntil = async (key: string, webhookId: string, check: (webhook: any) => boolean) => {
  for (const until = Date.now() + 20_000; Date.now() < until; ) {
    const webhook = await listed(key, webhookId);
    if (check(webhook)) return webhook;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`webhook ${webhookId} never got there: ${JSON.stringify(await listed(key, webhookId))}`);
};

const noHealth = {
  last_attempt_at: null,
  last_outcome: null,
  last_status: null,
  last_error: null,
  last_delivered_at: null,
  failures_24h: 0,
};

describe('POST /v1/webhooks/{webhook_id}/test', () => {
  it('queues a signed webhook.test delivery to that webhook only, listed among its deliveries', async () => {
    const a = await publisher();
    const path = `/${unique('tested')}`;
    const tested = await hook(a.key, path);
    const otherPath = `/${unique('untested')}`;
    const other = await hook(a.key, otherPath);
    expect((await listed(a.key, tested.webhook_id)).health).toEqual(noHealth);

    const res = await test(a.key, tested.webhook_id);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      webhook_id: tested.webhook_id,
      type: 'webhook.test',
      status: 'pending',
      attempts: 0,
      delivered_at: null,
    });
    expect(res.body.event_id).toMatch(/^evt_[A-Za-z0-9_-]{24}$/);

    await receiver.waitFor((received) => received.some((r) => r.path === path));
    const [event] = receiver.verified(tested.secret).filter((e) => e.event_id === res.body.event_id);
    expect(event).toEqual({
      event_id: res.body.event_id,
      type: 'webhook.test',
      occurred_at: res.body.occurred_at,
      device_id: null,
      publisher_id: a.id,
      webhook_id: tested.webhook_id,
    });
    const request = receiver.received.find((r) => r.path === path);
    expect(request?.headers['webhook-id']).toBe(res.body.event_id);
    expect(request?.body).not.toContain('"ban"');

    const health = (await listedUntil(a.key, tested.webhook_id, (w) => w.health.last_outcome !== null))
      .health;
    expect(health).toMatchObject({
      last_outcome: 'delivered',
      last_status: 204,
      last_error: null,
      failures_24h: 0,
    });
    expect(health.last_delivered_at).toBe(health.last_attempt_at);
    expect((await deliveries(a.key, tested.webhook_id, '?status=delivered'))[0]).toMatchObject({
      event_id: res.body.event_id,
      type: 'webhook.test',
      device_id: null,
      ban_id: null,
      status: 'delivered',
      attempts: 1,
    });
    // The other webhook got nothing, and its health did not move; the feed has no test event.
    expect(receiver.received.some((r) => r.path === otherPath)).toBe(false);
    expect(await deliveries(a.key, other.webhook_id)).toEqual([]);
    expect((await listed(a.key, other.webhook_id)).health).toEqual(noHealth);
    const feed = await api.request('GET', '/v1/events', { key: a.key, game: 'g1' });
    expect(feed.body.items).toEqual([]);
  });

  it('is audited as webhook.tested: the key that sent it, the webhook by its origin, and the event sent', async () => {
    const a = await publisher();
    const b = await publisher();
    const tested = await hook(a.key, `/${unique('audited')}?token=secret-path`);
    const first = await test(a.key, tested.webhook_id);
    const second = await test(a.key, tested.webhook_id);
    expect([first.status, second.status]).toEqual([202, 202]);
    const key = (await api.request('GET', '/v1/keys', { key: a.key })).body.items[0];
    const audited = await testsAudited(a.key);
    // One event per test sent, newest first, each naming the delivery it made.
    expect(audited).toEqual(
      [second.body, first.body].map((sent) => ({
        event_id: expect.stringMatching(/^evt_/),
        type: 'webhook.tested',
        occurred_at: sent.occurred_at,
        actor: { type: 'key', key_id: key.key_id, name: 'health test' },
        webhook: { webhook_id: tested.webhook_id, url_origin: new URL(receiver.url).origin },
        test_event_id: sent.event_id,
      })),
    );
    // Never the URL's path or query (they may carry a token), and nothing in another's trail.
    expect(JSON.stringify(audited)).not.toContain('secret-path');
    expect(await testsAudited(b.key)).toEqual([]);
  });

  it('is a 404 for another publisher, stores nothing, and that publisher sees neither webhook nor health', async () => {
    const a = await publisher();
    const b = await publisher();
    const mine = await hook(a.key, `/${unique('mine')}`);
    const before = await api.items();
    const res = await test(b.key, mine.webhook_id);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(await api.items()).toEqual(before);
    // Derived items move in the background (other tests' deliveries): this webhook has none.
    expect(await deliveries(a.key, mine.webhook_id)).toEqual([]);
    expect((await api.request('GET', '/v1/webhooks', { key: b.key })).body.items).toEqual([]);
    expect(
      (await api.request('GET', `/v1/webhooks/${mine.webhook_id}/deliveries`, { key: b.key })).status,
    ).toBe(404);
  });

  it('is a 404 for a deleted or unknown webhook, and a 400 for a malformed id, storing nothing', async () => {
    const a = await publisher();
    const gone = await hook(a.key, `/${unique('gone')}`);
    expect((await api.request('DELETE', `/v1/webhooks/${gone.webhook_id}`, { key: a.key })).status).toBe(204);
    const before = await api.items();
    expect((await test(a.key, gone.webhook_id)).status).toBe(404);
    expect((await test(a.key, 'wh_AAAAAAAAAAAAAAAA')).status).toBe(404);
    const bad = await test(a.key, 'not-a-webhook');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ field: 'webhook_id', issue: 'invalid_format' }]);
    expect(await api.items()).toEqual(before);
    const ownDeliveries = (await api.items({ derived: true })).filter((item) =>
      String(item.pk).startsWith(`DELIVERY#${a.id}#`),
    );
    expect(ownDeliveries).toEqual([]);
  });

  it('takes keys:manage, and a key bound to games tests only the webhooks within its games', async () => {
    const a = await publisher();
    const everyGame = await hook(a.key, `/${unique('every')}`);
    const inG1 = await hook(a.key, `/${unique('g1')}`, { games: ['g1'] });
    const reader = (await api.createKey(a.id, 'reader', { scopes: ['bans:read'] })).api_key;
    expect((await test(reader, inG1.webhook_id)).status).toBe(403);
    const bound = (
      await api.createKey(a.id, 'bound', { scopes: ['keys:manage', 'bans:read'], games: ['g1'] })
    ).api_key;
    expect((await test(bound, everyGame.webhook_id)).status).toBe(404);
    expect((await test(bound, inG1.webhook_id)).status).toBe(202);
    expect(
      (await api.request('GET', '/v1/webhooks', { key: bound })).body.items.map((w: any) => w.webhook_id),
    ).toEqual([inG1.webhook_id]);
  });
});

// The fault is injected into this process's storage client: the bundled run's handlers carry their
// own, so it runs on the sources and DynamoDB Local only (as test/robustness does).
describe.skipIf(Boolean(process.env.API_BUNDLES))('a storage fault while sending a test event', () => {
  it.each([
    ['reading the webhooks', { operation: 'Query' as const, keyPrefix: 'WEBHOOKS#' }],
    ['storing the delivery', { operation: 'PutItem' as const, keyPrefix: 'DELIVERY#' }],
    ['recording it in the audit trail', { operation: 'PutItem' as const, keyPrefix: 'AUDIT#' }],
  ])('%s: 503, nothing stored, and the retry sends and audits exactly one test', async (_name, rule) => {
    const a = await publisher();
    const path = `/${unique('fault')}`;
    const webhook = await hook(a.key, path);
    const { dynamo } = await import('../../lib/storage/client');
    const faults = injectFaults(dynamo);
    try {
      const retried = await failThenRetry(
        faults,
        { ...rule, error: 'ThrottlingException' },
        () => test(a.key, webhook.webhook_id),
        async () => {
          expect(await deliveries(a.key, webhook.webhook_id)).toEqual([]);
          expect(await testsAudited(a.key)).toEqual([]);
        },
      );
      expect(retried.status).toBe(202);
      expect((await testsAudited(a.key)).map((e: { test_event_id: string }) => e.test_event_id)).toEqual([
        retried.body.event_id,
      ]);
    } finally {
      faults.remove();
    }
    await receiver.waitFor((received) => received.some((r) => r.path === path));
    const listedDeliveries = await deliveries(a.key, webhook.webhook_id);
    expect(listedDeliveries.map((d: { type: string }) => d.type)).toEqual(['webhook.test']);
  });
});

describe('health on GET /v1/webhooks', () => {
  it('counts each failed attempt once, keeps the latest outcome, and a success after failures', async () => {
    const a = await publisher();
    const b = await publisher();
    const path = `/${unique('flaky')}`;
    const webhook = await hook(a.key, path);
    let failing = true;
    receiver.answer = (request) => (request.path === path && failing ? 503 : 204);
    try {
      const sent = await test(a.key, webhook.webhook_id);
      expect(sent.status).toBe(202);
      await receiver.waitFor((received) => received.filter((r) => r.path === path).length >= 3);
      const failed = await listedUntil(a.key, webhook.webhook_id, (w) => w.health.failures_24h >= 3);
      expect(failed.health).toMatchObject({
        last_outcome: 'failed',
        last_status: 503,
        last_error: 'http status 503',
      });
      expect(failed.health.last_delivered_at).toBeNull();
      failing = false;
      const [delivery] = await (async () => {
        for (;;) {
          const found = await deliveries(a.key, webhook.webhook_id, '?status=delivered');
          if (found.length > 0) return found;
          await new Promise((done) => setTimeout(done, 50));
        }
      })();
      const posts = receiver.received.filter((r) => r.path === path).length;
      // Every attempt but the last failed: the count is exactly the failed POSTs.
      expect(delivery.attempts).toBe(posts);
      const healthy = await listed(a.key, webhook.webhook_id);
      expect(healthy.health).toMatchObject({
        last_outcome: 'delivered',
        last_status: 204,
        last_error: null,
        failures_24h: posts - 1,
      });
      expect(healthy.health.last_delivered_at).toBe(healthy.health.last_attempt_at);
      // Another publisher's listing shows none of it.
      expect((await api.request('GET', '/v1/webhooks', { key: b.key })).body.items).toEqual([]);
    } finally {
      receiver.answer = () => 204;
    }
  });

  it('goes with its webhook: a deleted one is not listed, and a new one starts with none', async () => {
    const a = await publisher();
    const path = `/${unique('deleted')}`;
    const webhook = await hook(a.key, path);
    receiver.answer = (request) => (request.path === path ? 503 : 204);
    try {
      expect((await test(a.key, webhook.webhook_id)).status).toBe(202);
      await listedUntil(a.key, webhook.webhook_id, (w) => w.health.failures_24h >= 1);
      expect((await api.request('DELETE', `/v1/webhooks/${webhook.webhook_id}`, { key: a.key })).status).toBe(
        204,
      );
      const again = await hook(a.key, `/${unique('again')}`);
      expect((await listed(a.key, again.webhook_id)).health).toEqual(noHealth);
      expect(await listed(a.key, webhook.webhook_id)).toBeUndefined();
    } finally {
      receiver.answer = () => 204;
    }
  });
});
