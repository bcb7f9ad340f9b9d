import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_REFRESH_MS } from '../../console/src/appeals-words';
import { launchChromium } from './support/chromium';
import {
  alertHolding,
  bansTable,
  eventually,
  openSection,
  rowsOf,
  signIn,
  statusHolding,
} from './support/console';
import {
  axeScan,
  type ConsolePage,
  expectAddress,
  narrowAxeScan,
  openPage,
  screenshot,
  seriousViolations,
  unexpectedProblems,
} from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * Appeals in the console: a game server files players' appeals through the API (a key
 * with appeals:write); a moderator (a key with appeals:decide) sees the queue oldest first with
 * each appeal's age and the queue's numbers, filters it, opens an appeal beside its ban and the
 * device's history, previews what the player will see, confirms, and the decision takes effect.
 * Each decision is checked against what the API then holds: the appeal, and the ban it changed.
 * A key without appeals:decide is told why the queue is hidden; another publisher sees none of it.
 */

const GAME = 'game-1';
const DAY = 86_400_000;

let server: LocalServer;
let browser: Browser;
let console_: ConsolePage;
/** The API requests the moderator's page made, to see what it sent and what it did not. */
const sent: Request[] = [];

/** The seeded appeals, in the order they were filed (the queue's order). */
const seeded: Array<{ device: string; banId: number; appealId: string }> = [];
const OLD_MESSAGE = 'Banned for using an aimbot. You may appeal at support.example.com.';
/** What each seeded ban rests on: its owner's evidence, shown to its owner's moderators. */
const DETAILS = { replay: 'match-8812', detector: { name: 'aim-v3', score: 0.97 } };
const DETAILS_TEXT = 'replay: match-8812detector: {"name":"aim-v3","score":0.97}';
const MODERATOR_SCOPES = ['bans:read', 'policy:read', 'appeals:decide'];
let acmeKey: string;
const APPEAL_TEXT = 'I did not cheat.\nMy brother played on my account that evening.';

/** The datetime-local value of a time: the page's time zone is UTC (the test's context). */
const local = (ms: number) => new Date(ms).toISOString().slice(0, 16);

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  // A game server's key files the appeals; the moderator's key decides them.
  const filer = await server.makeKey('game server', ['appeals:write']);
  const seeds = [
    { device: 'device-appeal-short', expires_at: new Date(Date.now() + 30 * DAY).toISOString() },
    { device: 'device-appeal-over' },
    { device: 'device-appeal-race' },
    { device: 'device-appeal-note' },
  ];
  for (const seed of seeds) {
    const made = await server.call('POST', '/v1/bans', {
      game: GAME,
      body: {
        device_id: seed.device,
        ban_type: 'cheat',
        scope: 'game',
        reason_code: 'aimbot',
        player_message: OLD_MESSAGE,
        details: DETAILS,
        ...(seed.expires_at ? { expires_at: seed.expires_at } : {}),
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const filed = await server.call('POST', '/v1/appeals', {
      key: filer.api_key,
      game: GAME,
      body: {
        device_id: seed.device,
        ban_id: made.body.ban_id,
        message: APPEAL_TEXT,
        contact: 'player@example.com',
      },
    });
    expect(filed.status, JSON.stringify(filed.body)).toBe(201);
    seeded.push({ device: seed.device, banId: made.body.ban_id, appealId: filed.body.appeal_id });
  }
  // Another publisher's global ban on the oldest appeal's device: its details stay acme's.
  acmeKey = await server.publisherKey('acme');
  const acmeBan = await server.call('POST', '/v1/bans', {
    key: acmeKey,
    game: 'acme-racer',
    body: {
      device_id: 'device-appeal-race',
      ban_type: 'social',
      scope: 'global',
      reason_code: 'spam',
      details: { acme_ticket: 'A-99' },
    },
  });
  expect(acmeBan.status, JSON.stringify(acmeBan.body)).toBe(201);
  const moderator = await server.makeKey('appeals moderator', MODERATOR_SCOPES);
  console_ = await openPage(browser, server.consoleUrl);
  console_.page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/v1/')) sent.push(request);
  });
  await signIn(console_.page, moderator.api_key);
});
afterAll(async () => {
  await console_?.close();
  await browser?.close();
  await server?.stop();
});

const seed = (i: number) => seeded[i] as { device: string; banId: number; appealId: string };
const region = (name: string | RegExp) => console_.page.getByRole('region', { name, exact: true });
const queueTable = () => console_.page.getByRole('table', { name: /^Appeals, / });
const numbersTable = () => console_.page.getByRole('table', { name: /^The queue now/ });
const decisions = () =>
  sent.filter(
    (r) => r.method() === 'POST' && /^\/v1\/appeals\/[^/]+\/decision$/.test(new URL(r.url()).pathname),
  );
const appealOf = async (appealId: string) => {
  const read = await server.call('GET', `/v1/appeals/${appealId}`);
  expect(read.status).toBe(200);
  return read.body;
};
const banOf = async (device: string, banId: number) => {
  const listed = await server.call('GET', `/v1/device/${device}/bans?status=all`, { game: GAME });
  expect(listed.status).toBe(200);
  return (listed.body.items as any[]).find((b) => b.ban_id === banId);
};
/** Waits for the queue to show exactly these appeals, in this order. */
const queueShows = async (ids: string[]) => {
  const until = Date.now() + 10_000;
  let rows: string[][] = [];
  while (Date.now() < until) {
    rows = await rowsOf(queueTable());
    const shown = rows.filter((r) => r.length > 1).map((r) => r[0]);
    if (JSON.stringify(shown) === JSON.stringify(ids)) return rows;
    await new Promise((done) => setTimeout(done, 50));
  }
  expect(rows.map((r) => r[0])).toEqual(ids);
  return rows;
};

describe('the queue', () => {
  it('lists the open appeals oldest first with their age, the numbers beside them, and filters by device, ban and status', async () => {
    const { page, problems } = console_;
    await openSection(page, 'Appeals');
    const rows = await queueShows(seeded.map((s) => s.appealId));
    // The API's own order and content.
    const api = await server.call('GET', '/v1/appeals?status=open');
    expect(api.body.items.map((a: { appeal_id: string }) => a.appeal_id)).toEqual(
      seeded.map((s) => s.appealId),
    );
    for (const [i, row] of rows.entries()) {
      expect(row.slice(1, 3)).toEqual(['open', 'no one']);
      expect(row[4]).toMatch(/^waiting \d+ (second|minute)s?$/);
      expect(row.slice(5, 8)).toEqual([seed(i).device, String(seed(i).banId), `dev-publisher, game ${GAME}`]);
    }
    // The numbers: as the API counts them.
    const stats = (await server.call('GET', '/v1/appeals/stats')).body;
    expect(stats).toMatchObject({ open: 4, decided: 0 });
    // The numbers come from their own request: wait for their row, not only the queue's.
    await expect.poll(async () => (await rowsOf(numbersTable()))[0]?.[0]).toBe('4');
    const [numbers] = await rowsOf(numbersTable());
    expect(numbers?.[0]).toBe('4');
    expect(numbers?.[1]).toMatch(/^waiting \d+ (second|minute)s?$/);
    expect(numbers?.slice(2)).toEqual(['0', '0', '0', '0', 'none yet', 'none yet']);
    await screenshot(page, 'appeals-queue', region('Appeals'));
    expect(seriousViolations(await axeScan(page, 'appeals-queue'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'appeals-queue'))).toEqual([]);

    const filters = region('Queue');
    // A device id the API would refuse is refused in the page, and nothing is asked.
    const before = sent.length;
    await filters.getByLabel('Filter by device ID').fill('bad/device');
    await filters.getByLabel('Filter by ban ID').fill('12x');
    await filters.getByRole('button', { name: 'Show appeals' }).click();
    await alertHolding(filters, 'Device ID must be 1-128 characters');
    await alertHolding(filters, 'Ban ID must be a whole number of at least 1');
    expect(sent.length).toBe(before);

    await filters.getByLabel('Filter by ban ID').fill('');
    await filters.getByLabel('Filter by device ID').fill(seed(1).device);
    await filters.getByRole('button', { name: 'Show appeals' }).click();
    await queueShows([seed(1).appealId]);
    await filters.getByLabel('Filter by device ID').fill('');
    await filters.getByLabel('Filter by ban ID').fill(String(seed(2).banId));
    await filters.getByRole('button', { name: 'Show appeals' }).click();
    await queueShows([seed(2).appealId]);
    await filters.getByLabel('Filter by ban ID').fill('');
    await filters.getByLabel('Show').selectOption('decided');
    await filters.getByRole('button', { name: 'Show appeals' }).click();
    await page
      .getByRole('table', { name: /^Appeals, decided/ })
      .getByText('No appeals match.')
      .waitFor();
    await filters.getByLabel('Show').selectOption('open');
    await filters.getByRole('button', { name: 'Show appeals' }).click();
    await queueShows(seeded.map((s) => s.appealId));
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});

describe('deciding', () => {
  it('opens an appeal beside its ban and the device history, previews shortened, confirms, and the API holds the new expiry', async () => {
    const { page, problems } = console_;
    const { device, banId, appealId } = seed(0);
    const banBefore = await banOf(device, banId);
    await page.getByRole('button', { name: `Open appeal ${appealId}` }).click();
    const panel = region(`Appeal ${appealId}`);
    await panel.getByRole('heading', { name: `Appeal ${appealId}` }).waitFor();
    await expectAddress(page, `#/appeals?appeal=${appealId}`);
    // The heading takes the focus, the player's words are there line by line, and the ban beside them.
    await bansTable(page, device).waitFor();
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe(
      `Appeal ${appealId}`,
    );
    const words = await panel.locator('blockquote p').allInnerTexts();
    expect(words).toEqual(APPEAL_TEXT.split('\n'));
    await panel.getByText('Contact: player@example.com').waitFor();
    await panel.getByText(`Ban ${banId}: cheat, game scope, by dev-publisher, reason aimbot`).waitFor();
    // Opening it claimed it for this moderator.
    await statusHolding(panel, /^You hold this appeal until \d\d:\d\d/);
    const [history] = await rowsOf(bansTable(page, device));
    expect(history?.[0]).toBe(String(banId));
    expect(history?.[12]).toBe(`appeal open ${appealId}`);

    // Shortened: the new expiry is checked by the API's rules before anything is sent.
    await panel.getByLabel('shortened', { exact: true }).check();
    const expiry = panel.getByLabel('New expiry');
    await expiry.fill(local(Date.now() + 60 * DAY));
    await panel.getByRole('button', { name: 'Review decision' }).click();
    await alertHolding(panel, 'The appeal was not decided');
    await panel.getByText("New expiry must be earlier than the ban's expiry").waitFor();
    await expiry.fill(local(Date.now() - DAY));
    await panel.getByRole('button', { name: 'Review decision' }).click();
    await panel.getByText('New expiry must be later than now').waitFor();
    expect(decisions()).toHaveLength(0);

    const until = local(Date.now() + 10 * DAY);
    const newMessage = 'Your ban was shortened after review: it ends in ten days.';
    await expiry.fill(until);
    await panel.getByLabel('Private note (optional)').fill('Replay checked.\nBorderline: first offence.');
    await panel.getByLabel('New message for the player (optional)').fill(newMessage);
    // The live preview: what games will tell the player after the decision.
    const preview = await rowsOf(page.getByRole('table', { name: /^After deciding shortened/ }));
    expect(preview.map((r) => r[0])).toEqual([
      `Ban ${banId} (cheat, game)`,
      'Message for the player',
      'Appeal',
      `Cheat in game ${GAME}`,
      `Social in game ${GAME}`,
      'Reputation score',
    ]);
    expect(preview[0]?.[1]).toMatch(/^in force until /);
    expect(preview[0]?.[2]).toMatch(/^in force until .*\(in (9|10) days\)$/);
    expect(preview.slice(1, 3)).toEqual([
      ['Message for the player', OLD_MESSAGE, newMessage, 'changes'],
      ['Appeal', 'open', 'shortened', 'changes'],
    ]);
    // Shortened, it still restricts today.
    expect(preview[3]?.slice(1)).toEqual(['restricted', 'restricted', '—']);
    // The message as the player reads it (the page quotes it with <q>).
    await panel.getByText(`Games that show the ban show the player: ${newMessage}`).waitFor();
    await screenshot(page, 'appeal-open', panel);
    await screenshot(page, 'appeal-decision', region('Decide'));
    await screenshot(page, 'appeal-preview', region('What the player will see'));
    expect(seriousViolations(await axeScan(page, 'appeal-decision'))).toEqual([]);

    // Nothing is sent before the confirmation.
    await panel.getByRole('button', { name: 'Review decision' }).click();
    const confirm = region(`Decide appeal ${appealId}: shortened?`);
    await confirm.getByText(`Ban ${banId} ends`).waitFor();
    expect(decisions()).toHaveLength(0);
    expect(seriousViolations(await axeScan(page, 'appeal-confirm'))).toEqual([]);
    await confirm.getByRole('button', { name: 'Decide: shortened' }).dblclick();
    await statusHolding(panel, `Appeal ${appealId} decided: shortened`);

    // What the API holds: the appeal decided as sent, and the ban's expiry and message moved.
    const stored = await appealOf(appealId);
    const expected = `${until}:00.000Z`;
    expect(stored).toMatchObject({
      status: 'decided',
      decision: {
        outcome: 'shortened',
        expires_at: expected,
        player_message: newMessage,
        note: 'Replay checked.\nBorderline: first offence.',
      },
    });
    expect(stored.decision.applied_at).not.toBeNull();
    const banAfter = await banOf(device, banId);
    expect(banAfter).toMatchObject({
      expires_at: expected,
      player_message: newMessage,
      revoked_at: null,
      appeal: { appeal_id: appealId, status: 'decided', outcome: 'shortened' },
    });
    expect(banAfter.expires_at < banBefore.expires_at).toBe(true);
    // Whatever the double click did, the one decision the API holds is this one.
    expect(new Set(decisions().map((r) => r.postData())).size).toBe(1);

    // The page: the decision shown, the history read again, the queue and the numbers too.
    await panel.getByRole('heading', { name: 'Decision' }).waitFor();
    await panel.getByText('Private note: Replay checked.').waitFor();
    expect(await panel.getByRole('button', { name: 'Review decision' }).count()).toBe(0);
    await queueShows([seed(1).appealId, seed(2).appealId, seed(3).appealId]);
    const [numbers] = await eventually(
      () => rowsOf(numbersTable()),
      (rows) => rows[0]?.[2] === '1',
    );
    expect(numbers?.slice(0, 6)).toEqual(['3', expect.stringMatching(/^waiting/), '1', '0', '0', '1']);
    expect(numbers?.[6]).toMatch(/^\d+ (second|minute)s?$/);
    const [row] = await eventually(
      () => rowsOf(bansTable(page, device)),
      (rows) => rows[0]?.[12] !== `appeal open ${appealId}`,
    );
    expect(row?.[12]).toBe(`appeal shortened ${appealId}`);
    expect(row?.[11]).toBe(newMessage);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('overturns an appeal: the ban is revoked, and the device page shows it revoked with the outcome, linked to the appeal', async () => {
    const { page, problems } = console_;
    const { device, banId, appealId } = seed(1);
    await page.getByRole('button', { name: `Open appeal ${appealId}` }).click();
    const panel = region(`Appeal ${appealId}`);
    await bansTable(page, device).waitFor();
    await panel.getByLabel('overturned', { exact: true }).check();
    const preview = await rowsOf(page.getByRole('table', { name: /^After deciding overturned/ }));
    expect(preview[0]?.slice(1)).toEqual(['in force, permanent', 'revoked: no longer in force', 'changes']);
    // The device's only ban: overturning it lifts the restriction in the game the appeal came from.
    expect(preview[3]).toEqual([`Cheat in game ${GAME}`, 'restricted', 'not restricted', 'changes']);
    await panel.getByRole('button', { name: 'Review decision' }).click();
    const confirm = region(`Decide appeal ${appealId}: overturned?`);
    // Escape closes the confirmation as Cancel does, and nothing is sent.
    await confirm.getByRole('heading').waitFor();
    await page.keyboard.press('Escape');
    expect(await confirm.count()).toBe(0);
    await panel.getByRole('button', { name: 'Review decision' }).click();
    await confirm.getByRole('button', { name: 'Decide: overturned' }).click();
    await statusHolding(panel, `Appeal ${appealId} decided: overturned. Ban ${banId} is revoked at once`);
    expect((await appealOf(appealId)).decision.outcome).toBe('overturned');
    expect(await banOf(device, banId)).toMatchObject({
      revoke_reason_code: 'appeal_overturned',
      appeal: { appeal_id: appealId, status: 'decided', outcome: 'overturned' },
    });
    expect((await banOf(device, banId)).revoked_at).not.toBeNull();
    const enforcement = await server.call('GET', `/v1/device/${device}/enforcement`, { game: GAME });
    expect(enforcement.body.restricted.cheat).toBe(false);

    // The device page: the ban revoked, with the appeal's outcome linking back to it.
    await panel.getByRole('link', { name: `Open device ${device} in game ${GAME}` }).click();
    await page.getByRole('heading', { name: `Device ${device} in game ${GAME}` }).waitFor();
    await expectAddress(page, `#/device?game=${GAME}&device=${device}`);
    const table = bansTable(page, device);
    await table.waitFor();
    const [row] = await rowsOf(table);
    expect(row?.[8]).toBe('revoked (appeal_overturned)');
    expect(row?.[11]).toBe(OLD_MESSAGE);
    expect(row?.[12]).toBe(`appeal overturned ${appealId}`);
    // The evidence, beside it: who made the ban and its details.
    expect(row?.[13]).toMatch(/^local development \(key_[\w-]+\)$/);
    expect(row?.[14]).toBe(DETAILS_TEXT);
    // The table scrolls sideways in its region: scrolled to its end, the state and the appeal show.
    const scroller = page.getByRole('region', { name: 'Bans table' });
    await scroller.evaluate((el) => {
      el.scrollLeft = el.scrollWidth;
    });
    await screenshot(page, 'appeal-device-outcome', scroller);
    expect(seriousViolations(await axeScan(page, 'appeal-device-outcome'))).toEqual([]);
    await table.getByRole('link', { name: appealId }).click();
    await region(`Appeal ${appealId}`).getByRole('heading', { name: 'Decision' }).waitFor();
    await expectAddress(page, `#/appeals?appeal=${appealId}`);
    // Back returns to the device.
    await page.goBack();
    await bansTable(page, device).waitFor();
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});

describe('two moderators', () => {
  /** A time of day as a moderator in Tokyo reads it (their browser's zone), and a date and time. */
  const tokyo = (iso: string) =>
    new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'Asia/Tokyo' });

  it('lets one moderator hold the oldest appeal: the other sees who and until when in local time, cannot decide it, and sees it leave the queue once decided', async () => {
    const a = console_;
    const { device, appealId } = seed(2);
    const second = await server.makeKey('second moderator', MODERATOR_SCOPES);
    const b = await openPage(browser, server.consoleUrl, { clock: true, timezoneId: 'Asia/Tokyo' });
    try {
      // A opens the oldest open appeal: opening it claims it.
      await openSection(a.page, 'Appeals');
      await queueShows([seed(2).appealId, seed(3).appealId]);
      await a.page.getByRole('button', { name: `Open appeal ${appealId}` }).click();
      const panelA = region(`Appeal ${appealId}`);
      await statusHolding(panelA, /^You hold this appeal until \d\d:\d\d/);
      const held = await appealOf(appealId);
      expect(held.claimed_by).toMatchObject({ type: 'key', name: 'appeals moderator' });
      const holderA = `appeals moderator (${held.claimed_by.key_id})`;

      // The evidence beside the appeal: the contested ban's maker and details; acme's ban keeps its own.
      const evidence = await panelA.locator('.evidence').innerText();
      expect(evidence).toMatch(/^Made by: local development \(key_[\w-]+\)\n+Details:/);
      expect(evidence).toContain('replay: match-8812\ndetector: {"name":"aim-v3","score":0.97}');
      // What the player was told of why: the ban's statement of reasons, as the API answers it.
      const listed = await server.call('GET', `/v1/device/${device}/bans?status=all`, { game: GAME });
      const contested = listed.body.items.find((b: { ban_id: number }) => b.ban_id === held.ban_id);
      const { statement } = contested;
      expect(evidence).toContain(`Statement of reasons: against the terms, ${statement.terms_clause}.`);
      expect(evidence).toMatch(/Facts given to the player: \S/);
      expect(evidence).toContain(statement.facts);
      expect(evidence).toContain(
        "Detected by automated means, decided by automated means, on the publisher's own initiative; category other_violation_tc; applies in every EEA country.",
      );
      const history = await eventually(
        () => rowsOf(bansTable(a.page, device)),
        (rows) => rows.length === 2,
      );
      expect(history[0]?.slice(13)).toEqual(['another publisher (acme)', 'private to acme']);
      expect(history[1]?.slice(13)).toEqual([expect.stringMatching(/^local development/), DETAILS_TEXT]);

      // B, elsewhere (Tokyo): the queue shows A holding it, until when in B's own time.
      await signIn(b.page, second.api_key);
      await openSection(b.page, 'Appeals');
      const queueB = b.page.getByRole('table', { name: /^Appeals, / });
      const [rowB] = await eventually(
        () => rowsOf(queueB),
        (rows) => rows[0]?.[0] === appealId,
      );
      expect(rowB?.[2]).toBe(`${holderA} until ${tokyo(held.claimed_until)}`);
      // Opened, it says who holds it; the form is locked and B has no take-over.
      await b.page.getByRole('button', { name: `Open appeal ${appealId}` }).click();
      const panelB = b.page.getByRole('region', { name: `Appeal ${appealId}`, exact: true });
      await statusHolding(
        panelB,
        `Held by ${holderA} until ${tokyo(held.claimed_until)}: the decision is theirs.`,
      );
      expect(await panelB.getByLabel('upheld', { exact: true }).isDisabled()).toBe(true);
      expect(await panelB.getByRole('button', { name: 'Review decision' }).isDisabled()).toBe(true);
      expect(await panelB.getByRole('button', { name: /^Take over/ }).count()).toBe(0);
      expect((await appealOf(appealId)).claimed_by).toEqual(held.claimed_by);
      await screenshot(b.page, 'appeal-held', panelB);
      expect(seriousViolations(await axeScan(b.page, 'appeal-held'))).toEqual([]);

      // A decides. B's queue, read again on its timer, drops it; B's appeal says who decided it and when.
      await panelA.getByLabel('upheld', { exact: true }).check();
      await panelA.getByRole('button', { name: 'Review decision' }).click();
      await region(`Decide appeal ${appealId}: upheld?`)
        .getByRole('button', { name: 'Decide: upheld' })
        .click();
      await statusHolding(panelA, `Appeal ${appealId} decided: upheld`);
      const decided = await appealOf(appealId);
      expect(decided.decision.decided_by).toEqual(held.claimed_by);
      await b.page.clock.runFor(QUEUE_REFRESH_MS);
      await eventually(
        () => rowsOf(queueB),
        (rows) => rows[0]?.[0] === seed(3).appealId,
      );
      const at = new Date(decided.decision.decided_at).toLocaleString('en-GB', { timeZone: 'Asia/Tokyo' });
      await alertHolding(panelB, `Already decided by ${holderA} at ${at}`);
      expect(unexpectedProblems(b.problems)).toEqual([]);
    } finally {
      await b.close();
    }
  });

  it('keeps the typed note when someone else decides first, naming them and when in local time', async () => {
    const { page, problems } = console_;
    const { appealId } = seed(3);
    await page.getByRole('button', { name: `Open appeal ${appealId}` }).click();
    const panel = region(`Appeal ${appealId}`);
    await statusHolding(panel, /^You hold this appeal until/);
    const note = 'Checked the replay: the aim trace looks human.';
    await panel.getByLabel('overturned', { exact: true }).check();
    await panel.getByLabel('Private note (optional)').fill(note);
    // An admin (the development key holds every scope) takes it over and decides it meanwhile.
    const taken = await server.call('POST', `/v1/appeals/${appealId}/claim`, { body: { take_over: true } });
    expect(taken.status).toBe(200);
    const first = await server.call('POST', `/v1/appeals/${appealId}/decision`, {
      body: { outcome: 'upheld' },
    });
    expect(first.status).toBe(200);
    await panel.getByRole('button', { name: 'Review decision' }).click();
    await region(`Decide appeal ${appealId}: overturned?`)
      .getByRole('button', { name: 'Decide: overturned' })
      .click();
    const admin = `${taken.body.claimed_by.name} (${taken.body.claimed_by.key_id})`;
    const at = new Date(first.body.decision.decided_at).toLocaleString('en-GB', { timeZone: 'UTC' });
    const refusal = await alertHolding(panel, `Already decided by ${admin} at ${at}`);
    expect(refusal).toMatch(/request [0-9a-f-]{36}/);
    expect(await panel.getByLabel('Private note (optional)').inputValue()).toBe(note);
    expect((await appealOf(appealId)).decision).toMatchObject({ outcome: 'upheld', note: null });
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});

describe('who sees appeals', () => {
  it('offers a key without appeals:decide no Appeals section, and its link says the queue is hidden and why', async () => {
    const reader = await server.makeKey('ban reader', ['bans:read']);
    const opened = await openPage(browser, server.consoleUrl);
    try {
      await signIn(opened.page, reader.api_key);
      // Start's appeals panel learns the scope is lacking (403): Appeals leaves the navigation.
      const nav = opened.page.getByRole('navigation', { name: 'Console sections' });
      await expect.poll(() => nav.getByRole('button', { name: 'Appeals' }).count()).toBe(0);
      // A link to the queue still opens it, saying why it is hidden.
      await opened.page.evaluate(() => {
        (globalThis as any).location.hash = '#/appeals';
      });
      await opened.page
        .getByText(
          'The appeals queue is hidden: it needs the scope appeals:decide, which this session lacks (the API answered 403)',
        )
        .waitFor();
      expect(await opened.page.getByRole('table', { name: /^Appeals, / }).count()).toBe(0);
      expect(seriousViolations(await axeScan(opened.page, 'appeals-scope'))).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it("keeps each publisher's appeals its own: another publisher's console lists none and cannot open one", async () => {
    const key = acmeKey;
    const { appealId } = seed(0);
    const opened = await openPage(browser, `${server.consoleUrl}#/appeals?appeal=${appealId}`);
    try {
      await signIn(opened.page, key);
      await alertHolding(opened.page, 'No such appeal');
      await opened.page
        .getByRole('table', { name: /^Appeals, / })
        .getByText('No appeals match.')
        .waitFor();
      const numbersOfAcme = opened.page.getByRole('table', { name: /^The queue now/ });
      await numbersOfAcme.waitFor();
      const [numbers] = await rowsOf(numbersOfAcme);
      expect(numbers?.slice(0, 3)).toEqual(['0', 'none', '0']);
      // The API agrees: nothing of dev-publisher's is acme's.
      const theirs = await server.call('GET', '/v1/appeals?status=all', { key });
      expect(theirs.body).toEqual({ items: [], next_cursor: null });
      expect(unexpectedProblems(opened.problems)).toEqual([]);
    } finally {
      await opened.close();
    }
  });
});
