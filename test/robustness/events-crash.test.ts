import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, startTs } from '../support/processes';
import { type Receiver, startReceiver } from '../support/receiver';

/**
 * Nothing is lost: `npm start` killed with SIGKILL between a write and its delivery delivers it
 * after a restart, and a receiver that is down gets everything once it is back. Real processes,
 * a real receiver on the loopback; on the embedded store, and on DynamoDB Local when
 * TEST_DYNAMODB_ENDPOINT is set (test/ddb-local/run.ts).
 */

const dirs: string[] = [];
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** One store for the life of a test: a data folder, or a table of its own on the given endpoint. */
const storeEnv = (): Record<string, string> => {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (endpoint) return { DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: `crash-${randomUUID()}` };
  const dir = mkdtempSync(join(tmpdir(), 'bans-events-'));
  dirs.push(dir);
  return { DATA_DIR: dir };
};

const start = (env: Record<string, string>) =>
  startTs(
    'infra/local/main.ts',
    childEnv({ PORT: '0', ...env }),
    /listening on http:\/\/127\.0\.0\.1:\d+[\s\S]*(curl|already has a key)/,
  );

const call = async (
  url: string,
  method: string,
  path: string,
  key: string,
  body?: unknown,
  game?: string,
) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(game ? { 'X-Game-Id': game } : {}),
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
};

const boot = async (env: Record<string, string>) => {
  const server = await start(env);
  const output = server.output();
  const url = (/listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output) as RegExpExecArray)[1] as string;
  const key = /bsk_[A-Za-z0-9_-]{43}/.exec(output)?.[0];
  return { server, url, key };
};

const banBody = (device: string) => ({
  device_id: device,
  ban_type: 'cheat',
  scope: 'game',
  reason_code: 'aimbot',
});

describe('events survive a crash and an absent receiver', () => {
  it('delivers a write acknowledged just before kill -9, after the restart, and the feed has it once', async () => {
    const store = storeEnv();
    const env = { ...store, WEBHOOK_RETRY_BASE_MS: '200' };
    const receiver = await startReceiver();
    receivers.push(receiver);
    // The first delivery is held open: the process dies with it in flight.
    receiver.answer = (_request, index) => (index === 0 ? 'hang' : 204);

    const first = await boot(env);
    const key = first.key as string;
    const hook = await call(first.url, 'POST', '/v1/webhooks', key, { url: `${receiver.url}/h` });
    expect(hook.status).toBe(201);
    const made = await call(first.url, 'POST', '/v1/bans', key, banBody('crash-1'), 'dev-game');
    expect(made.status).toBe(201);
    await receiver.waitFor((all) => all.length >= 1);
    // A second write, acknowledged, then SIGKILL at once: it may not even be dispatched.
    const second = await call(first.url, 'POST', '/v1/bans', key, banBody('crash-2'), 'dev-game');
    expect(second.status).toBe(201);
    await first.server.stop('SIGKILL');

    const again = await boot(env);
    try {
      await receiver.waitFor(() => {
        const ids = receiver.verified(hook.body.secret).map((event) => event.ban.ban_id);
        return ids.includes(made.body.ban_id) && ids.includes(second.body.ban_id);
      });
      const feed = await call(again.url, 'GET', '/v1/events?limit=100', key, undefined, 'dev-game');
      expect(feed.status).toBe(200);
      expect(feed.body.items.map((event: any) => event.ban.ban_id)).toEqual([
        made.body.ban_id,
        second.body.ban_id,
      ]);
      // At least once: the one in flight is sent again, under the same id.
      const ids = receiver.received.map((request) => request.headers['webhook-id']);
      expect(new Set(ids)).toEqual(new Set(feed.body.items.map((event: any) => event.event_id)));
    } finally {
      await again.server.stop();
    }
  });

  it('gets a receiver that was down everything once it is back, each event under one id', async () => {
    const store = storeEnv();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const first = await boot({ ...store, WEBHOOK_RETRY_BASE_MS: '100' });
    try {
      const key = first.key as string;
      const hook = await call(first.url, 'POST', '/v1/webhooks', key, { url: `${receiver.url}/h` });
      expect(hook.status).toBe(201);
      await receiver.shut();
      const made: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const res = await call(first.url, 'POST', '/v1/bans', key, banBody(`down-${i}`), 'dev-game');
        made.push(res.body.ban_id);
      }
      // Down for a while: until each delivery was tried twice (retries scaled by
      // WEBHOOK_RETRY_BASE_MS), every attempt failed.
      const deliveries = async () =>
        (await call(first.url, 'GET', `/v1/webhooks/${hook.body.webhook_id}/deliveries`, key)).body
          .items as Array<Record<string, any>>;
      await expect
        .poll(async () => (await deliveries()).filter((d) => d.attempts >= 2).length, { timeout: 15_000 })
        .toBe(5);
      const pending = await deliveries();
      expect(pending).toHaveLength(5);
      for (const delivery of pending) {
        expect(delivery).toMatchObject({ status: 'pending', last_status: null });
        expect(delivery.attempts).toBeGreaterThanOrEqual(2);
        expect(delivery.last_error).toMatch(/refused/);
      }
      await receiver.open();
      await receiver.waitFor(() => receiver.verified(hook.body.secret).length >= 5, 30_000);
      const got = receiver.verified(hook.body.secret).map((event) => event.ban.ban_id);
      expect(new Set(got)).toEqual(new Set(made));
      // The receiver has the last one a moment before its sender records the answer: wait for that.
      await expect
        .poll(
          async () =>
            (
              await call(first.url, 'GET', `/v1/webhooks/${hook.body.webhook_id}/deliveries`, key)
            ).body.items.map((d: any) => d.status),
          { timeout: 10_000 },
        )
        .toEqual(Array(5).fill('delivered'));
    } finally {
      await first.server.stop();
    }
  });

  it('keeps a delivery as failed after the whole retry window, and the feed still has the event', async () => {
    const store = storeEnv();
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.answer = () => 503;
    // A base of 1 ms makes the 24-hour window 2.9 s.
    const first = await boot({ ...store, WEBHOOK_RETRY_BASE_MS: '1' });
    try {
      const key = first.key as string;
      const hook = await call(first.url, 'POST', '/v1/webhooks', key, { url: `${receiver.url}/h` });
      const made = await call(first.url, 'POST', '/v1/bans', key, banBody('failing'), 'dev-game');
      let delivery: any;
      const until = Date.now() + 20_000;
      while (Date.now() < until) {
        const res = await call(first.url, 'GET', `/v1/webhooks/${hook.body.webhook_id}/deliveries`, key);
        delivery = res.body.items[0];
        if (delivery?.status === 'failed') break;
        await new Promise((done) => setTimeout(done, 200));
      }
      expect(delivery).toMatchObject({
        status: 'failed',
        last_status: 503,
        next_attempt_at: null,
        delivered_at: null,
      });
      expect(delivery.attempts).toBeGreaterThan(5);
      expect(receiver.received).toHaveLength(delivery.attempts);
      // The window runs from the first attempt's stamp, which its receipt follows by a request's time:
      // 71 ms on a loaded 2-core host (a CI run of 2026-11-26), so the bound allows 250 ms: a sender
      // giving up more than about two backoffs (at most 120 ms each here) early still fails it.
      expect(Date.parse(delivery.last_attempt_at) - (receiver.received[0]?.at ?? 0)).toBeGreaterThanOrEqual(
        2_880 - 250,
      );
      const feed = await call(first.url, 'GET', '/v1/events', key, undefined, 'dev-game');
      expect(feed.body.items.map((event: any) => event.ban.ban_id)).toEqual([made.body.ban_id]);
    } finally {
      await first.server.stop();
    }
  });
});
