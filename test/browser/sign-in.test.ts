import { gzipSync } from 'node:zlib';
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_JS_BUDGET_GZIP } from '../../console/build';
import { launchChromium } from './support/chromium';
import {
  alertHolding,
  lookUp,
  openSection,
  setGame,
  signIn,
  signInForm,
  signOut,
  statusHolding,
  storageOf,
} from './support/console';
import {
  axeScan,
  type ConsolePage,
  openPage,
  screenshot,
  seriousViolations,
  unexpectedProblems,
} from './support/page';
import { type LocalServer, startServer } from './support/server';

/**
 * Signing in: the key is pasted, kept in the tab's memory (never localStorage, a
 * cookie or the address), forgotten on sign-out; the console shows what the key's scopes allow
 * and says why the rest is hidden; a bad key gets a clear message and no session.
 */

let server: LocalServer;
/** The console's address with at most a view (and its game and device) in its fragment: never a key. */
const atConsole = () =>
  new RegExp(`^${server.consoleUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(#/[a-z]+(\\?[\\w=&.~:-]*)?)?$`);
let browser: Browser;
const pages: ConsolePage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const open = async (url = server.consoleUrl) => {
  const opened = await openPage(browser, url);
  pages.push(opened);
  return opened;
};

/** Every request the page makes to the API, with its URL and Authorization header. */
const recordRequests = (page: ConsolePage['page']) => {
  const requests: Request[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/v1/')) requests.push(request);
  });
  return requests;
};

describe('the console page', () => {
  it('is served at /console/ by npm start with a CSP that allows no inline script', async () => {
    const res = await fetch(server.consoleUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    // What the browser downloads is within the console's budget of gzipped script.
    const script = Buffer.from(await (await fetch(`${server.consoleUrl}app.js`)).arrayBuffer());
    expect(gzipSync(script, { level: 9 }).length).toBeLessThanOrEqual(CONSOLE_JS_BUDGET_GZIP);
    // Every script is a file of the page's own; none is inline.
    for (const [, attributes = '', body = ''] of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(attributes).toMatch(/\bsrc=/);
      expect(body.trim()).toBe('');
    }
  });
});

describe('signing in', () => {
  it('takes a pasted key, keeps it out of web storage, cookies, URLs and request addresses, and forgets it on sign-out', async () => {
    const { page, problems, close } = await open();
    const requests = recordRequests(page);
    await signInForm(page);
    await screenshot(page, 'sign-in');
    expect(seriousViolations(await axeScan(page, 'sign-in'))).toEqual([]);

    await signIn(page, server.devKey);
    // Signed in as the development publisher, with every scope (the first npm start key has them all).
    expect(await page.getByRole('banner').innerText()).toContain('dev-publisher');
    const signedIn = await storageOf(page);
    expect(signedIn.local).toEqual({});
    expect(signedIn.cookie).toBe('');
    // The address names the view (Start, where the console opens), never the key.
    expect(signedIn.href).toBe(`${server.consoleUrl}#/start`);
    expect(JSON.stringify(signedIn.session)).not.toContain(server.devKey);
    expect(await page.getByLabel('API key', { exact: true }).count()).toBe(0);
    expect(await page.content()).not.toContain(server.devKey);
    await screenshot(page, 'signed-in');
    expect(seriousViolations(await axeScan(page, 'signed-in'))).toEqual([]);

    // The key travels in the Authorization header only, never in an address.
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) {
      expect(request.url()).not.toContain(server.devKey);
      expect(await request.headerValue('authorization')).toBe(`Bearer ${server.devKey}`);
    }

    await signOut(page);
    await statusHolding(page, /signed out/i);
    const after = await storageOf(page);
    expect(after).toEqual({ local: {}, session: {}, cookie: '', href: expect.stringMatching(atConsole()) });
    expect(await (await signInForm(page)).inputValue()).toBe('');
    expect(await page.content()).not.toContain(server.devKey);
    // Nothing the page does after sign-out carries the key.
    const before = requests.length;
    await page.reload();
    await signInForm(page);
    expect(requests.length).toBe(before);
    expect(await storageOf(page)).toEqual({
      local: {},
      session: {},
      cookie: '',
      href: expect.stringMatching(atConsole()),
    });
    expect(unexpectedProblems(problems)).toEqual([]);
    await close();
  });

  it('refuses an unknown key (401) with a clear message and stays signed out', async () => {
    const { page, problems, close } = await open();
    const unknown = `bsk_${'A'.repeat(43)}`;
    await (await signInForm(page)).fill(unknown);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await alertHolding(page, /refused this key \(401\).*unknown, revoked or expired/);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    expect(await storageOf(page)).toEqual({
      local: {},
      session: {},
      cookie: '',
      href: expect.stringMatching(atConsole()),
    });
    await screenshot(page, 'sign-in-refused');
    expect(unexpectedProblems(problems)).toEqual([]);
    await close();
  });

  it('says a pasted text is not a key before sending it anywhere', async () => {
    const { page, problems, close } = await open();
    const requests = recordRequests(page);
    await (await signInForm(page)).fill('my password 123');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await alertHolding(page, /not an API key/);
    expect(requests).toEqual([]);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    expect(unexpectedProblems(problems)).toEqual([]);
    await close();
  });
});

describe('scopes', () => {
  it('shows only what a bans:read key bound to one game allows, and says why the rest is hidden', async () => {
    const reader = await server.makeKey('support desk', ['bans:read'], ['game-1']);
    const { page, problems, close } = await open();
    await signIn(page, reader.api_key);
    const panel = page.getByText('What this key may do');
    await panel.click();
    const scopes = await page.locator('details').first().innerText();
    expect(scopes).toMatch(/policy:read[^\n]*missing/);
    expect(scopes).toMatch(/audit:read[^\n]*missing/);
    expect(scopes).toMatch(/keys:manage[^\n]*missing/);

    for (const [section, scope] of [
      ['Policy', 'policy:read'],
      ['Audit trail', 'audit:read'],
      ['API keys', 'keys:manage'],
      ['Webhooks', 'keys:manage'],
      ['Transparency', 'audit:read'],
    ] as const) {
      const offered = await page
        .getByRole('navigation', { name: 'Console sections' })
        .getByRole('button', { name: section })
        .count();
      if (offered) {
        await openSection(page, section);
        expect(await page.getByRole('main').innerText()).toMatch(
          new RegExp(`hidden\\b[^\\n]*needs the scope ${scope}, which this session lacks`),
        );
      }
    }
    await screenshot(page, 'scopes-bans-read');
    expect(unexpectedProblems(problems)).toEqual([]);
    await close();
  });

  it('tells a key without the scope an action needs that the API refused it (403), and hides the action', async () => {
    const auditor = await server.makeKey('auditor', ['audit:read']);
    const { page, problems, close } = await open();
    await signIn(page, auditor.api_key);
    await openSection(page, 'Devices');
    await setGame(page, 'game-1');
    await page.getByLabel('Device ID', { exact: true }).fill('device-1');
    await page.getByRole('button', { name: 'Look up', exact: true }).click();
    await alertHolding(page, 'Not allowed (403): This key lacks the scope bans:read');
    expect(await page.getByRole('main').innerText()).toMatch(
      /needs the scope bans:read, which this session lacks/,
    );
    await screenshot(page, 'scope-refused');
    expect(unexpectedProblems(problems)).toEqual([]);
    await close();
  });

  it('signs the moderator out with the reason when the key is revoked meanwhile (401)', async () => {
    const temporary = await server.makeKey('temporary', ['bans:read']);
    // On Devices from the start: nothing but the lookup below asks the API after the revoke.
    const { page, problems, close } = await open(server.devicesUrl);
    await signIn(page, temporary.api_key);
    const revoked = await server.call('POST', `/v1/keys/${temporary.key_id}/revoke`);
    expect(revoked.status).toBe(200);
    await setGame(page, 'game-1');
    await page.getByLabel('Device ID', { exact: true }).fill('device-1');
    await page.getByRole('button', { name: 'Look up', exact: true }).click();
    await signInForm(page);
    await alertHolding(page, /Signed out: .*401/);
    expect(await storageOf(page)).toEqual({
      local: {},
      session: {},
      cookie: '',
      href: expect.stringMatching(atConsole()),
    });
    expect(unexpectedProblems(problems)).toEqual([]);
    await close();
  });
});

// A device lookup exists for the scope tests above; the lookup itself is device.test.ts's.
void lookUp;
