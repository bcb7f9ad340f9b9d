import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page, Request } from 'playwright-core';
import { expect } from 'vitest';
import { appendRecord, artifact, ROOT } from './artifacts';

/**
 * A console page in a context of its own (its own sessionStorage and localStorage, no cache
 * shared with other tests), with what went wrong in it collected: uncaught errors, console
 * errors and CSP violations. A test that expects a failed request says which messages it expects.
 */

export interface ConsolePage {
  page: Page;
  context: BrowserContext;
  /** Uncaught exceptions, `console.error` lines and CSP violations seen so far. */
  problems: string[];
  close(): Promise<void>;
}

export const VIEWPORT = { width: 1280, height: 860 };

export const openPage = async (
  browser: Browser,
  url: string,
  {
    clock = false,
    timezoneId = 'UTC',
  }: {
    clock?: boolean /** The page's time zone: another one shows the times a moderator elsewhere reads. */;
    timezoneId?: string;
  } = {},
): Promise<ConsolePage> => {
  const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-GB', timezoneId });
  // The page's timers and frames on a clock the test can hold (beforeNextFrame); it runs as the
  // real one until then.
  if (clock) await context.clock.install();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console.error: ${message.text()}`);
  });
  await page.goto(url);
  return { page, context, problems, close: () => context.close() };
};

/**
 * Problems other than the failed requests a test caused on purpose: the browser logs each
 * refused or failed fetch as a console error ("Failed to load resource: ... 503").
 */
export const unexpectedProblems = (problems: string[]): string[] =>
  problems.filter((line) => !/Failed to load resource/.test(line));

/** The tallest a focused screenshot gets (the top of a long table is enough to show it). */
const FOCUS_MAX_HEIGHT = 1000;

/**
 * `<name>.png`: what the task is about, the part of the page `focus` names (an element, say the
 * form's region; at most FOCUS_MAX_HEIGHT pixels of it), else the window; and `full/<name>.png`,
 * the whole page, for a failure's context. docs/screenshots/ holds copies of the first kind
 * (UPDATE_SCREENSHOTS=1).
 */
export const screenshot = async (page: Page, name: string, focus?: Locator) => {
  await page.screenshot({ path: artifact(`full/${name}.png`), fullPage: true, animations: 'disabled' });
  const box = focus ? await focus.boundingBox() : null;
  if (!box) {
    await page.screenshot({ path: artifact(`${name}.png`), animations: 'disabled' });
    return;
  }
  const scroll = await page.evaluate(() => ({
    x: (globalThis as any).scrollX as number,
    y: (globalThis as any).scrollY as number,
  }));
  await page.screenshot({
    path: artifact(`${name}.png`),
    fullPage: true,
    animations: 'disabled',
    clip: {
      x: box.x + scroll.x,
      y: box.y + scroll.y,
      width: box.width,
      height: Math.min(box.height, FOCUS_MAX_HEIGHT),
    },
  });
};

const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * Runs axe-core in the page as it is now. The page's CSP allows no inline script, so
 * `page.addScriptTag({ content })` would be refused; the source is evaluated through the
 * DevTools protocol instead (page.evaluate), which CSP does not govern, so the page keeps its
 * real CSP during the scan. Each scan is written to `axe.jsonl`; the caller asserts on the
 * violations it returns.
 */
export const axeScan = async (page: Page, name: string): Promise<AxeViolation[]> => {
  const loaded = await page.evaluate(() => typeof (globalThis as any).axe === 'object');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const run = await axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return {
      violations: run.violations.map((v: any) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n: any) => ({ target: n.target, failureSummary: n.failureSummary })),
      })),
      passes: run.passes.length,
      version: axe.version as string,
    };
  });
  appendRecord('axe.jsonl', {
    name,
    axe: result.version,
    passes: result.passes,
    violations: result.violations,
  });
  return result.violations as AxeViolation[];
};

/** A phone's width, where the console's wide tables scroll sideways. */
export const NARROW = { width: 390, height: 844 };

/**
 * The same scan at a phone's width (NARROW), then the window as it was: a table that scrolls there
 * must still be reachable by keyboard (axe's scrollable-region-focusable).
 */
export const narrowAxeScan = async (page: Page, name: string): Promise<AxeViolation[]> => {
  const before = page.viewportSize() ?? VIEWPORT;
  await page.setViewportSize(NARROW);
  try {
    return await axeScan(page, `${name}-narrow`);
  } finally {
    await page.setViewportSize(before);
  }
};

/** serious and critical violations, as lines a failing assertion can show. */
export const seriousViolations = (violations: AxeViolation[]): string[] =>
  violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);

/**
 * Runs `steps` while the page's clock stands still, so nothing that waits for a timer or the next
 * frame (Preact's effects do) runs in between, then lets it run on: what a slow frame or a busy
 * machine does to a page, made certain. The page must come from `openPage(..., { clock: true })`.
 */
export const beforeNextFrame = async (page: Page, steps: () => Promise<void>) => {
  const now = await page.evaluate(() => Date.now());
  await page.clock.pauseAt(now + 1_000);
  try {
    await steps();
  } finally {
    await page.clock.resume();
  }
};

/**
 * The address once the page has written it. The console writes it after it paints (an effect),
 * and the test's view of it follows the browser's own notice, so a read right after a heading
 * appears can see the one before.
 */
export const expectAddress = async (page: Page, hash: string) => {
  await expect.poll(() => new URL(page.url()).hash).toBe(hash);
};

/**
 * The end of the next request `matches` picks, as the page sees it: its answer read to the end, or
 * its failure (the page may have given up on it). Ask before releasing the request.
 */
export const requestEnded = (page: Page, matches: (url: URL, request: Request) => boolean) =>
  new Promise<void>((done) => {
    const ended = (request: Request) => {
      if (!matches(new URL(request.url()), request)) return;
      page.off('requestfinished', ended);
      page.off('requestfailed', ended);
      done();
    };
    page.on('requestfinished', ended);
    page.on('requestfailed', ended);
  });

/**
 * Once the page has handled what was already queued for it: a frame and a task have passed twice
 * (an answer's reading, the render, the effects after the paint).
 */
export const pageSettled = async (page: Page) => {
  for (let round = 0; round < 2; round++)
    await page.evaluate(
      () => new Promise<void>((done) => (globalThis as any).requestAnimationFrame(() => setTimeout(done, 0))),
    );
};

/**
 * Once the page has handled a request it was held from (`requestEnded`). What a test checks did
 * not happen after this had every chance to.
 */
export const answerHandled = async (page: Page, ended: Promise<void>) => {
  await ended;
  await pageSettled(page);
};
