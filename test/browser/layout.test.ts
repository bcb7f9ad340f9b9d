import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { lookUp, openSection, setGame, signIn } from './support/console';
import { openPage, screenshot } from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * Actions stay in view: at 390, 1280 and 1920 px the Revoke button of a device's
 * ban is on screen without scrolling its table, and no view makes the page itself scroll
 * sideways: only tables scroll, inside their own regions.
 */

const GAME = 'layout-game';
const DEVICE = 'device-layout';

let server: LocalServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  // A ban with long text, which widens its row the way a real team's bans do.
  const made = await server.call('POST', '/v1/bans', {
    game: GAME,
    body: {
      device_id: DEVICE,
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'anticheat.detected.memory-tampering.kernel-driver',
      details: { match: 'm-20260304-77-eu-west-ranked', detector: 'anticheat-v5', clips: ['c-22', 'c-23'] },
      player_message: 'This device is banned for using cheat software detected during a ranked match.',
    },
  });
  expect(made.status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** How far the page scrolls sideways, and what sticks out of the window outside a table's region. */
const overflow = (page: Page) =>
  page.evaluate(() => {
    const g = globalThis as any;
    const doc = g.document;
    const outside = [...doc.querySelectorAll('body *')]
      .filter((el: any) => el.getBoundingClientRect().right > g.innerWidth + 1 && !el.closest('.table-wrap'))
      .slice(0, 5)
      .map((el: any) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}`);
    return { sideways: doc.documentElement.scrollWidth - g.innerWidth, outside };
  });

describe.each([390, 1280, 1920])('at %i px wide', (width) => {
  it('shows the Revoke button without scrolling its table, and no view scrolls the page sideways', async () => {
    const { page, close } = await openPage(browser, server.devicesUrl);
    try {
      await page.setViewportSize({ width, height: 860 });
      await signIn(page, server.devKey);
      await setGame(page, GAME);
      await lookUp(page, DEVICE);
      const revoke = page.getByRole('button', { name: /^Revoke ban \d+$/ });
      const box = await revoke.boundingBox();
      expect(box).not.toBeNull();
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(width);
      expect(box?.x ?? -1).toBeGreaterThanOrEqual(0);
      expect(await overflow(page)).toEqual({ sideways: 0, outside: [] });
      if (width === 390)
        await screenshot(page, 'device-narrow', page.getByRole('region', { name: 'Bans', exact: true }));
      for (const section of ['Start', 'Policy', 'Audit trail', 'API keys', 'Webhooks']) {
        await openSection(page, section);
        await page
          .getByRole('heading', { level: 2, name: section === 'Audit trail' ? /Audit/ : section })
          .first()
          .waitFor();
        expect(await overflow(page), section).toEqual({ sideways: 0, outside: [] });
      }
    } finally {
      await close();
    }
  });
});
