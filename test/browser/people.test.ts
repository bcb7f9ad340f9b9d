import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import {
  alertHolding,
  eventually,
  openSection,
  setGame,
  signIn,
  signInForm,
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
import { DEV_PUBLISHER, type LocalServer, startServer } from './support/server';

/**
 * People sign in as themselves: the console sends them to the local OpenID provider
 * (`npm start` runs it), they sign in on its page with the password printed at first start, and
 * come back signed in with their role's scopes. Each role does one task, the audit trail names
 * the person, and signing out ends the provider's session too.
 */

let server: LocalServer;
let browser: Browser;
const pages: ConsolePage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchChromium()]);
});
afterAll(async () => {
  for (const p of pages) await p.close();
  await browser?.close();
  await server?.stop();
});

type Role = 'viewer' | 'moderator' | 'admin';

/** Every request the page makes to the API, with its Authorization header. */
const recordApiCalls = (page: Page) => {
  const requests: Request[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/v1/')) requests.push(request);
  });
  return requests;
};

/** Through the provider's page and back: what a person does, by the names on screen. */
const signInAs = async (page: Page, role: Role) => {
  const { email, password } = server.people[role];
  await page.getByRole('button', { name: 'Sign in with the local identity provider' }).click();
  await page.getByRole('heading', { name: 'Sign in to the device ban console' }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
};

const open = async () => {
  const opened = await openPage(browser, server.consoleUrl);
  pages.push(opened);
  return opened;
};

const auditOf = async (type: string) =>
  (await server.call('GET', `/v1/audit?type=${type}`)).body.items as Array<{
    actor: Record<string, unknown>;
  }>;

describe('signing in with the organisation', () => {
  it('offers the provider first and the API key for automation and break-glass, and the page may call only the token endpoint besides itself', async () => {
    const { page } = await open();
    await page.getByRole('button', { name: 'Sign in with the local identity provider' }).waitFor();
    expect(await page.getByText('For automation and break-glass access: paste an API key').count()).toBe(1);
    const res = await fetch(server.consoleUrl);
    const csp = res.headers.get('content-security-policy') ?? '';
    const signIn = (await (await fetch(`${server.consoleUrl}sign-in.json`)).json()) as {
      token_endpoint: string;
    };
    expect(csp).toContain(`connect-src 'self' ${new URL(signIn.token_endpoint).origin};`);
    expect(signIn).toMatchObject({ client_id: 'console', logout_redirect_param: 'post_logout_redirect_uri' });
    expect(seriousViolations(await axeScan(page, 'people-sign-in'))).toEqual([]);
    await screenshot(page, 'people-sign-in', page.getByRole('region', { name: 'Sign in' }));
  });

  it('a moderator signs in on the provider page, bans a device, and the audit trail names them', async () => {
    const { page, problems } = await open();
    const calls = recordApiCalls(page);
    await signInAs(page, 'moderator');
    const { email } = server.people.moderator;
    await page
      .getByRole('banner')
      .getByText(`Signed in as ${email} (moderator) for ${DEV_PUBLISHER}`)
      .waitFor();
    // The code is out of the address bar (which names the view only: Start, where the console
    // opens); nothing of the sign-in is left in web storage but a flag with no secret, for a reload
    // to sign in again.
    const kept = await storageOf(page);
    expect(kept.href).toBe(`${server.consoleUrl}#/start`);
    expect(kept.session).toEqual({ 'device-bans.person': '1' });
    expect(kept.local).toEqual({});
    expect(kept.cookie).toBe('');
    expect(seriousViolations(await axeScan(page, 'people-moderator'))).toEqual([]);

    await openSection(page, 'Devices');
    await setGame(page, 'people-game');
    const form = page.getByRole('region', { name: 'Create a ban', exact: true });
    await form.getByLabel('Device ID to ban').fill('people-device-1');
    await form.getByLabel('Ban type').selectOption('cheat');
    await form.getByLabel('Scope').selectOption('game');
    await form.getByLabel('Reason code').fill('aimbot');
    await form.getByRole('button', { name: 'Create ban' }).click();
    await statusHolding(page, /created/i);
    await screenshot(page, 'people-moderator-ban', form);

    // Every API call carried the person's access token (a JWT), never a key.
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(call.headers().authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    const [created] = await eventually(
      () => auditOf('ban.created'),
      (items) => items.length > 0,
    );
    expect(created?.actor).toEqual({ type: 'user', sub: expect.any(String), email, role: 'moderator' });
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('a viewer signs in, is offered only the views it can use, sees the audit trail naming the moderator, and no ban form', async () => {
    const { page, problems } = await open();
    await signInAs(page, 'viewer');
    await page.getByRole('banner').getByText(`Signed in as ${server.people.viewer.email} (viewer)`).waitFor();
    // Only the views its scopes (bans:read, policy:read, audit:read) can use are offered.
    const sections = page.getByRole('navigation', { name: 'Console sections' }).getByRole('button');
    expect(await sections.allInnerTexts()).toEqual([
      'Start',
      'Devices',
      'Bulk',
      'Policy',
      'Audit trail',
      'Transparency',
    ]);
    await openSection(page, 'Devices');
    await setGame(page, 'people-game');
    await page
      .getByText(
        'Creating bans needs the scope bans:write, which this session lacks (the viewer role does not hold it)',
      )
      .waitFor();
    expect(await page.getByLabel('Device ID to ban').count()).toBe(0);
    // People is for admins: not offered to a viewer.
    expect(
      await page
        .getByRole('navigation', { name: 'Console sections' })
        .getByRole('button', { name: 'People' })
        .count(),
    ).toBe(0);
    await openSection(page, 'Audit trail');
    await page.getByText(server.people.moderator.email).first().waitFor();
    expect(seriousViolations(await axeScan(page, 'people-viewer-audit'))).toEqual([]);
    await screenshot(page, 'people-viewer-audit');
    // A link to a view it cannot use still opens, saying what that view needs.
    await page.evaluate(() => {
      (globalThis as any).location.hash = '#/keys';
    });
    await page
      .getByText(/needs the scope keys:manage, which this session lacks/)
      .first()
      .waitFor();
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it('an admin signs in and makes a key, which records who made it and shows when it was last used', async () => {
    const { page, problems } = await open();
    await signInAs(page, 'admin');
    await openSection(page, 'API keys');
    const form = page.getByRole('region', { name: 'Create a key', exact: true });
    await form.getByLabel('Key name').fill('made by a person');
    await form.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByLabel('New API key').inputValue();
    // The key list says who made it, and when each key was last used: not yet, then once it is.
    const row = page.getByRole('row').filter({ hasText: 'made by a person' });
    await expect.poll(() => row.getByRole('cell').nth(8).innerText()).toBe('not yet');
    const used = await server.call('GET', '/v1/device/used-device/bans', {
      key: secret,
      game: 'people-game',
    });
    expect(used.status).toBe(200);
    await openSection(page, 'Start');
    await openSection(page, 'API keys');
    await expect.poll(() => row.getByRole('cell').nth(8).innerText()).toMatch(/\d{2}:\d{2}/);
    await page
      .getByRole('cell', { name: `${server.people.admin.email} (admin)` })
      .first()
      .waitFor();
    const keys = (await server.call('GET', '/v1/keys')).body.items as Array<Record<string, unknown>>;
    const made = keys.find((k) => k.name === 'made by a person');
    expect(made?.created_by).toEqual({
      type: 'user',
      sub: expect.any(String),
      email: server.people.admin.email,
      role: 'admin',
    });
    const [audited] = await auditOf('key.created');
    expect(audited?.actor).toMatchObject({ type: 'user', email: server.people.admin.email });
    expect(unexpectedProblems(problems)).toEqual([]);
  });

  it("an admin invites a moderator, makes them a viewer and disables them, each confirmed and audited; the disabled person's session is refused at its renewal", async () => {
    const admin = await open();
    await signInAs(admin.page, 'admin');
    await openSection(admin.page, 'People');
    const table = admin.page.getByRole('table', { name: 'People of your publisher, by email' });
    await table.getByRole('rowheader', { name: server.people.admin.email }).waitFor();
    const email = `invited-${Date.now().toString(36)}@dev-publisher.example`;
    const invite = admin.page.getByRole('region', { name: 'Invite a person' });
    await invite.getByLabel('Email').fill(email);
    await invite.getByLabel('Role').selectOption('moderator');
    await invite.getByRole('button', { name: 'Invite' }).click();
    const password = await admin.page.getByLabel('Their one-time password').inputValue();
    expect(password).toMatch(/^[\w-]{16}$/);
    await table.getByRole('rowheader', { name: email }).waitFor();
    expect(seriousViolations(await axeScan(admin.page, 'people-admin'))).toEqual([]);
    await screenshot(
      admin.page,
      'people-admin',
      admin.page.getByRole('region', { name: 'People', exact: true }),
    );

    // The invited moderator signs in with it, on a page whose clock the test moves.
    const invited = await openPage(browser, server.consoleUrl, { clock: true });
    pages.push(invited);
    await invited.page.getByRole('button', { name: 'Sign in with the local identity provider' }).click();
    await invited.page.getByLabel('Email').fill(email);
    await invited.page.getByLabel('Password').fill(password);
    await invited.page.getByRole('button', { name: 'Sign in' }).click();
    await invited.page.getByRole('banner').getByText(`Signed in as ${email} (moderator)`).waitFor();
    expect(
      await invited.page
        .getByRole('navigation', { name: 'Console sections' })
        .getByRole('button', { name: 'People' })
        .count(),
    ).toBe(0);

    // Role: picked, then confirmed.
    await table.getByLabel(`Role of ${email}`).selectOption('viewer');
    await admin.page.getByRole('heading', { name: `Make ${email} a viewer?` }).waitFor();
    await admin.page.getByRole('button', { name: 'Change role' }).click();
    await statusHolding(admin.page, `${email} is now a viewer, enabled`);
    await table.getByRole('button', { name: `Disable ${email}` }).click();
    await admin.page.getByRole('heading', { name: `Disable ${email}?` }).waitFor();
    await admin.page.getByRole('button', { name: 'Disable', exact: true }).click();
    await statusHolding(admin.page, `${email} is now a viewer, disabled`);
    await table.getByRole('button', { name: `Enable ${email}` }).waitFor();

    const people = (await server.call('GET', '/v1/people')).body.items as Array<Record<string, unknown>>;
    expect(people.find((p) => p.email === email)).toMatchObject({
      role: 'viewer',
      enabled: false,
      status: 'active',
    });
    const events = await auditOf('person.updated');
    expect(events.map((e) => (e as { after?: unknown }).after).slice(0, 2)).toEqual([
      { role: 'viewer', enabled: false },
      { role: 'viewer', enabled: true },
    ]);
    expect(events[0]?.actor).toMatchObject({ type: 'user', email: server.people.admin.email, role: 'admin' });

    // Their console renews a minute before its 15-minute token ends: the provider refuses it
    // (invalid_grant: no account), and the session ends.
    const renewals: Request[] = [];
    invited.page.on('request', (r) => {
      if (r.method() === 'POST' && (r.postData() ?? '').includes('grant_type=refresh_token'))
        renewals.push(r);
    });
    await invited.page.clock.runFor(15 * 60_000);
    await alertHolding(invited.page, 'Your session ended. Sign in again.');
    expect(renewals).toHaveLength(1);
    const refusal = await renewals[0]?.response();
    expect(refusal?.status()).toBe(400);
    expect(((await refusal?.json()) as { error: string } | undefined)?.error).toBe('invalid_grant');
    await invited.page.getByRole('button', { name: 'Sign in with the local identity provider' }).waitFor();
    expect(unexpectedProblems(admin.problems)).toEqual([]);
  });

  it('signs out after 30 minutes without input, warning a minute before; input keeps the session', async () => {
    // A key's session: no token renewal runs while the page's clock is moved past the real one's
    // (a person's renewed ID token would be refused as from the past, which is not this case).
    const idle = await openPage(browser, server.consoleUrl, { clock: true });
    pages.push(idle);
    const { page } = idle;
    await signIn(page, server.devKey);
    const settings = (await (await fetch(`${server.consoleUrl}sign-in.json`)).json()) as {
      idle_minutes: number;
    };
    expect(settings.idle_minutes).toBe(30);
    const warning = page.getByRole('alert').filter({ hasText: 'You will be signed out in a minute' });
    await page.clock.runFor(29 * 60_000);
    await warning.waitFor();
    expect(seriousViolations(await axeScan(page, 'people-idle-warning'))).toEqual([]);
    // A key pressed: the warning goes, and the next 29 minutes start from now.
    await page.keyboard.press('Shift');
    await warning.waitFor({ state: 'detached' });
    await page.clock.runFor(29 * 60_000);
    await warning.waitFor();
    await page.clock.runFor(60_000);
    await alertHolding(page, 'Signed out after 30 minutes without input. Sign in again.');
    await signInForm(page);
    expect(unexpectedProblems(idle.problems)).toEqual([]);
  });

  it('signs out at the provider too: the refresh token is revoked, and the next sign-in asks for the password again', async () => {
    const { page } = await open();
    const revocations: Request[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/token/revocation') revocations.push(r);
    });
    await signInAs(page, 'viewer');
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign out of the device ban console?' }).waitFor();
    // Before leaving for the provider, the page revoked its refresh token (RFC 7009), which the
    // provider no longer renews.
    expect(revocations).toHaveLength(1);
    expect((await revocations[0]?.response())?.status()).toBe(200);
    const form = new URLSearchParams(revocations[0]?.postData() ?? '');
    expect(form.get('token_type_hint')).toBe('refresh_token');
    const signIn = (await (await fetch(`${server.consoleUrl}sign-in.json`)).json()) as {
      token_endpoint: string;
    };
    const renewal = await fetch(signIn.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: form.get('token') ?? '',
        client_id: 'console',
      }),
    });
    expect(renewal.status).toBe(400);
    expect(((await renewal.json()) as { error: string }).error).toBe('invalid_grant');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with the local identity provider' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/');
    await page.getByRole('button', { name: 'Sign in with the local identity provider' }).click();
    await page.getByRole('heading', { name: 'Sign in to the device ban console' }).waitFor();
    expect(await page.getByLabel('Password').inputValue()).toBe('');
  });

  it('a wrong password stays on the provider page with its message, and nothing is signed in', async () => {
    const { page } = await open();
    await page.getByRole('button', { name: 'Sign in with the local identity provider' }).click();
    await page.getByLabel('Email').fill(server.people.viewer.email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await alertHolding(page, 'do not match an active account');
  });

  it('a returning page whose sign-in this tab did not start is refused with a clear message', async () => {
    const { page } = await open();
    await page.goto(`${server.consoleUrl}?code=forged&state=forged`);
    await alertHolding(page, 'That sign-in was not started from this tab');
    expect(new URL(page.url()).search).toBe('');
    await page.getByRole('button', { name: 'Sign in with the local identity provider' }).waitFor();
  });
});

describe('a session that outlives its access token', () => {
  // The page's clock is moved to the renewal (a minute before the 15-minute token ends): no second
  // server with short tokens, and no real wait.
  it('is renewed with the refresh token before it expires, and the calls carry the new token', async () => {
    const opened = await openPage(browser, server.consoleUrl, { clock: true });
    pages.push(opened);
    const { page } = opened;
    const calls = recordApiCalls(page);
    const renewals: Request[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && (r.postData() ?? '').includes('grant_type=refresh_token'))
        renewals.push(r);
    });
    const { email, password } = server.people.viewer;
    await page.getByRole('button', { name: 'Sign in with the local identity provider' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    const first = calls.at(-1)?.headers().authorization;
    expect(renewals).toEqual([]);
    await page.clock.runFor(14 * 60_000 + 1_000);
    await expect.poll(() => renewals.length).toBeGreaterThan(0);
    expect((await renewals[0]?.response())?.status()).toBe(200);
    // The next call carries the new token, and the API takes it.
    await openSection(page, 'Devices');
    await setGame(page, 'people-game');
    await page.getByLabel('Device ID', { exact: true }).first().fill('renewed-device');
    await page.getByRole('button', { name: 'Look up', exact: true }).click();
    await statusHolding(page, 'No bans are recorded for device renewed-device');
    const after = calls.at(-1);
    expect(after?.headers().authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(after?.headers().authorization).not.toBe(first);
    expect((await after?.response())?.status()).toBe(200);
    expect(unexpectedProblems(opened.problems)).toEqual([]);
  });
});
