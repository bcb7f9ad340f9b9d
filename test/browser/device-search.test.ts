import type { Browser, Locator, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_DELAY_MS } from '../../console/src/search-timing';
import { launchChromium } from './support/chromium';
import {
  alertHolding,
  bansTable,
  openSection,
  rowsOf,
  setGame,
  signIn,
  statusHolding,
} from './support/console';
import {
  answerHandled,
  axeScan,
  type ConsolePage,
  expectAddress,
  narrowAxeScan,
  openPage,
  pageSettled,
  requestEnded,
  screenshot,
  seriousViolations,
  unexpectedProblems,
} from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * Finding a device by the beginning of its id: the Devices view's search lists
 * the devices the publisher has banned whose id begins with what is typed, exactly as
 * `GET /v1/devices?prefix=` answers (another publisher's device with the same prefix is not among
 * them), page by page; Open looks a device up in its one game, or asks which of its games. A bad
 * character is refused in the page with nothing sent; a failed search says so and shows no rows,
 * and a late answer for an older prefix is dropped.
 */

const GAME = 'game-1';
const OTHER_GAME = 'game-2';
const STEM = 'rep-7f3a';
const ONE_GAME = `${STEM}-one`;
const TWO_GAMES = `${STEM}-two`;
const THEIRS = `${STEM}-acme`;
/** More devices with one prefix than a page holds (25). */
const PAGED = 'pg-';
const PAGED_COUNT = 27;

let server: LocalServer;
let browser: Browser;
let otherKey: string;

const ban = async (device: string, game: string, key = server.devKey, scope = 'game') => {
  const made = await server.call('POST', '/v1/bans', {
    key,
    game,
    body: { device_id: device, ban_type: 'cheat', scope, reason_code: 'aimbot' },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.ban_id as number;
};

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  // Another publisher, made with the operator's tool against the running server's store.
  otherKey = await server.publisherKey('acme');

  await ban(ONE_GAME, GAME);
  await ban(TWO_GAMES, GAME);
  await ban(TWO_GAMES, OTHER_GAME, server.devKey, 'publisher');
  await ban(`${STEM}-three`, OTHER_GAME);
  await ban('rep-other', GAME);
  await ban(THEIRS, 'acme-racer', otherKey);
  for (let i = 0; i < PAGED_COUNT; i++) await ban(`${PAGED}${String(i).padStart(2, '0')}`, GAME);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

type Found = { device_id: string; first_banned_at: string; last_banned_at: string; games: string[] };

/** The API's own answer, every page of it, with `key`: the oracle the page is held to. */
const apiFound = async (prefix: string, key = server.devKey) => {
  const pages: Found[][] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ prefix, limit: '25', ...(cursor ? { cursor } : {}) });
    const answer = await server.call('GET', `/v1/devices?${query}`, { key });
    expect(answer.status).toBe(200);
    pages.push(answer.body.items);
    cursor = answer.body.next_cursor;
  } while (cursor !== null);
  return pages;
};

const searchField = (page: Page) => page.getByLabel('Device ID begins with', { exact: true });
const searchRegion = (page: Page) => page.getByRole('region', { name: 'Find a device', exact: true });
const foundTable = (page: Page, prefix: string): Locator =>
  page.getByRole('table', { name: `Devices you have banned whose ID begins with "${prefix}"`, exact: false });
const anyFoundTable = (page: Page) =>
  page.getByRole('table', { name: /^Devices you have banned whose ID begins with/ });

/** The rows the page shows, each as the API's fields: the times from each <time>'s datetime. */
const shownRows = async (table: Locator) =>
  table.locator('tbody tr').evaluateAll((rows) =>
    rows.map((row) => {
      const cells = [...row.querySelectorAll('th, td')];
      const times = [...row.querySelectorAll('time')].map((t) => t.getAttribute('datetime'));
      return {
        device_id: (cells[0]?.textContent ?? '').trim(),
        first_banned_at: times[0] ?? '',
        last_banned_at: times[1] ?? '',
        games: (cells[1]?.textContent ?? '').split(', '),
      };
    }),
  );

/** Requests to GET /v1/devices the page makes from now on, by their prefix. */
const watchSearches = (page: Page) => {
  const prefixes: string[] = [];
  const listener = (request: Request) => {
    const url = new URL(request.url());
    if (url.pathname === '/v1/devices') prefixes.push(url.searchParams.get('prefix') ?? '');
  };
  page.on('request', listener);
  return { prefixes, stop: () => page.off('request', listener) };
};

const isActive = (locator: Locator) =>
  locator.evaluate((el) => el === (globalThis as any).document.activeElement);

describe('finding a device by the beginning of its id', () => {
  let console_: ConsolePage;
  beforeAll(async () => {
    console_ = await openPage(browser, server.devicesUrl, { clock: true });
    await signIn(console_.page, server.devKey);
  });
  afterAll(() => console_?.close());

  it("lists, as you type, the devices you have banned that begin with it: exactly the API's answer, not another publisher's", async () => {
    const { page, problems } = console_;
    const searches = watchSearches(page);
    const field = searchField(page);
    await field.click();
    await field.pressSequentially(STEM, { delay: 20 });
    const table = foundTable(page, STEM);
    await table.waitFor();
    searches.stop();
    // Typing pauses are what sends a search: not one request per character, and the last is the prefix.
    expect(searches.prefixes.length).toBeLessThan(STEM.length);
    expect(searches.prefixes.at(-1)).toBe(STEM);
    expect(await isActive(field)).toBe(true);

    const [answer, ...more] = await apiFound(STEM);
    expect(more).toEqual([]);
    expect(answer?.map((d) => d.device_id)).toEqual([`${STEM}-one`, `${STEM}-three`, `${STEM}-two`]);
    expect(await shownRows(table)).toEqual(answer);
    expect(await table.getByText(THEIRS).count()).toBe(0);
    // acme's own answer has its device: the index is the publisher's own.
    expect((await apiFound(STEM, otherKey)).flat().map((d) => d.device_id)).toEqual([THEIRS]);
    // Times as elsewhere in the console: local, with how far off, the UTC time on hover.
    const [row] = await rowsOf(table);
    expect(row?.[2]).toMatch(/\((\d+ seconds? ago|now|\d+ minutes? ago)\)$/);
    await statusHolding(searchRegion(page), `3 devices you have banned begin with "${STEM}" on page 1.`);

    // Narrower: only what begins with it.
    await field.fill(`${STEM}-t`);
    await foundTable(page, `${STEM}-t`).waitFor();
    expect((await shownRows(foundTable(page, `${STEM}-t`))).map((d) => d.device_id)).toEqual([
      `${STEM}-three`,
      TWO_GAMES,
    ]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('says when no device you have banned begins with it, and not that the device is clean', async () => {
    const { page } = console_;
    // Another publisher banned a device beginning with this: it is not yours, so it is not found.
    await searchField(page).fill(THEIRS);
    const said = await statusHolding(
      searchRegion(page),
      `No device you have banned begins with "${THEIRS}".`,
    );
    expect(said).toContain('That is not a clean record');
    expect(await anyFoundTable(page).count()).toBe(0);
    expect(await apiFound(THEIRS)).toEqual([[]]);
  });

  it('pages through more devices than a page holds, in the order the API gives', async () => {
    const { page, problems } = console_;
    await searchField(page).fill(PAGED);
    const table = foundTable(page, PAGED);
    await table.waitFor();
    const pages = await apiFound(PAGED);
    expect(pages.map((p) => p.length)).toEqual([25, 2]);
    expect(await shownRows(table)).toEqual(pages[0]);
    await statusHolding(
      searchRegion(page),
      `25 devices you have banned begin with "${PAGED}" on page 1; more`,
    );
    const region = searchRegion(page);
    await region.getByRole('button', { name: 'Next page' }).click();
    await region.getByText('Page 2', { exact: true }).waitFor();
    expect(await shownRows(table)).toEqual(pages[1]);
    expect(await region.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await region.getByRole('button', { name: 'Previous page' }).click();
    await region.getByText('Page 1', { exact: true }).waitFor();
    expect(await shownRows(table)).toEqual(pages[0]);
    expect([...(pages[0] ?? []), ...(pages[1] ?? [])].map((d) => d.device_id)).toEqual(
      Array.from({ length: PAGED_COUNT }, (_, i) => `${PAGED}${String(i).padStart(2, '0')}`),
    );
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('opens a device banned in one game: fills the empty Game ID, shows its bans, and the address names it', async () => {
    const { page, problems } = console_;
    await setGame(page, '');
    await searchField(page).fill(ONE_GAME);
    await foundTable(page, ONE_GAME).waitFor();
    // By keyboard: the row's Open, then Enter.
    await page.getByRole('button', { name: `Open device ${ONE_GAME}`, exact: true }).focus();
    await page.keyboard.press('Enter');
    const bans = bansTable(page, ONE_GAME);
    await bans.waitFor();
    expect(await page.getByLabel('Game ID', { exact: true }).inputValue()).toBe(GAME);
    expect(await page.getByLabel('Device ID', { exact: true }).inputValue()).toBe(ONE_GAME);
    // It lands on the answer: the verdict has the focus.
    expect(await isActive(page.getByRole('heading', { name: 'Enforcement', exact: true }))).toBe(true);
    const listed = await server.call('GET', `/v1/device/${ONE_GAME}/bans`, { game: GAME });
    expect((await rowsOf(bans)).map((r) => Number(r[0]))).toEqual(
      listed.body.items.map((b: { ban_id: number }) => b.ban_id),
    );
    await expectAddress(page, `#/device?game=${GAME}&device=${ONE_GAME}`);
    // The search keeps its answer: another device can be opened from it.
    await foundTable(page, ONE_GAME).waitFor();
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('asks which game to open a device banned in two, and opens it in the one picked', async () => {
    const { page, problems } = console_;
    await searchField(page).fill(TWO_GAMES);
    await foundTable(page, TWO_GAMES).waitFor();
    const open = page.getByRole('button', { name: `Open device ${TWO_GAMES}`, exact: true });
    await open.click();
    const pick = page.getByRole('region', { name: `Open device ${TWO_GAMES} in which game?` });
    await pick.waitFor();
    expect(await isActive(pick.getByRole('heading'))).toBe(true);
    expect(await pick.getByRole('button').allInnerTexts()).toEqual([
      `Open in ${GAME}`,
      `Open in ${OTHER_GAME}`,
      'Cancel',
    ]);
    // Escape puts it away, and the focus back on the row's Open.
    await page.keyboard.press('Escape');
    await pick.waitFor({ state: 'detached' });
    await expect.poll(() => isActive(open)).toBe(true);
    // Nothing was looked up meanwhile: the device open before stays.
    await expectAddress(page, `#/device?game=${GAME}&device=${ONE_GAME}`);

    await open.click();
    await pick.getByRole('button', { name: `Open in ${OTHER_GAME}` }).click();
    const bans = bansTable(page, TWO_GAMES);
    await bans.waitFor();
    await page.getByRole('heading', { name: `Device ${TWO_GAMES} in game ${OTHER_GAME}` }).waitFor();
    expect(await page.getByLabel('Game ID', { exact: true }).inputValue()).toBe(OTHER_GAME);
    const listed = await server.call('GET', `/v1/device/${TWO_GAMES}/bans`, { game: OTHER_GAME });
    expect((await rowsOf(bans)).map((r) => Number(r[0]))).toEqual(
      listed.body.items.map((b: { ban_id: number }) => b.ban_id),
    );
    await expectAddress(page, `#/device?game=${OTHER_GAME}&device=${TWO_GAMES}`);
    // Back: the device before, in its game.
    await page.goBack();
    await page.getByRole('heading', { name: `Device ${ONE_GAME} in game ${GAME}` }).waitFor();
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('refuses a character no device id has in the page, and sends nothing', async () => {
    const { page } = console_;
    await searchField(page).fill(STEM);
    await foundTable(page, STEM).waitFor();
    const searches = watchSearches(page);
    await searchField(page).fill(`${STEM}/x`);
    const region = searchRegion(page);
    await region
      .getByText('Device ID prefix must be 1-128 characters of A-Z a-z 0-9 . _ ~ : @ + = -', { exact: true })
      .waitFor();
    expect(await searchField(page).getAttribute('aria-invalid')).toBe('true');
    await statusHolding(region, 'Nothing is searched: the prefix must be 1-128 characters');
    // Neither the pause nor Enter sends it; the rows of the prefix before are gone.
    await page.clock.runFor(SEARCH_DELAY_MS * 2);
    await searchField(page).press('Enter');
    await pageSettled(page);
    searches.stop();
    expect(searches.prefixes).toEqual([]);
    expect(await anyFoundTable(page).count()).toBe(0);
    // The API refuses the same text with the same rule.
    const refused = await server.call('GET', `/v1/devices?prefix=${encodeURIComponent(`${STEM}/x`)}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ field: 'prefix', issue: expect.any(String) }]);
    // Too long, too; and nothing at all is not a search.
    await searchField(page).fill('x'.repeat(129));
    await statusHolding(region, 'Nothing is searched: the prefix must be 1-128 characters');
    const again = watchSearches(page);
    await searchField(page).fill('');
    await searchField(page).press('Enter');
    await region
      .getByText('Device ID prefix is required: type at least 1 character', { exact: true })
      .waitFor();
    await pageSettled(page);
    again.stop();
    expect(again.prefixes).toEqual([]);
  });

  it('says a failed search failed, and shows no rows of the prefix before', async () => {
    const { page } = console_;
    await searchField(page).fill(PAGED);
    await foundTable(page, PAGED).waitFor();
    const failing = (url: URL) => url.pathname === '/v1/devices' && url.searchParams.get('prefix') === STEM;
    await page.route(failing, (route) =>
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
      await searchField(page).fill(STEM);
      const said = await alertHolding(
        searchRegion(page),
        `The devices beginning with "${STEM}" could not be listed.`,
      );
      expect(said).toContain('The service is unavailable (503): try again in 1 s.');
      expect(await anyFoundTable(page).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Open device / }).count()).toBe(0);
      // The focus stays in the field being typed in.
      expect(await isActive(searchField(page))).toBe(true);
      await screenshot(page, 'device-search-failed', searchRegion(page));
    } finally {
      await page.unroute(failing);
    }
    // Enter tries again.
    await searchField(page).press('Enter');
    await foundTable(page, STEM).waitFor();
    expect(await page.getByRole('alert').filter({ hasText: 'could not be listed' }).count()).toBe(0);
  });

  it('drops a late answer for a prefix no longer typed', async () => {
    const { page, problems } = console_;
    await searchField(page).fill('');
    let release: () => void = () => {};
    const held = new Promise<void>((done) => {
      release = done;
    });
    let asked: () => void = () => {};
    const arrived = new Promise<void>((done) => {
      asked = done;
    });
    const slow = (url: URL) => url.pathname === '/v1/devices' && url.searchParams.get('prefix') === PAGED;
    await page.route(slow, async (route) => {
      asked();
      await held;
      await route.continue();
    });
    try {
      await searchField(page).fill(PAGED);
      await arrived;
      await searchField(page).fill(ONE_GAME);
      await foundTable(page, ONE_GAME).waitFor();
      const late = requestEnded(page, slow);
      release();
      // The late answer has had every chance to land: it did not.
      await answerHandled(page, late);
      expect(await anyFoundTable(page).count()).toBe(1);
      expect((await shownRows(foundTable(page, ONE_GAME))).map((d) => d.device_id)).toEqual([ONE_GAME]);
      await statusHolding(
        searchRegion(page),
        `1 device you have banned begins with "${ONE_GAME}" on page 1.`,
      );
    } finally {
      release();
      await page.unroute(slow);
    }
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it("finds a device by its tail digits, names one only another publisher's global ban names, and a link lands on its verdict", async () => {
    const { page, problems } = console_;
    const tail = '7656119';
    const mine = `steam-${tail}`;
    const theirs = `${STEM}-glob`;
    await ban(mine, GAME);
    await ban(theirs, 'acme-racer', otherKey, 'global');
    // The end: one request with ?suffix=, the page showing exactly the API's answer.
    await page.getByLabel('Match', { exact: true }).selectOption('end');
    await page.getByLabel('Device ID ends with', { exact: true }).fill(tail);
    const byEnd = page.getByRole('table', {
      name: `Devices you have banned whose ID ends with "${tail}"`,
      exact: false,
    });
    await byEnd.waitFor();
    const answer = await server.call('GET', `/v1/devices?suffix=${tail}`);
    expect(answer.body.items.map((d: Found) => d.device_id)).toEqual([mine]);
    expect(await shownRows(byEnd)).toEqual(answer.body.items);
    // The start again: acme's global ban names a device this publisher never banned, once the
    // dispatcher has put it in the live set.
    await expect
      .poll(async () => (await server.call('GET', `/v1/devices?prefix=${theirs}`)).body.others_global)
      .toEqual([{ device_id: theirs, publishers: ['acme'] }]);
    await page.getByLabel('Match', { exact: true }).selectOption('start');
    await searchField(page).fill(theirs);
    const others = page.getByRole('table', { name: /^Devices only other publishers' global bans/ });
    await others.waitFor();
    expect(await rowsOf(others)).toEqual([[theirs, 'acme', 'Open']]);
    await statusHolding(
      searchRegion(page),
      `No device you have banned begins with "${theirs}"; other publishers' global bans name 1`,
    );

    // A link to the device: the verdict in view with the focus, the lookup field naming it.
    const linked = await openPage(
      browser,
      `${server.devicesUrl.split('#')[0]}#/device?game=${GAME}&device=${mine}`,
    );
    try {
      await signIn(linked.page, server.devKey);
      const verdict = linked.page.getByRole('heading', { name: 'Enforcement', exact: true });
      await expect.poll(() => isActive(verdict)).toBe(true);
      const box = await verdict.boundingBox();
      expect(box && box.y > -1 && box.y < 200, JSON.stringify(box)).toBe(true);
      expect(await linked.page.getByLabel('Device ID', { exact: true }).inputValue()).toBe(mine);
      await linked.page.getByText(/Cheat: restricted permanently/).waitFor();
      expect(unexpectedProblems(linked.problems)).toEqual([]);
    } finally {
      await linked.close();
    }
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('finds a bare SteamID64 as the steam: id the Policy view declares, says what it searched, and searches as typed on request', async () => {
    const { page, problems } = console_;
    const steam64 = '76561198012345678';
    const mine = `steam:${steam64}`;
    await ban(mine, GAME);
    // Undeclared: the bare id is searched as typed, and nothing begins with it.
    await searchField(page).fill(steam64);
    await statusHolding(searchRegion(page), `No device you have banned begins with "${steam64}"`);

    // Declared in the Policy view: Steam ids are spelled steam:<SteamID64>.
    await openSection(page, 'Policy');
    const formats = page.getByRole('region', { name: 'Device id formats', exact: true });
    await formats.getByLabel(/^Steam/).check();
    expect(await formats.getByLabel('Prefix of your steam device ids').inputValue()).toBe('steam:');
    await formats.getByRole('button', { name: 'Save device id formats' }).click();
    await statusHolding(formats, 'Device id formats saved: steam as steam:…');
    const stored = await server.call('GET', '/v1/device-formats');
    expect(stored.body.formats).toEqual([{ platform: 'steam', prefix: 'steam:' }]);
    // The other publisher declared nothing: its search reads the id as typed.
    expect((await server.call('GET', '/v1/device-formats', { key: otherKey })).body.formats).toEqual([]);

    await openSection(page, 'Devices');
    await searchField(page).fill(steam64);
    const table = foundTable(page, mine);
    await table.waitFor();
    const answer = await server.call('GET', `/v1/devices?prefix=${steam64}`);
    expect(answer.body.normalised).toEqual({ typed: steam64, searched: mine, platform: 'steam' });
    expect(await shownRows(table)).toEqual(answer.body.items);
    const said = searchRegion(page).locator('#device-search-normalised');
    await expect.poll(() => said.textContent()).toContain(`Searched ${mine}: "${steam64}" read as Steam`);

    // As typed: the bare id itself, which no device id begins with.
    await searchRegion(page)
      .getByRole('button', { name: `Search "${steam64}" as typed` })
      .click();
    await statusHolding(searchRegion(page), `No device you have banned begins with "${steam64}"`);
    expect(await said.count()).toBe(0);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('is clean for axe with rows and the game question open, at 1280 and 390 px', async () => {
    const { page, problems } = console_;
    await setGame(page, GAME);
    await searchField(page).fill(STEM);
    await foundTable(page, STEM).waitFor();
    await page.getByRole('button', { name: `Open device ${TWO_GAMES}`, exact: true }).click();
    await page.getByRole('region', { name: `Open device ${TWO_GAMES} in which game?` }).waitFor();
    await screenshot(page, 'device-search', searchRegion(page));
    expect(seriousViolations(await axeScan(page, 'device-search'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'device-search'))).toEqual([]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});

describe('what the session may search', () => {
  it('finds, with a key bound to a game, only the devices banned in it, with that game', async () => {
    const reader = await server.makeKey('support desk', ['bans:read'], [OTHER_GAME]);
    const { page, problems, close } = await openPage(browser, server.devicesUrl);
    try {
      await signIn(page, reader.api_key);
      await searchField(page).fill(STEM);
      const table = foundTable(page, STEM);
      await table.waitFor();
      const answer = (await apiFound(STEM, reader.api_key)).flat();
      expect(answer.map((d) => [d.device_id, d.games])).toEqual([
        [`${STEM}-three`, [OTHER_GAME]],
        [TWO_GAMES, [OTHER_GAME]],
      ]);
      expect(await shownRows(table)).toEqual(answer);
      // Its one game is the Game ID already: Open looks the device up in it at once.
      await page.getByRole('button', { name: `Open device ${TWO_GAMES}`, exact: true }).click();
      await bansTable(page, TWO_GAMES).waitFor();
      await expectAddress(page, `#/device?game=${OTHER_GAME}&device=${TWO_GAMES}`);
      expect(unexpectedProblems(problems)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('tells a session without bans:read why the search is hidden: known at sign-in, or learned from the 403', async () => {
    // A key that finds itself in the key list at sign-in knows at once: no search is offered or sent.
    const manager = await server.makeKey('key manager', ['keys:manage']);
    const first = await openPage(browser, server.devicesUrl);
    try {
      const searches = watchSearches(first.page);
      await signIn(first.page, manager.api_key);
      await searchRegion(first.page)
        .getByText(
          `Finding a device is hidden: it needs the scope bans:read, which this session lacks (key ${manager.key_id} was made without it).`,
        )
        .waitFor();
      expect(await searchField(first.page).count()).toBe(0);
      expect(searches.prefixes).toEqual([]);
    } finally {
      await first.close();
    }
    // One that cannot see itself learns it from the API's refusal.
    const auditor = await server.makeKey('auditor', ['audit:read']);
    const second = await openPage(browser, server.devicesUrl);
    try {
      await signIn(second.page, auditor.api_key);
      await searchField(second.page).fill(STEM);
      await searchRegion(second.page)
        .getByText(
          'Finding a device is hidden: it needs the scope bans:read, which this session lacks (the API answered 403).',
        )
        .waitFor();
      expect(await searchField(second.page).count()).toBe(0);
      expect(await anyFoundTable(second.page).count()).toBe(0);
      expect(unexpectedProblems(second.problems)).toEqual([]);
    } finally {
      await second.close();
    }
  });
});
