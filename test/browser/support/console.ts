import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * What a moderator does in the console, by the names a screen reader announces (labels, roles,
 * button names), never by CSS classes: a test that passes here passes for a keyboard and
 * screen-reader user too.
 */

/** The sign-in form is usable: the key field is there and enabled. */
export const signInForm = async (page: Page) => {
  const field = page.getByLabel('API key', { exact: true });
  await field.waitFor();
  return field;
};

export const signIn = async (page: Page, key: string) => {
  await (await signInForm(page)).fill(key);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
};

export const signOut = async (page: Page) => {
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await signInForm(page);
};

/**
 * Waits until an element of `role` inside `scope` holds `text`, and returns its whole text. A
 * message from an earlier action may still be on the page, so the text is waited for, not the
 * element; on a timeout the failure shows every such message there is.
 */
const announced = async (
  scope: Page | Locator,
  role: 'alert' | 'status',
  text: string | RegExp,
  timeoutMs = 10_000,
): Promise<string> => {
  const match = scope.getByRole(role).filter({ hasText: text }).first();
  try {
    await match.waitFor({ timeout: timeoutMs });
  } catch {
    const shown = await scope.getByRole(role).allInnerTexts();
    throw new Error(
      `no ${role} holds ${text} after ${timeoutMs} ms; the page shows: ${JSON.stringify(shown)}`,
    );
  }
  return (await match.innerText()).trim();
};

/** The error the page shows (role=alert) holding `text`, once it is there. */
export const alertHolding = (scope: Page | Locator, text: string | RegExp) => announced(scope, 'alert', text);

/** The success the page announces (role=status) holding `text`, once it is there. */
export const statusHolding = (scope: Page | Locator, text: string | RegExp) =>
  announced(scope, 'status', text);

/** Opens a section from the console's navigation. */
export const openSection = async (page: Page, name: string) => {
  await page.getByRole('navigation', { name: 'Console sections' }).getByRole('button', { name }).click();
};

/**
 * Chooses the game where it is chosen: in the view shown if it uses one (Devices, Bulk), else in
 * Devices, which the console then shows; the choice is carried to the other views that use one.
 */
export const setGame = async (page: Page, game: string) => {
  const field = page.getByLabel('Game ID', { exact: true });
  if ((await field.count()) === 0) await openSection(page, 'Devices');
  await field.fill(game);
};

/** Looks a device up in the game and waits until its bans are listed. */
export const lookUp = async (page: Page, deviceId: string) => {
  await page.getByLabel('Device ID', { exact: true }).first().fill(deviceId);
  await page.getByRole('button', { name: 'Look up', exact: true }).click();
  await bansTable(page, deviceId).waitFor();
};

/** The table of the open device's bans (its caption names the device). */
export const bansTable = (page: Page, deviceId: string): Locator =>
  page.getByRole('table', { name: new RegExp(`^Bans of ${escapeRegExp(deviceId)}:`) });

/** The rows of a table's body, each as its cells' texts. */
export const rowsOf = async (table: Locator): Promise<string[][]> =>
  table
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').trim())),
    );

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What the page keeps where a key could leak: web storage, cookies, the address. */
export const storageOf = async (page: Page) =>
  page.evaluate(() => {
    // The project's tsconfig has no DOM library: the page's globals, untyped.
    const { localStorage, sessionStorage, document, location } = globalThis as any;
    return {
      local: Object.fromEntries(Object.entries(localStorage)) as Record<string, string>,
      session: Object.fromEntries(Object.entries(sessionStorage)) as Record<string, string>,
      cookie: document.cookie as string,
      href: location.href as string,
    };
  });

/** Waits until `read` returns a value `check` accepts (the API dispatches in the background). */
export const eventually = async <T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 10_000) => {
  const until = Date.now() + ms;
  let value = await read();
  while (!check(value)) {
    if (Date.now() > until) {
      expect(value, 'condition not met in time').toBe('a value the check accepts');
    }
    await new Promise((done) => setTimeout(done, 50));
    value = await read();
  }
  return value;
};

/** The confirmation a policy save asks for, with the devices the change reaches. */
export const policyConfirm = (page: Page): Locator =>
  page.getByRole('region', { name: 'Save this policy change?', exact: true });

/** Saves the policy as drafted: Save policy, then Save the change on its confirmation. */
export const savePolicy = async (page: Page) => {
  await page.getByRole('button', { name: 'Save policy', exact: true }).click();
  await policyConfirm(page).getByRole('button', { name: 'Save the change' }).click();
};
