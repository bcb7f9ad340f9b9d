import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { launchChromium } from '../infra/chromium';
import { startLocalServer } from './local-server';

/**
 * A two-person bulk wave: moderator A has banned a wave of WAVE_DEVICES (30) devices in
 * game-1 (cheat, game scope, reason aimbot); moderator B, in a browser of their own with a key of
 * their own, pastes the same wave into Bulk and runs it: Check, Ban…, the reason, Ban N devices…,
 * Ban them, until the report says all are done. Counted: B's clicks and keystrokes (a click on a
 * button is 1, typing is 1 click to focus and 1 keystroke per character, a paste 1 keystroke), the
 * seconds from the paste to the report done, and the cheat bans each device then holds.
 *
 * Runs on any checkout of the project (its own `npm start` and console, on a temporary store):
 * `node infra/supported-node.mjs tsx bench/two-moderator-wave.ts [root]`, root defaulting to this
 * one; the figures before the guard (docs/console.md) came from a checkout of 3f647fe given as
 * root. Prints one JSON line.
 */

const root = resolve(process.argv[2] ?? '.');
const GAME = 'game-1';
const COUNT = Number(process.env.WAVE_DEVICES ?? 30);
const wave = Array.from({ length: COUNT }, (_, i) => `wave-${String(i).padStart(2, '0')}`);

const call = async (url: string, key: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      'X-Game-Id': GAME,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // Only the fields read below: an api key made, a listing's items.
  return {
    status: res.status,
    body: (await res.json()) as { api_key: string; items: unknown[] },
  };
};

/** B's hands: each action counted as docs/console.md counts the daily tasks. */
const counted = (page: Page) => {
  const tally = { clicks: 0, keystrokes: 0 };
  return {
    tally,
    click: async (target: Locator) => {
      tally.clicks += 1;
      await target.click();
    },
    type: async (target: Locator, text: string) => {
      tally.clicks += 1;
      tally.keystrokes += text.length;
      await target.fill(text);
    },
    paste: async (target: Locator, text: string) => {
      tally.clicks += 1;
      tally.keystrokes += 1;
      await target.fill(text);
    },
    page,
  };
};

const main = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wave-'));
  const api = await startLocalServer({ cwd: root, env: { DATA_DIR: dataDir, LOG_LEVEL: 'warn' } });
  const browser = await launchChromium();
  try {
    // Moderator A's wave, as A's own run sends it (one create per device).
    for (const device_id of wave) {
      const made = await call(api.url, api.key, 'POST', '/v1/bans', {
        device_id,
        ban_type: 'cheat',
        scope: 'game',
        reason_code: 'aimbot',
      });
      if (made.status !== 201) throw new Error(`A's ban of ${device_id}: ${made.status}`);
    }
    const minted = await call(api.url, api.key, 'POST', '/v1/keys', {
      name: 'moderator B',
      scopes: ['bans:read', 'bans:write', 'policy:read'],
    });
    if (minted.status !== 201) throw new Error(`key: ${minted.status}`);

    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto(`${api.url}/console/#/bulk`);
    await page.getByLabel('API key', { exact: true }).fill(minted.body.api_key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    await page.getByLabel('Game ID', { exact: true }).fill(GAME);
    const region = page.getByRole('region', { name: /^Devices to check/ });
    await region.waitFor();

    const b = counted(page);
    const started = performance.now();
    await b.paste(page.getByLabel('Device IDs', { exact: true }), wave.join('\n'));
    await b.click(region.getByRole('button', { name: 'Check', exact: true }));
    await page.getByRole('table', { name: /enforcement batch answers/ }).waitFor();
    await b.click(region.getByRole('button', { name: 'Ban…' }));
    const form = page.getByRole('region', { name: 'Ban these devices', exact: true });
    await b.type(form.getByLabel('Reason code'), 'aimbot');
    await b.click(form.getByRole('button', { name: `Ban ${COUNT} devices…` }));
    await b.click(
      page
        .getByRole('region', { name: `Ban ${COUNT} devices in ${GAME}?` })
        .getByRole('button', { name: 'Ban them' }),
    );
    await page
      .getByRole('region', { name: /^Report:/ })
      .getByRole('status')
      .filter({ hasText: `${COUNT} of ${COUNT} done;` })
      .waitFor({ timeout: 60_000 });
    const seconds = (performance.now() - started) / 1000;
    const report = await page
      .getByRole('region', { name: /^Report:/ })
      .getByRole('status')
      .innerText();

    let bans = 0;
    for (const device of wave) {
      const listed = await call(api.url, api.key, 'GET', `/v1/device/${device}/bans?type=cheat&limit=200`);
      bans += listed.body.items.length;
    }
    console.log(
      JSON.stringify({
        root,
        devices: COUNT,
        clicks: b.tally.clicks,
        keystrokes: b.tally.keystrokes,
        seconds: Number(seconds.toFixed(2)),
        active_cheat_bans_after: bans,
        second_bans_made_by_b: bans - COUNT,
        report: report.trim(),
      }),
    );
    await context.close();
  } finally {
    await browser.close();
    await api.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

await main();
