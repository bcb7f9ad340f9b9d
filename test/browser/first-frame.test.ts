import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { openSection, setGame, signIn, statusHolding } from './support/console';
import { beforeNextFrame, type ConsolePage, openPage, unexpectedProblems } from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * What a person types before the page's next frame is kept. Preact runs effects after the browser
 * paints: a form that set its fields from an effect on mount threw away what was typed in that
 * first frame, which only a busy or a fast machine reached, so the page's clock is held here to
 * reach it every time.
 */

const GAME = 'ff-game';

let server: LocalServer;
let browser: Browser;
let console_: ConsolePage;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  console_ = await openPage(browser, server.devicesUrl, { clock: true });
  await signIn(console_.page, server.devKey);
  await setGame(console_.page, GAME);
});
afterAll(async () => {
  await console_?.close();
  await browser?.close();
  await server?.stop();
});

describe('typing before the next frame', () => {
  it('keeps a new reason’s code and label typed before the form’s first paint, and stores them', async () => {
    const { page, problems } = console_;
    await openSection(page, 'Policy');
    const region = page.getByRole('region', { name: 'Reason catalogue', exact: true });
    await region.getByText('The catalogue is empty').waitFor();

    await beforeNextFrame(page, async () => {
      await region.getByRole('button', { name: 'Add a reason', exact: true }).click();
      await region.getByLabel('Code', { exact: true }).fill('wallhack');
      await region.getByLabel('Label', { exact: true }).fill('Wallhack');
    });
    await region.getByLabel('Default ban type').selectOption('cheat');
    await region.getByRole('button', { name: 'Add reason', exact: true }).click();
    await statusHolding(region, 'Reason wallhack added.');

    expect(await region.getByLabel('Code', { exact: true }).count()).toBe(0);
    const stored = await server.call('GET', '/v1/reasons');
    expect(stored.status).toBe(200);
    expect(stored.body.reasons).toEqual([
      {
        code: 'wallhack',
        label: 'Wallhack',
        ban_type: 'cheat',
        scope: 'game',
        duration_seconds: null,
        player_message: null,
      },
    ]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});
