import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { bansTable, lookUp, openSection, setGame, signIn } from './support/console';
import { type ConsolePage, expectAddress, openPage, unexpectedProblems } from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * Addresses: every view has its own URL, Back and Forward move between them, a
 * link to a device in a game opens it after sign-in, and a person's reload resumes the session
 * through the provider without typing anything. No key or token is ever in an address. An address
 * that names no view opens Start (item 9).
 */

const GAME = 'game-1';

let server: LocalServer;
let browser: Browser;
const pages: ConsolePage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  const made = await server.call('POST', '/v1/bans', {
    game: GAME,
    body: { device_id: 'device-linked', ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
  });
  expect(made.status).toBe(201);
});
afterAll(async () => {
  for (const p of pages) await p.close();
  await browser?.close();
  await server?.stop();
});

const open = async (url = server.consoleUrl) => {
  const opened = await openPage(browser, url);
  pages.push(opened);
  return opened;
};
const viewHeading = (page: Page, name: string) => page.getByRole('heading', { level: 2, name, exact: true });

describe('addresses', () => {
  it('gives each view its own address; Back and Forward move between them; no key in any', async () => {
    const { page, problems } = await open();
    await signIn(page, server.devKey);
    await expectAddress(page, '#/start');
    await openSection(page, 'Policy');
    await expectAddress(page, '#/policy');
    await openSection(page, 'Audit trail');
    await expectAddress(page, '#/audit');
    // The game is chosen in the views that use one: none on Start, Policy or the audit trail.
    expect(await page.getByLabel('Game ID', { exact: true }).count()).toBe(0);
    await page.goBack();
    await viewHeading(page, 'Policy').first().waitFor();
    await expectAddress(page, '#/policy');
    await page.goForward();
    await page.getByRole('heading', { name: /Audit/ }).first().waitFor();
    await expectAddress(page, '#/audit');
    // Back past the first view chosen: Start, where the console opened.
    await page.goBack();
    await page.goBack();
    await viewHeading(page, 'Start').first().waitFor();
    await expectAddress(page, '#/start');
    await page.goForward();
    await page.goForward();
    await page.getByRole('heading', { name: /Audit/ }).first().waitFor();
    await openSection(page, 'Devices');
    await setGame(page, GAME);
    await lookUp(page, 'device-linked');
    await expectAddress(page, `#/device?game=${GAME}&device=device-linked`);
    // Bulk uses a game too: the one chosen in Devices is carried there, and its address names it.
    await openSection(page, 'Bulk');
    await expectAddress(page, `#/bulk?game=${GAME}`);
    expect(await page.getByLabel('Game ID', { exact: true }).inputValue()).toBe(GAME);
    expect(page.url()).not.toContain('bsk_');
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('opens a link to a device in a game after sign-in', async () => {
    const { page } = await open(`${server.consoleUrl}#/device?game=${GAME}&device=device-linked`);
    await signIn(page, server.devKey);
    await bansTable(page, 'device-linked').waitFor();
    expect(await page.getByLabel('Game ID', { exact: true }).inputValue()).toBe(GAME);
  });

  it("keeps a person's place through the provider, and a reload resumes the session without typing", async () => {
    const { page } = await open(`${server.consoleUrl}#/device?game=${GAME}&device=device-linked`);
    const { email, password } = server.people.viewer;
    await page.getByRole('button', { name: 'Sign in with the local identity provider' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await bansTable(page, 'device-linked').waitFor();
    await expectAddress(page, `#/device?game=${GAME}&device=device-linked`);
    expect(new URL(page.url()).search).toBe('');
    await page.reload();
    await page.getByRole('banner').getByText(`Signed in as ${email} (viewer)`).waitFor();
    await bansTable(page, 'device-linked').waitFor();
    expect(new URL(page.url()).search).toBe('');
    await expectAddress(page, `#/device?game=${GAME}&device=device-linked`);
    // Signed out: a reload asks again.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with the local identity provider' }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Sign in with the local identity provider' }).waitFor();
  });
});
