import { resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { launchChromium } from '../infra/chromium';
import { startLocalServer } from './local-server';

/**
 * "Two people working the oldest appeal" (the console for a team of ten), scripted in a real Chromium so that a
 * console before and after a change can be compared: `npx tsx bench/appeal-handoff.ts [--tree DIR]`
 * runs `npm start` of the tree DIR (default: this one) on a store in memory, files one appeal,
 * and signs two moderators in (two browser contexts, two keys with appeals:decide). Then, counted:
 * both open the oldest appeal from the queue, as a team told "oldest first" does; each reads what
 * the page says. A moderator shown that the other holds it stops there; one not told goes on to
 * decide it (outcome, a note, Review, Decide), as A does. The run ends when one decision is
 * recorded and both know who handles the appeal (their own decision, the page naming the holder,
 * or the refusal of a second decision). It prints the clicks of each, the seconds (the script's
 * own pace: the page's waits, not a person's reading), the decisions sent, and whether work was
 * wasted (a decision typed and sent that the API refused).
 */

const GAME = 'bench-game';
const SCOPES = ['bans:read', 'policy:read', 'appeals:decide'];

const tree = resolve(
  process.argv.includes('--tree') ? (process.argv[process.argv.indexOf('--tree') + 1] ?? '.') : '.',
);

const api = async (url: string, key: string, method: string, path: string, body?: unknown, game?: string) => {
  const answer = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(game ? { 'x-game-id': game } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: a script reads the API's answers loosely
  return { status: answer.status, body: (await answer.json()) as any };
};

/** One moderator's page, counting the clicks the scenario makes in it. */
const moderator = (page: Page) => {
  let clicks = 0;
  return {
    page,
    click: async (target: Locator) => {
      clicks += 1;
      await target.click();
    },
    get clicks() {
      return clicks;
    },
  };
};

const main = async () => {
  const server = await startLocalServer({ cwd: tree });
  const browser = await launchChromium();
  try {
    const { url, key } = server;
    const ban = await api(
      url,
      key,
      'POST',
      '/v1/bans',
      {
        device_id: 'handoff-device',
        ban_type: 'cheat',
        scope: 'game',
        reason_code: 'aimbot',
      },
      GAME,
    );
    const appeal = await api(
      url,
      key,
      'POST',
      '/v1/appeals',
      {
        device_id: 'handoff-device',
        ban_id: ban.body.ban_id,
        message: 'It was not me.',
      },
      GAME,
    );
    const appealId = appeal.body.appeal_id as string;
    const people = [];
    for (const name of ['moderator a', 'moderator b']) {
      const made = await api(url, key, 'POST', '/v1/keys', { name, scopes: SCOPES });
      const context = await browser.newContext({ locale: 'en-GB', timezoneId: 'UTC' });
      const page = await context.newPage();
      await page.goto(`${url}/console/#/appeals`);
      await page.getByLabel('API key', { exact: true }).fill(made.body.api_key);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('button', { name: `Open appeal ${appealId}` }).waitFor();
      people.push(moderator(page));
    }
    const [a, b] = people as [ReturnType<typeof moderator>, ReturnType<typeof moderator>];
    const panel = (m: typeof a) => m.page.getByRole('region', { name: `Appeal ${appealId}`, exact: true });
    const decisions: number[] = [];
    for (const m of people)
      m.page.on('response', (r) => {
        if (r.request().method() === 'POST' && r.url().endsWith(`/v1/appeals/${appealId}/decision`))
          decisions.push(r.status());
      });
    const decide = async (m: typeof a, note: string) => {
      await m.click(panel(m).getByLabel('upheld', { exact: true }));
      await panel(m).getByLabel('Private note (optional)').fill(note);
      await m.click(panel(m).getByRole('button', { name: 'Review decision' }));
      await m.click(m.page.getByRole('button', { name: 'Decide: upheld' }));
    };

    const start = performance.now();
    // Both open the oldest appeal.
    await a.click(a.page.getByRole('button', { name: `Open appeal ${appealId}` }));
    await panel(a)
      .getByRole('heading', { name: `Appeal ${appealId}` })
      .waitFor();
    await b.click(b.page.getByRole('button', { name: `Open appeal ${appealId}` }));
    await panel(b)
      .getByRole('heading', { name: `Appeal ${appealId}` })
      .waitFor();
    // What B is told: the holder, if the console says (then the form is locked and B stops).
    const held = panel(b)
      .getByText(/^Held by moderator a/)
      .first();
    const looking = performance.now();
    const bToldHolder = await held
      .waitFor({ timeout: 3_000 })
      .then(() => true)
      .catch(() => false);
    // A console that never says is not charged the 3 s spent looking for it.
    const notCounted = bToldHolder ? 0 : performance.now() - looking;
    const bKnowsAt = bToldHolder ? performance.now() : undefined;
    await decide(a, 'Replay checked: upheld.');
    await panel(a).getByRole('heading', { name: 'Decision' }).waitFor();
    let bWasted = false;
    let refusal: string | null = null;
    if (!bToldHolder) {
      // Not told: B does the same work, and learns of A's decision from its refusal.
      await decide(b, 'Looked at it too: upheld.');
      const alert = panel(b)
        .getByRole('alert')
        .filter({ hasText: /decided/ })
        .first();
      await alert.waitFor();
      refusal = (await alert.innerText()).trim();
      bWasted = true;
    }
    const end = performance.now() - notCounted;
    const stored = await api(url, key, 'GET', `/v1/appeals/${appealId}`);
    const figures = {
      tree,
      clicks: { a: a.clicks, b: b.clicks, total: a.clicks + b.clicks },
      seconds_to_both_know_and_one_decision: Number(((end - start) / 1000).toFixed(2)),
      seconds_until_b_knows_who: Number((((bKnowsAt ?? end) - start) / 1000).toFixed(2)),
      decisions_sent: decisions.length,
      decision_answers: decisions,
      recorded: stored.body.decision
        ? `${stored.body.decision.outcome} (note: ${stored.body.decision.note})`
        : null,
      b_told_holder_on_opening: bToldHolder,
      wasted_decision: bWasted,
      b_refusal: refusal,
    };
    console.log(JSON.stringify(figures, null, 2));
  } finally {
    await browser.close();
    await server.stop();
  }
};

await main();
