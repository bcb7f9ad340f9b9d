import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../support/receiver';
import { launchChromium } from './support/chromium';
import { eventually, openSection, rowsOf, signIn, statusHolding } from './support/console';
import {
  axeScan,
  type ConsolePage,
  narrowAxeScan,
  openPage,
  screenshot,
  seriousViolations,
  unexpectedProblems,
} from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * A webhook's health in the console: the list shows its latest attempt (when, and how,
 * in words) and its failed attempts in 24 hours, as the API counts them; "Send test event" queues
 * a signed `webhook.test` delivery, says so, and shows it among the webhook's deliveries as it goes.
 */

let server: LocalServer;
let browser: Browser;
let receiver: Receiver;
let console_: ConsolePage;

beforeAll(async () => {
  [server, browser, receiver] = await Promise.all([startServer(), launchChromium(), startReceiver()]);
  console_ = await openPage(browser, server.devicesUrl);
  await signIn(console_.page, server.devKey);
});
afterAll(async () => {
  await console_?.close();
  await browser?.close();
  await server?.stop();
  await receiver?.close();
});

describe('webhook health and test events', () => {
  it('sends a test event from the list, shows it in the deliveries, and the health as it failed, then succeeded', async () => {
    const { page, problems } = console_;
    const made = await server.call('POST', '/v1/webhooks', { body: { url: `${receiver.url}/health` } });
    expect(made.status).toBe(201);
    const { webhook_id: id, secret } = made.body as { webhook_id: string; secret: string };
    let failing = true;
    receiver.answer = () => (failing ? 503 : 204);

    await openSection(page, 'Webhooks');
    const webhooks = page.getByRole('table', { name: /^Webhooks of your publisher/ });
    await webhooks.waitFor();
    // Columns: webhook, URL, events, games, created, health, actions.
    const row = async () => (await rowsOf(webhooks)).find((r) => r[0] === id) as string[];
    expect((await row())[5]).toBe('No attempt yet0 failed attempts in 24 h');

    await page.getByRole('button', { name: `Send a test event to ${id}` }).click();
    await statusHolding(page, new RegExp(`^Test event evt_[A-Za-z0-9_-]{24} queued to ${id}`));
    const deliveries = page.getByRole('table', { name: /^Deliveries, newest event first/ });
    await deliveries.waitFor();
    const [tested] = await eventually(
      () => rowsOf(deliveries),
      (rows) => rows.length === 1 && rows[0]?.[1] === 'webhook.test',
    );
    const eventId = tested?.[0] as string;

    // The receiver refuses it: each attempt fails and is counted, as the API counts them.
    await receiver.waitFor((got) => got.length >= 2);
    const failed = await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh webhooks' }).click();
        await page.waitForLoadState('networkidle');
        return row();
      },
      (r) => /^failed /.test(r[5] ?? '') && !/ 0 failed attempts/.test(r[5] ?? ''),
    );
    expect(failed[5]).toContain('http status 503');
    await expect
      .poll(async () => page.locator('.badge-failed', { hasText: 'failed' }).count())
      .toBeGreaterThan(0);

    failing = false;
    await receiver.waitFor(
      (got) => got.some((r) => r.body.includes(eventId)) && receiver.verified(secret).length > 0,
    );
    const healthy = await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh webhooks' }).click();
        await page.waitForLoadState('networkidle');
        return row();
      },
      (r) => /^delivered /.test(r[5] ?? ''),
    );
    const [api] = (await server.call('GET', '/v1/webhooks')).body.items.filter(
      (w: { webhook_id: string }) => w.webhook_id === id,
    );
    expect(api.health).toMatchObject({ last_outcome: 'delivered', last_status: 204, last_error: null });
    expect(api.health.failures_24h).toBeGreaterThan(0);
    const failures = api.health.failures_24h as number;
    expect(healthy[5]).toMatch(new RegExp(`${failures} failed attempts? in 24 h$`));
    // Signed with the webhook's secret: the test event, and no ban.
    const [verified] = receiver.verified(secret);
    expect(verified).toMatchObject({
      event_id: eventId,
      type: 'webhook.test',
      webhook_id: id,
      device_id: null,
    });

    // The deliveries show it delivered, after the attempts that failed.
    await page.getByLabel('Show', { exact: true }).selectOption('delivered');
    const [done] = await eventually(
      () => rowsOf(deliveries),
      (rows) => rows.length === 1 && rows[0]?.[5] === 'delivered',
    );
    // A test event is about no device and no ban: the row says so.
    expect(done?.slice(0, 4)).toEqual([eventId, 'webhook.test', '—', '—']);
    expect(done?.[6]).toBe(String(failures + 1));

    await screenshot(page, 'webhook-health', page.getByRole('region', { name: 'Webhooks', exact: true }));
    expect(seriousViolations(await axeScan(page, 'webhook-health'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'webhook-health'))).toEqual([]);
    receiver.answer = () => 204;
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});
