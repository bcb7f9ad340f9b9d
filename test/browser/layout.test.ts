import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { lookUp, openSection, setGame, signIn } from './support/console';
import { axeScan, openPage, screenshot, seriousViolations } from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * Actions stay in view: at 390, 1280 and 1920 px the Revoke button of a device's
 * ban is on screen without scrolling its table, and no view makes the page itself scroll
 * sideways: only tables scroll, inside their own regions.
 */

const GAME = 'layout-game';
const DEVICE = 'device-layout';
/** A device id as long as the hashes real games send, listed beside DEVICE by a search. */
const LONG_DEVICE = 'device-layout-7f3a9c41e0b2d8f65a1c3e7b9d0f2a4c6e8b1d3f5a7c9e0b';

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
  const long = await server.call('POST', '/v1/bans', {
    game: GAME,
    body: { device_id: LONG_DEVICE, ban_type: 'social', scope: 'game', reason_code: 'chat-abuse' },
  });
  expect(long.status).toBe(201);
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

/**
 * Where each pinned (sticky) actions cell overlaps a cell of the named columns in its own row,
 * with every table's scroller at rest (scrolled to its start).
 */
const pinnedOverlaps = (page: Page, table: string, columns: readonly string[]) =>
  page.evaluate(
    ({ table, columns }) => {
      const doc = (globalThis as any).document;
      const scroller = doc.querySelector(`section.table-wrap[aria-label="${table}"]`);
      scroller.scrollLeft = 0;
      const heads = [...scroller.querySelectorAll('thead th')].map((th: any) => th.textContent.trim());
      const found: string[] = [];
      for (const row of scroller.querySelectorAll('tbody tr')) {
        const cells = [...row.children] as any[];
        const pinned = cells.find((c) => c.classList.contains('sticky-end'));
        if (!pinned) continue;
        const p = pinned.getBoundingClientRect();
        for (const column of columns) {
          const cell = cells[heads.indexOf(column)];
          if (!cell) return [`no column ${column}`];
          const c = cell.getBoundingClientRect();
          if (c.left < p.right - 0.5 && p.left < c.right - 0.5) found.push(`${column} under the actions`);
        }
      }
      return found;
    },
    { table, columns },
  );

describe('the pinned actions column', () => {
  it('covers neither Rule nor Appeal at 1440 and 1280 px, nor the device ids at 390 px, axe clean at each', async () => {
    const { page, close } = await openPage(browser, server.devicesUrl);
    try {
      await page.setViewportSize({ width: 1440, height: 900 });
      await signIn(page, server.devKey);
      await setGame(page, GAME);
      await lookUp(page, DEVICE);
      for (const width of [1440, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        expect(await pinnedOverlaps(page, 'Bans table', ['Rule', 'Appeal']), `at ${width}`).toEqual([]);
        expect(seriousViolations(await axeScan(page, `pinned-${width}`))).toEqual([]);
      }
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByLabel('Device ID begins with', { exact: true }).fill(DEVICE);
      await page.getByRole('button', { name: `Open device ${LONG_DEVICE}`, exact: true }).waitFor();
      expect(await pinnedOverlaps(page, 'Found devices table', ['Device'])).toEqual([]);
      expect(seriousViolations(await axeScan(page, 'pinned-390'))).toEqual([]);
    } finally {
      await close();
    }
  });
});
