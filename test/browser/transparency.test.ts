import type { Browser, Locator, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn as personSignIn } from '../support/sign-in';
import { launchChromium } from './support/chromium';
import { eventually, openSection, rowsOf, signIn } from './support/console';
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
 * The Transparency page: the publisher's transparency report for a period, its charts drawn in the
 * page (restrictions by day, by category, by reason, the appeals' outcomes as shares, and each
 * moderator's: two keys and a person decide, the person shown by their email) and its table, each figure held to what
 * `GET /v1/transparency-report` answers for the same period. Another publisher's bans are in neither.
 */

const GAME = 'transparency-game';

let server: LocalServer;
let browser: Browser;
let console_: ConsolePage;
/** The second moderator: a key of the development publisher's that decides one appeal. */
let second: { key_id: string; api_key: string };

const day = (at: number) => new Date(at).toISOString().slice(0, 10);

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  const rival = await server.publisherKey('transparency-rival');
  const ban = async (body: Record<string, unknown>, key?: string) => {
    const made = await server.call('POST', '/v1/bans', {
      ...(key ? { key } : {}),
      game: GAME,
      body: { ban_type: 'cheat', scope: 'game', reason_code: 'aimbot', ...body },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body as { ban_id: number; device_id: string };
  };
  const made = [
    await ban({ device_id: 'tr-page-1' }),
    await ban({ device_id: 'tr-page-2', statement: { category: 'scams_and_fraud' } }),
    await ban({
      device_id: 'tr-page-3',
      ban_type: 'social',
      reason_code: 'threats',
      statement: {
        ground: 'illegal',
        legal_ground: 'Criminal Code, s. 241',
        illegal_explanation: 'Threatening a player with violence is a crime.',
        category: 'violence',
        automated_detection: false,
        automated_decision: 'not',
      },
    }),
    await ban({ device_id: 'tr-page-4', statement: { category: 'scams_and_fraud' } }),
    await ban({ device_id: 'tr-page-5', reason_code: 'wallhack' }),
  ];
  await ban(
    {
      device_id: 'tr-page-rival',
      reason_code: 'rival_reason',
      statement: { category: 'protection_of_minors' },
    },
    rival,
  );
  const revoked = made[3] as { ban_id: number; device_id: string };
  expect(
    (
      await server.call('POST', `/v1/device/${revoked.device_id}/bans/${revoked.ban_id}/revoke`, {
        game: GAME,
        body: { reason_code: 'mistake' },
      })
    ).status,
  ).toBe(200);
  second = await server.makeKey('second moderator', ['appeals:decide']);
  // The moderator of the development publisher signs in as the console would, for an access token.
  const settings = (await (await fetch(`${server.consoleUrl}sign-in.json`)).json()) as { issuer: string };
  const { email, password } = server.people.moderator;
  const signed = await personSignIn(settings.issuer, server.consoleUrl, email, password);
  if (!signed.ok) throw new Error(`moderator sign-in: ${signed.status}`);
  // Two by the development key, one by the second key, one by the person.
  for (const [index, outcome, key] of [
    [0, 'upheld', undefined],
    [1, 'overturned', undefined],
    [2, 'upheld', second.api_key],
    [4, 'overturned', signed.tokens.access_token],
  ] as const) {
    const contested = made[index] as { ban_id: number; device_id: string };
    const filed = await server.call('POST', '/v1/appeals', {
      game: GAME,
      body: { device_id: contested.device_id, ban_id: contested.ban_id, message: 'It was not me.' },
    });
    expect(filed.status, JSON.stringify(filed.body)).toBe(201);
    const decided = await server.call('POST', `/v1/appeals/${filed.body.appeal_id}/decision`, {
      ...(key ? { key } : {}),
      body: { outcome },
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
  }
  console_ = await openPage(browser, server.devicesUrl);
  await signIn(console_.page, server.devKey);
});
afterAll(async () => {
  await console_?.close();
  await browser?.close();
  await server?.stop();
});

/** Each mark of a chart (`rect` or `g` with data-count), by what it stands for. */
const marksOf = async (chart: Locator, by: 'data-day' | 'data-label') =>
  Object.fromEntries(
    await chart
      .locator(`[${by}]`)
      .evaluateAll(
        (marks, name) => marks.map((m) => [m.getAttribute(name), Number(m.getAttribute('data-count'))]),
        by,
      ),
  ) as Record<string, number>;

describe('the Transparency page', () => {
  it("draws the report's charts and table as the API answers them, for the publisher's own bans only", async () => {
    const { page, problems } = console_;
    const period = { from: day(Date.now() - 29 * 86_400_000), to: day(Date.now()) };
    // The dispatcher counts the changes moments after them: the API's answer once it has all of them.
    const { body: report } = await eventually(
      () => server.call('GET', `/v1/transparency-report?from=${period.from}&to=${period.to}`),
      (answer) => answer.body.restrictions.total >= 5 && answer.body.appeals.decided >= 4,
    );
    expect(report.restrictions.by_category.protection_of_minors).toBe(0);
    expect(report.restrictions.by_ground.illegal).toBeGreaterThanOrEqual(1);

    await openSection(page, 'Transparency');
    await page.getByRole('button', { name: 'Show report' }).click();
    const table = page.getByRole('table', { name: /^Counts from / });
    await table.waitFor();
    await eventually(
      () => rowsOf(table),
      (rows) => rows[0]?.[2] === String(report.restrictions.total),
    );

    // Restrictions by day: one bar per day of the period, each the API's count.
    const byDay = page.locator('#transparency-by-day');
    expect(await marksOf(byDay, 'data-day')).toEqual(
      Object.fromEntries(
        (report.by_day as Array<{ day: string; restrictions: { total: number } }>).map((d) => [
          d.day,
          d.restrictions.total,
        ]),
      ),
    );
    await expect
      .poll(() => byDay.locator('figcaption').textContent())
      .toContain(`${report.restrictions.total} in 30 days`);
    // By category: a bar for each category with restrictions, none for another publisher's.
    const categories = Object.fromEntries(
      Object.entries(report.restrictions.by_category as Record<string, number>)
        .filter(([, count]) => count > 0)
        .map(([category, count]) => [category.replaceAll('_', ' '), count]),
    );
    expect(await marksOf(page.locator('#transparency-by-category'), 'data-label')).toEqual(categories);
    expect(categories['protection of minors']).toBeUndefined();
    // The appeals' outcomes, as shares of those decided.
    const outcomes = page.locator('#transparency-outcomes');
    expect(await marksOf(outcomes, 'data-label')).toEqual({
      upheld: report.appeals.upheld,
      overturned: report.appeals.overturned,
      shortened: report.appeals.shortened,
    });
    const share = (n: number) => Math.round((n / report.appeals.decided) * 100);
    await expect
      .poll(() => outcomes.locator('figcaption').textContent())
      .toContain(`upheld ${report.appeals.upheld} (${share(report.appeals.upheld)}%)`);

    // By reason: a bar for each reason code with restrictions, none for another publisher's.
    expect(report.restrictions.by_reason).toMatchObject({ aimbot: 3, threats: 1, wallhack: 1 });
    expect(report.restrictions.by_reason.rival_reason).toBeUndefined();
    expect(await marksOf(page.locator('#transparency-by-reason'), 'data-label')).toEqual(
      report.restrictions.by_reason,
    );
    // By moderator: one share bar each, in the API's order, the second key's among them.
    type ModeratorRow = {
      moderator: { type: 'user' | 'key'; id: string };
      decided: number;
      upheld: number;
      overturned: number;
      shortened: number;
    };
    const moderators = report.appeals.by_moderator as ModeratorRow[];
    expect(moderators.find((row) => row.moderator.id === second.key_id)).toEqual({
      moderator: { type: 'key', id: second.key_id },
      decided: 1,
      upheld: 1,
      overturned: 0,
      shortened: 0,
    });
    const person = moderators.find((row) => row.moderator.type === 'user');
    expect(person).toMatchObject({ decided: 1, overturned: 1 });
    // The console knows the person's email from the people list; a key is shown by its id.
    const shownAs = (moderator: ModeratorRow['moderator']) =>
      moderator.type === 'user' ? server.people.moderator.email : `key ${moderator.id}`;
    const byModerator = page.locator('#transparency-by-moderator');
    expect(
      await byModerator
        .locator('[data-moderator]')
        .evaluateAll((blocks) => blocks.map((b) => b.getAttribute('data-moderator'))),
    ).toEqual(moderators.map((row) => `${row.moderator.type}:${row.moderator.id}`));
    for (const row of moderators) {
      const block = byModerator.locator(`[data-moderator="${row.moderator.type}:${row.moderator.id}"]`);
      expect(await marksOf(block, 'data-label')).toEqual({
        upheld: row.upheld,
        overturned: row.overturned,
        shortened: row.shortened,
      });
      await expect
        .poll(() => block.locator('figcaption').textContent())
        .toContain(`Decided by ${shownAs(row.moderator)}, by outcome`);
    }

    // The table: every number of the answer.
    const rows = await rowsOf(table);
    const cell = (dimension: string, value: string) =>
      rows.find((r) => r[0] === dimension && r[1] === value)?.[2];
    expect(cell('Restrictions', 'all')).toBe(String(report.restrictions.total));
    expect(cell('Type', 'social')).toBe(String(report.restrictions.by_type.social));
    expect(cell('Ground', 'illegal')).toBe(String(report.restrictions.by_ground.illegal));
    expect(cell('Category', 'scams and fraud')).toBe(String(report.restrictions.by_category.scams_and_fraud));
    expect(cell('Detected by automated means', 'no')).toBe(
      String(report.restrictions.by_automated_detection.false),
    );
    expect(cell('Decided by automated means', 'fully')).toBe(
      String(report.restrictions.by_automated_decision.fully),
    );
    expect(cell('Revocations', 'all')).toBe(String(report.revocations));
    expect(cell('Appeals', 'received')).toBe(String(report.appeals.received));
    expect(cell('Appeals', 'overturned')).toBe(String(report.appeals.overturned));
    for (const [code, count] of Object.entries(report.restrictions.by_reason as Record<string, number>))
      expect(cell('Reason', code)).toBe(String(count));
    for (const row of moderators)
      for (const name of ['decided', 'upheld', 'overturned', 'shortened'] as const)
        expect(cell(`Moderator ${name}`, shownAs(row.moderator))).toBe(String(row[name]));
    expect(cell('Time to decision', 'median')).toMatch(
      new RegExp(`^${report.appeals.median_seconds_to_decision} s `),
    );

    await screenshot(page, 'transparency', page.getByRole('region', { name: 'Transparency', exact: true }));
    expect(seriousViolations(await axeScan(page, 'transparency'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'transparency'))).toEqual([]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('refuses a period out of order in the form, without asking the API', async () => {
    const { page } = console_;
    const asked: string[] = [];
    const note = (request: Request) => {
      if (request.url().includes('/v1/transparency-report')) asked.push(request.url());
    };
    page.on('request', note);
    await page.getByLabel('From (day, UTC)').fill('2026-03-02');
    await page.getByLabel('To (day, UTC, included)').fill('2026-03-01');
    await page.getByRole('button', { name: 'Show report' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('To must be the same day as From or later');
    page.off('request', note);
    expect(asked).toEqual([]);
  });
});
