import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { alertHolding, openSection, setGame, signIn, signOut, statusHolding } from './support/console';
import {
  axeScan,
  type ConsolePage,
  openPage,
  screenshot,
  seriousViolations,
  unexpectedProblems,
} from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * The reason catalogue: edited in the Policy view (add, edit, remove after a
 * confirmation, the strict switch; read-only without policy:write), offered by the create-ban
 * form, whose choice and duration presets fill it in, and which with strict on offers only the
 * catalogue's codes. Each step is checked against what the API then holds.
 */

const GAME = 'game-1';

let server: LocalServer;
let browser: Browser;
let console_: ConsolePage;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  console_ = await openPage(browser, server.devicesUrl);
  await signIn(console_.page, server.devKey);
  await setGame(console_.page, GAME);
});
afterAll(async () => {
  await console_?.close();
  await browser?.close();
  await server?.stop();
});

const catalogueOf = async () => {
  const answer = await server.call('GET', '/v1/reasons');
  expect(answer.status).toBe(200);
  return answer.body as { reasons: any[]; strict_reasons: boolean; updated_at: string | null };
};
const editor = (page: Page) => page.getByRole('region', { name: 'Reason catalogue', exact: true });
const createForm = (page: Page) => page.getByRole('region', { name: 'Create a ban', exact: true });

/** What a datetime-local field holds, as an instant (the page's local time is the test's). */
const instantOf = (local: string) => new Date(local).getTime();

const addReason = async (
  page: Page,
  reason: { code: string; label: string; type: string; scope: string; duration: string; message?: string },
) => {
  const region = editor(page);
  await region.getByRole('button', { name: 'Add a reason', exact: true }).click();
  await region.getByLabel('Code', { exact: true }).fill(reason.code);
  await region.getByLabel('Label', { exact: true }).fill(reason.label);
  await region.getByLabel('Default ban type').selectOption(reason.type);
  await region.getByLabel('Default scope').selectOption(reason.scope);
  await region.getByLabel('Duration', { exact: true }).selectOption({ label: reason.duration });
  await region.getByLabel('Message for the player (optional)').fill(reason.message ?? '');
  await region.getByRole('button', { name: 'Add reason', exact: true }).click();
  await statusHolding(region, `Reason ${reason.code} added.`);
};

describe('the catalogue editor', () => {
  it('adds, edits and removes reasons, each change stored at once', async () => {
    const { page } = console_;
    await openSection(page, 'Policy');
    await editor(page).getByText('The catalogue is empty').waitFor();

    await addReason(page, {
      code: 'aimbot',
      label: 'Aimbot',
      type: 'cheat',
      scope: 'global',
      duration: 'permanent',
      message: 'This device is banned for using cheat software.',
    });
    await addReason(page, {
      code: 'chat.abuse',
      label: 'Abusive chat',
      type: 'social',
      scope: 'game',
      duration: '7 d',
    });
    expect((await catalogueOf()).reasons).toEqual([
      {
        code: 'aimbot',
        label: 'Aimbot',
        ban_type: 'cheat',
        scope: 'global',
        duration_seconds: null,
        player_message: 'This device is banned for using cheat software.',
      },
      {
        code: 'chat.abuse',
        label: 'Abusive chat',
        ban_type: 'social',
        scope: 'game',
        duration_seconds: 604_800,
        player_message: null,
      },
    ]);

    // What the API would refuse is refused in the page, before anything is sent.
    const region = editor(page);
    const before = (await catalogueOf()).updated_at;
    await region.getByRole('button', { name: 'Add a reason', exact: true }).click();
    await region.getByLabel('Code', { exact: true }).fill('aimbot');
    await region.getByLabel('Label', { exact: true }).fill('');
    await region.getByRole('button', { name: 'Add reason', exact: true }).click();
    await region.getByText('is already in the catalogue').waitFor();
    await region.getByText('must be at least 1 character').waitFor();
    expect((await catalogueOf()).updated_at).toBe(before);
    await region.getByRole('button', { name: 'Cancel', exact: true }).click();

    await region.getByRole('button', { name: 'Edit chat.abuse', exact: true }).click();
    await region.getByLabel('Label', { exact: true }).fill('Abusive or hateful chat');
    await region.getByLabel('Duration', { exact: true }).selectOption({ label: '24 h' });
    await region.getByRole('button', { name: 'Save reason', exact: true }).click();
    await statusHolding(region, 'Reason chat.abuse saved.');
    expect((await catalogueOf()).reasons[1]).toMatchObject({
      label: 'Abusive or hateful chat',
      duration_seconds: 86_400,
    });

    await addReason(page, { code: 'spam', label: 'Spam', type: 'social', scope: 'game', duration: '1 h' });
    await region.getByRole('button', { name: 'Remove spam', exact: true }).click();
    const confirm = page.getByRole('region', { name: 'Remove reason spam?', exact: true });
    await confirm.waitFor();
    expect(seriousViolations(await axeScan(page, 'reasons-remove-confirm'))).toEqual([]);
    // Escape cancels: nothing removed.
    await page.keyboard.press('Escape');
    expect(await confirm.count()).toBe(0);
    expect((await catalogueOf()).reasons.map((r) => r.code)).toEqual(['aimbot', 'chat.abuse', 'spam']);
    await region.getByRole('button', { name: 'Remove spam', exact: true }).click();
    await confirm.getByRole('button', { name: 'Remove reason', exact: true }).click();
    await statusHolding(region, 'Reason spam removed.');
    expect((await catalogueOf()).reasons.map((r) => r.code)).toEqual(['aimbot', 'chat.abuse']);
  });
});

describe('the statement of reasons a reason gives its bans', () => {
  it('sets the clause, its address and the category; keeps what only the API set; refuses a bad address', async () => {
    const { page } = console_;
    // A field only the API sets (the facts) must survive an edit in the page.
    const before = await catalogueOf();
    const withFacts = before.reasons.map((r) =>
      r.code === 'aimbot' ? { ...r, statement: { facts: 'Found by our anti-cheat.' } } : r,
    );
    const put = await server.call('PUT', '/v1/reasons', {
      body: { reasons: withFacts, strict_reasons: before.strict_reasons },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    await openSection(page, 'Devices');
    await openSection(page, 'Policy');
    const region = editor(page);
    await region.getByRole('button', { name: 'Edit aimbot', exact: true }).click();
    await region
      .getByLabel('Clause of your terms (optional)')
      .fill('Terms of service, 7.3: no cheat software');
    await region.getByLabel('Address of the clause (optional)').fill('http://acme.example/terms');
    await region.getByLabel('Category').selectOption('scams_and_fraud');
    const stamp = (await catalogueOf()).updated_at;
    await region.getByRole('button', { name: 'Save reason', exact: true }).click();
    await region.getByText('must be an https URL').waitFor();
    expect((await catalogueOf()).updated_at).toBe(stamp);
    await region.getByLabel('Address of the clause (optional)').fill('https://acme.example/terms#7.3');
    await region.getByRole('button', { name: 'Save reason', exact: true }).click();
    await statusHolding(region, 'Reason aimbot saved.');
    const aimbot = (await catalogueOf()).reasons.find((r) => r.code === 'aimbot');
    expect(aimbot?.statement).toEqual({
      facts: 'Found by our anti-cheat.',
      terms_clause: 'Terms of service, 7.3: no cheat software',
      terms_url: 'https://acme.example/terms#7.3',
      category: 'scams_and_fraud',
    });
    // A ban for it carries them.
    const made = await server.call('POST', '/v1/bans', {
      game: GAME,
      body: { device_id: 'device-statement', ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
    });
    expect(made.status).toBe(201);
    const listed = await server.call('GET', '/v1/device/device-statement/bans', { game: GAME });
    expect(listed.body.items[0].statement).toMatchObject({
      terms_clause: 'Terms of service, 7.3: no cheat software',
      terms_url: 'https://acme.example/terms#7.3',
      category: 'scams_and_fraud',
      facts: 'Found by our anti-cheat.',
    });
  });
});

describe('translations of a reason', () => {
  it('adds a German translation, kept as a draft across a reload, then stored and kept by a later edit', async () => {
    const { page } = console_;
    await openSection(page, 'Policy');
    const region = editor(page);
    await region.getByRole('button', { name: 'Edit aimbot', exact: true }).click();
    await region.getByRole('button', { name: 'Add a translation', exact: true }).click();
    await region.getByLabel('Language tag').fill('de_DE');
    await region.getByLabel('Label in de_DE (optional)').fill('Zielhilfe');
    await region
      .getByLabel('Message for the player in de_DE (optional)')
      .fill('Dieses Gerät ist wegen Cheat-Software gesperrt.');
    // A tag the API would refuse is refused here, and nothing is sent.
    const stamp = (await catalogueOf()).updated_at;
    await region.getByRole('button', { name: 'Save reason', exact: true }).click();
    await region.getByText('must be a language tag such as de').waitFor();
    expect((await catalogueOf()).updated_at).toBe(stamp);
    await region.getByLabel('Language tag').fill('de');

    // Typed, not saved: a reload brings the translation back with the rest of the reason's draft.
    const answer = (dialog: import('playwright-core').Dialog) => void dialog.accept();
    page.on('dialog', answer);
    await page.reload();
    page.off('dialog', answer);
    await signIn(page, server.devKey);
    await setGame(page, GAME);
    await openSection(page, 'Policy');
    // The reason's edit opens as it was left.
    await region.getByRole('button', { name: 'Edit aimbot', exact: true }).click();
    await expect.poll(() => region.getByLabel('Language tag').inputValue()).toBe('de');
    expect(await region.getByLabel('Label in de (optional)').inputValue()).toBe('Zielhilfe');
    // The translation's fields, each labelled and in its group: nothing axe finds serious.
    expect(seriousViolations(await axeScan(page, 'reason-translations'))).toEqual([]);

    await region.getByRole('button', { name: 'Save reason', exact: true }).click();
    await statusHolding(region, 'Reason aimbot saved.');
    const saved = (await catalogueOf()).reasons.find((r) => r.code === 'aimbot');
    expect(saved?.translations).toEqual({
      de: { label: 'Zielhilfe', player_message: 'Dieses Gerät ist wegen Cheat-Software gesperrt.' },
    });

    // An edit of another field keeps it, and the form shows it as stored.
    await region.getByRole('button', { name: 'Edit aimbot', exact: true }).click();
    expect(await region.getByLabel('Label in de (optional)').inputValue()).toBe('Zielhilfe');
    await region.getByLabel('Address of the clause (optional)').fill('https://acme.example/terms#7.4');
    await region.getByRole('button', { name: 'Save reason', exact: true }).click();
    await statusHolding(region, 'Reason aimbot saved.');
    const edited = (await catalogueOf()).reasons.find((r) => r.code === 'aimbot');
    expect(edited?.statement?.terms_url).toBe('https://acme.example/terms#7.4');
    expect(edited?.translations).toEqual(saved?.translations);

    // A ban for it, made with its message as the create form sends it, reads in German when asked.
    const made = await server.call('POST', '/v1/bans', {
      game: GAME,
      body: {
        device_id: 'device-german',
        ban_type: 'cheat',
        scope: 'game',
        reason_code: 'aimbot',
        player_message: edited?.player_message,
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const listed = await server.call('GET', '/v1/device/device-german/bans?locale=de', { game: GAME });
    expect(listed.body.items[0]).toMatchObject({
      message_locale: 'de',
      player_message: 'Dieses Gerät ist wegen Cheat-Software gesperrt.',
    });
  });
});

describe('drafts of the settings forms', () => {
  it('keeps a new reason, a key and a webhook as typed across a reload, until saved or cancelled', async () => {
    const { page } = console_;
    await openSection(page, 'Policy');
    const region = editor(page);
    await region.getByRole('button', { name: 'Add a reason', exact: true }).click();
    await region.getByLabel('Code', { exact: true }).fill('wallhack');
    await region.getByLabel('Label', { exact: true }).fill('Seeing through walls');
    await region.getByLabel('Default scope').selectOption('publisher');
    await openSection(page, 'API keys');
    const keyForm = page.getByRole('region', { name: 'Create a key', exact: true });
    await keyForm.getByLabel('Key name').fill('eu servers');
    await keyForm.getByLabel('Key games (optional)').fill('game-1, game-2');
    await openSection(page, 'Webhooks');
    const hookForm = page.getByRole('region', { name: 'Add a webhook', exact: true });
    await hookForm.getByLabel('Webhook URL').fill('https://hooks.example.com/draft');
    const drafts = () =>
      page.evaluate(() =>
        Object.keys((globalThis as any).sessionStorage).filter((k) => k.startsWith('draft:')),
      );
    await expect.poll(async () => (await drafts()).length).toBe(3);

    // Leaving asks first; accepted, the reload goes on, and each form comes back with its typing.
    const asked: string[] = [];
    const answer = (dialog: import('playwright-core').Dialog) => {
      asked.push(dialog.type());
      void dialog.accept();
    };
    page.on('dialog', answer);
    await page.reload();
    page.off('dialog', answer);
    expect(asked).toEqual(['beforeunload']);
    await signIn(page, server.devKey);
    await openSection(page, 'Webhooks');
    await expect
      .poll(() => hookForm.getByLabel('Webhook URL').inputValue())
      .toBe('https://hooks.example.com/draft');
    await openSection(page, 'API keys');
    await expect.poll(() => keyForm.getByLabel('Key name').inputValue()).toBe('eu servers');
    expect(await keyForm.getByLabel('Key games (optional)').inputValue()).toBe('game-1, game-2');
    // The reason's form opens again by itself, as it was left.
    await openSection(page, 'Policy');
    await expect
      .poll(() => region.getByLabel('Label', { exact: true }).inputValue())
      .toBe('Seeing through walls');
    expect(await region.getByLabel('Code', { exact: true }).inputValue()).toBe('wallhack');
    expect(await region.getByLabel('Default scope').inputValue()).toBe('publisher');

    // Cancel gives the reason up; a key made is no draft; nothing was sent for the others.
    await region.getByRole('button', { name: 'Cancel', exact: true }).click();
    await openSection(page, 'API keys');
    await keyForm.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('eu servers').first().waitFor();
    await expect.poll(drafts).toHaveLength(1);
    expect((await catalogueOf()).reasons.map((r) => r.code)).not.toContain('wallhack');
    const hooks = await server.call('GET', '/v1/webhooks');
    expect(JSON.stringify(hooks.body)).not.toContain('hooks.example.com/draft');
    await openSection(page, 'Policy');
    await editor(page).getByRole('button', { name: 'Add a reason', exact: true }).waitFor();
    expect(await region.getByLabel('Code', { exact: true }).count()).toBe(0);
    // The reload forgot the game the next cases work in; they start in Policy.
    await setGame(page, GAME);
    await openSection(page, 'Policy');
  });
});

describe('the create-ban form', () => {
  it('fills code, type, scope, expiry and message from a chosen reason; the presets set the expiry', async () => {
    const { page } = console_;
    await screenshot(page, 'reason-catalogue', editor(page));
    await openSection(page, 'Devices');
    const form = createForm(page);
    const chooser = form.getByLabel('Reason from the catalogue');
    await chooser.waitFor();
    expect(await chooser.locator('option').allInnerTexts()).toEqual([
      'None: type a reason code below',
      'Aimbot (aimbot)',
      'Abusive or hateful chat (chat.abuse)',
    ]);

    const start = Date.now();
    await chooser.selectOption('chat.abuse');
    await screenshot(page, 'create-ban-presets', form);
    expect(await form.getByLabel('Reason code').inputValue()).toBe('chat.abuse');
    expect(await form.getByLabel('Ban type').inputValue()).toBe('social');
    expect(await form.getByLabel('Scope').inputValue()).toBe('game');
    const expires = form.getByLabel('Expires at (optional)');
    const day = instantOf(await expires.inputValue()) - start;
    expect(day).toBeGreaterThanOrEqual(86_400_000 - 60_000);
    expect(day).toBeLessThanOrEqual(86_400_000 + 120_000);

    await chooser.selectOption('aimbot');
    expect(await form.getByLabel('Scope').inputValue()).toBe('global');
    expect(await expires.inputValue()).toBe('');
    expect(await form.getByLabel('Message for the player (optional)').inputValue()).toBe(
      'This device is banned for using cheat software.',
    );

    for (const [name, seconds] of [
      ['Expires in 1 h', 3_600],
      ['Expires in 7 d', 604_800],
      ['Expires in 30 d', 2_592_000],
    ] as const) {
      await form.getByRole('button', { name, exact: true }).click();
      const ahead = instantOf(await expires.inputValue()) - Date.now();
      expect(ahead, name).toBeGreaterThan(seconds * 1000 - 120_000);
      expect(ahead, name).toBeLessThanOrEqual(seconds * 1000 + 60_000);
    }
    await form.getByRole('button', { name: 'Permanent', exact: true }).click();
    expect(await expires.inputValue()).toBe('');

    // Still editable: a chosen reason's fields change like any other, and the free code is kept.
    await form.getByLabel('Scope').selectOption('game');
    await form.getByLabel('Reason code').fill('free.code');
    expect(await chooser.inputValue()).toBe('');
    await form.getByLabel('Device ID to ban').fill('device-r1');
    await form.getByRole('button', { name: 'Expires in 24 h', exact: true }).click();
    await form.getByRole('button', { name: 'Create ban', exact: true }).click();
    await statusHolding(form, /Ban \d+ created/);
    const listed = await server.call('GET', '/v1/device/device-r1/bans', { game: GAME });
    expect(listed.body.items).toEqual([
      expect.objectContaining({ reason_code: 'free.code', scope: 'game', expires_at: expect.any(String) }),
    ]);
  });

  it('with strict reasons on, offers only the catalogue codes, and the API agrees', async () => {
    const { page } = console_;
    await openSection(page, 'Policy');
    const strict = editor(page).getByLabel('strict_reasons', { exact: true });
    await strict.check();
    await statusHolding(editor(page), 'Strict reasons on');
    expect((await catalogueOf()).strict_reasons).toBe(true);

    await screenshot(page, 'reason-catalogue', editor(page));
    await openSection(page, 'Devices');
    const form = createForm(page);
    const code = form.getByLabel('Reason code');
    await form.getByText("Strict reasons are on: only the catalogue's codes").waitFor();
    expect(await code.evaluate((el) => el.tagName)).toBe('SELECT');
    expect(await code.locator('option').allInnerTexts()).toEqual([
      'Choose a reason',
      'Aimbot (aimbot)',
      'Abusive or hateful chat (chat.abuse)',
    ]);
    await form.getByLabel('Device ID to ban').fill('device-r2');
    await form.getByRole('button', { name: 'Create ban', exact: true }).click();
    await alertHolding(form, 'The ban was not created');
    await form.getByText("must be one of the catalogue's codes").waitFor();
    expect((await server.call('GET', '/v1/device/device-r2/bans', { game: GAME })).body.items).toEqual([]);

    await code.selectOption('chat.abuse');
    expect(await form.getByLabel('Ban type').inputValue()).toBe('social');
    await form.getByRole('button', { name: 'Create ban', exact: true }).click();
    await statusHolding(form, /Ban \d+ created/);
    expect((await server.call('GET', '/v1/device/device-r2/bans', { game: GAME })).body.items).toEqual([
      expect.objectContaining({ reason_code: 'chat.abuse', ban_type: 'social' }),
    ]);
    // The API refuses a free code too, whoever sends it.
    const refused = await server.call('POST', '/v1/bans', {
      game: GAME,
      body: { device_id: 'device-r2', ban_type: 'cheat', scope: 'game', reason_code: 'free.code' },
    });
    expect(refused.status).toBe(400);
    expect(seriousViolations(await axeScan(page, 'reasons-strict-create'))).toEqual([]);
  });
});

describe('without policy:write', () => {
  it('shows the catalogue read-only: no add, edit or remove, the strict switch disabled', async () => {
    const { page } = console_;
    const reader = await server.makeKey('policy reader', ['policy:read']);
    await signOut(page);
    await signIn(page, reader.api_key);
    await openSection(page, 'Policy');
    const region = editor(page);
    await region.getByRole('table', { name: /Reasons \(2\)/ }).waitFor();
    expect(await region.getByRole('button', { name: 'Add a reason' }).count()).toBe(0);
    expect(await region.getByRole('button', { name: /^(Edit|Remove) / }).count()).toBe(0);
    expect(await region.getByLabel('strict_reasons', { exact: true }).isDisabled()).toBe(true);
    await region.getByText('needs the scope policy:write').waitFor();
    expect(unexpectedProblems(console_.problems)).toEqual([]);
  });
});
