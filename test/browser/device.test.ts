import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { bansTable, lookUp, rowsOf, setGame, signIn } from './support/console';
import {
  axeScan,
  type ConsolePage,
  narrowAxeScan,
  openPage,
  screenshot,
  seriousViolations,
  unexpectedProblems,
} from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * Choosing a game and looking up a device: its bans with a status filter and paging,
 * each with `enforced` and the rule that applies it; the enforcement answer and the reputation.
 * What the page shows is compared with what the API answers for the same device and game.
 */

const GAME = 'game-1';
const DEVICE = 'device-lookup';

let server: LocalServer;
let browser: Browser;
let otherKey: string;
let revokedBanId: number;
let socialGlobalBanId: number;

const ban = async (key: string, game: string, body: Record<string, unknown>) => {
  const made = await server.call('POST', '/v1/bans', { key, game, body: { device_id: DEVICE, ...body } });
  expect(made.status).toBe(201);
  return made.body.ban_id as number;
};

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  // Another publisher, made with the operator's tool against the running server's store.
  otherKey = await server.publisherKey('acme');

  const dev = server.devKey;
  await ban(dev, GAME, {
    ban_type: 'cheat',
    scope: 'game',
    reason_code: 'aimbot',
    details: { match: 'm-1' },
  });
  socialGlobalBanId = await ban(dev, GAME, { ban_type: 'social', scope: 'global', reason_code: 'spam' });
  revokedBanId = await ban(dev, 'game-2', {
    ban_type: 'social',
    scope: 'publisher',
    reason_code: 'toxicity',
  });
  const revoked = await server.call('POST', `/v1/device/${DEVICE}/bans/${revokedBanId}/revoke`, {
    game: 'game-2',
    body: { reason_code: 'appeal_upheld' },
  });
  expect(revoked.status).toBe(200);
  await ban(otherKey, 'acme-racer', {
    ban_type: 'cheat',
    scope: 'global',
    reason_code: 'wallhack',
    details: { x: 1 },
  });
  // Another game's ban: out of sight from game-1.
  await ban(dev, 'game-2', { ban_type: 'cheat', scope: 'game', reason_code: 'speedhack' });
  // Enough more to need a second page.
  for (let i = 0; i < 22; i++)
    await ban(dev, GAME, {
      ban_type: 'social',
      scope: 'game',
      reason_code: `chat-${String(i).padStart(2, '0')}`,
    });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The API's own answer for the device, the oracle the page is held to. */
const apiListing = async (status: string, type?: string) => {
  const items: any[] = [];
  let cursor: number | null = null;
  let counts: unknown;
  do {
    const query = new URLSearchParams({ status, limit: '200', ...(type ? { type } : {}) });
    if (cursor !== null) query.set('cursor', String(cursor));
    const page = await server.call('GET', `/v1/device/${DEVICE}/bans?${query}`, { game: GAME });
    expect(page.status).toBe(200);
    items.push(...page.body.items);
    counts = page.body.counts;
    cursor = page.body.next_cursor;
  } while (cursor !== null);
  return { items, counts: counts as { active: number; inactive: number; total: number } };
};

describe('looking up a device', () => {
  let console_: ConsolePage;
  beforeAll(async () => {
    console_ = await openPage(browser, server.devicesUrl);
    await signIn(console_.page, server.devKey);
    await setGame(console_.page, GAME);
  });
  afterAll(() => console_?.close());

  it('shows the enforcement answer (restricted, why, the rule of each ban) and the reputation the API computes', async () => {
    const { page } = console_;
    await lookUp(page, DEVICE);
    await page.getByRole('heading', { name: `Device ${DEVICE} in game ${GAME}` }).waitFor();
    // The verdict takes focus, so a keyboard or screen-reader user lands on the answer.
    const verdict = page.getByRole('heading', { name: 'Enforcement', exact: true });
    expect(await verdict.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);

    const enforcement = (await server.call('GET', `/v1/device/${DEVICE}/enforcement`, { game: GAME })).body;
    const panel = page.getByRole('region', { name: 'Enforcement', exact: true });
    const text = await panel.innerText();
    // With weight, and until when: the latest end of the bans that apply, or permanently.
    const until = (type: 'cheat' | 'social') => {
      const ends = enforcement.bans.filter((b: any) => b.ban_type === type).map((b: any) => b.expires_at);
      return ends.includes(null) ? 'permanently' : 'until ';
    };
    for (const [type, words] of [
      ['cheat', 'Cheat'],
      ['social', 'Social'],
    ] as const)
      expect(text).toContain(
        `${words}: ${enforcement.restricted[type] ? `restricted ${until(type)}` : 'not restricted'}`,
      );
    expect(
      await panel
        .locator('.verdict strong')
        .first()
        .evaluate((el) => (globalThis as any).getComputedStyle(el).fontSize),
    ).not.toBe(
      await panel
        .locator('p')
        .first()
        .evaluate((el) => (globalThis as any).getComputedStyle(el).fontSize),
    );
    // Each ban that applies, with the flags that make it apply; the global social ban does not
    // apply (enforce_social_global is off by default), so it is not among them: it is listed apart,
    // after them, with the API's reason (not_enforced).
    expect(enforcement.bans.length).toBe(24);
    for (const applied of enforcement.bans)
      expect(text).toContain(
        `Ban ${applied.ban_id}: ${applied.ban_type}, ${applied.scope} scope, by ${applied.publisher_id}`,
      );
    expect(text).toContain(`rule ${enforcement.bans[0].rule.join(' + ')}`);
    const [applying, notApplying = ''] = text.split(
      'Global bans in force that do not apply to you, and why:',
    );
    expect(applying).not.toContain(`Ban ${socialGlobalBanId}:`);
    expect(enforcement.not_enforced).toEqual([
      expect.objectContaining({ ban_id: socialGlobalBanId, because: 'policy' }),
    ]);
    expect(notApplying).toContain(
      `Ban ${socialGlobalBanId}: social, global scope, by dev-publisher: not applied: ${enforcement.not_enforced[0].explanation}`,
    );

    const reputation = await page.getByRole('region', { name: 'Reputation', exact: true }).innerText();
    expect(reputation).toContain(`Score ${enforcement.reputation.score} of 100`);
    expect(reputation).toContain(`Counted scopes: ${enforcement.reputation.included_scopes.join(', ')}`);
  });

  it('lists every visible ban with enforced and its rule, page by page, in the order and counts the API gives', async () => {
    const { page } = console_;
    const all = await apiListing('all');
    expect(all.counts).toEqual({ active: 25, inactive: 1, total: 26 });
    const table = bansTable(page, DEVICE);
    expect(await table.getByRole('caption').innerText()).toContain('25 active, 1 inactive, 26 in all');

    const seen: string[][] = [];
    let pageNumber = 1;
    for (;;) {
      const rows = await rowsOf(table);
      seen.push(...rows);
      const next = page.getByRole('button', { name: 'Next page' });
      if (await next.isDisabled()) break;
      await next.click();
      pageNumber += 1;
      await page.getByText(`Page ${pageNumber}`, { exact: true }).waitFor();
    }
    expect(pageNumber).toBeGreaterThan(1);
    expect(seen.map((row) => Number(row[0]))).toEqual(all.items.map((b) => b.ban_id));
    for (const [i, item] of all.items.entries()) {
      const row = seen[i] as string[];
      expect(row.slice(1, 6)).toEqual([
        item.ban_type,
        item.scope,
        item.publisher_id,
        item.game_id ?? '—',
        item.reason_code,
      ]);
      expect(row[9]).toBe(item.enforced ? 'yes' : 'no');
    }
    const social = seen.find((row) => Number(row[0]) === socialGlobalBanId) as string[];
    expect(social[9]).toBe('no');
    expect(social[10]).toBe('not applied: enforce_social_global is off');
    const game = seen.find((row) => row[2] === 'game' && row[1] === 'cheat') as string[];
    expect(game[10]).toBe('applies by enforce_game');

    // And back.
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText(`Page ${pageNumber - 1}`, { exact: true }).waitFor();
  });

  it('filters by status and type as the API does', async () => {
    const { page, problems } = console_;
    const table = bansTable(page, DEVICE);
    await page.getByLabel('Status', { exact: true }).selectOption('inactive');
    await page.getByRole('button', { name: 'Show bans' }).click();
    await page.getByRole('table', { name: /showing inactive/ }).waitFor();
    const inactive = await rowsOf(table);
    expect(inactive.map((row) => Number(row[0]))).toEqual([revokedBanId]);
    expect(inactive[0]?.[8]).toBe('revoked (appeal_upheld)');

    await page.getByLabel('Status', { exact: true }).selectOption('active');
    await page.getByLabel('Type', { exact: true }).selectOption('cheat');
    await page.getByRole('button', { name: 'Show bans' }).click();
    await page.getByRole('table', { name: /showing active/ }).waitFor();
    const cheat = await apiListing('active', 'cheat');
    expect((await rowsOf(table)).map((row) => Number(row[0]))).toEqual(cheat.items.map((b) => b.ban_id));
    expect(cheat.items.length).toBe(2);

    await page.getByLabel('Status', { exact: true }).selectOption('all');
    await page.getByLabel('Type', { exact: true }).selectOption('any');
    await page.getByRole('button', { name: 'Show bans' }).click();
    await page.getByRole('table', { name: /showing all/ }).waitFor();
    await screenshot(
      page,
      'device-enforcement',
      page.getByRole('region', { name: 'Enforcement', exact: true }),
    );
    await screenshot(
      page,
      'device-reputation',
      page.getByRole('region', { name: 'Reputation', exact: true }),
    );
    await screenshot(page, 'device-bans', page.getByRole('region', { name: 'Bans', exact: true }));
    expect(seriousViolations(await axeScan(page, 'device-lookup'))).toEqual([]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it("keeps the result readable by keyboard at a phone's width, where its tables scroll", async () => {
    const { page, problems } = console_;
    expect(seriousViolations(await narrowAxeScan(page, 'device-lookup'))).toEqual([]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});
