import type { Browser, Locator, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn as personSignIn } from '../support/sign-in';
import { launchChromium } from './support/chromium';
import { bansTable, lookUp, rowsOf, setGame, signIn, statusHolding } from './support/console';
import {
  answerHandled,
  axeScan,
  type ConsolePage,
  expectAddress,
  NARROW,
  narrowAxeScan,
  openPage,
  requestEnded,
  screenshot,
  seriousViolations,
  unexpectedProblems,
} from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * One device in all the publisher's games at once: listings are per game, so
 * the view lists the device in the Game ID's game, in each game where the publisher banned it and
 * in the games the moderator adds, and shows per game whether cheat and social are restricted
 * (held to the enforcement answer for that game), then each ban once with who made it: the key
 * by name, the person by email, another publisher's as such (with no Revoke). The games added are
 * in the address, so a reload shows the same; a game whose listing fails says so in its row only.
 */

const DEVICE = 'dg-7f3a-device';
/** The Game ID: a cheat game ban by a named key. */
const G1 = 'dg-game-1';
/** A social game ban by a person (the moderator). */
const G2 = 'dg-game-2';
/** No game ban of the device: added by hand, it sees the publisher and global bans only. */
const G3 = 'dg-game-3';
const BOT = 'anti-cheat bot';
/** A device with no ban anywhere. */
const CLEAN = 'dg-clean-device';

let server: LocalServer;
let browser: Browser;
let acmeKey: string;
let moderatorToken: string;
const ids = { bot: 0, person: 0, publisher: 0, acme: 0 };

const ban = async (key: string, game: string, body: Record<string, unknown>) => {
  const made = await server.call('POST', '/v1/bans', { key, game, body: { device_id: DEVICE, ...body } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.ban_id as number;
};

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  // Another publisher, made with the operator's tool against the running server's store.
  acmeKey = await server.publisherKey('acme');
  const bot = await server.makeKey(BOT, ['bans:read', 'bans:write']);
  // The moderator signs in through the local provider as the console would, for an access token.
  const settings = (await (await fetch(`${server.consoleUrl}sign-in.json`)).json()) as { issuer: string };
  const { email, password } = server.people.moderator;
  const signed = await personSignIn(settings.issuer, server.consoleUrl, email, password);
  if (!signed.ok) throw new Error(`moderator sign-in: ${signed.status}`);
  moderatorToken = signed.tokens.access_token;

  ids.bot = await ban(bot.api_key, G1, { ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' });
  ids.person = await ban(moderatorToken, G2, { ban_type: 'social', scope: 'game', reason_code: 'toxicity' });
  ids.publisher = await ban(server.devKey, G1, {
    ban_type: 'social',
    scope: 'publisher',
    reason_code: 'spam',
    expires_at: new Date(Date.now() + 3 * 86_400_000 + 3_600_000).toISOString(),
  });
  // Social global bans are not enforced under the default policy: restricted must follow `enforced`.
  ids.acme = await ban(acmeKey, 'acme-racer', { ban_type: 'social', scope: 'global', reason_code: 'abuse' });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const gamesTable = (page: Page, device = DEVICE) =>
  page.getByRole('table', { name: `Device ${device}: restricted or not in each game, under your policy` });
const allBansTable = (page: Page, device = DEVICE) =>
  page.getByRole('table', { name: new RegExp(`^Bans of ${device} in the games shown`) });
const allGamesChoice = (page: Page) => page.getByRole('radio', { name: /^In all games/ });
const bansStatus = (page: Page) =>
  page.getByRole('region', { name: 'Bans in these games', exact: true }).getByRole('status');

/** The row a game's enforcement answer calls for: the oracle the table is held to. */
const expectedRow = async (game: string, why: string) => {
  const answer = await server.call('GET', `/v1/device/${DEVICE}/enforcement`, { game });
  expect(answer.status).toBe(200);
  const yes = (on: boolean) => (on ? 'yes' : 'no');
  return [
    game,
    yes(answer.body.restricted.cheat),
    yes(answer.body.restricted.social),
    String(answer.body.bans.length),
    why,
  ];
};

/** The games table once every row has its answer (no row still reading). */
const answeredRows = async (page: Page, count: number, device = DEVICE) => {
  const table = gamesTable(page, device);
  await expect
    .poll(async () => {
      const rows = await rowsOf(table);
      return rows.length === count && rows.every((r) => !r.includes('Reading…'));
    })
    .toBe(true);
  return rowsOf(table);
};

/** The bans table's rows by ban id. */
const bansById = async (table: Locator) =>
  Object.fromEntries((await rowsOf(table)).map((row) => [Number(row[0]), row]));

const failWith503 = (game: string) => async (route: Route) => {
  if (route.request().headers()['x-game-id'] !== game) return route.fallback();
  await route.fulfill({
    status: 503,
    contentType: 'application/json',
    headers: { 'Retry-After': '1' },
    body: JSON.stringify({
      error: { code: 'service_unavailable', message: 'The service is temporarily unavailable' },
      request_id: 'req-test',
    }),
  });
};

describe('a device in all games', () => {
  let console_: ConsolePage;
  beforeAll(async () => {
    console_ = await openPage(browser, server.devicesUrl);
    await signIn(console_.page, server.devKey);
  });
  afterAll(() => console_?.close());

  it('lists the device in the Game ID and where you banned it, each row as that game’s enforcement answer', async () => {
    const { page, problems } = console_;
    await setGame(page, G1);
    await lookUp(page, DEVICE);
    await allGamesChoice(page).check();
    await page.getByRole('heading', { name: `Device ${DEVICE} in all games` }).waitFor();
    await expectAddress(page, `#/device?game=${G1}&device=${DEVICE}&games=`);
    // The index of banned devices names G1 and G2 (the publisher ban was made in G1).
    expect(await answeredRows(page, 2)).toEqual([
      await expectedRow(G1, 'the Game ID'),
      await expectedRow(G2, 'you banned it here'),
    ]);
    // G1: its cheat game ban and the publisher ban; G2: its social game ban and the publisher ban;
    // acme's social global ban is visible in both but not enforced under this policy.
    expect((await rowsOf(gamesTable(page))).map((r) => r.slice(1, 4))).toEqual([
      ['yes', 'yes', '2'],
      ['no', 'yes', '2'],
    ]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('adds a game: its row joins, and the address keeps it', async () => {
    const { page, problems } = console_;
    const field = page.getByLabel('Add a game', { exact: true });
    // A game already shown, or no game id, is refused in the page.
    await field.fill(G2);
    await page.getByRole('button', { name: 'Add game', exact: true }).click();
    await page.getByText('Game is already shown', { exact: true }).waitFor();
    await field.fill('no/such game');
    await page.getByRole('button', { name: 'Add game', exact: true }).click();
    await page.getByText('Game must be 1-64 characters of A-Z a-z 0-9 . _ ~ : -', { exact: true }).waitFor();
    await field.fill(G3);
    await field.press('Enter');
    expect(await answeredRows(page, 3)).toEqual([
      await expectedRow(G1, 'the Game ID'),
      await expectedRow(G2, 'you banned it here'),
      [...(await expectedRow(G3, 'added')).slice(0, 4), 'added Remove'],
    ]);
    // G3 sees no game ban: the publisher ban only.
    expect((await rowsOf(gamesTable(page)))[2]?.slice(1, 4)).toEqual(['no', 'yes', '1']);
    await expectAddress(page, `#/device?game=${G1}&device=${DEVICE}&games=${G3}`);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('shows each ban once, in the games it applies in, with who made it; another publisher’s has no Revoke', async () => {
    const { page } = console_;
    const table = allBansTable(page);
    await statusHolding(page, 'Every game shown answered: 4 bans.');
    const rows = await bansById(table);
    expect(Object.keys(rows).map(Number).sort()).toEqual(Object.values(ids).sort());
    const listed = await server.call('GET', `/v1/device/${DEVICE}/bans?status=all`, { game: G1 });
    const devKeyName = listed.body.items.find((b: { ban_id: number }) => b.ban_id === ids.publisher)
      .created_by.name as string;
    const { email } = server.people.moderator;
    // [ban, type, scope, games, reason, created, expires, status, enforced, made by, details, actions]
    const pick = (row: string[] = []) => [row[1], row[2], row[3], row[7], row[8], row[9], row[11]];
    expect(pick(rows[ids.bot])).toEqual([
      'cheat',
      'game',
      G1,
      'active',
      'yes',
      expect.stringContaining(BOT),
      'Revoke',
    ]);
    expect(pick(rows[ids.person])).toEqual([
      'social',
      'game',
      G2,
      'active',
      'yes',
      `${email} (moderator)`,
      'Revoke',
    ]);
    expect(pick(rows[ids.publisher])).toEqual([
      'social',
      'publisher',
      `every game (listed in ${G1}, ${G2}, ${G3})`,
      'active',
      'yes',
      expect.stringContaining(devKeyName),
      'Revoke',
    ]);
    expect(pick(rows[ids.acme])).toEqual([
      'social',
      'global',
      `every game (listed in ${G1}, ${G2}, ${G3})`,
      'active',
      'no',
      'another publisher (acme)',
      '',
    ]);
    // Another publisher's details stay theirs: the API gives none, and the page says whose they are.
    expect(rows[ids.acme]?.[10]).toBe('private to acme');
    // The time left in the moderator's zone, with the UTC time on hover.
    expect(rows[ids.publisher]?.[6]).toMatch(/^until .+ \(in 3 days\)$/);
    expect(await table.getByRole('button', { name: `Revoke ban ${ids.acme}` }).count()).toBe(0);

    // What acme sees: its own global ban with its maker, none of dev-publisher's, and its own index.
    const theirs = await server.call('GET', `/v1/device/${DEVICE}/bans?status=all`, {
      key: acmeKey,
      game: G1,
    });
    expect(theirs.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual([ids.acme]);
    expect(theirs.body.items[0].created_by).toMatchObject({ type: 'key' });
    const found = await server.call('GET', `/v1/devices?prefix=${DEVICE}`, { key: acmeKey });
    expect(found.body.items).toEqual([expect.objectContaining({ device_id: DEVICE, games: ['acme-racer'] })]);
    // And dev-publisher is not told who at acme made theirs.
    expect(listed.body.items.find((b: { ban_id: number }) => b.ban_id === ids.acme).created_by).toBeNull();
  });

  it('shows the same after a reload, from the address', async () => {
    const { page, problems } = console_;
    const before = await rowsOf(gamesTable(page));
    await page.reload();
    await signIn(page, server.devKey);
    await page.getByRole('heading', { name: `Device ${DEVICE} in all games` }).waitFor();
    expect(await allGamesChoice(page).isChecked()).toBe(true);
    expect(await answeredRows(page, 3)).toEqual(before);
    await expectAddress(page, `#/device?game=${G1}&device=${DEVICE}&games=${G3}`);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it("says in a game's own row that its listing failed, and keeps the other games", async () => {
    const { page } = console_;
    const listing = (url: URL) => url.pathname === `/v1/device/${DEVICE}/bans`;
    await page.route(listing, failWith503(G2));
    try {
      // Read again: back to the one game, then all games.
      await page.getByLabel(`In game ${G1}`, { exact: true }).check();
      await allGamesChoice(page).check();
      const rows = await answeredRows(page, 3);
      expect(rows[0]).toEqual(await expectedRow(G1, 'the Game ID'));
      expect(rows[1]?.[0]).toBe(G2);
      expect(rows[1]?.[1]).toContain('Could not be listed. The service is unavailable (503)');
      expect(rows[1]?.[1]).toMatch(/Try again$/);
      expect(rows[2]?.slice(0, 4)).toEqual((await expectedRow(G3, 'added')).slice(0, 4));
      // The bans say which game is missing, and G2's own game ban is not among them.
      expect(await bansStatus(page).innerText()).toContain(`The bans of ${G2} are missing`);
      const shown = await bansById(allBansTable(page));
      expect(Object.keys(shown).map(Number).sort()).toEqual([ids.bot, ids.publisher, ids.acme].sort());
      expect(shown[ids.publisher]?.[3]).toBe(`every game (listed in ${G1}, ${G3})`);
      await screenshot(
        page,
        'device-games-failed',
        page.getByRole('region', { name: 'Restricted per game', exact: true }),
      );
    } finally {
      await page.unroute(listing);
    }
    // Trying that game again fills its row and brings its ban back.
    await page.getByRole('button', { name: `Try game ${G2} again`, exact: true }).click();
    expect((await answeredRows(page, 3))[1]).toEqual(await expectedRow(G2, 'you banned it here'));
    await statusHolding(page, 'Every game shown answered: 4 bans.');
  });

  it("revokes a game ban of another game through that ban's game, and the rows follow", async () => {
    const { page, problems } = console_;
    await page.getByLabel(`In game ${G1}`, { exact: true }).check();
    await allGamesChoice(page).check();
    await answeredRows(page, 3);
    await allBansTable(page)
      .getByRole('button', { name: `Revoke ban ${ids.person}` })
      .click();
    await page.getByLabel('Revoke reason', { exact: true }).selectOption('appeal_upheld');
    await page.getByRole('button', { name: 'Revoke ban', exact: true }).click();
    await statusHolding(page, `Ban ${ids.person} revoked with reason appeal_upheld.`);
    await expect.poll(async () => (await bansById(allBansTable(page)))[ids.person]?.[7]).toMatch(/^revoked/);
    // The Game ID stays G1; G2's row is its enforcement answer now: the publisher ban alone.
    expect(await page.getByLabel('Game ID', { exact: true }).inputValue()).toBe(G1);
    const rows = await answeredRows(page, 3);
    expect(rows[1]).toEqual(await expectedRow(G2, 'you banned it here'));
    expect(rows[1]?.slice(1, 4)).toEqual(['no', 'yes', '1']);
    // acme cannot revoke dev-publisher's ban, nor see it.
    const refused = await server.call('POST', `/v1/device/${DEVICE}/bans/${ids.bot}/revoke`, {
      key: acmeKey,
      game: G1,
      body: { reason_code: 'x' },
    });
    expect(refused.status).toBe(404);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('drops the previous device at once when another is looked up, and a late answer does not land', async () => {
    const { page, problems } = console_;
    let release: () => void = () => {};
    const held = new Promise<void>((done) => {
      release = done;
    });
    const slow = (url: URL) => url.pathname === `/v1/device/${DEVICE}/bans`;
    await page.route(slow, async (route) => {
      if (route.request().headers()['x-game-id'] === G3) await held;
      await route.fallback();
    });
    try {
      await page.getByLabel(`In game ${G1}`, { exact: true }).check();
      await allGamesChoice(page).check();
      await expect
        .poll(async () => (await rowsOf(gamesTable(page)))[2])
        .toEqual([G3, 'Reading…', 'added Remove']);
      await page.getByLabel('Device ID', { exact: true }).first().fill(CLEAN);
      await page.getByRole('button', { name: 'Look up', exact: true }).click();
      await page.getByRole('heading', { name: `Device ${CLEAN} in all games` }).waitFor();
      const late = requestEnded(page, (url, request) => slow(url) && request.headers()['x-game-id'] === G3);
      release();
      await answerHandled(page, late);
      const rows = await answeredRows(page, 2, CLEAN);
      expect(rows.map((r) => r.slice(0, 4))).toEqual([
        [G1, 'no', 'no', '0'],
        [G3, 'no', 'no', '0'],
      ]);
      expect(await rowsOf(allBansTable(page, CLEAN))).toEqual([['No bans in these games.']]);
      expect(await gamesTable(page).count()).toBe(0);
      // The games added stay with the view: the address names them for the new device.
      await expectAddress(page, `#/device?game=${G1}&device=${CLEAN}&games=${G3}`);
    } finally {
      release();
      await page.unroute(slow);
    }
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('is clean for axe at 1280 and 390 px, with no sideways page scroll and Revoke in view', async () => {
    const { page, problems } = console_;
    await page.getByLabel('Device ID', { exact: true }).first().fill(DEVICE);
    await page.getByRole('button', { name: 'Look up', exact: true }).click();
    await page.getByRole('heading', { name: `Device ${DEVICE} in all games` }).waitFor();
    await answeredRows(page, 3);
    await allBansTable(page)
      .getByRole('button', { name: `Revoke ban ${ids.bot}` })
      .waitFor();
    await screenshot(
      page,
      'device-games',
      page.getByRole('region', { name: `Device ${DEVICE} in all games` }),
    );
    expect(seriousViolations(await axeScan(page, 'device-games'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'device-games'))).toEqual([]);
    await page.setViewportSize(NARROW);
    try {
      const sideways = await page.evaluate(() => {
        const g = globalThis as any;
        return g.document.documentElement.scrollWidth - g.innerWidth;
      });
      expect(sideways).toBe(0);
      // The sticky Actions column keeps Revoke inside the window without scrolling the table.
      const box = await allBansTable(page)
        .getByRole('button', { name: `Revoke ban ${ids.bot}` })
        .boundingBox();
      expect(box && box.x + box.width).toBeLessThanOrEqual(NARROW.width);
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
    // Removing the game added: its row goes, and so does the address's mention of it.
    await page.getByRole('button', { name: `Remove game ${G3}`, exact: true }).click();
    expect((await answeredRows(page, 2)).map((r) => r[0])).toEqual([G1, G2]);
    await expectAddress(page, `#/device?game=${G1}&device=${DEVICE}&games=`);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it("flags a game no ban of yours was made in, beside the picker and on the verdict; another publisher's do not count", async () => {
    const { page, problems } = console_;
    // The API's list, once the creates are dispatched: this publisher's games, not acme's.
    await expect
      .poll(async () => (await server.call('GET', '/v1/games')).body.games, { timeout: 10_000 })
      .toEqual([G1, G2]);
    expect((await server.call('GET', '/v1/games', { key: acmeKey })).body.games).toEqual(['acme-racer']);
    await page.getByLabel(`In game ${G1}`, { exact: true }).check();
    const warning = page.getByText('No ban of yours was ever made in game acme-racer: check the Game ID.');
    await setGame(page, 'acme-racer');
    await warning.waitFor();
    await lookUp(page, DEVICE);
    await expect.poll(() => warning.count()).toBe(2);
    // A game of this publisher's: no warning, beside the picker or on the verdict.
    await setGame(page, G2);
    await lookUp(page, DEVICE);
    expect(await page.getByText(/^No ban of yours was ever made/).count()).toBe(0);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('bans the open device in another game from its page: it stays open, read in that game, with the new ban', async () => {
    const { page, problems } = console_;
    const form = page.getByRole('region', { name: 'Create a ban', exact: true });
    expect(await form.getByLabel('Device ID to ban').inputValue()).toBe(DEVICE);
    await form.getByLabel('Game ID of the ban', { exact: true }).fill(G3);
    await form.getByLabel('Ban type').selectOption('cheat');
    await form.getByLabel('Scope').selectOption('game');
    await form.getByLabel('Reason code').fill('wallhack');
    await form.getByRole('button', { name: 'Create ban', exact: true }).click();
    const made = Number(
      (await statusHolding(form, `on ${DEVICE} in game ${G3}`)).match(/Ban (\d+) created/)?.[1],
    );
    await page.getByRole('heading', { name: `Device ${DEVICE} in game ${G3}` }).waitFor();
    await expect
      .poll(async () => (await rowsOf(bansTable(page, DEVICE))).map((row) => Number(row[0])))
      .toContain(made);
    expect(await page.getByLabel('Game ID', { exact: true }).inputValue()).toBe(G3);
    await expectAddress(page, `#/device?game=${G3}&device=${DEVICE}`);
    // The game just used is not flagged; Back returns to the device in the game before.
    expect(await page.getByText(/^No ban of yours was ever made/).count()).toBe(0);
    await page.goBack();
    await page.getByRole('heading', { name: `Device ${DEVICE} in game ${G2}` }).waitFor();
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});
