import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { axeScan, NARROW, screenshot, unexpectedProblems } from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * The player's page (/player/), as a player opens it on a phone from the link a game server
 * minted: their restrictions in this game with the statement of reasons, an appeal filed from the
 * page and its outcome later, in the browser's language; nothing opened by an altered link or one
 * without its fragment. Each step is checked against what the API then holds; every state is
 * scanned by axe at a phone's width.
 */

const GAME = 'game-player';

let server: LocalServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
});
afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await server?.stop();
});

/** A phone's page in `locale`, collecting what the page reports as problems. */
const phone = async (locale = 'en-GB') => {
  const context = await browser.newContext({ viewport: NARROW, locale, timezoneId: 'UTC', isMobile: true });
  contexts.push(context);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console.error: ${message.text()}`);
  });
  return { page, problems };
};

const ban = async (device: string, body: Record<string, unknown>) => {
  const made = await server.call('POST', '/v1/bans', {
    game: GAME,
    body: { device_id: device, ban_type: 'cheat', scope: 'game', reason_code: 'aimbot', ...body },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.ban_id as number;
};
const mint = async (device: string, appeal = true) => {
  const minted = await server.call('POST', '/v1/player-links', {
    game: GAME,
    body: { device_id: device, appeal },
  });
  expect(minted.status, JSON.stringify(minted.body)).toBe(201);
  return minted.body as { secret: string; path: string; link_id: string };
};
const axeClean = async (page: Page, name: string) => {
  const violations = await axeScan(page, name);
  expect(violations.map((v) => `${v.impact} ${v.id}: ${v.help}`)).toEqual([]);
};

describe("the player's page", () => {
  it('shows a restriction with its statement of reasons, files an appeal, then shows its outcome', async () => {
    const device = 'player-phone-1';
    const banId = await ban(device, {
      player_message: 'Banned for aim assistance software.',
      expires_at: '2099-06-01T12:00:00.000Z',
      details: { clip: 'private-evidence' },
      statement: {
        terms_clause: 'Code of conduct, 4.2: no cheat software',
        terms_url: 'https://example.com/conduct#4.2',
        facts: 'Our anti-cheat found aim assistance software running during 3 matches.',
      },
    });
    const link = await mint(device);
    const { page, problems } = await phone();
    await page.goto(`${server.url}${link.path}`);

    await page.getByRole('heading', { name: 'Your restrictions', level: 1 }).waitFor();
    const card = page.getByRole('region', { name: 'Cheating: Applies in this game' });
    await card.waitFor();
    await expect(card.getByText('Banned for aim assistance software.')).toBeTruthy();
    const text = await card.innerText();
    expect(text).toContain('Code of conduct, 4.2: no cheat software');
    expect(text).toContain('Our anti-cheat found aim assistance software running during 3 matches.');
    expect(text).toContain(
      'It was detected by automated means. It was decided by automated means, without a person.',
    );
    expect(text).toContain('1 June 2099');
    expect(text).not.toContain('private-evidence');
    expect(await card.getByRole('link', { name: 'Read this part of the terms' }).getAttribute('href')).toBe(
      'https://example.com/conduct#4.2',
    );
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.lang)).toBe('en');
    await axeClean(page, 'player-page');
    await screenshot(page, 'player-page');

    await card
      .getByLabel('Why this is wrong')
      .fill('I was not cheating: my brother used my console that evening.');
    await card.getByLabel('How to reach you (optional)').fill('player@example.com');
    await card.getByRole('button', { name: 'Send appeal' }).click();
    await card
      .getByRole('status')
      .getByText(/Your appeal of .* is being reviewed\./)
      .waitFor();
    expect(await card.getByRole('button', { name: 'Send appeal' }).count()).toBe(0);
    // Stored as the player's, through this link, in the publisher's queue.
    const queue = await server.call('GET', `/v1/appeals?device_id=${device}`);
    expect(queue.body.items).toHaveLength(1);
    expect(queue.body.items[0]).toMatchObject({
      ban_id: banId,
      player_link_id: link.link_id,
      message: 'I was not cheating: my brother used my console that evening.',
      contact: 'player@example.com',
      filed_by: { game_id: GAME },
    });
    await axeClean(page, 'player-page-appealed');

    const decided = await server.call('POST', `/v1/appeals/${queue.body.items[0].appeal_id}/decision`, {
      body: { outcome: 'overturned', player_message: 'Your ban was lifted: sorry for the trouble.' },
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    await page.reload();
    const lifted = page.getByRole('region', { name: 'Cheating: Applies in this game' });
    await lifted.getByText('No longer in force').waitFor();
    await lifted.getByText(/Your appeal was decided on .*: the restriction was lifted\./).waitFor();
    expect(await lifted.innerText()).toContain('Your ban was lifted: sorry for the trouble.');
    await axeClean(page, 'player-page-decided');
    await screenshot(page, 'player-page-decided');
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it("speaks the browser's language, the publisher's texts too, and without appeal says how to appeal", async () => {
    const device = 'player-phone-2';
    const catalogue = await server.call('PUT', '/v1/reasons', {
      body: {
        strict_reasons: false,
        reasons: [
          {
            code: 'abuse',
            label: 'Abuse of other players',
            ban_type: 'social',
            scope: 'publisher',
            duration_seconds: null,
            player_message: 'Muted for abusing other players.',
            translations: { de: { player_message: 'Stummgeschaltet wegen Beleidigung anderer Spieler.' } },
          },
        ],
      },
    });
    expect(catalogue.status, JSON.stringify(catalogue.body)).toBe(200);
    await ban(device, {
      ban_type: 'social',
      scope: 'publisher',
      reason_code: 'abuse',
      player_message: 'Muted for abusing other players.',
    });
    const link = await mint(device, false);
    const { page, problems } = await phone('de-AT');
    await page.goto(`${server.url}${link.path}`);
    await page.getByRole('heading', { name: 'Deine Einschränkungen', level: 1 }).waitFor();
    const card = page.getByRole('region', { name: 'Verhalten: Gilt in allen Spielen dieses Publishers' });
    await card.getByText('Für einen Einspruch bitte das Spiel um einen Link, der ihn erlaubt.').waitFor();
    // The publisher's own words in German too: the browser's Accept-Language picked the translation.
    // (the message, and the statement's facts, which default to it)
    expect(await card.locator('.message').innerText()).toBe(
      'Stummgeschaltet wegen Beleidigung anderer Spieler.',
    );
    expect(await card.getByText('Stummgeschaltet wegen Beleidigung anderer Spieler.').count()).toBe(2);
    expect(await card.getByRole('button').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.lang)).toBe('de');
    await axeClean(page, 'player-page-de');
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it("says a refused appeal in the player's language, never the API's English words", async () => {
    const device = 'player-phone-4';
    const banId = await ban(device, {});
    const link = await mint(device);
    const { page, problems } = await phone('fr-FR');
    await page.goto(`${server.url}${link.path}`);
    const form = page.getByRole('form', { name: 'Faire appel' });
    await form.getByLabel('Pourquoi c’est une erreur').fill('Ce n’était pas moi.');
    // Meanwhile the ban was appealed through another link (a second tab, a support agent).
    const other = await mint(device);
    const filed = await fetch(`${server.url}/v1/player/appeals`, {
      method: 'POST',
      headers: { 'X-Player-Link': other.secret, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ban_id: banId, message: 'Appealed from another link.' }),
    });
    expect(filed.status).toBe(201);
    await form.getByRole('button', { name: 'Envoyer l’appel' }).click();
    await form
      .getByRole('alert')
      .getByText(
        'Cette restriction a déjà fait l’objet d’un appel, ou ne peut plus en faire l’objet. Rechargez la page pour la voir telle qu’elle est.',
      )
      .waitFor();
    expect(await page.getByText('Your publisher').count()).toBe(0);
    await axeClean(page, 'player-page-refused');
    await page.reload();
    await page
      .getByRole('status')
      .getByText(/Votre appel du .* est en cours d’examen\./)
      .waitFor();
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('is served at /player/ with the console headers, and nothing else is under /player/', async () => {
    const moved = await fetch(`${server.url}/player`, { redirect: 'manual' });
    expect(moved.status).toBe(308);
    expect(moved.headers.get('location')).toBe('/player/');
    const page = await fetch(`${server.url}/player/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    for (const file of ['player.js', 'player.css'])
      expect((await fetch(`${server.url}/player/${file}`)).status, file).toBe(200);
    for (const other of ['app.js', 'index.html', 'sign-in.json', 'player.html'])
      expect((await fetch(`${server.url}/player/${other}`)).status, other).toBe(404);
  });

  it('closes when the link ends, and a replayed appeal files nothing more', async () => {
    const device = 'player-phone-5';
    const banId = await ban(device, {});
    const minted = await server.call('POST', '/v1/player-links', {
      game: GAME,
      body: { device_id: device, appeal: true, expires_in_seconds: 60 },
    });
    expect(minted.status).toBe(201);
    const { page, problems } = await phone();
    await page.goto(`${server.url}${minted.body.path}`);
    const card = page.getByRole('region', { name: 'Cheating: Applies in this game' });
    await card.getByLabel('Why this is wrong').fill('Not me.');
    await card.getByRole('button', { name: 'Send appeal' }).click();
    await card
      .getByRole('status')
      .getByText(/is being reviewed/)
      .waitFor();
    // The same request sent again (a double tap, a replay of the link's request): the first appeal.
    const replay = await fetch(`${server.url}/v1/player/appeals`, {
      method: 'POST',
      headers: { 'X-Player-Link': minted.body.secret, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ban_id: banId, message: 'Replayed.' }),
    });
    expect(replay.status).toBe(200);
    expect(((await replay.json()) as { result: string }).result).toBe('idempotent_ok');
    const queue = await server.call('GET', `/v1/appeals?device_id=${device}`);
    expect(queue.body.items.map((a: { message: string }) => a.message)).toEqual(['Not me.']);
    // A minute later the link has ended: the page says so and shows nothing of the device.
    server.setClockOffset(61_000);
    try {
      await page.reload();
      await page
        .getByRole('alert')
        .getByText('This link has ended or is not valid. Ask the game for a new one.')
        .waitFor();
      expect(await page.getByRole('region').count()).toBe(0);
      await axeClean(page, 'player-page-expired');
    } finally {
      server.setClockOffset(0);
    }
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('opens nothing with an altered link, and says so for a link without its secret', async () => {
    const device = 'player-phone-3';
    await ban(device, { player_message: 'Not for this page.' });
    const link = await mint(device);
    const last = link.secret.at(-1) === 'A' ? 'B' : 'A';
    const { page } = await phone();
    await page.goto(`${server.url}/player/#${link.secret.slice(0, -1)}${last}`);
    await page
      .getByRole('alert')
      .getByText('This link has ended or is not valid. Ask the game for a new one.')
      .waitFor();
    expect(await page.getByText('Not for this page.').count()).toBe(0);
    await axeClean(page, 'player-page-ended');
    await page.goto(`${server.url}/player/`);
    await page.reload();
    await page.getByRole('alert').getByText('This link is incomplete.', { exact: false }).waitFor();
  });
});
