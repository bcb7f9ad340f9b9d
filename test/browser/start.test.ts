import type { Browser, Locator, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../support/receiver';
import { launchChromium } from './support/chromium';
import {
  alertHolding,
  bansTable,
  eventually,
  openSection,
  rowsOf,
  signIn,
  storageOf,
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
 * The Start page: the console opens on it. Today's activity by who made it
 * (from the audit trail), the open appeals and how long the oldest has waited, the bans ending in
 * the next 24 hours, and the webhooks whose deliveries are failing, each held to what the API
 * answers for the same question. Each panel needs its own scope and reads on its own: a session
 * without a scope is told so and sees none of that panel's data; one panel failing leaves the
 * others. Another publisher's Start page shows none of it.
 *
 * Webhook retries run on a 1 ms base here (WEBHOOK_RETRY_BASE_MS=1), so a delivery to a receiver
 * that answers 500 is given up (failed) after 2.88 s instead of a day; a second server, on the usual
 * local 50 ms base, keeps one being retried for the last test.
 */

const GAME = 'game-1';
const GAME_2 = 'game-2';

let server: LocalServer;
let browser: Browser;
let receiver: Receiver;
let console_: ConsolePage;
const sent: Request[] = [];
/** The seeded keys that act today, besides the development key. */
let bot: { key_id: string; api_key: string };
let filer: { key_id: string; api_key: string };
let failingHook: string;
let healthyHook: string;
/** The key that made the bans with an end (dev-publisher's). */
let shiftLead: { key_id: string; api_key: string };

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

beforeAll(async () => {
  [server, browser, receiver] = await Promise.all([
    startServer({ WEBHOOK_RETRY_BASE_MS: '1' }),
    launchChromium(),
    startReceiver(),
  ]);
  // Bans with an end, made before the webhooks exist (so they send nothing): dev-publisher's by a
  // shift lead's key, ending in 3 h (made first), 1 h, 30 h and never; another publisher's, in 1 h.
  const rivalKey = await server.publisherKey('rival');
  shiftLead = await server.makeKey('shift lead', ['bans:write']);
  const banEnding = async (
    key: string,
    ban: { device_id: string; ban_type: string; scope: string; reason_code: string },
    hours: number | null,
    game = GAME,
  ) => {
    const made = await server.call('POST', '/v1/bans', {
      key,
      game,
      body: { ...ban, ...(hours === null ? {} : { expires_at: inHours(hours) }) },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  };
  const lead = shiftLead.api_key;
  await banEnding(
    lead,
    { device_id: 'device-ends-3h', ban_type: 'cheat', scope: 'game', reason_code: 'speedhack' },
    3,
    GAME_2,
  );
  await banEnding(
    lead,
    { device_id: 'device-ends-1h', ban_type: 'social', scope: 'publisher', reason_code: 'toxicity' },
    1,
  );
  await banEnding(
    lead,
    { device_id: 'device-ends-30h', ban_type: 'social', scope: 'game', reason_code: 'spam' },
    30,
  );
  await banEnding(
    lead,
    { device_id: 'device-ends-never', ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
    null,
  );
  await banEnding(
    rivalKey,
    { device_id: 'device-rival-1h', ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
    1,
  );

  // A dispatch reads the webhooks before it hands its events on: once the last of dev-publisher's
  // bans is in its feed, none of them can reach the webhooks made below (under load the dispatcher
  // can still be handing them on when the webhooks exist).
  await eventually(
    async () => (await server.call('GET', '/v1/events?limit=100', { game: GAME })).body.items as any[],
    (items) => items.some((event) => event.device_id === 'device-ends-never'),
    30_000,
  );

  // One receiver, two webhooks: /broken answers 500 to everything, /ok takes everything.
  receiver.answer = (request) => (request.path === '/broken' ? 500 : 204);
  const hook = async (path: string) => {
    const made = await server.call('POST', '/v1/webhooks', {
      body: { url: `${receiver.url}${path}`, events: ['ban.created'] },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body.webhook_id as string;
  };
  failingHook = await hook('/broken');
  healthyHook = await hook('/ok');

  // Three actors today: the development key (keys, webhooks), a bot's key (bans, a revoke) and
  // a game server's key (an appeal).
  bot = await server.makeKey('moderation bot', ['bans:read', 'bans:write']);
  filer = await server.makeKey('game server', ['appeals:write']);
  const ban = async (device: string, reason: string) => {
    const made = await server.call('POST', '/v1/bans', {
      key: bot.api_key,
      game: GAME,
      body: { device_id: device, ban_type: 'cheat', scope: 'game', reason_code: reason },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body.ban_id as number;
  };
  const appealed = await ban('device-appealed', 'aimbot');
  await ban('device-two', 'wallhack');
  const revoked = await ban('device-three', 'spam');
  const revoke = await server.call('POST', `/v1/device/device-three/bans/${revoked}/revoke`, {
    key: bot.api_key,
    game: GAME,
    body: { reason_code: 'mistake' },
  });
  expect(revoke.status).toBe(200);
  const filed = await server.call('POST', '/v1/appeals', {
    key: filer.api_key,
    game: GAME,
    body: { device_id: 'device-appealed', ban_id: appealed, message: 'It was not me.' },
  });
  expect(filed.status, JSON.stringify(filed.body)).toBe(201);

  // The broken receiver's deliveries are given up; the other's are delivered.
  await eventually(
    async () => ({
      failed: (await server.call('GET', `/v1/webhooks/${failingHook}/deliveries?status=failed`)).body.items,
      pending: (await server.call('GET', `/v1/webhooks/${failingHook}/deliveries?status=pending`)).body.items,
      healthy: (await server.call('GET', `/v1/webhooks/${healthyHook}/deliveries`)).body.items,
    }),
    ({ failed, pending, healthy }) =>
      failed.length === 3 &&
      pending.length === 0 &&
      healthy.length === 3 &&
      healthy.every((d: any) => d.status === 'delivered'),
    30_000,
  );

  console_ = await openPage(browser, server.consoleUrl);
  console_.page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/v1/')) sent.push(request);
  });
  await signIn(console_.page, server.devKey);
}, 90_000);
afterAll(async () => {
  await console_?.close();
  await browser?.close();
  await server?.stop();
  await receiver?.close();
});

const panel = (page: Page, name: string) => page.getByRole('region', { name, exact: true });
const activity = (page: Page) => panel(page, "Today's activity by person");
const appeals = (page: Page) => panel(page, 'Open appeals');
const webhooks = (page: Page) => panel(page, 'Webhooks failing now');
const ending = (page: Page) => panel(page, 'Ending in the next 24 hours');
const endingTable = (page: Page) => ending(page).getByRole('table', { name: /^Your bans in force that end/ });
const activityTable = (page: Page) => activity(page).getByRole('table', { name: /^Today's events by who/ });
const webhooksTable = (page: Page) =>
  webhooks(page).getByRole('table', { name: /^Webhooks with deliveries/ });
const headersOf = (table: Locator) =>
  table.locator('thead th').evaluateAll((cells) => cells.map((cell) => (cell.textContent ?? '').trim()));
const datetimeIn = (scope: Locator) => scope.locator('time').first().getAttribute('datetime');

/** Every audit event of the key's publisher since `since`, read through the API itself. */
const auditSince = async (since: string, key = server.devKey) => {
  const events: any[] = [];
  let cursor: string | null = null;
  do {
    const read: { status: number; body: any } = await server.call(
      'GET',
      `/v1/audit?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      { key },
    );
    expect(read.status).toBe(200);
    events.push(...read.body.items);
    cursor = read.body.next_cursor;
  } while (cursor);
  return events.filter((e) => Date.parse(e.occurred_at) >= Date.parse(since));
};

/** What the activity table must hold for these events: the columns, then a row per actor. */
const expectedActivity = (events: any[]) => {
  const label = (actor: any) =>
    actor.type === 'user'
      ? `${actor.email ?? actor.sub} (${actor.role})`
      : `${actor.name}${actor.key_id ? ` (${actor.key_id})` : ''}`;
  const byActor = new Map<string, { label: string; counts: Record<string, number>; total: number }>();
  for (const e of events) {
    const id = e.actor.type === 'user' ? e.actor.sub : (e.actor.key_id ?? e.actor.name);
    const group = byActor.get(id) ?? { label: label(e.actor), counts: {}, total: 0 };
    group.counts[e.type] = (group.counts[e.type] ?? 0) + 1;
    group.total += 1;
    byActor.set(id, group);
  }
  return {
    types: new Set(events.map((e) => e.type as string)),
    rows: [...byActor.values()].sort((a, b) => b.total - a.total || a.label.localeCompare(b.label)),
  };
};

/** The activity table, cell by cell, holds these events grouped by who made them. */
const tableHolds = async (page: Page, events: any[]) => {
  const { types, rows } = expectedActivity(events);
  const table = activityTable(page);
  await table.waitFor();
  const headers = await headersOf(table);
  expect(headers.slice(0, 2)).toEqual(['Who', 'Events']);
  expect(new Set(headers.slice(2))).toEqual(types);
  expect(await rowsOf(table)).toEqual(
    rows.map((r) => [r.label, String(r.total), ...headers.slice(2).map((t) => String(r.counts[t] ?? 0))]),
  );
  return rows;
};

/** The activity panel checked against the API's audit trail since the page's midnight. */
const activityMatchesApi = async (page: Page, key = server.devKey) => {
  const since = (await datetimeIn(activity(page))) as string;
  const events = await auditSince(since, key);
  const rows = await tableHolds(page, events);
  expect(await activity(page).innerText()).toContain(
    `${events.length} ${events.length === 1 ? 'event' : 'events'}.`,
  );
  return { since, events, rows };
};

/** What the ending-soon table must hold for the API's items: a row each, and each ending's time. */
const endingMatchesApi = async (page: Page, items: any[]) => {
  const table = endingTable(page);
  await table.waitFor();
  expect(await headersOf(table)).toEqual(['Device', 'Type', 'Scope', 'Game', 'Reason', 'Ends', 'Made by']);
  const madeBy = (actor: any) =>
    actor === null
      ? 'not recorded'
      : actor.type === 'user'
        ? `${actor.email ?? actor.sub} (${actor.role})`
        : `${actor.name}${actor.key_id ? ` (${actor.key_id})` : ''}`;
  expect(await rowsOf(table)).toEqual(
    items.map((b) => [
      b.device_id,
      b.ban_type,
      b.scope,
      b.game_id,
      b.reason_code,
      expect.stringMatching(/\(in \d+ (seconds?|minutes?|hours?)\)$/),
      madeBy(b.created_by),
    ]),
  );
  // Each end is the API's instant, the exact UTC time on hover.
  const times = await table
    .locator('tbody time')
    .evaluateAll((cells) => cells.map((c) => [c.getAttribute('datetime'), c.getAttribute('title')]));
  expect(times).toEqual(
    items.map((b) => [b.expires_at, b.expires_at.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')]),
  );
  return table;
};

describe('the Start page', () => {
  it('is where the console opens, first in the navigation, at #/start', async () => {
    const { page } = console_;
    await expectAddress(page, '#/start');
    const nav = page.getByRole('navigation', { name: 'Console sections' }).getByRole('button');
    expect(await nav.first().innerText()).toBe('Start');
    expect(await nav.first().getAttribute('aria-current')).toBe('page');
    await page.getByRole('heading', { level: 2, name: 'Start', exact: true }).last().waitFor();
  });

  it("shows today's activity by who made it, the open appeals and the failing webhooks, exactly as the API answers", async () => {
    const { page, problems } = console_;

    // Today's activity: since midnight of the page's own day (its time zone is UTC here).
    await activityTable(page).waitFor();
    const { since, rows } = await activityMatchesApi(page);
    const midnight = new Date();
    midnight.setUTCHours(0, 0, 0, 0);
    expect(since).toBe(midnight.toISOString());
    expect(await activity(page).innerText()).toContain('midnight in your time zone (UTC)');
    const who = rows.map((r) => r.label);
    expect(who).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^local development \(key_/),
        `moderation bot (${bot.key_id})`,
        `game server (${filer.key_id})`,
      ]),
    );
    const botRow = rows.find((r) => r.label === `moderation bot (${bot.key_id})`);
    expect(botRow?.counts).toEqual({ 'ban.created': 3, 'ban.revoked': 1 });
    expect(rows.find((r) => r.label === `game server (${filer.key_id})`)?.counts).toEqual({
      'appeal.created': 1,
    });

    // Open appeals: the count and the oldest's filing time are the API's; its age, as of the read.
    const stats = (await server.call('GET', '/v1/appeals/stats')).body;
    expect(stats.open).toBe(1);
    await appeals(page)
      .getByText(/1 open appeal\b/)
      .waitFor();
    expect(await datetimeIn(appeals(page))).toBe(stats.oldest_open_at);
    const waited = /the oldest has been waiting (\d+) (second|minute)s?/.exec(
      await appeals(page).innerText(),
    );
    expect(waited).not.toBeNull();
    const shownSeconds = Number(waited?.[1]) * (waited?.[2] === 'minute' ? 60 : 1);
    expect(Math.abs(shownSeconds - stats.oldest_open_age_seconds)).toBeLessThanOrEqual(60);
    expect(
      await appeals(page).getByRole('link', { name: 'Work the appeals queue' }).getAttribute('href'),
    ).toBe('#/appeals');

    // Failing webhooks: the broken one, with the API's count and error; the healthy one is not listed.
    const table = webhooksTable(page);
    await table.waitFor();
    expect(await table.locator('caption').innerText()).toContain('(1 of 2;');
    const failed = (await server.call('GET', `/v1/webhooks/${failingHook}/deliveries?status=failed`)).body
      .items;
    const latest = [...failed].sort((a: any, b: any) =>
      b.last_attempt_at.localeCompare(a.last_attempt_at),
    )[0];
    expect(latest.last_error).toBe('http status 500');
    expect(await rowsOf(table)).toEqual([
      [failingHook, receiver.url, '0', String(failed.length), latest.last_error, expect.any(String)],
    ]);
    expect(await datetimeIn(table)).toBe(latest.last_attempt_at);
    expect(await webhooks(page).innerText()).not.toContain(healthyHook);

    // No key in the address, the page's storage or its requests' addresses.
    expect(JSON.stringify(await storageOf(page))).not.toContain(server.devKey);
    for (const request of sent) expect(request.url()).not.toContain(server.devKey);

    await screenshot(page, 'start-page', panel(page, 'Start'));
    expect(seriousViolations(await axeScan(page, 'start-page'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'start-page'))).toEqual([]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('follows its links, Back and Forward, and a reload of #/start opens it again after signing in', async () => {
    const { page, problems } = console_;
    await appeals(page).getByRole('link', { name: 'Work the appeals queue' }).click();
    await page.getByRole('table', { name: /^The queue now/ }).waitFor();
    await expectAddress(page, '#/appeals');
    await page.goBack();
    await activityTable(page).waitFor();
    await expectAddress(page, '#/start');
    await page.goForward();
    await page.getByRole('table', { name: /^The queue now/ }).waitFor();
    await expectAddress(page, '#/appeals');

    await openSection(page, 'Start');
    await webhooks(page).getByRole('link', { name: 'Open webhooks and their deliveries' }).click();
    await page.getByRole('table', { name: /^Webhooks of your publisher/ }).waitFor();
    await expectAddress(page, '#/webhooks');
    await page.goBack();
    await webhooksTable(page).waitFor();

    // A reload forgets the key (memory only) and keeps the address: signed in again, Start again.
    await page.reload();
    await signIn(page, server.devKey);
    await expectAddress(page, '#/start');
    await activityMatchesApi(page);
    await webhooksTable(page).waitFor();
    expect(page.url()).not.toContain('bsk_');
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('links each name to their trail of today, whose filters the address keeps across a reload', async () => {
    const { page, problems } = console_;
    await openSection(page, 'Start');
    const label = `moderation bot (${bot.key_id})`;
    await activityTable(page)
      .getByRole('link', { name: new RegExp(`^${label.replace(/[()]/g, '\\$&')}`) })
      .click();
    const day = await page.evaluate(() => {
      const now = new Date();
      return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
    });
    await expectAddress(page, `#/audit?actor=${bot.key_id}&from=${day}`);
    const trail = page.getByRole('table', { name: /^Audit events, newest first/ });
    const midnight = await page.evaluate((d) => new Date(`${d}T00:00:00`).toISOString(), day);
    const theirs = (await server.call('GET', `/v1/audit?actor=${bot.key_id}&from=${midnight}`)).body.items;
    expect(theirs.map((e: any) => e.type)).toEqual([
      'ban.revoked',
      'ban.created',
      'ban.created',
      'ban.created',
    ]);
    await expect
      .poll(async () => (await rowsOf(trail)).map((row) => [row[1], row[2]]))
      .toEqual(theirs.map((e: any) => [e.type, label]));
    expect(await page.getByLabel('Who (a key or person)').inputValue()).toBe(bot.key_id);
    expect(await page.getByLabel('From (day)').inputValue()).toBe(day);

    // Narrowed to one type and one device: a new address; a reload (signed in again) keeps it all.
    await page.getByLabel('Event type').selectOption('ban.created');
    await page.getByLabel('Filter by device ID').fill('device-two');
    await page.getByRole('button', { name: 'Show events' }).click();
    const narrowed = `#/audit?actor=${bot.key_id}&device=device-two&type=ban.created&from=${day}`;
    await expectAddress(page, narrowed);
    await expect
      .poll(async () => (await rowsOf(trail)).map((row) => row[3]))
      .toEqual([expect.stringMatching(/^ban \d+ on device-two: cheat, game scope/)]);
    await page.reload();
    await signIn(page, server.devKey);
    await expectAddress(page, narrowed);
    await expect
      .poll(async () => (await rowsOf(trail)).map((row) => row[3]))
      .toEqual([expect.stringMatching(/^ban \d+ on device-two: cheat, game scope/)]);
    expect(await page.getByLabel('Event type').inputValue()).toBe('ban.created');
    expect(seriousViolations(await axeScan(page, 'audit-filtered'))).toEqual([]);
    // Back returns to the person's whole day.
    await page.goBack();
    await expectAddress(page, `#/audit?actor=${bot.key_id}&from=${day}`);
    await expect.poll(async () => (await rowsOf(trail)).length).toBe(theirs.length);
    await openSection(page, 'Start');
    await activityTable(page).waitFor();
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('reads each panel on its own: one that fails says so, and the others still show', async () => {
    const { page, problems } = console_;
    await page.route('**/v1/appeals/stats', (route) => route.abort('connectionrefused'));
    await page.getByRole('button', { name: 'Read again' }).click();
    await alertHolding(appeals(page), 'Could not reach the API (network error)');
    expect(
      await appeals(page)
        .getByText(/open appeal/)
        .count(),
    ).toBe(0);
    await activityMatchesApi(page);
    await webhooksTable(page).waitFor();
    await page.unroute('**/v1/appeals/stats');

    // Read again: the panel recovers, the others are read again too.
    await page.getByRole('button', { name: 'Read again' }).click();
    await appeals(page)
      .getByText(/1 open appeal\b/)
      .waitFor();
    expect(await appeals(page).getByRole('alert').count()).toBe(0);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('lists the bans ending in the next 24 hours, soonest first, as the API lists them, each opening its device', async () => {
    const { page, problems } = console_;
    // The API's own answer: the 1 h and 3 h bans, not the 30 h one, the permanent one or rival's.
    const listed = (await server.call('GET', '/v1/bans/expiring?within_hours=24&limit=25')).body;
    expect(listed.items.map((b: any) => b.device_id)).toEqual(['device-ends-1h', 'device-ends-3h']);
    expect(listed.next_cursor).toBeNull();

    const table = await endingMatchesApi(page, listed.items);
    const [soonest, later] = await rowsOf(table);
    expect(soonest?.slice(0, 5)).toEqual(['device-ends-1h', 'social', 'publisher', GAME, 'toxicity']);
    expect(soonest?.[5]).toMatch(/\(in (59 minutes|1 hour)\)$/);
    expect(soonest?.[6]).toBe(`shift lead (${shiftLead.key_id})`);
    expect(later?.slice(0, 5)).toEqual(['device-ends-3h', 'cheat', 'game', GAME_2, 'speedhack']);
    expect(later?.[5]).toMatch(/\(in (2|3) hours\)$/);
    expect(later?.[6]).toBe(`shift lead (${shiftLead.key_id})`);
    const text = await ending(page).innerText();
    for (const other of ['device-ends-30h', 'device-ends-never', 'device-rival-1h'])
      expect(text).not.toContain(other);
    expect(await ending(page).getByRole('button', { name: 'Show more' }).count()).toBe(0);
    expect(seriousViolations(await axeScan(page, 'start-ending'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'start-ending'))).toEqual([]);

    // The device opens in the game its ban was made in (game-2 here), and Back returns to Start.
    await ending(page).getByRole('link', { name: 'device-ends-3h', exact: true }).click();
    await bansTable(page, 'device-ends-3h').waitFor();
    await expectAddress(page, `#/device?game=${GAME_2}&device=device-ends-3h`);
    expect(await page.getByLabel('Game ID', { exact: true }).inputValue()).toBe(GAME_2);
    await page.goBack();
    await endingTable(page).waitFor();
    await expectAddress(page, '#/start');
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('shows more a page at a time, and Read again starts from the first page', async () => {
    const { page } = console_;
    // Pages of 1 ban instead of 25: the test rewrites the limit the page asks for, and the API
    // answers each page itself, with its cursor.
    const asked: Array<{ within: string | null; limit: string | null; cursor: string | null }> = [];
    const isEnding = (url: URL) => url.pathname === '/v1/bans/expiring';
    await page.route(isEnding, (route) => {
      const url = new URL(route.request().url());
      const { searchParams: q } = url;
      asked.push({ within: q.get('within_hours'), limit: q.get('limit'), cursor: q.get('cursor') });
      url.searchParams.set('limit', '1');
      return route.continue({ url: url.toString() });
    });
    try {
      await page.getByRole('button', { name: 'Read again' }).click();
      const more = ending(page).getByRole('button', { name: 'Show more' });
      await more.waitFor();
      expect((await rowsOf(endingTable(page))).map((r) => r[0])).toEqual(['device-ends-1h']);
      await more.click();
      await endingTable(page).getByRole('link', { name: 'device-ends-3h' }).waitFor();
      expect((await rowsOf(endingTable(page))).map((r) => r[0])).toEqual([
        'device-ends-1h',
        'device-ends-3h',
      ]);
      // The API may answer a cursor after the last one; the page after it is empty, and ends it.
      if ((await more.count()) > 0) {
        await more.click();
        await more.waitFor({ state: 'detached' });
      }
      expect((await rowsOf(endingTable(page))).map((r) => r[0])).toEqual([
        'device-ends-1h',
        'device-ends-3h',
      ]);
      expect(asked[0]).toEqual({ within: '24', limit: '25', cursor: null });
      expect(asked.length).toBeGreaterThanOrEqual(2);
      expect(asked.slice(1).every((a) => a.within === '24' && a.limit === '25' && a.cursor !== null)).toBe(
        true,
      );
    } finally {
      await page.unroute(isEnding);
    }
    // Read again: one page of 25 again, no more to show.
    await page.getByRole('button', { name: 'Read again' }).click();
    await ending(page).getByRole('button', { name: 'Show more' }).waitFor({ state: 'detached' });
    const listed = (await server.call('GET', '/v1/bans/expiring?within_hours=24&limit=25')).body;
    await endingMatchesApi(page, listed.items);
  });

  it('says so when the bans ending soon cannot be read (503), and the other panels still show', async () => {
    const { page, problems } = console_;
    const isEnding = (url: URL) => url.pathname === '/v1/bans/expiring';
    await page.route(isEnding, (route) =>
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
      await page.getByRole('button', { name: 'Read again' }).click();
      await alertHolding(ending(page), 'The service is unavailable (503): try again in 1 s.');
      expect(await endingTable(page).count()).toBe(0);
      expect(await ending(page).innerText()).not.toContain('device-ends-1h');
      await activityMatchesApi(page);
      await appeals(page)
        .getByText(/1 open appeal\b/)
        .waitFor();
      await webhooksTable(page).waitFor();
    } finally {
      await page.unroute(isEnding);
    }
    await page.getByRole('button', { name: 'Read again' }).click();
    await endingTable(page).waitFor();
    expect(await ending(page).getByRole('alert').count()).toBe(0);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('counts today as it goes: a new ban by a new person shows under them after Read again', async () => {
    const { page } = console_;
    const newcomer = await server.makeKey('night shift', ['bans:write']);
    const made = await server.call('POST', '/v1/bans', {
      key: newcomer.api_key,
      game: GAME,
      body: { device_id: 'device-late', ban_type: 'social', scope: 'game', reason_code: 'toxicity' },
    });
    expect(made.status).toBe(201);
    await page.getByRole('button', { name: 'Read again' }).click();
    await activityTable(page)
      .getByRole('rowheader', { name: `night shift (${newcomer.key_id})` })
      .waitFor();
    const { rows } = await activityMatchesApi(page);
    expect(rows.find((r) => r.label === `night shift (${newcomer.key_id})`)?.counts).toEqual({
      'ban.created': 1,
    });
  });
  it('reads at most five pages of the audit trail, then says the counts are "at least"', async () => {
    const { page } = console_;
    // Pages of 2 events instead of 200: the test rewrites the limit the page asks for, and the API
    // answers each page itself, so five pages are read well before the day's events run out.
    const asked: string[] = [];
    const isAudit = (url: URL) => url.pathname === '/v1/audit';
    await page.route(isAudit, (route) => {
      const url = new URL(route.request().url());
      asked.push(url.searchParams.get('limit') ?? '');
      url.searchParams.set('limit', '2');
      return route.continue({ url: url.toString() });
    });
    try {
      await page.getByRole('button', { name: 'Read again' }).click();
      await activity(page)
        .getByText("at least 10 events: the newest 10 were read, and the audit trail has more of today's.")
        .waitFor();
      expect(asked).toEqual(['200', '200', '200', '200', '200']);
      expect(await activityTable(page).locator('caption').innerText()).toBe(
        "Today's events by who made them, in the newest 10",
      );
      const newest = (await server.call('GET', '/v1/audit?limit=10')).body.items;
      await tableHolds(page, newest);
    } finally {
      await page.unroute(isAudit);
    }
    await page.getByRole('button', { name: 'Read again' }).click();
    await activity(page)
      .getByText(/at least/)
      .waitFor({ state: 'detached' });
    await activityMatchesApi(page);
  });
});

describe('the Start page as it loads', () => {
  it('shows the open appeals before the activity, and nothing on it moves as the panels are read', async () => {
    const opened = await openPage(browser, `${server.consoleUrl}#/start`);
    try {
      const { page } = opened;
      // Every layout shift from here on whose moved element is inside the Start page, input or not.
      await page.evaluate(() => {
        const g = globalThis as any;
        g.startShifts = [];
        new g.PerformanceObserver((list: any) => {
          for (const entry of list.getEntries())
            for (const source of entry.sources ?? [])
              if (source.node?.closest?.('[aria-labelledby="start-heading"]'))
                g.startShifts.push({ value: entry.value, node: source.node.textContent.slice(0, 60) });
        }).observe({ type: 'layout-shift', buffered: true });
      });
      await signIn(page, server.devKey);
      await activityTable(page).waitFor();
      await endingTable(page).waitFor();
      await webhooksTable(page).waitFor();
      await appeals(page).getByRole('link', { name: 'Work the appeals queue' }).waitFor();
      const headings = await page
        .getByRole('region', { name: 'Start', exact: true })
        .getByRole('heading', { level: 3 })
        .allInnerTexts();
      expect(headings).toEqual([
        'Open appeals',
        "Today's activity by person",
        'Ending in the next 24 hours',
        'Webhooks failing now',
      ]);
      // One frame after the last answer, so its shift (if any) is reported.
      await page.evaluate(() => new Promise((done) => (globalThis as any).requestAnimationFrame(done)));
      expect(await page.evaluate(() => (globalThis as any).startShifts)).toEqual([]);
      for (const width of [1440, 1280, 390]) {
        await page.setViewportSize({ width, height: 860 });
        expect(seriousViolations(await axeScan(page, `start-${width}`)), String(width)).toEqual([]);
      }
      expect(unexpectedProblems(opened.problems)).toEqual([]);
    } finally {
      await opened.close();
    }
  });
});

describe('who sees what', () => {
  it('tells a session without the scopes why each panel is hidden, and reads none of their data', async () => {
    const reader = await server.makeKey('policy reader', ['policy:read']);
    const opened = await openPage(browser, `${server.consoleUrl}#/start`);
    const asked: string[] = [];
    opened.page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/v1/')) asked.push(`${request.method()} ${url.pathname}`);
    });
    try {
      const { page } = opened;
      await signIn(page, reader.api_key);
      const main = page.getByRole('main');
      await main
        .getByText(
          "Today's activity is hidden: it needs the scope audit:read, which this session lacks (the API answered 403 at sign-in).",
        )
        .waitFor();
      await main
        .getByText(
          'The appeals queue is hidden: it needs the scope appeals:decide, which this session lacks (the API answered 403).',
        )
        .waitFor();
      await main
        .getByText(
          'The list of bans ending soon is hidden: it needs the scope bans:read, which this session lacks (the API answered 403).',
        )
        .waitFor();
      await main
        .getByText(
          'Webhook delivery status is hidden: it needs the scope keys:manage, which this session lacks (the API answered 403 at sign-in).',
        )
        .waitFor();
      // None of the panels' data: no table, no alert, no link into what the key may not open.
      expect(await main.getByRole('table').count()).toBe(0);
      expect(await main.getByRole('alert').count()).toBe(0);
      expect(await main.getByRole('link').count()).toBe(0);
      const text = await main.innerText();
      for (const secret of ['moderation bot', 'game server', failingHook, 'open appeal', 'device-ends-1h'])
        expect(text).not.toContain(secret);
      // The scopes it was told it lacks at sign-in were not asked again; appeals:decide and
      // bans:read were learned from the one refusal each.
      const afterSignIn = asked.slice(asked.indexOf('GET /v1/audit') + 1);
      expect(afterSignIn.filter((r) => r === 'GET /v1/audit' || r.startsWith('GET /v1/webhooks'))).toEqual(
        [],
      );
      expect(afterSignIn.filter((r) => r === 'GET /v1/appeals/stats')).toHaveLength(1);
      expect(afterSignIn.filter((r) => r === 'GET /v1/bans/expiring')).toHaveLength(1);
      expect(seriousViolations(await axeScan(page, 'start-scopes'))).toEqual([]);
      expect(seriousViolations(await narrowAxeScan(page, 'start-scopes'))).toEqual([]);
      expect(unexpectedProblems(opened.problems)).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it('shows a bans:read key the bans ending soon, and only them', async () => {
    const reader = await server.makeKey('support desk', ['bans:read']);
    const opened = await openPage(browser, `${server.consoleUrl}#/start`);
    try {
      const { page } = opened;
      await signIn(page, reader.api_key);
      const listed = (await server.call('GET', '/v1/bans/expiring?within_hours=24', { key: reader.api_key }))
        .body;
      expect(listed.items.map((b: any) => b.device_id)).toEqual(['device-ends-1h', 'device-ends-3h']);
      await endingMatchesApi(page, listed.items);
      const main = page.getByRole('main');
      expect(await main.getByRole('table').count()).toBe(1);
      for (const hidden of [
        "Today's activity is hidden",
        'The appeals queue is hidden',
        'Webhook delivery status is hidden',
      ])
        await main.getByText(hidden).waitFor();
      expect(unexpectedProblems(opened.problems)).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it("keeps each publisher's day its own: another publisher's Start page shows none of it", async () => {
    const key = await server.publisherKey('acme');
    const opened = await openPage(browser, server.consoleUrl);
    try {
      const { page } = opened;
      await signIn(page, key);
      await expectAddress(page, '#/start');
      await appeals(page).getByText('No appeal is open.').waitFor();
      await webhooks(page).getByText('Your publisher has no webhooks.').waitFor();
      // Acme's activity is acme's own audit trail, which holds nothing of dev-publisher's.
      await activity(page)
        .getByText(/ events?[.(]|Nobody has changed anything today/)
        .first()
        .waitFor();
      const text = await page.getByRole('main').innerText();
      await ending(page).getByText('No ban of yours ends in the next 24 hours.').waitFor();
      for (const theirs of [
        'local development',
        'moderation bot',
        'game server',
        'night shift',
        'shift lead',
        'device-ends-1h',
        'device-rival-1h',
        failingHook,
      ])
        expect(text).not.toContain(theirs);
      const since = (await datetimeIn(activity(page))) as string;
      const events = await auditSince(since, key);
      if (events.length > 0) await activityMatchesApi(page, key);
      else await activity(page).getByText('Nobody has changed anything today.').waitFor();
      expect(unexpectedProblems(opened.problems)).toEqual([]);
    } finally {
      await opened.close();
    }
  });
});

describe('a webhook being retried', () => {
  // Retries on the usual local schedule (a 50 ms base): a failing delivery stays pending, retried,
  // for 144 seconds before it is given up, long enough to be read as "being retried".
  let retrying: LocalServer;
  let opened: ConsolePage | undefined;
  beforeAll(async () => {
    // The file's first server has served its tests: stopped now, this one runs in this process
    // (startServer), not as `npm start` in a child (seconds of CPU to start). Its page first: a
    // request the page still holds open would hold the server's close.
    await console_?.close();
    await server.stop();
    retrying = await startServer();
  });
  afterAll(async () => {
    await opened?.close();
    await retrying?.stop();
  });

  it('lists a webhook whose delivery is being retried, with its error, as the API lists it', async () => {
    const made = await retrying.call('POST', '/v1/webhooks', {
      body: { url: `${receiver.url}/broken`, events: ['ban.created'] },
    });
    expect(made.status).toBe(201);
    const hook = made.body.webhook_id as string;
    const banned = await retrying.call('POST', '/v1/bans', {
      game: GAME,
      body: { device_id: 'device-retried', ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
    });
    expect(banned.status).toBe(201);
    const pending = await eventually(
      async () => (await retrying.call('GET', `/v1/webhooks/${hook}/deliveries?status=pending`)).body.items,
      (items: any[]) => items.length === 1 && items[0].attempts >= 1,
    );
    expect(pending[0].last_error).toBe('http status 500');

    opened = await openPage(browser, retrying.consoleUrl);
    const { page, problems } = opened;
    await signIn(page, retrying.devKey);
    const table = webhooksTable(page);
    await table.waitFor();
    const [row] = await rowsOf(table);
    expect(row?.slice(0, 5)).toEqual([hook, receiver.url, '1', '0', 'http status 500']);
    // Still being retried, not given up, as the API says now.
    const now = (await retrying.call('GET', `/v1/webhooks/${hook}/deliveries`)).body.items;
    expect(now.map((d: any) => [d.status, d.attempts >= 1])).toEqual([['pending', true]]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});
