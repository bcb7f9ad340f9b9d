import type { Browser } from 'playwright-core';
import { launchChromium, packagedChromiumRuns } from '../infra/chromium';
import { startLocalServer } from './local-server';
import { median } from './storage-probe';

/**
 * Part 8, the moderator console, measured in a real Chromium against `npm start`:
 *
 * - first load: navigation start to the sign-in form usable (its API key field in the page and
 *   enabled), in a fresh browser context each time (nothing cached); baseline: the same browser
 *   loading the server's `/health` (one small JSON document from the same server);
 * - sign-in: the Sign in click to the signed-in console (its Sign out button); baseline: the same
 *   three reads the console signs in with (policy, keys, audit), fetched from the page at once;
 * - device lookup: the Look up click to the device's bans listed; baseline: the API calls the
 *   lookup makes (enforcement and the listing, at once, then the first page of bans), fetched from
 *   the page;
 * - start page: in another fresh context opened on `#/start`, from signed in (the Sign
 *   out button) to the first of its four panels filled and to all four filled (each showing its
 *   answer, none still "Reading …"); baseline: the panels' reads (the audit trail's first page,
 *   the appeals' numbers, the bans ending soon, the webhooks then each one's failed and pending
 *   deliveries), fetched from the page;
 * - a device in all games: in that same signed-in page, from opening the address
 *   `#/device?game=G1&device=D&games=G2,G3` (setting `location.hash`, as a link in the page does)
 *   to the first game's row of "Restricted per game" answered and to all three answered;
 *   baseline: its API calls (the device in G1: enforcement and its bans; then at once the index of
 *   banned devices and the bans in each of the three games), fetched from the page.
 *
 * Every time is taken inside the page with `performance.now()` (navigation start is its zero),
 * the end marked by a MutationObserver at the moment the awaited element appears. Each of
 * CONSOLE_BENCH_RUNS (default 7) runs is a new context: a cold load and a new sign-in.
 *
 * test/browser/performance.test.ts runs the same measurement in `npm test` (npm run
 * test:browser) and reports it; `npm run bench` adds the rows below. Alone:
 * `npx tsx bench/console.ts`.
 */

export interface ConsoleTarget {
  /** http://127.0.0.1:<port> */
  url: string;
  key: string;
  game: string;
  deviceId: string;
  /** The device shown in all games: banned in each of gamesOf(game) (seedConsoleGames). */
  gamesDeviceId: string;
}

export interface ConsoleTimings {
  runs: number;
  first_load_ms: number[];
  health_load_ms: number[];
  sign_in_ms: number[];
  sign_in_api_ms: number[];
  lookup_ms: number[];
  lookup_api_ms: number[];
  start_first_panel_ms: number[];
  start_all_panels_ms: number[];
  start_api_ms: number[];
  games_first_row_ms: number[];
  games_all_rows_ms: number[];
  games_api_ms: number[];
}

/** The device shown in all games, banned in each of GAMES_OF(game) (seedConsoleGames). */
export const gamesOf = (game: string): [string, string, string] => [game, `${game}-2`, `${game}-3`];

/**
 * The few browser globals the code run in the page uses, typed here: the project's tsconfig has no
 * DOM library. Each function below that runs in the page takes them from `globalThis` itself
 * (Playwright sends its source, not its closure), and names no inner function: tsx (esbuild's
 * keepNames) would wrap a named one in a `__name()` call that does not exist in the page.
 */
interface PageNode {
  readonly textContent: string | null;
  readonly tagName: string;
  readonly parentElement: PageNode | null;
  readonly control?: { readonly disabled: boolean; getClientRects(): { readonly length: number } } | null;
  querySelectorAll(selector: string): Iterable<PageNode> & { readonly length: number };
  click(): void;
}
interface PageGlobals {
  document: PageNode & { readonly body: PageNode; getElementById(id: string): PageNode | null };
  location: { hash: string };
  MutationObserver: new (
    callback: () => void,
  ) => { observe(target: PageNode, options: Record<string, boolean>): void; disconnect(): void };
  __consoleReady?: number;
}

/** Records, from the document's start, when the sign-in form's key field is there and enabled. */
const markSignInFormReady = () => {
  const page = globalThis as unknown as PageGlobals;
  const { document } = page;
  const observer = new page.MutationObserver(() => {
    const label = [...document.querySelectorAll('label')].find((l) => l.textContent?.trim() === 'API key');
    const input = label?.control;
    if (page.__consoleReady === undefined && input && !input.disabled && input.getClientRects().length > 0) {
      page.__consoleReady = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true });
};

/**
 * Clicks the button named `button` and resolves with the milliseconds until `selector` matches an
 * element whose text starts with `text` (and, for a table, has a row in its body).
 */
const clickAndTime = ([button, selector, text]: [string, string, string]) =>
  new Promise<number>((resolve, reject) => {
    const { document, MutationObserver } = globalThis as unknown as PageGlobals;
    const target = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === button);
    if (!target) {
      reject(new Error(`no button ${button}`));
      return;
    }
    const timer = setTimeout(() => reject(new Error(`${selector} "${text}" not shown in 20 s`)), 20_000);
    const started = performance.now();
    const observer = new MutationObserver(() => {
      const shown = [...document.querySelectorAll(selector)].some(
        (el) =>
          (el.textContent ?? '').trim().startsWith(text) &&
          (el.tagName !== 'CAPTION' || (el.parentElement?.querySelectorAll('tbody tr').length ?? 0) > 0),
      );
      if (!shown) return;
      observer.disconnect();
      clearTimeout(timer);
      resolve(performance.now() - started);
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    target.click();
  });

/**
 * Clicks Sign in and resolves, in milliseconds from the moment the console is signed in (its Sign
 * out button), with when the first of the start page's four panels and when all four show their
 * answer: a table with rows or a sentence, and no "Reading …" left.
 */
const signInAndTimeStart = () =>
  new Promise<{ first: number; all: number }>((resolve, reject) => {
    const { document, MutationObserver } = globalThis as unknown as PageGlobals;
    const ids = [
      'start-activity-heading',
      'start-appeals-heading',
      'start-ending-heading',
      'start-webhooks-heading',
    ];
    const button = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Sign in');
    if (!button) {
      reject(new Error('no button Sign in'));
      return;
    }
    const timer = setTimeout(() => reject(new Error('the start page was not filled in 20 s')), 20_000);
    let signedIn: number | undefined;
    let first: number | undefined;
    const observer = new MutationObserver(() => {
      const now = performance.now();
      if (signedIn === undefined) {
        if (![...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Sign out'))
          return;
        signedIn = now;
      }
      const filled = ids.filter((id) => {
        const section = document.getElementById(id)?.parentElement;
        if (!section) return false;
        const texts = [...section.querySelectorAll('p')].map((p) => (p.textContent ?? '').trim());
        if (texts.some((t) => t.startsWith('Reading ') && t.endsWith('…'))) return false;
        // An answer: a table's row, or a sentence other than the panel's link.
        return (
          section.querySelectorAll('tbody tr').length > 0 ||
          [...section.querySelectorAll('p')].some((p) => p.querySelectorAll('a').length === 0)
        );
      }).length;
      if (filled > 0 && first === undefined) first = now - signedIn;
      if (filled < ids.length) return;
      observer.disconnect();
      clearTimeout(timer);
      resolve({ first: first as number, all: now - signedIn });
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    button.click();
  });

/**
 * Opens `hash` (as a link in the page does) and resolves with the milliseconds until the first and
 * until all `games` rows of the device's "restricted or not in each game" table show an answer.
 */
const openAndTimeGames = ([hash, deviceId, games]: [string, string, number]) =>
  new Promise<{ first: number; all: number }>((resolve, reject) => {
    const page = globalThis as unknown as PageGlobals;
    const { document, MutationObserver } = page;
    const timer = setTimeout(() => reject(new Error(`${deviceId} in all games not shown in 20 s`)), 20_000);
    const caption = `Device ${deviceId}: restricted or not in each game`;
    let first: number | undefined;
    const started = performance.now();
    const observer = new MutationObserver(() => {
      const table = [...document.querySelectorAll('caption')].find((c) =>
        (c.textContent ?? '').trim().startsWith(caption),
      )?.parentElement;
      if (!table) return;
      const answered = [...table.querySelectorAll('tbody tr')].filter((row) => {
        const cell = [...row.querySelectorAll('td')][0];
        return cell !== undefined && (cell.textContent ?? '').trim() !== 'Reading…';
      }).length;
      const now = performance.now() - started;
      if (answered > 0 && first === undefined) first = now;
      if (answered < games) return;
      observer.disconnect();
      clearTimeout(timer);
      resolve({ first: first as number, all: now });
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    page.location.hash = hash;
  });

/** The API calls alone, from the page: what the console's own work is compared with. */
const timeFetches = async ([key, calls]: [string, Array<{ path: string; game?: string }[]>]) => {
  const started = performance.now();
  for (const batch of calls)
    await Promise.all(
      batch.map(async ({ path, game }) => {
        const res = await fetch(path, {
          headers: { Authorization: `Bearer ${key}`, ...(game ? { 'X-Game-Id': game } : {}) },
        });
        if (!res.ok) throw new Error(`${path}: ${res.status}`);
        await res.json();
      }),
    );
  return performance.now() - started;
};

/** One cold visit: first load, sign-in, one device lookup; each with its baseline. */
const visit = async (browser: Browser, target: ConsoleTarget) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const page = await context.newPage();

    await page.goto(`${target.url}/health`);
    const health = await page.evaluate(() => {
      const [nav] = performance.getEntriesByType('navigation' as never) as unknown as {
        loadEventEnd: number;
      }[];
      return nav ? nav.loadEventEnd : Number.NaN;
    });

    await context.addInitScript(markSignInFormReady);
    // On Devices (the console opens on Start otherwise): the lookup below is what is timed.
    await page.goto(`${target.url}/console/#/device`);
    const firstLoad = (await (
      await page.waitForFunction(() => (globalThis as unknown as PageGlobals).__consoleReady, undefined, {
        timeout: 20_000,
      })
    ).jsonValue()) as number;

    const signInApi = await page.evaluate(timeFetches, [
      target.key,
      [[{ path: '/v1/policy' }, { path: '/v1/keys' }, { path: '/v1/audit?limit=1' }]],
    ] as [string, Array<{ path: string; game?: string }[]>]);
    await page.getByLabel('API key', { exact: true }).fill(target.key);
    const signIn = await page.evaluate(clickAndTime, ['Sign in', 'button', 'Sign out'] as [
      string,
      string,
      string,
    ]);

    const device = encodeURIComponent(target.deviceId);
    const lookupApi = await page.evaluate(timeFetches, [
      target.key,
      [
        [
          { path: `/v1/device/${device}/enforcement`, game: target.game },
          { path: `/v1/device/${device}/bans?status=all&limit=200`, game: target.game },
        ],
        [{ path: `/v1/device/${device}/bans?status=all&limit=20`, game: target.game }],
      ],
    ] as [string, Array<{ path: string; game?: string }[]>]);
    await page.getByLabel('Game ID', { exact: true }).fill(target.game);
    await page.getByLabel('Device ID', { exact: true }).first().fill(target.deviceId);
    const lookup = await page.evaluate(clickAndTime, [
      'Look up',
      'caption',
      `Bans of ${target.deviceId}:`,
    ] as [string, string, string]);
    return { firstLoad, health, signIn, signInApi, lookup, lookupApi };
  } finally {
    await context.close();
  }
};

/**
 * Another cold visit, on the start page: sign-in to its four panels filled; then, signed in, the
 * device of `target.gamesDeviceId` in all three games (gamesOf) from its address.
 */
const visitDaily = async (browser: Browser, target: ConsoleTarget) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const page = await context.newPage();
    await page.goto(`${target.url}/console/#/start`);
    await page.getByLabel('API key', { exact: true }).fill(target.key);
    const start = await page.evaluate(signInAndTimeStart);
    const webhooks = (await page.evaluate(
      async ([key]) => {
        const res = await fetch('/v1/webhooks', { headers: { Authorization: `Bearer ${key}` } });
        return ((await res.json()) as { items: { webhook_id: string }[] }).items.map((h) => h.webhook_id);
      },
      [target.key],
    )) as string[];
    const startApi = await page.evaluate(timeFetches, [
      target.key,
      [
        [
          { path: '/v1/audit?limit=200' },
          { path: '/v1/appeals/stats' },
          { path: '/v1/bans/expiring?within_hours=24&limit=25' },
          { path: '/v1/webhooks' },
        ],
        ...webhooks.map((id) => [
          { path: `/v1/webhooks/${id}/deliveries?status=failed&limit=50` },
          { path: `/v1/webhooks/${id}/deliveries?status=pending&limit=50` },
        ]),
      ],
    ] as [string, Array<{ path: string; game?: string }[]>]);

    const [g1, g2, g3] = gamesOf(target.game);
    const device = encodeURIComponent(target.gamesDeviceId);
    const bans = (game: string) => ({ path: `/v1/device/${device}/bans?status=all&limit=200`, game });
    const gamesApi = await page.evaluate(timeFetches, [
      target.key,
      [
        [{ path: `/v1/device/${device}/enforcement`, game: g1 }, bans(g1)],
        [{ path: `/v1/devices?prefix=${device}&limit=1` }, bans(g1), bans(g2), bans(g3)],
      ],
    ] as [string, Array<{ path: string; game?: string }[]>]);
    const games = await page.evaluate(openAndTimeGames, [
      `#/device?game=${encodeURIComponent(g1)}&device=${device}&games=${encodeURIComponent(`${g2},${g3}`)}`,
      target.gamesDeviceId,
      3,
    ] as [string, string, number]);
    return { start, startApi, games, gamesApi };
  } finally {
    await context.close();
  }
};

/** The timings of `runs` cold visits of the console at `target`, in `browser`. */
export const measureConsoleTimings = async (
  browser: Browser,
  target: ConsoleTarget,
  runs: number,
): Promise<ConsoleTimings> => {
  // One visit of each first, unrecorded: the server's first requests load its handlers.
  await visit(browser, target);
  await visitDaily(browser, target);
  const timings: ConsoleTimings = {
    runs,
    first_load_ms: [],
    health_load_ms: [],
    sign_in_ms: [],
    sign_in_api_ms: [],
    lookup_ms: [],
    lookup_api_ms: [],
    start_first_panel_ms: [],
    start_all_panels_ms: [],
    start_api_ms: [],
    games_first_row_ms: [],
    games_all_rows_ms: [],
    games_api_ms: [],
  };
  for (let i = 0; i < runs; i++) {
    const v = await visit(browser, target);
    timings.first_load_ms.push(v.firstLoad);
    timings.health_load_ms.push(v.health);
    timings.sign_in_ms.push(v.signIn);
    timings.sign_in_api_ms.push(v.signInApi);
    timings.lookup_ms.push(v.lookup);
    timings.lookup_api_ms.push(v.lookupApi);
    const d = await visitDaily(browser, target);
    timings.start_first_panel_ms.push(d.start.first);
    timings.start_all_panels_ms.push(d.start.all);
    timings.start_api_ms.push(d.startApi);
    timings.games_first_row_ms.push(d.games.first);
    timings.games_all_rows_ms.push(d.games.all);
    timings.games_api_ms.push(d.gamesApi);
  }
  return timings;
};

/** The device the lookup opens: 30 bans of every scope, so its listing has a second page. */
export const seedConsoleDevice = async (url: string, key: string, game: string, deviceId: string) => {
  const scopes = ['game', 'publisher', 'global'] as const;
  for (let i = 0; i < 30; i++) {
    const res = await fetch(`${url}/v1/bans`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'X-Game-Id': game, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        device_id: deviceId,
        ban_type: i % 2 ? 'cheat' : 'social',
        scope: scopes[i % 3],
        reason_code: `bench-${i}`,
      }),
    });
    if (res.status !== 201) throw new Error(`seeding ${deviceId}: ${res.status} ${await res.text()}`);
  }
};

/**
 * The device shown in all games: 10 bans in each of the three games of gamesOf(game), of each type
 * (game scope, so each game lists its own), the way seedConsoleDevice makes them.
 */
export const seedConsoleGames = async (url: string, key: string, game: string, deviceId: string) => {
  for (const inGame of gamesOf(game))
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${url}/v1/bans`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'X-Game-Id': inGame, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          device_id: deviceId,
          ban_type: i % 2 ? 'cheat' : 'social',
          scope: 'game',
          reason_code: `bench-${i}`,
        }),
      });
      if (res.status !== 201) throw new Error(`seeding ${deviceId}: ${res.status} ${await res.text()}`);
    }
};

/**
 * What the start page shows beside the day's bans: a ban ending in 3 hours, an appeal of it, and a
 * webhook (for ban.created, made last, so it has no deliveries to retry during the runs).
 */
export const seedConsoleStart = async (url: string, key: string, game: string) => {
  const call = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'X-Game-Id': game, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`seeding ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const ending = await call('/v1/bans', {
    device_id: 'bench-console-ending',
    ban_type: 'social',
    scope: 'game',
    reason_code: 'bench-ending',
    expires_at: new Date(Date.now() + 3 * 3_600_000).toISOString(),
  });
  await call('/v1/appeals', { device_id: 'bench-console-ending', ban_id: ending.ban_id, message: 'Not me.' });
  await call('/v1/webhooks', { url: 'http://127.0.0.1:9/bench-hook', events: ['ban.created'] });
};

const round = (n: number) => Math.round(n * 10) / 10;

/** The bench rows of part 8: the console's time beside the API calls it waits for. */
export const consoleRows = (t: ConsoleTimings | { skipped: string }) => {
  if ('skipped' in t)
    return [
      {
        part: '8 console',
        subject: 'first load, sign-in, device lookup, start page, device in 3 games in Chromium',
        value: `skipped: ${t.skipped}`,
        baseline: '—',
        ratio: null,
        target: 'reported',
        ok: true,
      },
    ];
  const row = (subject: string, ours: number[], base: number[], baseline: string) => ({
    part: '8 console',
    subject: `${subject} (median of ${t.runs} cold runs)`,
    value: `${round(median(ours))} ms`,
    baseline: `${baseline} ${round(median(base))} ms`,
    ratio: round(median(ours) / median(base)),
    target: 'reported',
    ok: true,
  });
  return [
    row('first load to the sign-in form usable', t.first_load_ms, t.health_load_ms, 'GET /health page load'),
    row('sign-in: click to signed in', t.sign_in_ms, t.sign_in_api_ms, 'its 3 API reads from the page'),
    row('device lookup: click to bans listed', t.lookup_ms, t.lookup_api_ms, 'its API calls from the page'),
    row(
      'start page: signed in to the first panel filled',
      t.start_first_panel_ms,
      t.start_api_ms,
      "its panels' API reads from the page",
    ),
    row(
      'start page: signed in to all four panels filled',
      t.start_all_panels_ms,
      t.start_api_ms,
      "its panels' API reads from the page",
    ),
    row(
      'device in 3 games: address opened to the first game row',
      t.games_first_row_ms,
      t.games_api_ms,
      'its API calls from the page',
    ),
    row(
      'device in 3 games: address opened to all three rows',
      t.games_all_rows_ms,
      t.games_api_ms,
      'its API calls from the page',
    ),
  ];
};

/** Part 8 for `npm run bench`: its own `npm start` and Chromium. */
export const measureConsole = async (
  runs = Number(process.env.CONSOLE_BENCH_RUNS ?? 7),
): Promise<ConsoleTimings | { skipped: string }> => {
  if (!packagedChromiumRuns && !process.env.CHROMIUM_PATH)
    return { skipped: `no packaged Chromium for ${process.platform}-${process.arch} (set CHROMIUM_PATH)` };
  const server = await startLocalServer({ readyMs: 30_000 });
  try {
    const target = {
      url: server.url,
      key: server.key,
      game: 'bench-game',
      deviceId: 'bench-console-device',
      gamesDeviceId: 'bench-console-games',
    };
    await seedConsoleDevice(server.url, server.key, target.game, target.deviceId);
    await seedConsoleGames(server.url, server.key, target.game, target.gamesDeviceId);
    await seedConsoleStart(server.url, server.key, target.game);
    const browser = await launchChromium();
    try {
      return await measureConsoleTimings(browser, target, runs);
    } finally {
      await browser.close();
    }
  } finally {
    await server.stop();
  }
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const timings = await measureConsole();
  console.table(consoleRows(timings));
  console.log(JSON.stringify(timings, null, 2));
}
