import { REVOKE_REASONS } from '@kernel/revoke-reasons';
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import {
  alertHolding,
  bansTable,
  lookUp,
  rowsOf,
  setGame,
  signIn,
  signOut,
  statusHolding,
} from './support/console';
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
 * Changing a device's bans from the console: creating a ban (the page validates as the
 * API does, shows the API's field errors, and a double click makes one ban), revoking one with a
 * reason, and erasing a device after its id is typed. Each is checked against what the API then
 * holds: listings and the audit trail.
 */

const GAME = 'game-1';

let server: LocalServer;
let browser: Browser;
let console_: ConsolePage;
/** The API requests the page made (method and path), to see what it sent and what it did not. */
const sent: Request[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
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
});

const bansOf = async (device: string, status = 'all') => {
  const listed = await server.call('GET', `/v1/device/${device}/bans?status=${status}&limit=200`, {
    game: GAME,
  });
  expect(listed.status).toBe(200);
  return listed.body.items as any[];
};
const auditOf = async (device: string, type?: string) => {
  const query = new URLSearchParams({ device_id: device, limit: '200', ...(type ? { type } : {}) });
  const listed = await server.call('GET', `/v1/audit?${query}`);
  expect(listed.status).toBe(200);
  return listed.body.items as any[];
};
const posts = (path: string) =>
  sent.filter((r) => r.method() === 'POST' && new URL(r.url()).pathname === path);

const createForm = () => console_.page.getByRole('region', { name: 'Create a ban', exact: true });

const fillBan = async (fields: {
  device: string;
  type?: string;
  scope?: string;
  reason: string;
  details?: string;
}) => {
  const form = createForm();
  await form.getByLabel('Device ID to ban').fill(fields.device);
  await form.getByLabel('Ban type').selectOption(fields.type ?? 'cheat');
  await form.getByLabel('Scope').selectOption(fields.scope ?? 'game');
  await form.getByLabel('Reason code').fill(fields.reason);
  await form.getByLabel('Details (optional JSON object)').fill(fields.details ?? '');
};

describe('creating a ban', () => {
  it("refuses what the API would refuse, with the API's own rule under each field, before sending anything", async () => {
    const { page } = console_;
    const before = posts('/v1/bans').length;
    await fillBan({ device: 'bad/device', reason: 'not a reason!', details: '[1, 2]' });
    await createForm().getByRole('button', { name: 'Create ban' }).click();
    await alertHolding(createForm(), 'The ban was not created');
    // The same words as the API's answer to the same fields.
    const api = await server.call('POST', '/v1/bans', {
      game: GAME,
      body: { device_id: 'bad/device', ban_type: 'cheat', scope: 'game', reason_code: 'not a reason!' },
    });
    expect(api.status).toBe(400);
    const apiRule = (field: string) =>
      (api.body.error.message as string)
        .split('; ')
        .find((part) => part.startsWith(`${field} `))
        ?.slice(field.length + 1);
    const deviceField = createForm().getByLabel('Device ID to ban');
    expect(await deviceField.getAttribute('aria-invalid')).toBe('true');
    const described = async (field: typeof deviceField) =>
      field.evaluate((el) =>
        (el.getAttribute('aria-describedby') ?? '')
          .split(' ')
          .map((id: string) => (globalThis as any).document.getElementById(id)?.textContent ?? '')
          .join(' '),
      );
    expect(await described(deviceField)).toContain(apiRule('device_id'));
    expect(await described(createForm().getByLabel('Reason code'))).toContain(apiRule('reason_code'));
    expect(await described(createForm().getByLabel('Details (optional JSON object)'))).toContain(
      'must be a JSON object',
    );
    expect(posts('/v1/bans').length).toBe(before);
    await screenshot(page, 'create-ban-invalid', createForm());
    expect(seriousViolations(await axeScan(page, 'create-ban-invalid'))).toEqual([]);
  });

  it("shows the API's refusal of what only the API checks, and nothing is stored", async () => {
    await fillBan({ device: 'device-proto', reason: 'aimbot', details: '{"__proto__": {"admin": true}}' });
    await createForm().getByRole('button', { name: 'Create ban' }).click();
    const text = await alertHolding(createForm(), 'the key __proto__ is not allowed');
    expect(text).toMatch(/request [0-9a-f-]{36}/);
    expect(await bansOf('device-proto')).toEqual([]);
    expect(await auditOf('device-proto')).toEqual([]);
  });

  it('makes exactly one ban of a double click, says which, and the API holds it once', async () => {
    const { page, problems } = console_;
    const device = 'device-double';
    const before = posts('/v1/bans').length;
    await fillBan({
      device,
      type: 'social',
      scope: 'game',
      reason: 'toxicity',
      details: '{"match": "m-77"}',
    });
    await createForm().getByRole('button', { name: 'Create ban' }).dblclick();
    const done = await statusHolding(createForm(), 'created');
    const stored = await bansOf(device);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      ban_type: 'social',
      scope: 'game',
      game_id: GAME,
      publisher_id: 'dev-publisher',
      reason_code: 'toxicity',
      details_json: { match: 'm-77' },
      expires_at: null,
      revoked_at: null,
    });
    expect(done).toContain(
      `Ban ${stored[0].ban_id} created: social, game scope, on ${device} in game ${GAME}`,
    );
    expect(await auditOf(device, 'ban.created')).toHaveLength(1);
    // Whatever reached the API, it was one idempotent request (the form's key) at most twice.
    const made = posts('/v1/bans').slice(before);
    expect(new Set(made.map((r) => JSON.parse(r.postData() ?? '{}').idempotency_key)).size).toBe(1);
    await screenshot(page, 'create-ban', createForm());
    expect(seriousViolations(await axeScan(page, 'create-ban'))).toEqual([]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('creates a permanent ban and one that expires, as given', async () => {
    await fillBan({ device: 'device-expiry', type: 'cheat', scope: 'publisher', reason: 'aimbot' });
    await createForm().getByLabel('Expires at (optional)').fill('2031-06-01T12:30');
    await createForm().getByRole('button', { name: 'Create ban' }).click();
    await statusHolding(createForm(), 'on device-expiry');
    const [stored] = await bansOf('device-expiry');
    // The page's time zone is UTC (the test's context), so the local time is the UTC time.
    expect(stored).toMatchObject({
      scope: 'publisher',
      game_id: null,
      expires_at: '2031-06-01T12:30:00.000Z',
    });
  });
});

describe('a draft of the form', () => {
  it('survives a reload and a new sign-in, warns before the page is left, and is gone once the ban is made', async () => {
    const { page } = console_;
    const device = 'device-draft';
    await fillBan({ device, reason: 'aimbot', details: '{"match": "m-9"}' });
    await createForm().getByLabel('Message for the player (optional)').fill('Cheat software found.');
    // Leaving with a draft asks first (accepted here, so the reload goes on).
    const asked: string[] = [];
    const answer = (dialog: import('playwright-core').Dialog) => {
      asked.push(dialog.type());
      void dialog.accept();
    };
    page.on('dialog', answer);
    await page.reload();
    expect(asked).toEqual(['beforeunload']);
    await signIn(page, server.devKey);
    await setGame(page, GAME);
    await expect.poll(() => createForm().getByLabel('Reason code').inputValue()).toBe('aimbot');
    expect(await createForm().getByLabel('Details (optional JSON object)').inputValue()).toBe(
      '{"match": "m-9"}',
    );
    // A session that ends and is signed into again finds it too.
    await signOut(page);
    await signIn(page, server.devKey);
    // The draft is put back once the form is there again: wait for it, as a person would see it.
    await expect
      .poll(() => createForm().getByLabel('Message for the player (optional)').inputValue())
      .toBe('Cheat software found.');
    await createForm().getByLabel('Device ID to ban').fill(device);
    await createForm().getByRole('button', { name: 'Create ban' }).click();
    await statusHolding(createForm(), `on ${device}`);
    expect((await bansOf(device)).map((b) => [b.reason_code, b.player_message])).toEqual([
      ['aimbot', 'Cheat software found.'],
    ]);
    // Made: nothing to warn of, nothing to bring back.
    await page.reload();
    page.off('dialog', answer);
    expect(asked).toEqual(['beforeunload']);
    await signIn(page, server.devKey);
    await setGame(page, GAME);
    expect(await createForm().getByLabel('Reason code').inputValue()).toBe('');
    expect(await createForm().getByLabel('Message for the player (optional)').inputValue()).toBe('');
    expect(
      await page.evaluate(() =>
        Object.keys((globalThis as any).sessionStorage).filter((k) => k.startsWith('draft:')),
      ),
    ).toEqual([]);
  });
});

describe("a draft is its owner's", () => {
  it('is dropped when another publisher signs in to the tab, never shown to it, and not brought back after', async () => {
    const { page } = console_;
    const otherKey = await server.publisherKey('draft-other');
    await fillBan({ device: 'device-private', reason: 'aimbot', details: '{"evidence": "dev-only"}' });
    const draftKeys = () =>
      page.evaluate(() =>
        Object.keys((globalThis as any).sessionStorage).filter((k) => k.startsWith('draft:')),
      );
    const stored = await draftKeys();
    expect(stored).toHaveLength(1);
    // Never the key itself in the tab's storage: a hash of it names the owner.
    expect(stored[0]).not.toContain(server.devKey);

    await signOut(page);
    await signIn(page, otherKey);
    await setGame(page, GAME);
    await createForm().waitFor();
    expect(await createForm().getByLabel('Reason code').inputValue()).toBe('');
    expect(await createForm().getByLabel('Details (optional JSON object)').inputValue()).toBe('');
    expect(await createForm().getByLabel('Device ID to ban').inputValue()).toBe('');
    expect(await draftKeys()).toEqual([]);
    expect(await page.content()).not.toContain('dev-only');

    // The other publisher's own typing is its draft; the first publisher signing in again drops it.
    await createForm().getByLabel('Reason code').fill('wallhack');
    await expect.poll(draftKeys).toHaveLength(1);
    await signOut(page);
    await signIn(page, server.devKey);
    await setGame(page, GAME);
    await createForm().waitFor();
    expect(await createForm().getByLabel('Reason code').inputValue()).toBe('');
    expect(await draftKeys()).toEqual([]);
  });
});

describe('a message for the player', () => {
  it('is sent as typed with the appeal choice, refused in the page when it is not plain text, and shown with the ban', async () => {
    const { page } = console_;
    const device = 'device-player-message';
    await fillBan({ device, type: 'cheat', scope: 'game', reason: 'aimbot' });
    const field = createForm().getByLabel('Message for the player (optional)');
    await field.fill('x'.repeat(501));
    const before = posts('/v1/bans').length;
    await createForm().getByRole('button', { name: 'Create ban' }).click();
    await alertHolding(createForm(), 'The ban was not created');
    expect(await createForm().getByText('must be at most 500 characters').count()).toBe(1);
    expect(posts('/v1/bans').length).toBe(before);
    const message = 'Banned for cheat software. Écrivez au support: ✉ support@example.com';
    await field.fill(message);
    await createForm().getByLabel('The player may appeal this ban').uncheck();
    await createForm().getByRole('button', { name: 'Create ban' }).click();
    await statusHolding(createForm(), 'created');
    const [stored] = await bansOf(device);
    expect(stored).toMatchObject({ player_message: message, appealable: false });
    await lookUp(page, device);
    const rows = await rowsOf(bansTable(page, device));
    expect(rows[0]?.[11]).toBe(`${message} (no appeal)`);
  });
});

describe('revoking a ban', () => {
  it('revokes the chosen ban with a reason from the list, shows it revoked, and the API has it revoked once', async () => {
    const { page, problems } = console_;
    const device = 'device-revoke';
    const keep = (
      await server.call('POST', '/v1/bans', {
        game: GAME,
        body: { device_id: device, ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
      })
    ).body.ban_id;
    const target = (
      await server.call('POST', '/v1/bans', {
        game: GAME,
        body: { device_id: device, ban_type: 'social', scope: 'game', reason_code: 'spam' },
      })
    ).body.ban_id;
    await lookUp(page, device);
    await page.getByRole('button', { name: `Revoke ban ${target}` }).click();
    const panel = page.getByRole('region', { name: `Revoke ban ${target}`, exact: true });
    const reason = panel.getByLabel('Revoke reason');
    // The panel opens with the focus in its reason field.
    expect(await reason.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
    // The reasons come from the kernel's list, each a code the API takes; none is chosen at first.
    expect(await reason.locator('option').evaluateAll((os) => os.map((o) => (o as any).value))).toEqual([
      '',
      ...REVOKE_REASONS.map((r) => r.code),
    ]);
    await panel.getByRole('button', { name: 'Revoke ban' }).click();
    await alertHolding(panel, 'Revoke reason is required: choose one from the list');
    expect((await bansOf(device, 'inactive')).length).toBe(0);
    await reason.selectOption('appeal_upheld');
    await screenshot(page, 'revoke-ban', panel);
    expect(seriousViolations(await axeScan(page, 'revoke-ban'))).toEqual([]);
    await panel.getByRole('button', { name: 'Revoke ban' }).dblclick();
    await statusHolding(page, `Ban ${target} revoked with reason appeal_upheld`);

    const inactive = await bansOf(device, 'inactive');
    expect(inactive.map((b) => [b.ban_id, b.revoke_reason_code])).toEqual([[target, 'appeal_upheld']]);
    expect((await bansOf(device, 'active')).map((b) => b.ban_id)).toEqual([keep]);
    expect(await auditOf(device, 'ban.revoked')).toHaveLength(1);
    const row = (await rowsOf(bansTable(page, device))).find((r) => Number(r[0]) === target) as string[];
    expect(row[8]).toBe('revoked (appeal_upheld)');
    expect(row[9]).toBe('no');
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});

describe('erasing a device', () => {
  it("erases only after the device id is typed, deletes only this publisher's bans, and says how many", async () => {
    const { page, problems } = console_;
    const device = 'device-erase';
    for (const reason of ['aimbot', 'wallhack'])
      await server.call('POST', '/v1/bans', {
        game: GAME,
        body: { device_id: device, ban_type: 'cheat', scope: 'game', reason_code: reason },
      });
    // Another publisher's global ban on the device, which the erasure must leave.
    const acmeKey = await server.publisherKey('acme');
    const theirs = await server.call('POST', '/v1/bans', {
      key: acmeKey,
      game: 'acme-racer',
      body: { device_id: device, ban_type: 'cheat', scope: 'global', reason_code: 'wallhack' },
    });
    expect(theirs.status).toBe(201);
    await lookUp(page, device);
    const panel = page.getByRole('region', { name: "Erase this device's data", exact: true });
    const erase = panel.getByRole('button', { name: 'Erase device data' });
    const confirm = panel.getByLabel('Type the device ID to confirm');
    expect(await erase.isDisabled()).toBe(true);
    await confirm.fill('device-eras');
    expect(await erase.isDisabled()).toBe(true);
    expect((await bansOf(device)).length).toBe(3);
    await confirm.fill(device);
    await screenshot(page, 'erase-device', panel);
    expect(seriousViolations(await axeScan(page, 'erase-device'))).toEqual([]);
    await erase.click();
    await statusHolding(page, `Erased 2 bans of ${device}`);
    expect((await bansOf(device)).map((b) => [b.ban_id, b.publisher_id])).toEqual([
      [theirs.body.ban_id, 'acme'],
    ]);
    const erased = await auditOf(device, 'device.erased');
    expect(erased).toHaveLength(1);
    expect(erased[0]).toMatchObject({ device_id: device, erased_bans: 2 });
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});
