import type { Browser, Locator, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import {
  bansTable,
  eventually,
  lookUp,
  openSection,
  policyConfirm,
  rowsOf,
  savePolicy,
  setGame,
  signIn,
  signOut,
  statusHolding,
} from './support/console';
import {
  axeScan,
  type ConsolePage,
  narrowAxeScan,
  openPage,
  screenshot,
  seriousViolations,
  unexpectedProblems,
} from './support/page';
import { DEV_PUBLISHER, type LocalServer, startServer } from './support/server';

/**
 * Trust in other publishers' global bans, in the console against the real API:
 * two publishers (alpha, beta) make global cheat bans on one device; the third (the development
 * publisher) sets a quorum of 2 in the Policy view and sees the device's ban "1 of 2 publishers
 * needed" until beta's ban exists, then leaves beta out and sees "from a publisher you do not
 * trust". Each draft is previewed before saving (nothing stored until Save), each save is checked
 * through GET /v1/policy, each device row against the enforcement answer's `not_enforced`, and the
 * directory against GET /v1/publishers. A key without policy:write sees all of it read-only.
 */

const GAME = 'game-1';
const DEVICE = 'device-trust';
const ALPHA = 'alpha-games';
const BETA = 'beta-games';

let server: LocalServer;
let browser: Browser;
let console_: ConsolePage;
const keys: Record<string, string> = {};
const banIds: Record<string, number> = {};
const sent: Request[] = [];

const makePublisher = async (publisher: string) => {
  keys[publisher] = await server.publisherKey(publisher);
};

const globalBan = async (key: string, device: string, game: string) => {
  const made = await server.call('POST', '/v1/bans', {
    key,
    game,
    body: { device_id: device, ban_type: 'cheat', scope: 'global', reason_code: 'aimbot' },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.ban_id as number;
};

type Entry = { publisher_id: string; display_name: string | null; active_global_bans: number };
const directory = async (): Promise<Entry[]> => {
  const answer = await server.call('GET', '/v1/publishers?limit=200');
  expect(answer.status).toBe(200);
  return answer.body.items;
};
/** Waits until the directory (counted by the dispatcher, a moment after a ban) lists these bans. */
const directoryHas = (counts: Record<string, number>) =>
  eventually(directory, (items) =>
    Object.entries(counts).every(
      ([publisher, n]) => items.find((e) => e.publisher_id === publisher)?.active_global_bans === n,
    ),
  );

const policyOf = async () => {
  const answer = await server.call('GET', '/v1/policy');
  expect(answer.status).toBe(200);
  return answer.body;
};
const notEnforced = async () => {
  const answer = await server.call('GET', `/v1/device/${DEVICE}/enforcement`, { game: GAME });
  expect(answer.status).toBe(200);
  return answer.body.not_enforced as Array<{ ban_id: number; explanation: string; because: string }>;
};

const trustRegion = (page: Page) =>
  page.getByRole('region', { name: 'Global bans from other publishers', exact: true });
const sourcesGroup = (page: Page) => trustRegion(page).getByRole('group').first();
const directoryTable = (page: Page) =>
  trustRegion(page).getByRole('table', { name: /^Publishers that make global bans/ });
const trustPreview = (page: Page) =>
  page.getByRole('table', { name: `Global bans on ${DEVICE}: whether each applies`, exact: true });

/** The preview's row of a ban: [what, now, after saving, changes]. */
const previewOf = async (page: Page, banId: number) => {
  const rows = await rowsOf(trustPreview(page));
  return rows.find((row) => row[0]?.startsWith(`Ban ${banId} `));
};

/** The device's bans table: each ban id with its Enforced and Rule cells. */
const enforcedColumns = async (table: Locator) =>
  Object.fromEntries((await rowsOf(table)).map((row) => [Number(row[0]), [row[9], row[10]]]));

/** The bans of the device as the page lists them, once they say what `expected` says. */
const expectDeviceRows = async (page: Page, expected: Record<number, [string, string]>) => {
  await expect
    .poll(async () => {
      const table = bansTable(page, DEVICE);
      if ((await table.count()) === 0) return null;
      return enforcedColumns(table);
    })
    .toEqual(expect.objectContaining(expected));
};

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
  await Promise.all([makePublisher(ALPHA), makePublisher(BETA)]);
  // Alpha names itself in the directory; the development publisher has a global ban elsewhere, so
  // it is listed too.
  const named = await server.call('PUT', '/v1/publisher', {
    key: keys[ALPHA] as string,
    body: { display_name: 'Alpha Games' },
  });
  expect(named.status, JSON.stringify(named.body)).toBe(200);
  banIds[ALPHA] = await globalBan(keys[ALPHA] as string, DEVICE, 'alpha-racer');
  await globalBan(server.devKey, 'device-own', GAME);
  await directoryHas({ [ALPHA]: 1, [DEV_PUBLISHER]: 1 });

  console_ = await openPage(browser, server.devicesUrl);
  console_.page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/v1/')) sent.push(request);
  });
  await signIn(console_.page, server.devKey);
  await setGame(console_.page, GAME);
});
afterAll(async () => {
  await console_?.close();
  await browser?.close();
  await server?.stop();
});

describe('trust in other publishers’ global bans', () => {
  it('a quorum of 2: previewed, its reach counted as the API does and confirmed (Cancel saves nothing), saved, and the ban is "1 of 2 publishers needed" until a second publisher bans', async () => {
    const { page, problems } = console_;
    const alpha = banIds[ALPHA] as number;
    await lookUp(page, DEVICE);
    await expectDeviceRows(page, { [alpha]: ['yes', 'applies by enforce_global + enforce_cheat_global'] });

    await openSection(page, 'Policy');
    const trust = trustRegion(page);
    await directoryTable(page)
      .getByRole('rowheader', { name: `Alpha Games (${ALPHA})` })
      .waitFor();
    // The directory is the API's: each publisher's name (or id) and active global bans; you first.
    const listed = await directory();
    const rows = await rowsOf(directoryTable(page));
    expect(rows[0]).toEqual([
      DEV_PUBLISHER,
      String(listed.find((e) => e.publisher_id === DEV_PUBLISHER)?.active_global_bans),
      expect.any(String),
      'you, always trusted',
    ]);
    expect(rows.slice(1).map((row) => [row[0], row[1], row[3]])).toEqual(
      listed
        .filter((e) => e.publisher_id !== DEV_PUBLISHER)
        .map((e) => [
          e.display_name ? `${e.display_name} (${e.publisher_id})` : e.publisher_id,
          String(e.active_global_bans),
          'trusted (all publishers)',
        ]),
    );

    const before = await policyOf();
    expect(before).toMatchObject({
      global_sources: 'all',
      global_quorum: 1,
      rep_global_sources: 'all',
      rep_global_quorum: 1,
    });
    await trust.getByLabel('Publishers needed', { exact: true }).selectOption('2');
    // Before saving: the preview says the one publisher's ban would stop applying, and why.
    expect(await previewOf(page, alpha)).toEqual([
      `Ban ${alpha} (cheat) by ${ALPHA}`,
      'applies',
      '1 of 2 publishers needed',
      'changes',
    ]);
    await statusHolding(
      page,
      /enforcement needs 2 trusted publishers holding a global ban of a type \(now 1\)/,
    );
    expect(await policyOf()).toEqual(before);

    // Save first shows how many devices the change reaches, as the API counts them, and asks.
    await page.getByRole('button', { name: 'Save policy', exact: true }).click();
    const confirm = policyConfirm(page);
    await confirm.waitFor();
    const reach = await server.call('POST', '/v1/policy/preview', {
      game: GAME,
      body: { global_quorum: 2, rep_global_quorum: 2 },
    });
    expect(reach.status).toBe(200);
    const { any, cheat, social } = reach.body;
    expect(cheat.no_longer_restricted).toBeGreaterThanOrEqual(1); // alpha's ban alone: 1 of 2
    // The form counted the devices with a ban in force in the game when it opened, as the API does.
    const inForce = reach.body.devices_with_bans;
    expect(inForce).toBeGreaterThanOrEqual(1);
    await expect
      .poll(() => page.locator('#policy-in-force').textContent())
      .toBe(
        `In game ${GAME}, ${inForce} ${inForce === 1 ? 'device has' : 'devices have'} a ban in force: Save counts how many of them a change restricts or frees.`,
      );
    const words = (c: { become_restricted: number; no_longer_restricted: number }) =>
      `${c.become_restricted} ${c.become_restricted === 1 ? 'device' : 'devices'} become restricted, ` +
      `${c.no_longer_restricted} ${c.no_longer_restricted === 1 ? 'is' : 'are'} no longer restricted`;
    await confirm.getByText(`In game ${GAME}: ${words(any)}`).waitFor();
    expect(await confirm.getByRole('listitem').allInnerTexts()).toEqual([
      `Cheat: ${words(cheat)}.`,
      `Social: ${words(social)}.`,
    ]);
    expect(seriousViolations(await axeScan(page, 'policy-reach-confirm'))).toEqual([]);
    // Cancel saves nothing.
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await confirm.count()).toBe(0);
    expect(await policyOf()).toEqual(before);

    await savePolicy(page);
    await statusHolding(page, 'Policy saved: global_quorum 2, rep_global_quorum 2.');
    expect(await policyOf()).toMatchObject({
      global_sources: 'all',
      global_quorum: 2,
      rep_global_sources: 'all',
      rep_global_quorum: 2,
    });

    // The device page says why the ban does not apply, in the API's words for that ban.
    await openSection(page, 'Devices');
    const why = await notEnforced();
    expect(why).toEqual([
      expect.objectContaining({ ban_id: alpha, because: 'quorum', explanation: '1 of 2 publishers needed' }),
    ]);
    await expectDeviceRows(page, { [alpha]: ['no', 'not applied: 1 of 2 publishers needed'] });
    await page
      .getByRole('region', { name: 'Enforcement', exact: true })
      .getByText(`Ban ${alpha}: cheat, global scope, by ${ALPHA}: not applied: 1 of 2 publishers needed`)
      .waitFor();

    // A second publisher bans the device too: the quorum is met, and both apply.
    banIds[BETA] = await globalBan(keys[BETA] as string, DEVICE, 'beta-shooter');
    const beta = banIds[BETA];
    await lookUp(page, DEVICE);
    expect(await notEnforced()).toEqual([]);
    await expectDeviceRows(page, {
      [alpha]: ['yes', 'applies by enforce_global + enforce_cheat_global'],
      [beta]: ['yes', 'applies by enforce_global + enforce_cheat_global'],
    });
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('leaving a publisher out: previewed before saving, then "from a publisher you do not trust"', async () => {
    const { page, problems } = console_;
    const alpha = banIds[ALPHA] as number;
    const beta = banIds[BETA] as number;
    await directoryHas({ [ALPHA]: 1, [BETA]: 1 });
    await openSection(page, 'Policy');
    const trust = trustRegion(page);
    await directoryTable(page).getByRole('rowheader', { name: BETA, exact: true }).waitFor();

    const puts = sent.filter((r) => r.method() === 'PUT').length;
    await sourcesGroup(page).getByLabel('All except these publishers (chosen below)').check();
    await trust.getByLabel(`Leave out ${BETA}`, { exact: true }).check();
    expect(await trust.getByLabel(`Leave out Alpha Games (${ALPHA})`, { exact: true }).isChecked()).toBe(
      false,
    );
    // The directory says who is trusted as drafted, in words.
    const rows = await rowsOf(directoryTable(page));
    expect(rows.find((row) => row[0] === BETA)?.[3]).toBe(`Leave out ${BETA}not trusted`);
    expect(rows.find((row) => row[0] === `Alpha Games (${ALPHA})`)?.[3]).toBe(
      `Leave out Alpha Games (${ALPHA})trusted`,
    );

    // The preview: beta's ban stops applying (not trusted), and alpha's with it (1 of 2).
    await expect
      .poll(() => previewOf(page, beta))
      .toEqual([`Ban ${beta} (cheat) by ${BETA}`, 'applies', 'from a publisher you do not trust', 'changes']);
    expect(await previewOf(page, alpha)).toEqual([
      `Ban ${alpha} (cheat) by ${ALPHA}`,
      'applies',
      '1 of 2 publishers needed',
      'changes',
    ]);
    await statusHolding(page, `enforcement takes global bans from all except ${BETA} (now all publishers)`);
    // Nothing is saved by editing.
    expect(sent.filter((r) => r.method() === 'PUT').length).toBe(puts);
    expect((await policyOf()).global_sources).toBe('all');

    await screenshot(page, 'policy-trust', trust);
    await screenshot(
      page,
      'policy-trust-preview',
      page.getByRole('region', { name: 'Preview before saving', exact: true }),
    );
    expect(seriousViolations(await axeScan(page, 'policy-trust'))).toEqual([]);
    expect(seriousViolations(await narrowAxeScan(page, 'policy-trust'))).toEqual([]);

    await savePolicy(page);
    await statusHolding(
      page,
      `Policy saved: global_sources all except ${BETA}, rep_global_sources all except ${BETA}.`,
    );
    expect(await policyOf()).toMatchObject({
      global_sources: { except: [BETA] },
      global_quorum: 2,
      rep_global_sources: { except: [BETA] },
      rep_global_quorum: 2,
    });

    await openSection(page, 'Devices');
    const why = Object.fromEntries((await notEnforced()).map((item) => [item.ban_id, item.explanation]));
    expect(why).toEqual({
      [alpha]: '1 of 2 publishers needed',
      [beta]: 'from a publisher you do not trust',
    });
    await expectDeviceRows(page, {
      [alpha]: ['no', `not applied: ${why[alpha]}`],
      [beta]: ['no', `not applied: ${why[beta]}`],
    });
    await screenshot(page, 'device-trust', page.getByRole('region', { name: 'Enforcement', exact: true }));
    expect(seriousViolations(await axeScan(page, 'device-trust'))).toEqual([]);
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('the reputation may take its own settings: one choice unticked, its own pair saved', async () => {
    const { page } = console_;
    await openSection(page, 'Policy');
    const trust = trustRegion(page);
    await trust.getByLabel('The same settings for the reputation', { exact: true }).uncheck();
    const reputation = trust.getByRole('group', { name: 'Reputation: whose global bans count', exact: true });
    await reputation.getByLabel('All publishers', { exact: true }).check();
    await reputation.getByLabel('Publishers needed', { exact: true }).selectOption('1');
    await savePolicy(page);
    await statusHolding(page, 'Policy saved: rep_global_sources all publishers, rep_global_quorum 1.');
    expect(await policyOf()).toMatchObject({
      global_sources: { except: [BETA] },
      global_quorum: 2,
      rep_global_sources: 'all',
      rep_global_quorum: 1,
    });
    // Read again, the page shows the two pairs apart.
    await openSection(page, 'Devices');
    await openSection(page, 'Policy');
    expect(
      await trustRegion(page).getByLabel('The same settings for the reputation', { exact: true }).isChecked(),
    ).toBe(false);
  });

  it('names your publisher in the directory, by the API’s rule', async () => {
    const { page } = console_;
    const region = page.getByRole('region', { name: 'Your name in the directory', exact: true });
    const field = region.getByLabel('Display name', { exact: true });
    const puts = sent.filter((r) => new URL(r.url()).pathname === '/v1/publisher').length;
    // A space, or a joiner that shows nothing, at the end: refused in the page, nothing sent.
    for (const refused of ['Dev Games ', 'Dev Games\u200D']) {
      await field.fill(refused);
      await region.getByRole('button', { name: 'Save name', exact: true }).click();
      await region.getByText('a visible character at either end').first().waitFor();
      expect(sent.filter((r) => new URL(r.url()).pathname === '/v1/publisher').length).toBe(puts);
    }

    await field.fill('Dev Games');
    await region.getByRole('button', { name: 'Save name', exact: true }).click();
    await statusHolding(region, 'Your name in the directory is now “Dev Games”.');
    const listed = await eventually(directory, (items) =>
      items.some((e) => e.publisher_id === DEV_PUBLISHER && e.display_name === 'Dev Games'),
    );
    expect(listed.find((e) => e.publisher_id === DEV_PUBLISHER)?.display_name).toBe('Dev Games');
    await directoryTable(page)
      .getByRole('rowheader', { name: `Dev Games (${DEV_PUBLISHER})` })
      .waitFor();
  });
});

describe('without policy:write', () => {
  it('shows the trust settings and the directory read-only, with no Save', async () => {
    const { page, problems } = console_;
    const reader = await server.makeKey('trust reader', ['policy:read', 'bans:read']);
    await signOut(page);
    await signIn(page, reader.api_key);
    try {
      await openSection(page, 'Policy');
      const trust = trustRegion(page);
      await directoryTable(page).getByRole('rowheader', { name: BETA, exact: true }).waitFor();
      expect(
        await sourcesGroup(page).getByLabel('All except these publishers (chosen below)').isChecked(),
      ).toBe(true);
      for (const control of [
        sourcesGroup(page).getByLabel('All publishers', { exact: true }),
        trust.getByLabel('Publishers needed', { exact: true }).first(),
        trust.getByLabel('The same settings for the reputation', { exact: true }),
        trust.getByLabel(`Leave out ${BETA}`, { exact: true }),
      ])
        expect(await control.isDisabled()).toBe(true);
      expect(await trust.getByLabel(`Leave out ${BETA}`, { exact: true }).isChecked()).toBe(true);
      expect(await page.getByRole('button', { name: 'Save policy' }).count()).toBe(0);
      expect(await page.getByLabel('Display name', { exact: true }).count()).toBe(0);
      await page.getByText(/Naming your publisher needs the scope policy:write/).waitFor();
      expect(seriousViolations(await axeScan(page, 'policy-trust-read-only'))).toEqual([]);
      expect(unexpectedProblems(problems)).toEqual([]);
    } finally {
      await signOut(page);
      await signIn(page, server.devKey);
    }
  });
});
