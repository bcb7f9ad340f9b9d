import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { alertHolding, lookUp, openSection, setGame, signIn, statusHolding } from './support/console';
import { axeScan, type ConsolePage, openPage, seriousViolations } from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * Care before losing work or changing something for good: unsaved
 * policy flags are not dropped by leaving the view without asking; Escape closes every
 * confirmation as Cancel does; a success does not look like an error.
 */

const GAME = 'game-1';

let server: LocalServer;
let browser: Browser;
let console_: ConsolePage;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  const made = await server.call('POST', '/v1/bans', {
    game: GAME,
    body: { device_id: 'device-c', ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
  });
  expect(made.status).toBe(201);
  console_ = await openPage(browser, server.devicesUrl);
  await signIn(console_.page, server.devKey);
  await setGame(console_.page, GAME);
});
afterAll(async () => {
  await console_?.close();
  await browser?.close();
  await server?.stop();
});

const flag = (page: Page, name: string) => page.getByLabel(name, { exact: true });
const leaveDialog = (page: Page) =>
  page.getByRole('region', { name: 'Discard your unsaved policy changes?', exact: true });

describe('unsaved policy flags', () => {
  it('asks before leaving them; Escape keeps editing, and the tick is still there', async () => {
    const { page } = console_;
    await openSection(page, 'Policy');
    const box = flag(page, 'enforce_social_global');
    await box.waitFor();
    const before = await box.isChecked();
    await box.setChecked(!before);
    await openSection(page, 'Devices');
    await leaveDialog(page).waitFor();
    expect(seriousViolations(await axeScan(page, 'policy-leave-confirm'))).toEqual([]);
    await page.keyboard.press('Escape');
    expect(await leaveDialog(page).count()).toBe(0);
    expect(await box.isChecked()).toBe(!before);
    // Leaving for good drops them; the saved policy is unchanged.
    await openSection(page, 'Devices');
    await leaveDialog(page).getByRole('button', { name: 'Discard and leave' }).click();
    await page.getByRole('region', { name: 'Look up a device' }).waitFor();
    expect((await server.call('GET', '/v1/policy')).body.enforce_social_global).toBe(before);
    await openSection(page, 'Policy');
    await flag(page, 'enforce_social_global').waitFor();
    expect(await flag(page, 'enforce_social_global').isChecked()).toBe(before);
    // Nothing ticked: leaving asks nothing.
    await openSection(page, 'Devices');
    await page.getByRole('region', { name: 'Look up a device' }).waitFor();
    expect(await leaveDialog(page).count()).toBe(0);
  });
});

describe('a read-only key', () => {
  it('sees the policy read-only: no flag it could tick, no Save it could not use', async () => {
    const reader = await server.makeKey('policy reader', ['policy:read']);
    const opened = await openPage(browser, server.consoleUrl);
    try {
      await signIn(opened.page, reader.api_key);
      await openSection(opened.page, 'Policy');
      await flag(opened.page, 'enforce_game').waitFor();
      expect(await flag(opened.page, 'enforce_game').isDisabled()).toBe(true);
      expect(await opened.page.getByRole('button', { name: 'Save policy' }).count()).toBe(0);
      await opened.page.getByText(/Saving needs the scope policy:write, which this session lacks/).waitFor();
    } finally {
      await opened.close();
    }
  });
});

describe('a key that may only read bans', () => {
  it('is offered no ban form it could not submit: sign-in learns it lacks bans:write', async () => {
    const reader = await server.makeKey('ban reader', ['bans:read']);
    const opened = await openPage(browser, server.devicesUrl);
    try {
      await signIn(opened.page, reader.api_key);
      await setGame(opened.page, GAME);
      await opened.page
        .getByText(
          'Creating bans needs the scope bans:write, which this session lacks (the API answered 403 at sign-in)',
        )
        .waitFor();
      expect(await opened.page.getByLabel('Device ID to ban').count()).toBe(0);
      // Nothing was written by finding out.
      expect((await server.call('GET', '/v1/audit?type=ban.created')).body.items).toHaveLength(1);
    } finally {
      await opened.close();
    }
  });
});

describe('confirmations', () => {
  it('Escape closes the revoke confirmation as Cancel does, and nothing is revoked', async () => {
    const { page } = console_;
    await openSection(page, 'Devices');
    await lookUp(page, 'device-c');
    const [ban] = (await server.call('GET', '/v1/device/device-c/bans', { game: GAME })).body.items;
    await page.getByRole('button', { name: `Revoke ban ${ban.ban_id}` }).click();
    const confirm = page.getByRole('region', { name: `Revoke ban ${ban.ban_id}`, exact: true });
    await confirm.getByLabel('Revoke reason').selectOption('appeal_upheld');
    await page.keyboard.press('Escape');
    expect(await confirm.count()).toBe(0);
    const still = (await server.call('GET', '/v1/device/device-c/bans', { game: GAME })).body.items[0];
    expect(still.revoked_at).toBeNull();
  });

  it('Escape closes the key revoke confirmation, and the key still works', async () => {
    const { page } = console_;
    const made = await server.makeKey('kept', ['bans:read']);
    await openSection(page, 'API keys');
    await page.getByRole('button', { name: `Revoke key ${made.key_id}` }).click();
    const confirm = page.getByRole('region', { name: `Revoke key ${made.key_id} (kept)?`, exact: true });
    await confirm.waitFor();
    await page.keyboard.press('Escape');
    expect(await confirm.count()).toBe(0);
    expect((await server.call('GET', '/v1/device/d/bans', { key: made.api_key, game: GAME })).status).toBe(
      200,
    );
  });
});

describe('where a new ban applies', () => {
  it("says before and after creating that the caller's own policy will not enforce a global social ban", async () => {
    const { page } = console_;
    await openSection(page, 'Devices');
    const form = page.getByRole('region', { name: 'Create a ban', exact: true });
    const scopeHint = form.locator('#ban-scope-hint');
    await form.getByLabel('Ban type').selectOption('social');
    await form.getByLabel('Scope').selectOption('global');
    // The default policy leaves enforce_social_global off.
    expect((await server.call('GET', '/v1/policy')).body.enforce_social_global).toBe(false);
    expect(await scopeHint.innerText()).toContain(
      'Your own policy will not enforce it: enforce_social_global is off, so it restricts nothing in your games.',
    );
    await form.getByLabel('Ban type').selectOption('cheat');
    expect(await scopeHint.innerText()).toContain(
      'Your policy enforces it in your games (enforce_global + enforce_cheat_global).',
    );
    await form.getByLabel('Ban type').selectOption('social');
    await form.getByLabel('Device ID to ban').fill('device-reach');
    await form.getByLabel('Reason code').fill('spam');
    await form.getByRole('button', { name: 'Create ban' }).click();
    const said = await statusHolding(form, /created: social, global scope/);
    expect(said).toContain('Your own policy will not enforce it: enforce_social_global is off');
    // A global ban left without an expiry says both before it is sent.
    await form.getByLabel('Ban type').selectOption('cheat');
    expect(await form.locator('#ban-reach').innerText()).toBe(
      "Permanent: it never expires; only a revoke ends it. Global: it can restrict the device in every other publisher's games whose policy enforces global cheat bans.",
    );
    await form.getByLabel('Ban type').selectOption('social');
    // And the API agrees: the device is not restricted for social in the caller's game.
    const enforcement = await server.call('GET', '/v1/device/device-reach/enforcement', { game: GAME });
    expect(enforcement.body.restricted.social).toBe(false);
  });
});

describe('a policy change, before it is saved', () => {
  it('lists the kinds of bans it starts and stops applying in every game', async () => {
    const { page } = console_;
    await openSection(page, 'Policy');
    await flag(page, 'enforce_social_global').waitFor();
    const on = await flag(page, 'enforce_social_global').isChecked();
    expect(on).toBe(false);
    await flag(page, 'enforce_social_global').check();
    await flag(page, 'enforce_publisher').uncheck();
    const said = await page
      .getByText('In every game, for every device, saving these flags:')
      .locator('..')
      .innerText();
    expect(said).toContain('starts applying social bans of global scope');
    expect(said).toContain('stops applying cheat bans of publisher scope, social bans of publisher scope');
    await page.getByRole('button', { name: 'Discard changes' }).click();
    expect(await page.getByText('In every game, for every device, saving these flags:').count()).toBe(0);
    await openSection(page, 'Devices');
  });
});

describe('messages', () => {
  it('marks a success and an error differently, not by colour alone', async () => {
    const { page } = console_;
    await openSection(page, 'Devices');
    const form = page.getByRole('region', { name: 'Create a ban', exact: true });
    await form.getByLabel('Device ID to ban').fill('bad/device');
    await form.getByRole('button', { name: 'Create ban' }).click();
    await alertHolding(form, 'The ban was not created');
    const mark = (role: 'alert' | 'status') =>
      page
        .getByRole(role)
        .first()
        .locator('p')
        .first()
        .evaluate((p) => {
          const { getComputedStyle } = globalThis as any;
          return {
            before: getComputedStyle(p, '::before').content as string,
            background: getComputedStyle(p.parentElement).backgroundColor as string,
          };
        });
    const error = await mark('alert');
    await form.getByLabel('Device ID to ban').fill('device-d');
    await form.getByLabel('Reason code').fill('aimbot');
    await form.getByRole('button', { name: 'Create ban' }).click();
    await statusHolding(form, /created/);
    const ok = await page
      .getByRole('status')
      .filter({ hasText: /created/ })
      .locator('p')
      .first()
      .evaluate((p) => {
        const { getComputedStyle } = globalThis as any;
        return {
          before: getComputedStyle(p, '::before').content as string,
          background: getComputedStyle(p.parentElement).backgroundColor as string,
        };
      });
    expect(error.before).toContain('Problem');
    expect(ok.before).toContain('✓');
    expect(ok.background).not.toBe(error.background);
  });
});
