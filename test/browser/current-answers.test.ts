import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { bansTable, lookUp, rowsOf, setGame, signIn, statusHolding } from './support/console';
import {
  answerHandled,
  axeScan,
  type ConsolePage,
  openPage,
  requestEnded,
  seriousViolations,
  unexpectedProblems,
} from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * The console shows only answers to its current question: rows of the
 * device looked up before never stay under the next one's heading, whatever its listing does; the
 * device on screen and the game a new ban goes to never disagree; and a device with nothing
 * recorded is not shown as clean.
 */

const GAME = 'game-1';

let server: LocalServer;
let browser: Browser;
let console_: ConsolePage;

const ban = async (device: string, game: string, reason: string) => {
  const made = await server.call('POST', '/v1/bans', {
    game,
    body: { device_id: device, ban_type: 'cheat', scope: 'game', reason_code: reason },
  });
  expect(made.status).toBe(201);
  return made.body.ban_id as number;
};

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  await ban('device-a', GAME, 'aimbot');
  await ban('device-b', GAME, 'wallhack');
  console_ = await openPage(browser, server.devicesUrl);
  await signIn(console_.page, server.devKey);
  await setGame(console_.page, GAME);
});
afterAll(async () => {
  await console_?.close();
  await browser?.close();
  await server?.stop();
});

/** The Revoke buttons on the page, by the ban each names. */
const revokeButtons = async () =>
  console_.page.getByRole('button', { name: /^Revoke ban \d+$/ }).allInnerTexts();

describe('answers to the current question only', () => {
  it("never leaves device A's rows under device B when B's listing fails", async () => {
    const { page } = console_;
    const aBan = await ban('device-a', GAME, 'speedhack');
    await lookUp(page, 'device-a');
    expect((await rowsOf(bansTable(page, 'device-a'))).some((r) => r.includes(String(aBan)))).toBe(true);
    // B's listing fails; its enforcement answers.
    await page.route('**/v1/device/device-b/bans?*', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        headers: { 'Retry-After': '1' },
        body: JSON.stringify({
          error: { code: 'service_unavailable', message: 'The service is temporarily unavailable' },
          request_id: 'req-test',
        }),
      }),
    );
    try {
      await page.getByLabel('Device ID', { exact: true }).first().fill('device-b');
      await page.getByRole('button', { name: 'Look up', exact: true }).click();
      await page.getByRole('heading', { name: 'Device device-b in game game-1' }).waitFor();
      await page.getByText('The bans of device-b could not be listed.').first().waitFor();
      expect(await page.getByRole('table', { name: /^Bans of device-a:/ }).count()).toBe(0);
      expect(await page.getByRole('table', { name: /^Bans of device-b:/ }).count()).toBe(0);
      expect(await page.getByRole('button', { name: `Revoke ban ${aBan}` }).count()).toBe(0);
    } finally {
      await page.unroute('**/v1/device/device-b/bans?*');
    }
  });

  it("shows B's rows, not A's, when A's listing answers after B was asked", async () => {
    const { page } = console_;
    const aBans = (await server.call('GET', '/v1/device/device-a/bans', { game: GAME })).body.items.map(
      (b: { ban_id: number }) => b.ban_id,
    );
    // A's page of bans (limit 20) is held back until B has been asked and answered.
    let releaseA: () => void = () => {};
    const heldA = new Promise<void>((done) => {
      releaseA = done;
    });
    const isAsPage = (url: URL) =>
      url.pathname.endsWith('/device/device-a/bans') && url.searchParams.get('limit') === '20';
    await page.route(isAsPage, async (route) => {
      await heldA;
      await route.continue();
    });
    try {
      await page.getByLabel('Device ID', { exact: true }).first().fill('device-a');
      await page.getByRole('button', { name: 'Look up', exact: true }).click();
      await page.getByRole('heading', { name: 'Device device-a in game game-1' }).waitFor();
      await lookUp(page, 'device-b');
      const lateA = requestEnded(page, isAsPage);
      releaseA();
      // A's late answer has had every chance to land: it did not.
      await answerHandled(page, lateA);
      await bansTable(page, 'device-b').waitFor();
      expect(await page.getByRole('table', { name: /^Bans of device-a:/ }).count()).toBe(0);
      const shown = await revokeButtons();
      for (const id of aBans) expect(shown).not.toContain(`Revoke ban ${id}`);
    } finally {
      releaseA();
      await page.unroute(isAsPage);
    }
  });

  it('never shows a device of one game while the Game ID names another: a ban goes where the page says', async () => {
    const { page, problems } = console_;
    await lookUp(page, 'device-a');
    await setGame(page, 'game-2');
    // The device looked up in game-1 is no longer shown as if it were game-2's.
    await page
      .getByText('Device device-a was looked up in game game-1; the Game ID is now game-2.')
      .waitFor();
    expect(await page.getByRole('heading', { name: /^Device device-a in game/ }).count()).toBe(0);
    expect(await revokeButtons()).toEqual([]);
    // The create form says where a ban goes: the Game ID's game, the only one on screen.
    const form = page.getByRole('region', { name: 'Create a ban', exact: true });
    await form.getByText('The game is the Game ID above (game-2).').waitFor();
    await setGame(page, GAME);
    await page.getByRole('heading', { name: 'Device device-a in game game-1' }).waitFor();
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('says a device with nothing recorded is not a clean record, and offers no erase', async () => {
    const { page } = console_;
    await page.getByLabel('Device ID', { exact: true }).first().fill('device-typo');
    await page.getByRole('button', { name: 'Look up', exact: true }).click();
    await statusHolding(page, 'No bans are recorded for device device-typo in your view of game game-1');
    expect(await page.getByText('Score 100', { exact: false }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Erase/ }).count()).toBe(0);
    expect(seriousViolations(await axeScan(page, 'device-nothing-recorded'))).toEqual([]);
  });

  it("says when a ban ends in the moderator's time and how far off it is, with UTC on hover, and its state in words and colour", async () => {
    const { page } = console_;
    const expires = new Date(Date.now() + 3 * 86_400_000 + 3_600_000).toISOString();
    const made = await server.call('POST', '/v1/bans', {
      game: GAME,
      body: {
        device_id: 'device-dated',
        ban_type: 'social',
        scope: 'game',
        reason_code: 'spam',
        expires_at: expires,
      },
    });
    expect(made.status).toBe(201);
    await lookUp(page, 'device-dated');
    const [row] = await rowsOf(bansTable(page, 'device-dated'));
    expect(row?.[7]).toMatch(/^until .+ \(in 3 days\)$/);
    const time = bansTable(page, 'device-dated')
      .locator('tbody tr')
      .first()
      .locator('td')
      .nth(6)
      .locator('time');
    expect(await time.getAttribute('datetime')).toBe(expires);
    expect(await time.getAttribute('title')).toBe(`${expires.replace('T', ' ').replace(/\.\d+Z$/, '')} UTC`);
    const badge = bansTable(page, 'device-dated').locator('.badge').first();
    expect(await badge.innerText()).toBe('active');
    expect(await badge.evaluate((el) => (globalThis as any).getComputedStyle(el).borderStyle)).toBe('solid');
    expect(seriousViolations(await axeScan(page, 'device-dated'))).toEqual([]);
  });
});
