import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentKey } from '../../lib/storage/keys';
import { startTestApi, type TestApi } from '../support/api';
import { checkResponse } from '../support/contract';
import { banBody, createBan, isErrorEnvelope, unique } from '../support/fixtures';
import { childEnv, startTs } from '../support/processes';

/**
 * Which store answered, and how far behind it is, end to end: API A (the one under test, as every
 * integration suite runs it) and API B, `npm start` on a store of its own in another process. Both
 * have a publisher `dev-publisher` (B's is the key `npm start` makes), so a cursor B gave out
 * passes A's reader check and only its positions can tell it is not A's.
 */

const PUBLISHER = 'dev-publisher';
const GAME = 'g1';
const DEPLOYMENT_ID = /^dep_[A-Za-z0-9_-]{22}$/;

let api: TestApi;
let key: string;
let b: Awaited<ReturnType<typeof startTs>>;
let bUrl: string;
let bKey: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'deployment-'));
  [api, b] = await Promise.all([
    startTestApi(),
    startTs(
      'infra/local/main.ts',
      childEnv({ DATA_DIR: dir, PORT: '0' }),
      /listening on http:\/\/127\.0\.0\.1:\d+[\s\S]*(curl|already has a key)[\s\S]*(Add more with|list them with)/,
    ),
  ]);
  key = (await api.createKey(PUBLISHER, 'deployment test')).api_key;
  bUrl = (/listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(b.output()) as RegExpExecArray)[1] as string;
  bKey = (/bsk_[A-Za-z0-9_-]{43}/.exec(b.output()) as RegExpExecArray)[0];
}, 60_000);
afterAll(async () => {
  await api?.close();
  await b?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const query = (params: Record<string, string | undefined>) => {
  const set = Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return set.length ? `?${new URLSearchParams(set)}` : '';
};
const feedOf = (apiKey: string, params: Record<string, string | undefined> = {}, game = GAME) =>
  api.request('GET', `/v1/events${query(params)}`, { key: apiKey, game });
const snapshotOf = (apiKey: string, params: Record<string, string | undefined> = {}) =>
  api.request('GET', `/v1/enforcement/snapshot${query(params)}`, { key: apiKey, game: GAME });

/** A request to API B, its answer checked against docs/openapi.json like API A's. */
const fromB = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${bUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${bKey}`,
      'X-Game-Id': GAME,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  checkResponse({ method, path, status: res.status, headers: res.headers, text });
  return { status: res.status, body: JSON.parse(text) };
};

/** Every feed page of `apiKey` from the start, `limit` at a time, until an empty one. */
const allPages = async (apiKey: string, limit: number) => {
  const pages: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await feedOf(apiKey, { limit: String(limit), cursor });
    expect(page.status).toBe(200);
    pages.push(page.body);
    if (page.body.items.length === 0) return pages;
    cursor = page.body.next_cursor;
    expect(pages.length).toBeLessThan(50);
  }
};

describe('deployment_id and delay_ms', () => {
  it('answer delay_ms null while the feed holds no event, for either API', async () => {
    const empty = await feedOf(key);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      items: [],
      next_cursor: expect.any(String),
      deployment_id: expect.stringMatching(DEPLOYMENT_ID),
      delay_ms: null,
    });
    const emptyB = await fromB('GET', '/v1/events');
    expect(emptyB.status).toBe(200);
    expect(emptyB.body).toMatchObject({ items: [], delay_ms: null });
  });

  it('names one deployment on every feed and snapshot page of an API, stored once, and another for an API on another store', async () => {
    const device = unique('dep');
    for (const scope of ['game', 'publisher', 'global'])
      await createBan(api, key, GAME, banBody({ device_id: `${device}-${scope}`, scope }));
    await api.settle();
    const pages = await allPages(key, 1);
    expect(pages.flatMap((page) => page.items)).toHaveLength(3);
    const snapshots: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await snapshotOf(key, { limit: '1', cursor });
      expect(page.status).toBe(200);
      snapshots.push(page.body);
      cursor = page.body.next_cursor ?? undefined;
    } while (cursor && snapshots.length < 20);
    expect(snapshots.length).toBeGreaterThan(2);
    const ids = new Set([...pages, ...snapshots].map((page) => page.deployment_id));
    expect(ids.size).toBe(1);
    const [id] = ids;
    expect(id).toMatch(DEPLOYMENT_ID);
    // One item holds it, created once, never rewritten by the reads.
    const stored = (await api.items()).filter((item) => item.pk === deploymentKey().pk);
    expect(stored).toEqual([
      {
        ...deploymentKey(),
        random_id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        created_at: expect.any(String),
      },
    ]);
    expect((await snapshotOf(key)).body.deployment_id).toBe(id);
    expect((await api.items()).filter((item) => item.pk === deploymentKey().pk)).toEqual(stored);

    const other = await fromB('GET', '/v1/events');
    const otherSnapshot = await fromB('GET', '/v1/enforcement/snapshot');
    expect(other.body.deployment_id).toMatch(DEPLOYMENT_ID);
    expect(otherSnapshot.body.deployment_id).toBe(other.body.deployment_id);
    expect(other.body.deployment_id).not.toBe(id);
  });

  it('answers delay_ms as a non-negative integer on every page once there are events, caught up too', async () => {
    const pages = await allPages(key, 2);
    for (const page of pages) {
      expect(Number.isSafeInteger(page.delay_ms), JSON.stringify(page)).toBe(true);
      expect(page.delay_ms).toBeGreaterThanOrEqual(0);
    }
    // The caught-up page still tells how late the newest append was.
    expect(pages.at(-1).items).toEqual([]);
  });

  it("refuses a cursor ahead of the feed's end with 400 ahead_of_feed, writes nothing, and never refuses one at the end", async () => {
    // B holds more game bans of the same publisher and game than A: its cursor is ahead of A's end.
    const device = unique('ahead');
    for (let i = 0; i < 4; i += 1) {
      const made = await fromB('POST', '/v1/bans', banBody({ device_id: `${device}-${i}` }));
      expect(made.status).toBe(201);
    }
    let ahead = '';
    await expect
      .poll(
        async () => {
          const page = await fromB('GET', '/v1/events?limit=100');
          ahead = page.body.next_cursor;
          return page.body.items.filter((item: any) => item.device_id?.startsWith(device)).length;
        },
        { timeout: 20_000, interval: 250 },
      )
      .toBe(4);
    const before = await api.items({ derived: true });
    const refused = await feedOf(key, { cursor: ahead });
    expect(refused.status).toBe(400);
    expect(isErrorEnvelope(refused.body)).toBe(true);
    expect(refused.body.error).toEqual({
      code: 'invalid_request',
      message: expect.stringMatching(/^cursor is ahead of the feed's end.*GET \/v1\/enforcement\/snapshot/),
      details: [{ field: 'cursor', issue: 'ahead_of_feed' }],
    });
    expect((await feedOf(key, { cursor: ahead, limit: '1' })).status).toBe(400);
    expect(await api.items({ derived: true })).toEqual(before);

    // A's own cursor at its end: caught up, however often it is asked.
    const end = (await allPages(key, 100)).at(-1).next_cursor;
    for (let poll = 0; poll < 3; poll += 1) {
      const page = await feedOf(key, { cursor: end });
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ items: [], next_cursor: end });
    }
    // A new event takes A's next position: the cursor at the end reads it, still never refused.
    await createBan(api, key, GAME, banBody({ device_id: `${device}-a` }));
    await api.settle();
    const next = await feedOf(key, { cursor: end });
    expect(next.status).toBe(200);
    expect(next.body.items.map((item: any) => item.device_id)).toEqual([`${device}-a`]);
  });

  it("leaves another publisher's reads as they are: its own feed answers, and B's cursor is not its own", async () => {
    const otherKey = (await api.createKey(unique('dep-other'), 'other')).api_key;
    const own = await feedOf(otherKey);
    expect(own.status).toBe(200);
    expect(own.body.deployment_id).toBe((await feedOf(key)).body.deployment_id);
    const again = await feedOf(otherKey, { cursor: own.body.next_cursor });
    expect(again.status).toBe(200);
    expect(again.body.items).toEqual([]);
    const bCursor = (await fromB('GET', '/v1/events?limit=100')).body.next_cursor;
    const foreign = await feedOf(otherKey, { cursor: bCursor });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details).toEqual([{ field: 'cursor', issue: 'invalid' }]);
  });
});
