import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchChromium } from '../test/browser/support/chromium';
import { startLocalServer } from './local-server';

/**
 * "Finding one moderator's events of today", timed and counted in real Chromium on the console of
 * a source tree (this one, or another checkout given by `--tree`, e.g. the one before the audit
 * filters): `npx tsx bench/audit-finding.ts [--tree <dir>] [--events 450]`.
 *
 * The tree's own local server (`infra/local/main.ts`, a fresh store) is seeded through the API
 * with a day of `--events` audit events from four keys: a moderation bot makes most of them, two
 * moderators a few each, and the moderator looked for ("Ana") 6, spread through the day. Signed
 * in on Start, the task is done the quickest way the console offers: where Start's activity names
 * link to their trail, one click on Ana's; otherwise Audit trail, then Next page until the trail
 * has shown every one of her events of today. It counts the clicks, and the seconds from the first
 * click until her last event is on screen (the page's own time: reading the rows is not counted),
 * and checks the events found are exactly hers as the API lists them.
 */

const arg = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? (process.argv[at + 1] ?? fallback) : fallback;
};
const tree = resolve(arg('tree', fileURLToPath(new URL('..', import.meta.url))));
const total = Number(arg('events', '450'));
const GAME = 'game-1';
const ANA_EVENTS = 6;

const main = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'audit-finding-'));
  const server = await startLocalServer({ cwd: tree, env: { DATA_DIR: dataDir } });
  const call = async <T>(method: string, path: string, key: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${key}`,
        'X-Game-Id': GAME,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = { status: res.status, body: (await res.json()) as T };
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const browser = await launchChromium();
  try {
    const makeKey = (name: string) =>
      call<{ key_id: string; api_key: string }>('POST', '/v1/keys', server.key, {
        name,
        scopes: ['bans:read', 'bans:write'],
      });
    const [bot, ana, ben, cho] = [
      await makeKey('moderation bot'),
      await makeKey('Ana'),
      await makeKey('Ben'),
      await makeKey('Cho'),
    ];
    // Ana's 6 events spread evenly; Ben and Cho one in 20 each; the bot the rest.
    const seeded = total - 4; // the four keys made are events too
    const step = Math.floor(seeded / ANA_EVENTS);
    for (let i = 0; i < seeded; i += 1) {
      const who = i % step === step - 1 ? ana : i % 20 === 3 ? ben : i % 20 === 13 ? cho : bot;
      await call('POST', '/v1/bans', who.api_key, {
        device_id: `device-${String(i).padStart(5, '0')}`,
        ban_type: i % 2 ? 'cheat' : 'social',
        scope: 'game',
        reason_code: 'aimbot',
      });
    }
    const hers = (
      await call<{ items: Array<{ event_id: string }> }>(
        'GET',
        `/v1/audit?limit=200&actor=${ana.key_id}`,
        server.key,
      )
    ).items;
    const label = `Ana (${ana.key_id})`;

    const page: Page = await browser.newPage();
    await page.goto(`${server.url}/console/`);
    await page.getByLabel('API key', { exact: true }).fill(server.key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const activity = page.getByRole('table', { name: /^Today's events by who/ });
    await activity.waitFor({ timeout: 30_000 });

    // Ana's rows in the audit table on screen (its Actor column holds her label).
    const trail = page.getByRole('table', { name: /^Audit events, newest first/ });
    const shownRows = async () =>
      trail.locator('tbody tr').evaluateAll(
        (rows, who) =>
          rows
            .map((row) => [...row.querySelectorAll('th, td')].map((c) => (c.textContent ?? '').trim()))
            .filter((cells) => cells[2] === who)
            .map((cells) => cells.join(' | ')),
        label,
      );

    let clicks = 0;
    const found = new Set<string>();
    const link = activity.getByRole('link', { name: new RegExp(`^Ana \\(${ana.key_id}\\)`) });
    const started = performance.now();
    let way: string;
    if ((await link.count()) > 0) {
      way = "Start: her name's link to her trail of today";
      await link.click();
      clicks += 1;
      await page.waitForURL(/#\/audit\?actor=/);
      await trail
        .locator('tbody tr')
        .nth(hers.length - 1)
        .waitFor();
      for (const row of await shownRows()) found.add(row);
    } else {
      way = 'Audit trail, then Next page until her last event of today';
      await page
        .getByRole('navigation', { name: 'Console sections' })
        .getByRole('button', { name: 'Audit trail' })
        .click();
      clicks += 1;
      await trail.waitFor();
      for (;;) {
        // The page is read when its form is no longer busy.
        await page.locator('button:has-text("Show events"):not([disabled])').waitFor();
        for (const row of await shownRows()) found.add(row);
        const next = page.getByRole('button', { name: 'Next page' });
        // A moderator cannot know the trail holds no more of hers until it ends (or leaves today).
        if (!(await next.isEnabled())) break;
        const caption = await trail.locator('caption').innerText();
        await next.click();
        clicks += 1;
        await trail.locator('caption').filter({ hasNotText: caption }).waitFor();
      }
    }
    const seconds = (performance.now() - started) / 1000;
    if (found.size !== hers.length) throw new Error(`found ${found.size} of her ${hers.length} events`);
    console.log(
      JSON.stringify({
        tree,
        events_today: total,
        hers: hers.length,
        way,
        clicks,
        seconds: Number(seconds.toFixed(2)),
      }),
    );
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

await main();
