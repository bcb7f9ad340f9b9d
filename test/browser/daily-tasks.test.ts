import { writeFileSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { artifact } from './support/artifacts';
import { launchChromium } from './support/chromium';
import { bansTable, rowsOf, signIn, statusHolding } from './support/console';
import { type ConsolePage, openPage, unexpectedProblems } from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * Three daily tasks done in the console as a moderator would, counting every click and
 * every keystroke, and checked through the API: (i) find a device from a report naming the start
 * of its id, and revoke one of its bans; (ii) ban a device with a reason from the catalogue that
 * lasts 7 days; (iii) review today's activity. Signing in is left out (the same before and after).
 *
 * How it counts: a click on a button or a link is 1; typing into a field is 1 click to put the
 * focus there (none when the focus is already in it) and 1 keystroke per character; a choice in a
 * select is 2 clicks (open it, pick); a Tab or Enter is 1 keystroke. The counts are written to
 * .artifacts/console/daily-tasks.json; docs/console.md compares them with the console before issue
 * 25 (measured once, the same way, on commit 80df9f2).
 */

const GAME = 'game-1';
/** The device the report names as "7f3a…", and others beginning alike. */
const REPORTED = '7f3a5c0e-2b1d-4c8a-9e6f-1a2b3c4d5e6f';
const NEIGHBOURS = ['7f19d2aa-0c4e-4f1b-8d3a-5e6f7a8b9c0d', '7f3b0e41-9a2c-4d7e-b1f0-2c3d4e5f6a7b'];
const TO_BAN = 'c41d8e2b-6f0a-4b9c-8d7e-3f2a1b0c9d8e';
const REASON = { code: 'chat.abuse', label: 'Abusive chat', seconds: 7 * 86_400 };

let server: LocalServer;
let browser: Browser;
let console_: ConsolePage;
const counts: Record<string, { clicks: number; keystrokes: number; steps: string[] }> = {};

/** Does what a moderator does, and counts it. */
class Counter {
  clicks = 0;
  keystrokes = 0;
  steps: string[] = [];
  constructor(private readonly page: Page) {}

  async click(target: Locator, what: string) {
    await target.click();
    this.clicks++;
    this.steps.push(`click ${what}`);
  }

  async type(field: Locator, text: string, what: string) {
    const focused = await field.evaluate((el) => el === (globalThis as any).document.activeElement);
    if (!focused) {
      await field.click();
      this.clicks++;
    }
    await field.fill(text);
    this.keystrokes += text.length;
    this.steps.push(`${focused ? '' : 'click and '}type ${what} (${text.length})`);
  }

  async choose(select: Locator, value: string, what: string) {
    await select.selectOption(value);
    this.clicks += 2;
    this.steps.push(`choose ${what} (open, pick)`);
  }

  async press(key: 'Enter' | 'Tab', what: string) {
    await this.page.keyboard.press(key);
    this.keystrokes++;
    this.steps.push(`${key} ${what}`);
  }

  record(task: string) {
    counts[task] = { clicks: this.clicks, keystrokes: this.keystrokes, steps: this.steps };
    writeFileSync(artifact('daily-tasks.json'), `${JSON.stringify(counts, null, 2)}\n`);
  }
}

const ban = async (key: string, device: string, body: Record<string, unknown>) => {
  const made = await server.call('POST', '/v1/bans', {
    key,
    game: GAME,
    body: { device_id: device, ban_type: 'cheat', scope: 'game', reason_code: 'aimbot', ...body },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.ban_id as number;
};

let reportedBans: number[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  // A day: two moderation bots' keys ban devices (60 events with the keys and catalogue made).
  const botA = await server.makeKey('bot-a', ['bans:read', 'bans:write']);
  const botB = await server.makeKey('bot-b', ['bans:read', 'bans:write']);
  reportedBans = [
    await ban(botA.api_key, REPORTED, { ban_type: 'cheat', reason_code: 'aimbot' }),
    await ban(botA.api_key, REPORTED, { ban_type: 'social', reason_code: 'spam' }),
  ];
  for (const device of NEIGHBOURS) await ban(botB.api_key, device, {});
  for (let i = 0; i < 52; i++)
    await ban(i % 2 ? botA.api_key : botB.api_key, `device-day-${i}`, { reason_code: `day-${i}` });
  const catalogue = await server.call('PUT', '/v1/reasons', {
    body: {
      reasons: [
        {
          code: REASON.code,
          label: REASON.label,
          ban_type: 'social',
          scope: 'game',
          duration_seconds: REASON.seconds,
          player_message: null,
        },
      ],
      strict_reasons: false,
    },
  });
  expect(catalogue.status, JSON.stringify(catalogue.body)).toBe(200);
});
afterAll(async () => {
  await console_?.close();
  await browser?.close();
  await server?.stop();
});

/** A new tab, signed in: where every task starts (the console opens on Start). */
const freshConsole = async () => {
  await console_?.close();
  console_ = await openPage(browser, server.consoleUrl);
  await signIn(console_.page, server.devKey);
  return console_.page;
};

it('(i) finds the device a report names by "7f3a…" and revokes one of its bans', async () => {
  const page = await freshConsole();
  const count = new Counter(page);
  const nav = page.getByRole('navigation', { name: 'Console sections' });
  await count.click(nav.getByRole('button', { name: 'Devices' }), 'Devices');
  await count.type(page.getByLabel('Device ID begins with', { exact: true }), '7f3a', 'the prefix');
  await count.click(page.getByRole('button', { name: `Open device ${REPORTED}`, exact: true }), 'Open');
  await bansTable(page, REPORTED).waitFor();
  const target = reportedBans[1] as number;
  await count.click(page.getByRole('button', { name: `Revoke ban ${target}`, exact: true }), 'Revoke ban');
  const panel = page.getByRole('region', { name: `Revoke ban ${target}`, exact: true });
  await count.choose(panel.getByLabel('Revoke reason'), 'report_upheld', 'the revoke reason');
  await count.click(panel.getByRole('button', { name: 'Revoke ban' }), 'Revoke ban (confirm)');
  await statusHolding(page, `Ban ${target} revoked with reason report_upheld`);

  const listed = await server.call('GET', `/v1/device/${REPORTED}/bans?status=all`, { game: GAME });
  expect(
    listed.body.items.map((b: any) => [b.ban_id, b.revoked_at !== null, b.revoke_reason_code ?? null]),
  ).toEqual([
    [target, true, 'report_upheld'],
    [reportedBans[0], false, null],
  ]);
  expect(unexpectedProblems(console_.problems)).toEqual([]);
  count.record('find a device from a report and decide');
});

it('(ii) bans a device with a reason from the catalogue, for 7 days', async () => {
  const page = await freshConsole();
  const count = new Counter(page);
  const nav = page.getByRole('navigation', { name: 'Console sections' });
  await count.click(nav.getByRole('button', { name: 'Devices' }), 'Devices');
  await count.type(page.getByLabel('Game ID', { exact: true }), GAME, 'the Game ID');
  const form = page.getByRole('region', { name: 'Create a ban', exact: true });
  await count.type(form.getByLabel('Device ID to ban'), TO_BAN, 'the device id (from the report)');
  const sent = Date.now();
  await count.choose(form.getByLabel('Reason from the catalogue'), REASON.code, 'the reason');
  await count.click(form.getByRole('button', { name: 'Create ban', exact: true }), 'Create ban');
  await statusHolding(form, /Ban \d+ created/);

  const listed = await server.call('GET', `/v1/device/${TO_BAN}/bans`, { game: GAME });
  expect(listed.body.items).toEqual([
    expect.objectContaining({ reason_code: REASON.code, ban_type: 'social', scope: 'game' }),
  ]);
  const ahead = Date.parse(listed.body.items[0].expires_at) - sent;
  expect(ahead).toBeGreaterThan(REASON.seconds * 1000 - 120_000);
  expect(ahead).toBeLessThanOrEqual(REASON.seconds * 1000 + 60_000);
  expect(unexpectedProblems(console_.problems)).toEqual([]);
  count.record('ban with a preset (catalogue reason, 7 days)');
});

it("(iii) reviews today's activity: who did what, on the page the console opens on", async () => {
  const page = await freshConsole();
  const count = new Counter(page);
  const table = page.getByRole('table', { name: /^Today's events by who made them/ });
  await table.waitFor();
  const rows = await rowsOf(table);
  const audit = await server.call('GET', '/v1/audit?limit=200');
  const byKey = (name: string) =>
    audit.body.items.filter((e: any) => e.actor?.name === name || e.actor?.key_name === name).length;
  for (const name of ['bot-a', 'bot-b']) {
    const row = rows.find((r) => (r[0] ?? '').includes(name));
    expect(row, `a row for ${name} in ${JSON.stringify(rows)}`).toBeDefined();
    const events = Number(row?.[1]);
    expect(events).toBeGreaterThan(0);
    if (byKey(name) > 0) expect(events).toBe(byKey(name));
  }
  expect(rows.reduce((n, r) => n + Number(r[1]), 0)).toBe(audit.body.items.length);
  expect(unexpectedProblems(console_.problems)).toEqual([]);
  count.record("review today's activity");
});
