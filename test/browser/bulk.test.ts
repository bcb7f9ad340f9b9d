import { DEVICE_ID_RULE } from '@kernel/device-ids';
import type { Browser, Locator, Page, Request, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { openSection, rowsOf, setGame, signIn, statusHolding } from './support/console';
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
 * Bulk: a pasted list of devices checked with the enforcement batch, banned
 * and revoked device by device with progress and a report, each create's idempotency key kept
 * across a retry of the failures and of the whole batch, so the API holds one ban per device
 * whatever failed on the way. Another publisher's bans on the same devices are never touched.
 */

const GAME = 'game-1';

let server: LocalServer;
let browser: Browser;
let console_: ConsolePage;
/** acme's key: another publisher with bans on some of the same devices. */
let acmeKey: string;
/** What the page POSTed to /v1/bans, to see which idempotency keys it sent. */
const creates: Request[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  acmeKey = await server.publisherKey('acme');
  console_ = await openPage(browser, `${server.consoleUrl}#/bulk`);
  console_.page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/bans') creates.push(request);
  });
  await signIn(console_.page, server.devKey);
  await setGame(console_.page, GAME);
});
afterAll(async () => {
  await console_?.close();
  await browser?.close();
  await server?.stop();
});

const bansOf = async (device: string, status = 'all', key?: string) => {
  const listed = await server.call('GET', `/v1/device/${device}/bans?status=${status}&limit=200`, {
    game: GAME,
    ...(key ? { key } : {}),
  });
  expect(listed.status).toBe(200);
  return listed.body.items as any[];
};

const listField = (page: Page) => page.getByLabel('Device IDs', { exact: true });
const bulkRegion = (page: Page) => page.getByRole('region', { name: /^Devices to check/ });
const report = (page: Page) => page.getByRole('region', { name: /^Report:/ });
const reportRows = async (page: Page) => rowsOf(report(page).getByRole('table'));
const banForm = (page: Page) => page.getByRole('region', { name: 'Ban these devices', exact: true });

const banDevices = async (page: Page, count: number, reason: string) => {
  const form = banForm(page);
  if (!(await form.isVisible())) await bulkRegion(page).getByRole('button', { name: 'Ban…' }).click();
  await form.getByLabel('Ban type').selectOption('cheat');
  await form.getByLabel('Scope').selectOption('game');
  await form.getByLabel('Reason code').fill(reason);
  await form.getByRole('button', { name: `Ban ${count} devices…` }).click();
  const confirm = page.getByRole('region', { name: `Ban ${count} devices in ${GAME}?` });
  await confirm.getByRole('button', { name: 'Ban them' }).click();
};

const finished = (scope: Page | Locator, count: number) => statusHolding(scope, `${count} of ${count} done;`);

describe('a pasted list', () => {
  it('merges repeats, lists invalid ids with the rule and sends only the valid ones to the batch check', async () => {
    const { page, problems } = console_;
    // Restricted in game-1 by a cheat ban of dev-publisher's.
    const made = await server.call('POST', '/v1/bans', {
      game: GAME,
      body: { device_id: 'bulk-c1', ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
    });
    expect(made.status).toBe(201);
    const batches: Request[] = [];
    const watch = (r: Request) => {
      if (new URL(r.url()).pathname === '/v1/enforcement/batch') batches.push(r);
    };
    page.on('request', watch);
    await listField(page).fill('bulk-c1, bulk-c2\nbulk-c1 bad/id   bulk-c3,bulk-c2');
    const region = bulkRegion(page);
    await region.getByText('3 valid ids; 2 repeated ids merged; 1 invalid, not sent.').waitFor();
    expect(await region.getByRole('list', { name: 'Invalid ids, not sent' }).innerText()).toBe(
      `bad/id: ${DEVICE_ID_RULE}`,
    );
    await region.getByRole('button', { name: 'Check', exact: true }).click();
    const table = page.getByRole('table', { name: /enforcement batch answers/ });
    await table.waitFor();
    expect(await rowsOf(table)).toEqual([
      ['bulk-c1', 'restricted', 'no', '1'],
      ['bulk-c2', 'no', 'no', '0'],
      ['bulk-c3', 'no', 'no', '0'],
    ]);
    page.off('request', watch);
    expect(batches.map((r) => JSON.parse(r.postData() ?? '{}'))).toEqual([
      { device_ids: ['bulk-c1', 'bulk-c2', 'bulk-c3'] },
    ]);
    expect(batches[0]?.headers()['x-game-id']).toBe(GAME);
    await screenshot(page, 'bulk-check', region);
    expect(seriousViolations(await axeScan(page, 'bulk-check'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'bulk-check'))).toEqual([]);
    // Another list is another question: the answer to this one goes.
    await listField(page).fill('bulk-c2');
    expect(await table.count()).toBe(0);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('refuses more than 100 distinct ids, sending nothing', async () => {
    const { page } = console_;
    const ids = Array.from({ length: 101 }, (_, i) => `bulk-many-${i}`);
    await listField(page).fill(ids.join('\n'));
    await bulkRegion(page)
      .getByText('101 distinct ids: a batch takes at most 100. Nothing is sent.')
      .waitFor();
    expect(await bulkRegion(page).getByRole('button', { name: 'Check', exact: true }).isDisabled()).toBe(
      true,
    );
    await listField(page).fill(ids.slice(0, 100).join(' '));
    expect(await bulkRegion(page).getByRole('button', { name: 'Check', exact: true }).isDisabled()).toBe(
      false,
    );
  });
});

describe('banning many devices', () => {
  const devices = ['bulk-b1', 'bulk-b2', 'bulk-b3', 'bulk-b4', 'bulk-b5'];

  it('keeps the pasted list and the terms across a reload and a sign-in, until the batch is sent', async () => {
    const { page, problems } = console_;
    const drafted = ['draft-bulk-1', 'draft-bulk-2'];
    await listField(page).fill(drafted.join('\n'));
    await bulkRegion(page).getByRole('button', { name: 'Ban…' }).click();
    await banForm(page).getByLabel('Reason code').fill('wallhack');
    const asked: string[] = [];
    const answer = (dialog: import('playwright-core').Dialog) => {
      asked.push(dialog.type());
      void dialog.accept();
    };
    page.on('dialog', answer);
    try {
      await page.reload();
      expect(asked).toEqual(['beforeunload']);
      await signIn(page, server.devKey);
      await setGame(page, GAME);
      expect(await listField(page).inputValue()).toBe(drafted.join('\n'));
      await bulkRegion(page).getByRole('button', { name: 'Ban…' }).click();
      expect(await banForm(page).getByLabel('Reason code').inputValue()).toBe('wallhack');
      await banDevices(page, 2, 'wallhack');
      await finished(report(page), 2);
      for (const device of drafted)
        expect((await bansOf(device)).map((b) => b.reason_code)).toEqual(['wallhack']);
      // Sent: nothing to warn of on leaving, nothing kept.
      await page.reload();
      expect(asked).toEqual(['beforeunload']);
    } finally {
      page.off('dialog', answer);
    }
    await signIn(page, server.devKey);
    await setGame(page, GAME);
    expect(await listField(page).inputValue()).toBe('');
    expect(
      await page.evaluate(() =>
        Object.keys((globalThis as any).sessionStorage).filter((k) => k.startsWith('draft:')),
      ),
    ).toEqual([]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('bans each device once, with progress and a report', async () => {
    const { page, problems } = console_;
    await listField(page).fill(devices.join('\n'));
    await banDevices(page, 5, 'aimbot');
    await finished(report(page), 5);
    const rows = await reportRows(page);
    expect(rows.map((r) => r[0])).toEqual(devices);
    for (const [, outcome] of rows) expect(outcome).toMatch(/^created ban \d+$/);
    for (const device of devices) {
      const stored = await bansOf(device);
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({
        ban_type: 'cheat',
        scope: 'game',
        game_id: GAME,
        publisher_id: 'dev-publisher',
        reason_code: 'aimbot',
        revoked_at: null,
      });
      // Each row names the ban the API holds.
      expect(rows.find((r) => r[0] === device)?.[1]).toBe(`created ban ${stored[0].ban_id}`);
    }
    // acme sees none of them: they are dev-publisher's game bans in a game acme does not share.
    for (const device of devices) expect(await bansOf(device, 'all', acmeKey)).toEqual([]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('after 2 creates fail, Retry failed and a rerun of the whole batch make no second ban', async () => {
    const { page, problems } = console_;
    const retried = ['bulk-r1', 'bulk-r2', 'bulk-r3', 'bulk-r4', 'bulk-r5'];
    await listField(page).fill(retried.join(', '));
    const before = creates.length;
    const unavailable = {
      status: 503,
      contentType: 'application/json',
      headers: { 'Retry-After': '1' },
      body: JSON.stringify({
        error: { code: 'service_unavailable', message: 'The service is temporarily unavailable' },
        request_id: 'req-test',
      }),
    };
    // bulk-r2: the API makes the ban and the answer is lost; bulk-r4: refused before the API.
    const fail = async (route: Route) => {
      const device = JSON.parse(route.request().postData() ?? '{}').device_id;
      if (device === 'bulk-r2') {
        await route.fetch();
        await route.fulfill(unavailable);
      } else if (device === 'bulk-r4') await route.fulfill(unavailable);
      else await route.continue();
    };
    await page.route('**/v1/bans', fail);
    try {
      await banDevices(page, 5, 'wallhack');
      await statusHolding(report(page), '5 of 5 done; 2 failed or not sent.');
    } finally {
      await page.unroute('**/v1/bans', fail);
    }
    const rows = await reportRows(page);
    // Failures first, with the error's code and why.
    expect(rows.slice(0, 2).map((r) => r[0])).toEqual(['bulk-r2', 'bulk-r4']);
    for (const [, outcome] of rows.slice(0, 2))
      expect(outcome).toMatch(/^service_unavailable: The service is unavailable \(503\)/);
    expect((await bansOf('bulk-r2')).length).toBe(1);
    expect((await bansOf('bulk-r4')).length).toBe(0);
    await screenshot(page, 'bulk-report-failures', report(page));
    expect(seriousViolations(await axeScan(page, 'bulk-report-failures'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'bulk-report-failures'))).toEqual([]);

    await report(page).getByRole('button', { name: 'Retry failed (2)' }).click();
    await statusHolding(report(page), '5 of 5 done; 0 failed or not sent.');
    const [r2] = await bansOf('bulk-r2');
    const [r4] = await bansOf('bulk-r4');
    const afterRetry = Object.fromEntries(await reportRows(page));
    expect(afterRetry['bulk-r2']).toBe(`idempotent_ok: ban ${r2.ban_id} was already made by this batch`);
    expect(afterRetry['bulk-r4']).toBe(`created ban ${r4.ban_id}`);

    // The whole batch again, the same values: every device answers the ban it has.
    await banDevices(page, 5, 'wallhack');
    await statusHolding(report(page), '5 of 5 done; 0 failed or not sent.');
    for (const [, outcome] of await reportRows(page)) expect(outcome).toMatch(/^idempotent_ok: ban \d+/);
    for (const device of retried) expect(await bansOf(device)).toHaveLength(1);
    // One idempotency key per device, whichever attempt sent it.
    const sent = creates.slice(before).map((r) => JSON.parse(r.postData() ?? '{}'));
    expect(sent.length).toBe(5 + 2 + 5);
    for (const device of retried)
      expect(new Set(sent.filter((b) => b.device_id === device).map((b) => b.idempotency_key)).size).toBe(1);
    expect(new Set(sent.map((b) => b.idempotency_key)).size).toBe(5);
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});

describe('revoking on many devices', () => {
  it("revokes the caller's own active bans of the type, and leaves another publisher's", async () => {
    const { page, problems } = console_;
    const devices = ['bulk-v1', 'bulk-v2', 'bulk-v3'];
    const ban = async (device: string, type: string, scope: string, key?: string) => {
      const made = await server.call('POST', '/v1/bans', {
        game: key ? 'acme-racer' : GAME,
        ...(key ? { key } : {}),
        body: { device_id: device, ban_type: type, scope, reason_code: 'r1' },
      });
      expect(made.status).toBe(201);
      return made.body.ban_id as number;
    };
    const mine1 = await ban('bulk-v1', 'cheat', 'game');
    const mine2 = await ban('bulk-v1', 'cheat', 'publisher');
    const social = await ban('bulk-v2', 'social', 'game');
    // acme's global cheat bans: visible to dev-publisher, theirs alone to revoke.
    const theirs1 = await ban('bulk-v1', 'cheat', 'global', acmeKey);
    const theirs3 = await ban('bulk-v3', 'cheat', 'global', acmeKey);

    await listField(page).fill(devices.join(' '));
    await bulkRegion(page).getByRole('button', { name: 'Revoke…' }).click();
    const form = page.getByRole('region', { name: 'Revoke your bans on these devices', exact: true });
    await form.getByLabel('Ban type to revoke').selectOption('cheat');
    // No reason chosen yet: the form asks for one from the list, and sends nothing.
    await form.getByRole('button', { name: 'Revoke on 3 devices…' }).click();
    expect(await form.getByText('Revoke reason is required: choose one from the list').count()).toBe(1);
    await form.getByLabel('Revoke reason').selectOption('false_positive');
    await form.getByRole('button', { name: 'Revoke on 3 devices…' }).click();
    // It names every scope it revokes: the publisher-wide ban below is revoked too, not only game-1's.
    expect(await form.getByText(`game bans in ${GAME}, publisher-wide bans and global bans`).count()).toBe(1);
    const confirm = page.getByRole('region', {
      name: `Revoke your active cheat bans on 3 devices: game bans in ${GAME}, publisher-wide and global bans?`,
    });
    expect(
      await confirm
        .getByText(`Publisher-wide and global bans apply in every game, not only in ${GAME}`)
        .count(),
    ).toBe(1);
    expect(seriousViolations(await axeScan(page, 'bulk-revoke-confirm'))).toEqual([]);
    await confirm.getByRole('button', { name: 'Revoke them' }).click();
    await statusHolding(report(page), '3 of 3 done; 0 failed or not sent.');
    const rows = Object.fromEntries(await reportRows(page));
    // Listed newest first, so revoked in that order.
    expect(rows).toEqual({
      'bulk-v1': `revoked 2 (ban ${mine2}, ban ${mine1})`,
      'bulk-v2': 'nothing to revoke',
      'bulk-v3': 'nothing to revoke',
    });
    const inactive = await bansOf('bulk-v1', 'inactive');
    expect(inactive.map((b) => [b.ban_id, b.revoke_reason_code]).sort()).toEqual(
      [
        [mine1, 'false_positive'],
        [mine2, 'false_positive'],
      ].sort(),
    );
    // acme's bans and the social ban stay active, as acme sees them too.
    expect((await bansOf('bulk-v1', 'active')).map((b) => b.ban_id)).toEqual([theirs1]);
    expect((await bansOf('bulk-v2', 'active')).map((b) => b.ban_id)).toEqual([social]);
    const acmeSees = await server.call('GET', '/v1/device/bulk-v3/bans?status=active', {
      key: acmeKey,
      game: 'acme-racer',
    });
    expect(acmeSees.body.items.map((b: any) => [b.ban_id, b.revoked_at])).toEqual([[theirs3, null]]);
    await screenshot(page, 'bulk-revoke', report(page));
    expect(seriousViolations(await axeScan(page, 'bulk-revoke'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'bulk-revoke'))).toEqual([]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});

describe('a run whose question changes', () => {
  it('stops when the list changes mid-run, says so, and offers no retry of the old list', async () => {
    const { page } = console_;
    const devices = Array.from({ length: 8 }, (_, i) => `bulk-s${i}`);
    await listField(page).fill(devices.join('\n'));
    // Each create held until the list has changed.
    let release: () => void = () => {};
    const held = new Promise<void>((done) => {
      release = done;
    });
    const hold = async (route: Route) => {
      await held;
      await route.continue();
    };
    await page.route('**/v1/bans', hold);
    try {
      await banDevices(page, 8, 'aimbot');
      await report(page).getByRole('button', { name: 'Stop' }).waitFor();
      await listField(page).fill(devices.slice(0, 7).join('\n'));
      release();
      await statusHolding(
        report(page),
        '4 of 8 done; 4 failed or not sent. Stopped because the list or the Game ID changed',
      );
    } finally {
      await page.unroute('**/v1/bans', hold);
    }
    const rows = Object.fromEntries(await reportRows(page));
    // The 4 in flight finished; the others were not sent.
    expect(Object.values(rows).filter((o) => o === 'not sent: the run was stopped')).toHaveLength(4);
    let made = 0;
    for (const device of devices) made += (await bansOf(device)).length;
    expect(made).toBe(4);
    expect(
      await report(page)
        .getByRole('button', { name: /Retry failed/ })
        .count(),
    ).toBe(0);
  });
});

describe('Stop', () => {
  it('sends no more once pressed, and Retry failed sends the rest, one ban per device', async () => {
    const { page, problems } = console_;
    const devices = Array.from({ length: 8 }, (_, i) => `bulk-t${i}`);
    await listField(page).fill(devices.join('\n'));
    let release: () => void = () => {};
    const held = new Promise<void>((done) => {
      release = done;
    });
    const hold = async (route: Route) => {
      await held;
      await route.continue();
    };
    await page.route('**/v1/bans', hold);
    try {
      await banDevices(page, 8, 'aimbot');
      await report(page).getByRole('button', { name: 'Stop' }).click();
      release();
      await statusHolding(
        report(page),
        '4 of 8 done; 4 failed or not sent. Stopped: the devices not yet sent were not sent.',
      );
    } finally {
      await page.unroute('**/v1/bans', hold);
    }
    await report(page).getByRole('button', { name: 'Retry failed (4)' }).click();
    await statusHolding(report(page), '8 of 8 done; 0 failed or not sent.');
    for (const [, outcome] of await reportRows(page)) expect(outcome).toMatch(/^created ban \d+$/);
    for (const device of devices) expect(await bansOf(device)).toHaveLength(1);
    expect(unexpectedProblems(problems)).toEqual([]);
  });
});

describe('a key that may only read', () => {
  it('checks, and shows no ban or revoke action', async () => {
    const reader = await server.makeKey('bulk-reader', ['bans:read']);
    const other = await openPage(browser, `${server.consoleUrl}#/bulk`);
    try {
      const { page } = other;
      await signIn(page, reader.api_key);
      await setGame(page, GAME);
      await openSection(page, 'Bulk');
      await listField(page).fill('bulk-b1 bulk-b2');
      await bulkRegion(page).getByRole('button', { name: 'Check', exact: true }).click();
      const table = page.getByRole('table', { name: /enforcement batch answers/ });
      await table.waitFor();
      expect((await rowsOf(table)).map((r) => r.slice(0, 2))).toEqual([
        ['bulk-b1', 'restricted'],
        ['bulk-b2', 'restricted'],
      ]);
      expect(await page.getByRole('button', { name: /^(Ban|Revoke)/ }).count()).toBe(0);
      expect(page.url()).not.toContain('bsk_');
    } finally {
      await other.close();
    }
  });
});

describe('two moderators pasting the same wave', () => {
  it("skips on B's run what A's run banned (found by the Check, or answered already_active), one ban per device", async () => {
    const a = console_.page;
    const wave = Array.from({ length: 6 }, (_, i) => `bulk-w${i}`);
    const late = 'bulk-w-late';
    // Moderator A bans the wave.
    await listField(a).fill(wave.join('\n'));
    await banDevices(a, 6, 'aimbot');
    await finished(report(a), 6);

    // Moderator B, in a browser of their own with a key of their own, pastes the same wave and one
    // device more, and checks before A gets to that one.
    const moderatorB = await server.makeKey('moderator-b', ['bans:read', 'bans:write', 'policy:read']);
    const other = await openPage(browser, `${server.consoleUrl}#/bulk`);
    try {
      const { page: b, problems } = other;
      await signIn(b, moderatorB.api_key);
      await setGame(b, GAME);
      await listField(b).fill([...wave, late].join('\n'));
      await bulkRegion(b).getByRole('button', { name: 'Check', exact: true }).click();
      const table = b.getByRole('table', { name: /enforcement batch answers/ });
      await table.waitFor();
      expect((await rowsOf(table)).map((r) => r.slice(0, 2))).toEqual([
        ...wave.map((d) => [d, 'restricted']),
        [late, 'no'],
      ]);
      // A bans the last one after B's Check: only the API can tell B.
      const made = await server.call('POST', '/v1/bans', {
        game: GAME,
        body: { device_id: late, ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
      });
      expect(made.status).toBe(201);

      const form = banForm(b);
      await bulkRegion(b).getByRole('button', { name: 'Ban…' }).click();
      await form.getByLabel('Reason code').fill('aimbot');
      await form.getByRole('button', { name: 'Ban 7 devices…' }).click();
      const confirm = b.getByRole('region', { name: `Ban 7 devices in ${GAME}?` });
      await confirm
        .getByText(
          '6 of 7 devices already have this ban of yours in force (found by the Check): they are skipped, so at most 1 ban is made.',
        )
        .waitFor();
      expect(seriousViolations(await axeScan(b, 'bulk-two-moderators-confirm'))).toEqual([]);
      // What B's run sends (from the confirmation on: signing in probes the routes too).
      const sentByB: string[] = [];
      b.on('request', (r) => {
        if (r.method() === 'POST' && new URL(r.url()).pathname === '/v1/bans')
          sentByB.push(JSON.parse(r.postData() ?? '{}').device_id);
      });
      await confirm.getByRole('button', { name: 'Ban them' }).click();
      await statusHolding(
        report(b),
        '7 of 7 done; 0 failed or not sent. 0 made, 7 skipped as already banned',
      );
      const rows = Object.fromEntries(await reportRows(b));
      for (const device of wave) {
        const [only, ...more] = await bansOf(device);
        expect(more).toEqual([]);
        expect(rows[device]).toBe(
          `skipped, already banned: ban ${only.ban_id} is in force, permanent (found by the Check, not sent)`,
        );
      }
      expect(rows[late]).toBe(
        `skipped, already banned: ban ${made.body.ban_id} is in force, permanent (the API answered already_active)`,
      );
      expect(await bansOf(late)).toHaveLength(1);
      // B sent one create: the device its Check had not found banned.
      expect(sentByB).toEqual([late]);
      expect(seriousViolations(await axeScan(b, 'bulk-two-moderators-report'))).toEqual([]);
      expect(seriousViolations(await narrowAxeScan(b, 'bulk-two-moderators-report'))).toEqual([]);

      // The single form says so too, and makes none.
      await openSection(b, 'Devices');
      const single = b.getByRole('region', { name: 'Create a ban', exact: true });
      await single.getByLabel('Device ID to ban').fill(wave[0] as string);
      await single.getByLabel('Reason code').fill('aimbot');
      await single.getByRole('button', { name: 'Create ban' }).click();
      const [first] = await bansOf(wave[0] as string);
      const said = await statusHolding(single, 'Already banned: no new ban was created.');
      expect(said).toContain(
        `Ban ${first.ban_id} (cheat, game scope, reason aimbot) is in force on ${wave[0]}`,
      );
      expect(said).toMatch(/, permanent\.$/);
      expect(await bansOf(wave[0] as string)).toHaveLength(1);
      expect(seriousViolations(await axeScan(b, 'ban-already-active'))).toEqual([]);
      expect(unexpectedProblems(problems)).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
