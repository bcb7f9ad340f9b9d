import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyKey, devicePartition, policyKey } from '../../lib/storage/keys';
import { type FaultProxy, startFaultProxy } from '../support/faults';
import { launchChromium } from './support/chromium';
import {
  alertHolding,
  bansTable,
  eventually,
  lookUp,
  openSection,
  policyConfirm,
  savePolicy,
  setGame,
  signIn,
  signInForm,
  statusHolding,
} from './support/console';
import { axeScan, type ConsolePage, openPage, screenshot, seriousViolations } from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * Bad answers: a 503 from the API, a network error and a 429 each get a clear message
 * in the page, and nothing is left half-done: what the API holds afterwards is asked directly.
 *
 * The 503s are real: `npm start` runs over a store behind a proxy (test/support/faults.ts) that
 * answers chosen storage calls with DynamoDB's InternalServerError, so the API's own retries run
 * out and it answers 503 with Retry-After. The 429s are real too: a second `npm start` with
 * RATE_LIMIT_RPS=0.01 and RATE_LIMIT_BURST=1 (one request per route and publisher, then 100 s to
 * wait). Network errors are the browser's own: Playwright fails the request
 * (`route.abort`), before it leaves or after the API answered (the answer lost on the way back).
 */

const GAME = 'game-1';
const FAULT = 'InternalServerError' as const;
/** Attempts the storage client makes per call (lib/storage/client.ts). */
const STORE_ATTEMPTS = 3;

let store: { url: string; close(): Promise<void> };
let proxy: FaultProxy;
let server: LocalServer;
let browser: Browser;

beforeAll(async () => {
  const db = dynalite({ createTableMs: 0 });
  await new Promise<void>((done) => db.listen(0, '127.0.0.1', () => done()));
  store = {
    url: `http://127.0.0.1:${(db.address() as AddressInfo).port}`,
    close: () => new Promise<void>((done) => db.close(() => done())),
  };
  proxy = await startFaultProxy(store.url);
  [server, browser] = await Promise.all([
    startServer({ DYNAMODB_ENDPOINT: proxy.url, TABLE_NAME: 'console-faults' }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await server?.stop();
  await store?.close();
});

const bansOf = async (device: string, status = 'all') => {
  const listed = await server.call('GET', `/v1/device/${device}/bans?status=${status}`, { game: GAME });
  expect(listed.status).toBe(200);
  return listed.body.items as any[];
};
const auditOf = async (device: string) =>
  (await server.call('GET', `/v1/audit?device_id=${device}`)).body.items as any[];

const createForm = (page: Page) => page.getByRole('region', { name: 'Create a ban', exact: true });
const fillBan = async (page: Page, device: string, reason = 'aimbot') => {
  const form = createForm(page);
  await form.getByLabel('Device ID to ban').fill(device);
  await form.getByLabel('Reason code').fill(reason);
};
const UNAVAILABLE = /The service is unavailable \(503\): try again in 1 s\. Trying again is safe\./;

describe('a 503 from the API', () => {
  let console_: ConsolePage;
  beforeAll(async () => {
    console_ = await openPage(browser, server.devicesUrl);
  });
  afterAll(() => console_?.close());

  it('at sign-in: says the service is unavailable, stays signed out, and signs in once it is back', async () => {
    const { page } = console_;
    const hash = createHash('sha256').update(server.devKey).digest('hex');
    const rule = proxy.fail({ operation: 'GetItem', key: apiKeyKey(hash).pk, fault: FAULT });
    await (await signInForm(page)).fill(server.devKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await alertHolding(page, /Could not sign in\. The service is unavailable \(503\)/);
    expect(rule.faulted.length).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    await screenshot(page, 'error-503-sign-in');
    rule.clear();
    await signIn(page, server.devKey);
    await setGame(page, GAME);
  });

  it('creating a ban: says so, stores nothing, and the same form sent again makes exactly one ban', async () => {
    const { page } = console_;
    const device = 'device-503-create';
    const rule = proxy.fail({ operation: 'PutItem', key: devicePartition(device), fault: FAULT });
    await fillBan(page, device);
    await createForm(page).getByRole('button', { name: 'Create ban' }).click();
    await alertHolding(createForm(page), UNAVAILABLE);
    expect(rule.faulted.length).toBeGreaterThan(0);
    await screenshot(page, 'error-503-create', createForm(page));
    expect(seriousViolations(await axeScan(page, 'error-503-create'))).toEqual([]);
    rule.clear();
    expect(await bansOf(device)).toEqual([]);
    expect((await auditOf(device)).filter((e) => e.type === 'ban.created')).toEqual([]);

    // The form keeps what was typed; sending it again finishes the one ban.
    expect(await createForm(page).getByLabel('Device ID to ban').inputValue()).toBe(device);
    // (The API answers this retry idempotent_ok: the first attempt recorded the form's idempotency
    // key, and the retry completes that ban.)
    await createForm(page).getByRole('button', { name: 'Create ban' }).click();
    const done = await statusHolding(createForm(page), /[Bb]an \d+/);
    const stored = await bansOf(device);
    expect(stored).toHaveLength(1);
    expect(done.toLowerCase()).toContain(`ban ${stored[0].ban_id}`);
    expect((await auditOf(device)).filter((e) => e.type === 'ban.created')).toHaveLength(1);
  });

  it('looking a device up: says so and shows no result', async () => {
    const { page } = console_;
    const device = 'device-503-lookup';
    await server.call('POST', '/v1/bans', {
      game: GAME,
      body: { device_id: device, ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
    });
    const rule = proxy.fail({ operation: 'Query', key: devicePartition(device), fault: FAULT });
    await page.getByLabel('Device ID', { exact: true }).fill(device);
    await page.getByRole('button', { name: 'Look up', exact: true }).click();
    await alertHolding(page.getByRole('region', { name: 'Look up a device', exact: true }), UNAVAILABLE);
    expect(await bansTable(page, device).count()).toBe(0);
    rule.clear();
    await lookUp(page, device);
  });

  it('revoking a ban: says so, the ban stays active, and revoking again revokes it once', async () => {
    const { page } = console_;
    const device = 'device-503-lookup';
    const [target] = await bansOf(device);
    const rule = proxy.fail({ operation: 'UpdateItem', key: devicePartition(device), fault: FAULT });
    await page.getByRole('button', { name: `Revoke ban ${target.ban_id}` }).click();
    const panel = page.getByRole('region', { name: `Revoke ban ${target.ban_id}`, exact: true });
    await panel.getByLabel('Revoke reason').selectOption('appeal_upheld');
    await panel.getByRole('button', { name: 'Revoke ban' }).click();
    await alertHolding(panel, UNAVAILABLE);
    rule.clear();
    expect((await bansOf(device, 'active')).map((b) => b.ban_id)).toEqual([target.ban_id]);
    await panel.getByRole('button', { name: 'Revoke ban' }).click();
    await statusHolding(page, `Ban ${target.ban_id} revoked with reason appeal_upheld`);
    expect(await bansOf(device, 'active')).toEqual([]);
    expect((await auditOf(device)).filter((e) => e.type === 'ban.revoked')).toHaveLength(1);
  });

  it('erasing a device: says so, erases nothing, and erasing again erases every ban once', async () => {
    const { page } = console_;
    const device = 'device-503-erase';
    for (const reason of ['aimbot', 'wallhack']) {
      const made = await server.call('POST', '/v1/bans', {
        game: GAME,
        body: { device_id: device, ban_type: 'cheat', scope: 'game', reason_code: reason },
      });
      expect(made.status).toBe(201);
    }
    expect(await bansOf(device)).toHaveLength(2);
    await lookUp(page, device);
    const rule = proxy.fail({ operation: 'DeleteItem', key: devicePartition(device), fault: FAULT });
    const panel = page.getByRole('region', { name: "Erase this device's data", exact: true });
    await panel.getByLabel('Type the device ID to confirm').fill(device);
    await panel.getByRole('button', { name: 'Erase device data' }).click();
    await alertHolding(panel, UNAVAILABLE);
    // The API answers 503 as soon as one delete has failed its 3 attempts, while the other may
    // still be retrying (an erasure that failed may be partly done; docs/api.md: a retry finishes
    // it). Lifting the fault only once every attempt of both deletes was refused makes the state
    // after the 503 a known one: nothing erased.
    await eventually(
      async () => rule.faulted.length,
      (n) => n >= 2 * STORE_ATTEMPTS,
    );
    rule.clear();
    expect(await bansOf(device)).toHaveLength(2);
    await panel.getByLabel('Type the device ID to confirm').fill(device);
    await panel.getByRole('button', { name: 'Erase device data' }).click();
    await statusHolding(page, `Erased 2 bans of ${device}`);
    expect(await bansOf(device)).toEqual([]);
    expect((await auditOf(device)).filter((e) => e.type === 'device.erased')).toHaveLength(1);
  });

  it('saving the policy: says so, the policy is unchanged, and the change is still there to save', async () => {
    const { page } = console_;
    const before = (await server.call('GET', '/v1/policy')).body;
    await openSection(page, 'Policy');
    await page.getByRole('group', { name: 'Flags of dev-publisher' }).waitFor();
    const rule = proxy.fail({ operation: 'UpdateItem', key: policyKey('dev-publisher').pk, fault: FAULT });
    await page.getByLabel('enforce_publisher', { exact: true }).uncheck();
    await savePolicy(page);
    await alertHolding(page, UNAVAILABLE);
    rule.clear();
    expect((await server.call('GET', '/v1/policy')).body).toEqual(before);
    expect(await page.getByLabel('enforce_publisher', { exact: true }).isChecked()).toBe(false);
    // The confirmation is still open: the same change, saved again.
    await policyConfirm(page).getByRole('button', { name: 'Save the change' }).click();
    await statusHolding(page, 'Policy saved: enforce_publisher off.');
    expect((await server.call('GET', '/v1/policy')).body.enforce_publisher).toBe(false);
    await openSection(page, 'Devices');
  });
});

describe('a network error', () => {
  let console_: ConsolePage;
  beforeAll(async () => {
    console_ = await openPage(browser, server.devicesUrl);
    await signIn(console_.page, server.devKey);
    await setGame(console_.page, GAME);
  });
  afterAll(() => console_?.close());

  const NETWORK = 'Could not reach the API (network error). Check the connection and try again.';

  it('before the request leaves: says the API could not be reached, and nothing is stored', async () => {
    const { page } = console_;
    const device = 'device-offline';
    await page.route('**/v1/bans', (route) => route.abort('connectionrefused'));
    await fillBan(page, device);
    await createForm(page).getByRole('button', { name: 'Create ban' }).click();
    await alertHolding(createForm(page), NETWORK);
    await screenshot(page, 'error-network', createForm(page));
    await page.unroute('**/v1/bans');
    expect(await bansOf(device)).toEqual([]);

    await page.route('**/v1/device/*/enforcement', (route) => route.abort('internetdisconnected'));
    await page.getByLabel('Device ID', { exact: true }).fill(device);
    await page.getByRole('button', { name: 'Look up', exact: true }).click();
    await alertHolding(page.getByRole('region', { name: 'Look up a device', exact: true }), NETWORK);
    await page.unroute('**/v1/device/*/enforcement');
  });

  it('after the API made the ban (the answer lost): sending the form again makes no second ban', async () => {
    const { page } = console_;
    const device = 'device-answer-lost';
    await page.route('**/v1/bans', async (route) => {
      await route.fetch();
      await route.abort('connectionreset');
    });
    await fillBan(page, device, 'wallhack');
    await createForm(page).getByRole('button', { name: 'Create ban' }).click();
    await alertHolding(createForm(page), NETWORK);
    await page.unroute('**/v1/bans');
    const [made] = await bansOf(device);
    expect(made).toMatchObject({ reason_code: 'wallhack' });

    await createForm(page).getByRole('button', { name: 'Create ban' }).click();
    await statusHolding(createForm(page), `ban ${made.ban_id}`);
    expect(await bansOf(device)).toHaveLength(1);
    expect((await auditOf(device)).filter((e) => e.type === 'ban.created')).toHaveLength(1);
  });
});

describe('a 429 from the API', () => {
  let limited: LocalServer;
  let console_: ConsolePage;
  beforeAll(async () => {
    // The file's first server has served its tests: stopped now, this one runs in this process
    // (startServer), not as `npm start` in a child (seconds of CPU to start).
    await server.stop();
    limited = await startServer({ RATE_LIMIT_RPS: '0.01', RATE_LIMIT_BURST: '1' });
    console_ = await openPage(browser, limited.devicesUrl);
    // Sign-in reads /v1/policy, /v1/keys and /v1/audit once each, and sends PUT /v1/policy and
    // POST /v1/bans once each with a body that cannot succeed (to learn policy:write and
    // bans:write): each route's one request of the next 100 s.
    await signIn(console_.page, limited.devKey);
    await setGame(console_.page, GAME);
  });
  afterAll(async () => {
    await console_?.close();
    await limited?.stop();
  });

  const THROTTLED = /Too many requests \(429\): try again in \d+ s\./;

  it('creating a ban: says when to try again, and nothing is stored', async () => {
    const { page } = console_;
    // This publisher's one POST /v1/bans of the next 100 s was spent by the sign-in's probe, which
    // stored nothing: the next one is refused.
    expect((await limited.call('POST', '/v1/bans', { game: GAME, body: {} })).status).toBe(429);
    await fillBan(page, 'device-throttled');
    await createForm(page).getByRole('button', { name: 'Create ban' }).click();
    const text = await alertHolding(createForm(page), THROTTLED);
    expect(Number(/in (\d+) s/.exec(text)?.[1])).toBeGreaterThan(1);
    await screenshot(page, 'error-429', createForm(page));
    const listed = await limited.call('GET', `/v1/device/device-throttled/bans?status=all`, { game: GAME });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([]);
  });

  it('looking a device up: says when to try again and shows no result', async () => {
    const { page } = console_;
    expect((await limited.call('GET', '/v1/device/d/enforcement', { game: GAME })).status).toBe(200);
    await page.getByLabel('Device ID', { exact: true }).fill('device-throttled');
    await page.getByRole('button', { name: 'Look up', exact: true }).click();
    await alertHolding(page.getByRole('region', { name: 'Look up a device', exact: true }), THROTTLED);
    expect(await bansTable(page, 'device-throttled').count()).toBe(0);
  });
});
