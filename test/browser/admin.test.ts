import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../support/receiver';
import { launchChromium } from './support/chromium';
import {
  alertHolding,
  eventually,
  lookUp,
  openSection,
  rowsOf,
  savePolicy,
  setGame,
  signIn,
  statusHolding,
  storageOf,
} from './support/console';
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
 * The publisher's settings in the console: the policy with a preview before saving,
 * the audit trail with its filters, API keys (a scoped, game-bound key shown once; revoking) and
 * webhooks (adding one for a receiver on 127.0.0.1, its deliveries). Each is checked against what
 * the API then answers, and the preview against what the API computes once the policy is saved.
 */

const GAME = 'game-1';

let server: LocalServer;
let browser: Browser;
let receiver: Receiver;
let console_: ConsolePage;
const sent: Request[] = [];

beforeAll(async () => {
  [server, browser, receiver] = await Promise.all([startServer(), launchChromium(), startReceiver()]);
  console_ = await openPage(browser, server.devicesUrl);
  console_.page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/v1/')) sent.push(request);
  });
  await signIn(console_.page, server.devKey);
  await setGame(console_.page, GAME);
});
afterAll(async () => {
  await console_?.close();
  await browser?.close();
  await server?.stop();
  await receiver?.close();
});

const ban = async (device: string, body: Record<string, unknown>, game = GAME) => {
  const made = await server.call('POST', '/v1/bans', { game, body: { device_id: device, ...body } });
  expect(made.status).toBe(201);
  return made.body.ban_id as number;
};
const region = (name: string | RegExp) => console_.page.getByRole('region', { name, exact: true });

describe('the policy', () => {
  const DEVICE = 'device-policy';

  it('previews how a change would enforce the open device, saves only when asked, and the API then answers what the preview showed', async () => {
    const { page, problems } = console_;
    await ban(DEVICE, { ban_type: 'social', scope: 'global', reason_code: 'spam' });
    await ban(DEVICE, { ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' });
    await ban(DEVICE, { ban_type: 'social', scope: 'publisher', reason_code: 'toxicity' });
    await ban(DEVICE, { ban_type: 'cheat', scope: 'global', reason_code: 'wallhack' });
    await lookUp(page, DEVICE);
    await openSection(page, 'Policy');
    await page.getByRole('group', { name: 'Flags of dev-publisher' }).waitFor();

    const before = (await server.call('GET', '/v1/policy')).body;
    const flags = Object.keys(before).filter((k) => k.startsWith('enforce_') || k.startsWith('rep_include_'));
    expect(flags).toHaveLength(8);
    for (const flag of flags)
      expect(await page.getByLabel(flag, { exact: true }).isChecked(), flag).toBe(before[flag]);

    await page.getByLabel('enforce_social_global', { exact: true }).check();
    await page.getByLabel('rep_include_global', { exact: true }).uncheck();
    await page.getByLabel('enforce_game', { exact: true }).uncheck();
    const preview = page.getByRole('table', { name: `Preview for ${DEVICE} in game ${GAME}` });
    const rows = await rowsOf(preview);
    // Nothing is saved by editing: the API still has the old policy.
    expect((await server.call('GET', '/v1/policy')).body).toEqual(before);
    await screenshot(page, 'policy-preview', region('Policy'));
    expect(seriousViolations(await axeScan(page, 'policy-preview'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'policy-preview'))).toEqual([]);

    await savePolicy(page);
    await statusHolding(
      page,
      'Policy saved: enforce_game off, enforce_social_global on, rep_include_global off.',
    );
    const after = (await server.call('GET', '/v1/policy')).body;
    expect(after).toMatchObject({
      enforce_game: false,
      enforce_social_global: true,
      rep_include_global: false,
    });
    for (const flag of flags.filter(
      (f) => !['enforce_game', 'enforce_social_global', 'rep_include_global'].includes(f),
    ))
      expect(after[flag]).toBe(before[flag]);

    // The preview's "after saving" column is what the API now computes for the device.
    const enforcement = (await server.call('GET', `/v1/device/${DEVICE}/enforcement`, { game: GAME })).body;
    const listed = (await server.call('GET', `/v1/device/${DEVICE}/bans?status=all`, { game: GAME })).body
      .items;
    const word = (restricted: boolean) => (restricted ? 'restricted' : 'not restricted');
    const expected = [
      ['Cheat', word(enforcement.restricted.cheat)],
      ['Social', word(enforcement.restricted.social)],
      ['Reputation score', String(enforcement.reputation.score)],
      ...listed.map((b: any) => [
        `Ban ${b.ban_id} (${b.ban_type}, ${b.scope}) enforced`,
        b.enforced ? 'yes' : 'no',
      ]),
    ];
    expect(rows.map((row) => [row[0], row[2]])).toEqual(expected);
    // And the change was real: the game ban no longer applies, the global social one does.
    expect(rows.filter((row) => row[3] === 'changes').length).toBeGreaterThanOrEqual(3);

    const audit = (await server.call('GET', '/v1/audit?type=policy.updated')).body.items;
    expect(audit).toHaveLength(1);
    expect(audit[0].before).toMatchObject({
      enforce_game: true,
      enforce_social_global: false,
      rep_include_global: true,
    });
    expect(audit[0].after).toMatchObject({
      enforce_game: false,
      enforce_social_global: true,
      rep_include_global: false,
    });
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('discards an unsaved change without a request', async () => {
    const { page } = console_;
    const before = (await server.call('GET', '/v1/policy')).body;
    const puts = sent.filter((r) => r.method() === 'PUT').length;
    await page.getByLabel('rep_include_game', { exact: true }).uncheck();
    await page.getByRole('button', { name: 'Discard changes' }).click();
    expect(await page.getByLabel('rep_include_game', { exact: true }).isChecked()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save policy' }).isDisabled()).toBe(true);
    expect(sent.filter((r) => r.method() === 'PUT').length).toBe(puts);
    expect((await server.call('GET', '/v1/policy')).body).toEqual(before);
  });
});

describe('the audit trail', () => {
  const DEVICE = 'device-audit';

  it('lists what the keys changed, newest first, filtered by type and device and page by page, as the API does', async () => {
    const { page, problems } = console_;
    for (let i = 0; i < 30; i++)
      await ban(DEVICE, { ban_type: 'cheat', scope: 'game', reason_code: `r-${i}` });
    const revoked = await ban(DEVICE, { ban_type: 'social', scope: 'game', reason_code: 'spam' });
    await server.call('POST', `/v1/device/${DEVICE}/bans/${revoked}/revoke`, {
      game: GAME,
      body: { reason_code: 'appeal_upheld' },
    });
    await openSection(page, 'Audit trail');
    const table = page.getByRole('table', { name: /^Audit events, newest first/ });
    await table.waitFor();
    const apiPage = (await server.call('GET', '/v1/audit?limit=25')).body.items;
    const firstPage = await rowsOf(table);
    expect(firstPage.map((row) => row[1])).toEqual(apiPage.map((e: any) => e.type));
    expect(firstPage[0]?.[2]).toBe(`${apiPage[0].actor.name} (${apiPage[0].actor.key_id})`);
    expect(firstPage[0]?.[3]).toContain(`ban ${revoked} on ${DEVICE}`);
    expect(firstPage[0]?.[3]).toContain('revoked with reason appeal_upheld');
    await screenshot(page, 'audit-trail', region('Audit trail'));
    expect(seriousViolations(await axeScan(page, 'audit-trail'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'audit-trail'))).toEqual([]);

    // One type and one device, over two pages.
    await page.getByLabel('Event type').selectOption('ban.created');
    await page.getByLabel('Filter by device ID').fill(DEVICE);
    await page.getByRole('button', { name: 'Show events' }).click();
    await eventually(
      () => rowsOf(table),
      (rows) => rows.every((row) => row[1] === 'ban.created' && row[3]?.includes(DEVICE)),
    );
    const seen = [...(await rowsOf(table))];
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('table', { name: 'Audit events, newest first (page 2)' }).waitFor();
    seen.push(...(await rowsOf(table)));
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    const created = (await server.call('GET', `/v1/audit?type=ban.created&device_id=${DEVICE}&limit=200`))
      .body.items;
    expect(created).toHaveLength(31);
    expect(seen.map((row) => row[3])).toEqual(
      created.map((e: any) =>
        expect.stringContaining(`ban ${e.ban_id} on ${DEVICE}: ${e.ban_type}, game scope`),
      ),
    );

    // A device id the API would refuse is refused here, before any request.
    const asked = sent.length;
    await page.getByLabel('Filter by device ID').fill('bad/device');
    await page.getByRole('button', { name: 'Show events' }).click();
    await alertHolding(page, 'Device ID must be 1-128 characters');
    expect(sent.length).toBe(asked);
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});

describe('API keys', () => {
  it('makes a scoped, game-bound key, shows it once, and the API holds exactly those grants', async () => {
    const { page, problems } = console_;
    await openSection(page, 'API keys');
    const form = region('Create a key');
    await form.getByLabel('Key name').fill('eu game servers');
    await form.getByLabel('bans:read', { exact: true }).uncheck();
    // No scope: refused in the page, nothing sent.
    const asked = sent.length;
    await form.getByRole('button', { name: 'Create key' }).click();
    await alertHolding(form, 'The key was not created');
    expect(await form.getByText('Choose at least one scope').count()).toBe(1);
    expect(sent.length).toBe(asked);

    await form.getByLabel('bans:read', { exact: true }).check();
    await form.getByLabel('bans:write', { exact: true }).check();
    await form.getByLabel('Key games (optional)').fill('space-raiders, game-2');
    await form.getByRole('button', { name: 'Create key' }).click();
    const secretField = page.getByLabel('New API key');
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^bsk_[A-Za-z0-9_-]{43}$/);
    const once = region(/^New key eu game servers \(key_/);
    expect(
      await once.getByRole('heading').evaluate((el) => el === (globalThis as any).document.activeElement),
    ).toBe(true);
    await screenshot(page, 'keys-created', region('API keys'));
    expect(seriousViolations(await axeScan(page, 'keys-created'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'keys-created'))).toEqual([]);

    const keys = (await server.call('GET', '/v1/keys')).body.items;
    const made = keys.find((k: any) => k.name === 'eu game servers');
    expect(made).toMatchObject({
      scopes: ['bans:read', 'bans:write'],
      games: ['space-raiders', 'game-2'],
      revoked_at: null,
    });
    expect(secret.endsWith(made.last4)).toBe(true);
    // The key does what it was made for, and nothing else.
    expect(
      (await server.call('GET', '/v1/device/d/bans', { key: secret, game: 'space-raiders' })).status,
    ).toBe(200);
    expect((await server.call('GET', '/v1/device/d/bans', { key: secret, game: GAME })).status).toBe(403);
    expect((await server.call('GET', '/v1/policy', { key: secret })).status).toBe(403);

    // Seen once: hidden, it is nowhere in the page, its storage or its address.
    await once.getByRole('button', { name: 'Done, hide it' }).click();
    await secretField.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);
    expect(JSON.stringify(await storageOf(page))).not.toContain(secret);
    await openSection(page, 'Devices');
    await openSection(page, 'API keys');
    const table = page.getByRole('table', { name: 'Keys of your publisher, oldest first' });
    await table.waitFor();
    expect(await page.content()).not.toContain(secret);
    const row = (await rowsOf(table)).find((r) => r[0] === made.key_id) as string[];
    expect(row.slice(1, 4)).toEqual(['eu game servers', 'bans:read bans:write', 'space-raiders, game-2']);
    // Made by the development key the console is signed in with.
    expect(row[5]).toMatch(/^local development \(key_[\w-]+\)$/);
    expect(row[8]).toBe(`…${made.last4}`);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('revokes a key after confirming, and the API refuses it from then on', async () => {
    const { page } = console_;
    const doomed = await server.makeKey('old ci', ['bans:read']);
    await openSection(page, 'Devices');
    await openSection(page, 'API keys');
    await page.getByRole('button', { name: `Revoke key ${doomed.key_id}` }).click();
    const confirm = region(`Revoke key ${doomed.key_id} (old ci)?`);
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await statusHolding(page, `Key ${doomed.key_id} (old ci) revoked.`);
    const listed = (await server.call('GET', '/v1/keys')).body.items.find(
      (k: any) => k.key_id === doomed.key_id,
    );
    expect(listed.revoked_at).not.toBeNull();
    expect((await server.call('GET', '/v1/device/d/bans', { key: doomed.api_key, game: GAME })).status).toBe(
      401,
    );
    // The list is read again after the status says so: wait for it, not for a fixed time.
    await expect
      .poll(() => page.getByRole('button', { name: `Revoke key ${doomed.key_id}` }).count())
      .toBe(0);
    const revokedRow = (
      await rowsOf(page.getByRole('table', { name: 'Keys of your publisher, oldest first' }))
    ).find((r) => r[0] === doomed.key_id);
    expect(revokedRow?.[7]).toBe('revoked');
    expect((await server.call('GET', '/v1/audit?type=key.revoked')).body.items).toHaveLength(1);
  });
});

describe('webhooks', () => {
  it('adds a webhook for a receiver on 127.0.0.1, shows its secret once, and lists its deliveries by device and ban as they went', async () => {
    const { page, problems } = console_;
    await openSection(page, 'Webhooks');
    const form = region('Add a webhook');

    // An address the API does not allow: its refusal is shown on the field.
    await form.getByLabel('Webhook URL').fill('https://10.0.0.1/hooks');
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await alertHolding(form, /not_allowed|not allowed/);
    expect(await form.getByLabel('Webhook URL').getAttribute('aria-invalid')).toBe('true');
    expect((await server.call('GET', '/v1/webhooks')).body.items).toEqual([]);

    await form.getByLabel('Webhook URL').fill(`${receiver.url}/hooks`);
    await form.getByLabel('policy.updated', { exact: true }).uncheck();
    await form.getByLabel('Webhook games (optional)').fill(GAME);
    await form.getByRole('button', { name: 'Add webhook' }).click();
    const secretField = page.getByLabel('Webhook signing secret');
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^whsec_/);
    const [hook] = (await server.call('GET', '/v1/webhooks')).body.items;
    expect(hook).toMatchObject({
      url: `${receiver.url}/hooks`,
      events: ['ban.created', 'ban.revoked', 'ban.erased', 'ban.updated', 'appeal.created', 'appeal.decided'],
      games: [GAME],
    });
    await region(`Webhook ${hook.webhook_id} added`).getByRole('button', { name: 'Done, hide it' }).click();
    expect(await page.content()).not.toContain(secret);

    // A ban in the webhook's game reaches the receiver, signed with the secret shown once.
    const banned = await ban('device-hooked', { ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' });
    await receiver.waitFor(() => receiver.verified(secret).length === 1);
    const [delivered] = receiver.verified(secret);
    expect(delivered).toMatchObject({
      type: 'ban.created',
      device_id: 'device-hooked',
      ban: { ban_id: banned },
    });

    // A receiver that fails: the delivery is listed as retried, with the error.
    receiver.answer = () => 500;
    await ban('device-hooked', { ban_type: 'social', scope: 'game', reason_code: 'spam' });
    await receiver.waitFor((got) => got.length >= 3);

    await page.getByRole('button', { name: `Show deliveries of ${hook.webhook_id}` }).click();
    const deliveries = page.getByRole('table', { name: /^Deliveries, newest event first/ });
    await deliveries.waitFor();
    const rows = await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh deliveries' }).click();
        await page.waitForLoadState('networkidle');
        return rowsOf(deliveries);
      },
      (rows) =>
        rows.length === 2 &&
        rows.some((r) => r[5] === 'delivered') &&
        rows.some((r) => r[8] === 'http status 500'),
    );
    const api = (await server.call('GET', `/v1/webhooks/${hook.webhook_id}/deliveries`)).body.items;
    const ok = rows.find((r) => r[5] === 'delivered') as string[];
    // Each row names the device and the ban its event is about.
    expect(ok.slice(0, 4)).toEqual([delivered.event_id, 'ban.created', 'device-hooked', String(banned)]);
    expect(ok.slice(6, 9)).toEqual(['1', '204', '—']);
    const failing = rows.find((r) => r[8] === 'http status 500') as string[];
    expect(failing.slice(1, 3)).toEqual(['ban.created', 'device-hooked']);
    expect(failing[3]).toBe(String(api.find((d: any) => d.event_id === failing[0])?.ban_id));
    expect(failing[7]).toBe('500');
    expect(rows.map((r) => r[0])).toEqual(api.map((d: any) => d.event_id));
    await screenshot(page, 'webhook-deliveries', region('Webhooks'));
    expect(seriousViolations(await axeScan(page, 'webhook-deliveries'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'webhook-deliveries'))).toEqual([]);

    // What is failing now: only the pending one, as the API lists it with status=pending.
    await page.getByLabel('Show', { exact: true }).selectOption('pending');
    const pendingRows = await eventually(
      () => rowsOf(deliveries),
      (shown) => shown.length === 1,
    );
    expect(pendingRows[0]?.[0]).toBe(failing[0]);
    expect(pendingRows[0]?.[5]).toBe('pending');

    // Deleting it stops the retries.
    await page.getByRole('button', { name: `Delete webhook ${hook.webhook_id}` }).click();
    await region(`Delete webhook ${hook.webhook_id}?`)
      .getByRole('button', { name: 'Delete webhook' })
      .click();
    await statusHolding(page, `Webhook ${hook.webhook_id} deleted`);
    expect((await server.call('GET', '/v1/webhooks')).body.items).toEqual([]);
    receiver.answer = () => 204;
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});
