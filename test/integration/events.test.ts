import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_ENTRY_PREFIX, partitions } from '../../lib/storage/keys';
import type { TestApi } from '../support/api';
import { startTestApi } from '../support/api';
import { type Receiver, startReceiver } from '../support/receiver';

/**
 * The change feed and webhooks, end to end over HTTP: what each publisher and game reads, the
 * cursor's exactly-once promise, webhook management, and signed deliveries to a real receiver on
 * the loopback. Runs on the sources, the bundles, Node 24 and DynamoDB Local like every
 * integration suite.
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

const publisher = async (scopes?: string[]) => {
  const id = unique('pub');
  const key = await api.createKey(id, 'events test', scopes ? { scopes: scopes as never } : undefined);
  return { id, key: key.api_key };
};

const ban = async (key: string, game: string, body: Record<string, unknown>) => {
  const res = await api.request('POST', '/v1/bans', {
    key,
    game,
    body: { ban_type: 'cheat', scope: 'game', reason_code: 'aimbot', ...body },
  });
  expect(res.status).toBe(201);
  return res.body;
};

/** Every event from `cursor` on, page by page of `limit`, and the cursor to resume from. */
const readAll = async (key: string, game: string, limit = 100, cursor?: string) => {
  const items: any[] = [];
  let next = cursor;
  for (let page = 0; page < 100; page += 1) {
    const query = new URLSearchParams({ limit: String(limit), ...(next ? { cursor: next } : {}) });
    const res = await api.request('GET', `/v1/events?${query}`, { key, game });
    expect(res.status).toBe(200);
    expect(typeof res.body.next_cursor).toBe('string');
    next = res.body.next_cursor;
    if (res.body.items.length === 0) return { items, cursor: next as string };
    items.push(...res.body.items);
  }
  throw new Error('the feed never caught up');
};

const hook = async (key: string, body: Record<string, unknown> = {}) => {
  const res = await api.request('POST', '/v1/webhooks', {
    key,
    body: { url: `${receiver.url}/hooks`, ...body },
  });
  expect(res.status).toBe(201);
  return res.body as { webhook_id: string; secret: string };
};

describe('GET /v1/events', () => {
  it('shows each publisher and game what its listings show, in order, each event once', async () => {
    const a = await publisher();
    const b = await publisher();
    const device = unique('dev');
    const inG1 = await ban(a.key, 'g1', { device_id: device, details: { clip: 'one' } });
    const inG2 = await ban(a.key, 'g2', { device_id: device });
    const wide = await ban(a.key, 'g1', { device_id: device, scope: 'publisher', ban_type: 'social' });
    const othersGlobal = await ban(b.key, 'gb', {
      device_id: device,
      scope: 'global',
      details: { secret: 'b' },
    });
    const othersGame = await ban(b.key, 'g1', { device_id: device });
    await api.settle();

    const g1 = await readAll(a.key, 'g1');
    expect(g1.items.map((e) => [e.type, e.ban.ban_id])).toEqual([
      ['ban.created', inG1.ban_id],
      ['ban.created', wide.ban_id],
      ['ban.created', othersGlobal.ban_id],
    ]);
    expect(g1.items[0]).toMatchObject({
      device_id: device,
      ban: { details_json: { clip: 'one' }, game_id: 'g1' },
    });
    // Another publisher's global ban, as a listing shows it: without its details.
    expect(g1.items[2].ban).toMatchObject({ publisher_id: b.id, scope: 'global', details_json: null });
    expect(new Set(g1.items.map((e) => e.event_id)).size).toBe(3);

    const g2 = await readAll(a.key, 'g2');
    expect(g2.items.map((e) => e.ban.ban_id)).toEqual([inG2.ban_id, wide.ban_id, othersGlobal.ban_id]);
    // B sees its own bans, and nothing of A's (none of them is global).
    const bg1 = await readAll(b.key, 'g1');
    expect(bg1.items.map((e) => e.ban.ban_id)).toEqual([othersGlobal.ban_id, othersGame.ban_id]);
    expect(bg1.items[0].ban.details_json).toEqual({ secret: 'b' });
  });

  it('gives every event exactly once from any cursor, across pages and later writes', async () => {
    const a = await publisher();
    const b = await publisher();
    const device = unique('dev');
    for (let i = 0; i < 4; i += 1) await ban(a.key, 'g1', { device_id: `${device}-${i}` });
    await ban(b.key, 'gb', { device_id: device, scope: 'global' });
    await ban(a.key, 'g1', { device_id: device, scope: 'publisher' });
    await api.settle();

    const whole = await readAll(a.key, 'g1', 100);
    // Global bans of earlier tests' publishers are in every feed too.
    expect(whole.items.filter((e) => e.device_id.startsWith(device))).toHaveLength(6);
    const paged = await readAll(a.key, 'g1', 1);
    expect(paged.items.map((e) => e.event_id)).toEqual(whole.items.map((e) => e.event_id));
    // From each cursor on, exactly the rest.
    let cursor: string | undefined;
    for (let i = 0; i < whole.items.length; i += 1) {
      const rest = await readAll(a.key, 'g1', 2, cursor);
      expect(rest.items.map((e) => e.event_id)).toEqual(whole.items.slice(i).map((e) => e.event_id));
      const one = await api.request('GET', `/v1/events?limit=1${cursor ? `&cursor=${cursor}` : ''}`, {
        key: a.key,
        game: 'g1',
      });
      cursor = one.body.next_cursor;
    }
    // Caught up: an empty page, and the same resume point.
    const caughtUp = await api.request('GET', `/v1/events?cursor=${whole.cursor}`, {
      key: a.key,
      game: 'g1',
    });
    expect(caughtUp.body).toEqual({
      items: [],
      next_cursor: whole.cursor,
      deployment_id: expect.stringMatching(/^dep_/),
      delay_ms: expect.any(Number),
    });
    // Later writes, of every kind, come after it and only they.
    const later = await ban(a.key, 'g1', { device_id: device });
    await api.request('POST', `/v1/device/${device}/bans/${later.ban_id}/revoke`, {
      key: a.key,
      game: 'g1',
      body: { reason_code: 'appeal' },
    });
    await api.request('PUT', '/v1/policy', { key: a.key, body: { enforce_global: false } });
    await api.settle();
    const after = await readAll(a.key, 'g1', 100, whole.cursor);
    // Nothing else wrote meanwhile: exactly these three, in order.
    expect(after.items.map((e) => e.type)).toEqual(['ban.created', 'ban.revoked', 'policy.updated']);
    expect(after.items[1].ban).toMatchObject({ ban_id: later.ban_id, revoke_reason_code: 'appeal' });
    expect(after.items[2]).toMatchObject({
      device_id: null,
      policy: { publisher_id: a.id, enforce_global: false },
    });
  });

  it('reports an erasure, and the erased ban loses its details in the earlier events too', async () => {
    const a = await publisher();
    const device = unique('dev');
    const evidence = `${device}-evidence`;
    const made = await ban(a.key, 'g1', { device_id: device, details: { evidence } });
    const erased = await api.request('POST', `/v1/device/${device}/erase`, { key: a.key });
    expect(erased.status).toBe(200);
    await api.settle();
    const feed = await readAll(a.key, 'g1');
    feed.items = feed.items.filter((e) => e.device_id === device);
    expect(feed.items.map((e) => e.type)).toEqual(['ban.created', 'ban.erased']);
    for (const event of feed.items)
      expect(event.ban).toMatchObject({ ban_id: made.ban_id, details_json: null });
    expect(feed.items[1].ban.enforced).toBe(false);
    const stored = await api.items({ derived: true });
    expect(JSON.stringify(stored)).not.toContain(evidence);
  });

  it('keeps no change record once settled: what a record held leaves the log with it', async () => {
    const a = await publisher();
    // Enough records that the last batch's pruning is still under way when the dispatch ends.
    await Promise.all(
      Array.from({ length: 60 }, () =>
        ban(a.key, 'g1', { device_id: unique('dev'), details: { clip: 'settled' } }),
      ),
    );
    await api.settle();
    const records = (await api.items({ derived: true })).filter(
      (item) =>
        String(item.pk).startsWith(partitions.changeLog) && String(item.sk).startsWith(CHANGE_ENTRY_PREFIX),
    );
    expect(records).toEqual([]);
  });

  it("refuses a cursor that is not this publisher's and game's, or not a cursor at all", async () => {
    const a = await publisher();
    const b = await publisher();
    await ban(a.key, 'g1', { device_id: unique('dev') });
    await api.settle();
    const { cursor } = await readAll(a.key, 'g1');
    for (const [key, game] of [
      [b.key, 'g1'],
      [a.key, 'g2'],
    ] as const) {
      const res = await api.request('GET', `/v1/events?cursor=${cursor}`, { key, game });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'invalid_request',
        details: [{ field: 'cursor', issue: 'invalid' }],
      });
    }
    for (const query of ['cursor=bm90LWEtY3Vyc29y', 'cursor=%2F%2F', 'limit=0', 'limit=501', 'other=1']) {
      const res = await api.request('GET', `/v1/events?${query}`, { key: a.key, game: 'g1' });
      expect(res.status, query).toBe(400);
    }
    expect((await api.request('GET', '/v1/events', { key: a.key })).status).toBe(400);
    const noScope = await publisher(['policy:read']);
    expect((await api.request('GET', '/v1/events', { key: noScope.key, game: 'g1' })).status).toBe(403);
  });
});

describe('webhooks', () => {
  it('shows the secret once, lists without it, and deletes; another publisher sees and deletes nothing', async () => {
    const a = await publisher();
    const b = await publisher();
    const made = await hook(a.key, { events: ['ban.created', 'ban.created'], games: ['g2', 'g1'] });
    expect(made).toMatchObject({
      events: ['ban.created'],
      games: ['g1', 'g2'],
      url: `${receiver.url}/hooks`,
    });
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(made.webhook_id).toMatch(/^wh_[A-Za-z0-9_-]{16}$/);

    const listed = await api.request('GET', '/v1/webhooks', { key: a.key });
    expect(listed.status).toBe(200);
    // Listed as made, without the secret, with its health: nothing sent yet.
    expect(listed.body.items).toEqual(
      [{ ...made, secret: undefined }].map(({ secret: _s, ...view }) => ({
        ...view,
        health: {
          last_attempt_at: null,
          last_outcome: null,
          last_status: null,
          last_error: null,
          last_delivered_at: null,
          failures_24h: 0,
        },
      })),
    );
    expect(listed.text).not.toContain(made.secret);
    expect((await api.request('GET', '/v1/webhooks', { key: b.key })).body.items).toEqual([]);

    for (const [method, path] of [
      ['DELETE', `/v1/webhooks/${made.webhook_id}`],
      ['GET', `/v1/webhooks/${made.webhook_id}/deliveries`],
    ] as const) {
      const res = await api.request(method, path, { key: b.key });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await api.request('GET', '/v1/webhooks', { key: a.key })).body.items).toHaveLength(1);

    const deleted = await api.request('DELETE', `/v1/webhooks/${made.webhook_id}`, { key: a.key });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api.request('GET', '/v1/webhooks', { key: a.key })).body.items).toEqual([]);
    expect((await api.request('DELETE', `/v1/webhooks/${made.webhook_id}`, { key: a.key })).status).toBe(404);
  });

  it('refuses bad URLs, unknown events, an eleventh webhook and keys without keys:manage, storing nothing', async () => {
    const a = await publisher();
    const before = await api.items();
    for (const body of [
      { url: 'ftp://example.com/hook' },
      { url: 'http://example.com/hook' },
      { url: 'https://user:pw@example.com/hook' },
      { url: 'https://10.0.0.1/hook' },
      { url: 'https://169.254.169.254/latest' },
      { url: 'http://10.0.0.1/hook' },
      { url: 'not a url' },
      { url: `${receiver.url}/hooks`, events: ['ban.exploded'] },
      { url: `${receiver.url}/hooks`, events: [] },
      { url: `${receiver.url}/hooks`, games: ['bad#game'] },
      { url: `${receiver.url}/hooks`, extra: true },
    ]) {
      const res = await api.request('POST', '/v1/webhooks', { key: a.key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    expect(await api.items()).toEqual(before);

    const made = await Promise.all(
      Array.from({ length: 12 }, () =>
        api.request('POST', '/v1/webhooks', { key: a.key, body: { url: `${receiver.url}/hooks` } }),
      ),
    );
    expect(made.filter((res) => res.status === 201)).toHaveLength(10);
    const refused = made.filter((res) => res.status !== 201);
    expect(refused).toHaveLength(2);
    for (const res of refused) {
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'url', issue: 'limit_reached' }]);
    }
    expect((await api.request('GET', '/v1/webhooks', { key: a.key })).body.items).toHaveLength(10);

    const reader = await api.createKey(a.id, 'reader', { scopes: ['bans:read'] });
    const denied = await api.request('POST', '/v1/webhooks', {
      key: reader.api_key,
      body: { url: `${receiver.url}/hooks` },
    });
    expect(denied.status).toBe(403);
    expect((await api.request('GET', '/v1/webhooks', { key: reader.api_key })).status).toBe(403);
  });

  it('POSTs each event signed (Standard Webhooks), its id the event id, its body the feed item, listed by device and ban', async () => {
    const a = await publisher();
    const b = await publisher();
    const mine = await hook(a.key);
    const theirs = await hook(b.key);
    const device = unique('dev');
    const made = await ban(a.key, 'g1', { device_id: device, scope: 'global', details: { clip: 'x' } });
    await api.settle();
    await receiver.waitFor(() => receiver.verified(mine.secret).some((e) => e.ban?.ban_id === made.ban_id));
    await receiver.waitFor(() => receiver.verified(theirs.secret).some((e) => e.ban?.ban_id === made.ban_id));

    const feed = await readAll(a.key, 'g1');
    const event = feed.items.find((e) => e.ban.ban_id === made.ban_id);
    const toA = receiver.received.find(
      (r) =>
        receiver.verified(mine.secret).length &&
        r.body.includes(String(made.ban_id)) &&
        JSON.parse(r.body).ban.details_json,
    );
    expect(toA?.headers['webhook-id']).toBe(event.event_id);
    expect(JSON.parse(toA?.body ?? '{}')).toEqual(event);
    expect(Number(toA?.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    // B, whose publisher did not make it, gets it as its listings show it: no details.
    const toB = receiver.verified(theirs.secret).find((e) => e.ban?.ban_id === made.ban_id);
    expect(toB.ban).toMatchObject({ publisher_id: a.id, details_json: null });
    // One signature per secret: A's delivery does not verify with B's.
    expect(receiver.verified(theirs.secret).some((e) => e.ban?.details_json)).toBe(false);

    // The sender records the attempt after the receiver has answered: wait for the record.
    const deliveries = () => api.request('GET', `/v1/webhooks/${mine.webhook_id}/deliveries`, { key: a.key });
    await expect
      .poll(async () => (await deliveries()).body.items, { timeout: 10_000 })
      .toEqual([
        expect.objectContaining({
          event_id: event.event_id,
          type: 'ban.created',
          // The listing names the device and the ban, as the body sent does.
          device_id: device,
          ban_id: made.ban_id,
          status: 'delivered',
          attempts: 1,
          last_status: 204,
        }),
      ]);
    expect((await deliveries()).status).toBe(200);
  });

  it('sends only the events and games a webhook asks for', async () => {
    const a = await publisher();
    const only = await hook(a.key, { events: ['ban.revoked'], games: ['g2'] });
    const device = unique('dev');
    const g1 = await ban(a.key, 'g1', { device_id: device });
    const g2 = await ban(a.key, 'g2', { device_id: device });
    const wide = await ban(a.key, 'g1', { device_id: device, scope: 'publisher' });
    for (const [made, game] of [
      [g1, 'g1'],
      [g2, 'g2'],
      [wide, 'g1'],
    ] as const) {
      await api.request('POST', `/v1/device/${device}/bans/${made.ban_id}/revoke`, {
        key: a.key,
        game,
        body: { reason_code: 'appeal' },
      });
    }
    await api.settle();
    await receiver.waitFor(() => receiver.verified(only.secret).length >= 2);
    await new Promise((done) => setTimeout(done, 300));
    const got = receiver.verified(only.secret);
    expect(got.map((e) => [e.type, e.ban.ban_id]).sort()).toEqual(
      [
        ['ban.revoked', g2.ban_id],
        ['ban.revoked', wide.ban_id],
      ].sort(),
    );
  });

  it("drops an erased ban's details and player message from its deliveries still pending, and from the stored feed", async () => {
    const a = await publisher();
    const made = await hook(a.key);
    const device = unique('dev');
    const evidence = `${device}-evidence`;
    const message = `Banned: ${device}-message`;
    let erased = false;
    receiver.answer = (request) => (request.body.includes(device) && !erased ? 503 : 204);
    try {
      const created = await ban(a.key, 'g1', {
        device_id: device,
        details: { evidence },
        player_message: message,
      });
      await receiver.waitFor((all) => all.some((r) => r.body.includes(evidence)));
      expect((await api.request('POST', `/v1/device/${device}/erase`, { key: a.key })).status).toBe(200);
      await api.settle();
      erased = true;
      await receiver.waitFor(() =>
        receiver
          .verified(made.secret)
          .some((e) => e.type === 'ban.erased' && e.ban.ban_id === created.ban_id),
      );
      await receiver.waitFor(() =>
        receiver
          .verified(made.secret)
          .some(
            (e) =>
              e.type === 'ban.created' &&
              e.ban.ban_id === created.ban_id &&
              e.ban.details_json === null &&
              e.ban.player_message === null,
          ),
      );
      const stored = JSON.stringify(await api.items({ derived: true }));
      expect(stored).not.toContain(evidence);
      expect(stored).not.toContain(message);
    } finally {
      receiver.answer = () => 204;
    }
  });

  it('lists only the deliveries in the state asked for, and refuses a state it does not know', async () => {
    const a = await publisher();
    const made = await hook(a.key);
    const failing = unique('dev');
    receiver.answer = (request) => (request.body.includes(failing) ? 503 : 204);
    try {
      await ban(a.key, 'g1', { device_id: unique('dev') });
      await ban(a.key, 'g1', { device_id: failing });
      const deliveries = (status?: string) =>
        api.request('GET', `/v1/webhooks/${made.webhook_id}/deliveries${status ? `?status=${status}` : ''}`, {
          key: a.key,
        });
      const until = Date.now() + 10_000;
      while (Date.now() < until) {
        const all = (await deliveries()).body.items as Array<{ status: string }>;
        if (all.some((d) => d.status === 'delivered') && all.some((d) => d.status === 'pending')) break;
        await new Promise((done) => setTimeout(done, 50));
      }
      const pending = await deliveries('pending');
      expect(pending.status).toBe(200);
      expect(pending.body.items.map((d: { status: string }) => d.status)).toEqual(['pending']);
      const delivered = await deliveries('delivered');
      expect(delivered.body.items.map((d: { status: string }) => d.status)).toEqual(['delivered']);
      const bad = await deliveries('stuck');
      expect(bad.status).toBe(400);
      expect(bad.body.error.details).toEqual([{ field: 'status', issue: 'invalid_value' }]);
    } finally {
      receiver.answer = () => 204;
    }
  });

  it('retries a failing receiver with the same id and body until it answers 2xx', async () => {
    const a = await publisher();
    const made = await hook(a.key);
    const device = unique('dev');
    const failures = new Map<string, number>();
    receiver.answer = (request) => {
      if (!request.body.includes(device)) return 204;
      const seen = (failures.get(device) ?? 0) + 1;
      failures.set(device, seen);
      return seen <= 2 ? 500 : 204;
    };
    try {
      const created = await ban(a.key, 'g1', { device_id: device });
      await receiver.waitFor((all) => all.filter((r) => r.body.includes(device)).length >= 3);
      const tries = receiver.received.filter((r) => r.body.includes(device));
      expect(new Set(tries.map((r) => r.headers['webhook-id'])).size).toBe(1);
      expect(new Set(tries.map((r) => r.body)).size).toBe(1);
      expect(receiver.verified(made.secret).filter((e) => e.ban.ban_id === created.ban_id)).toHaveLength(3);
      const until = Date.now() + 10_000;
      let delivery: any;
      while (Date.now() < until) {
        const res = await api.request('GET', `/v1/webhooks/${made.webhook_id}/deliveries`, { key: a.key });
        delivery = res.body.items[0];
        if (delivery?.status === 'delivered') break;
        await new Promise((done) => setTimeout(done, 50));
      }
      expect(delivery).toMatchObject({
        status: 'delivered',
        attempts: 3,
        last_status: 204,
        last_error: null,
      });
    } finally {
      receiver.answer = () => 204;
    }
  });
});
