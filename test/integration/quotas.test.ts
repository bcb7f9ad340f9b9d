import type { Role } from '@kernel/people';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CREDENTIAL_SHARES } from '../../lib/domain/quotas';
import { gatewayAnswers } from '../../lib/http/gateway-answers';
import { startTestApi } from '../support/api';
import {
  type ApiResponse,
  isErrorEnvelope,
  listAll,
  postBan,
  socialBanBody,
  storedBans,
  type TestApi,
  unique,
} from '../support/fixtures';
import { signIn } from '../support/sign-in';

/**
 * Per-publisher limits through the local gateway, set low for this file (RATE_LIMIT_RPS and
 * RATE_LIMIT_BURST): per method, a token bucket for the publisher's keys and one for its people,
 * as the deployed usage plan counts the two quota keys the authorizer names; and inside each, one
 * per credential at its share (lib/domain/quotas.ts), as the deployed web ACL counts each
 * credential. Each case makes its own publishers, so its buckets start full whatever ran before.
 */

const RATE = 2;
const BURST = 8;
/** A key's own bucket: half the publisher's (4 at once, then 1 a second). */
const KEY_BURST = Math.floor(BURST * CREDENTIAL_SHARES.keys);
const KEY_RATE = RATE * CREDENTIAL_SHARES.keys;
/** A person's own bucket: a quarter of the people's (2 at once, then one every 2 s). */
const PERSON_BURST = Math.floor(BURST * CREDENTIAL_SHARES.people);
/** Enough requests at once to be sure to go past a full bucket. */
const FLOOD = 3 * BURST;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({
    env: { RATE_LIMIT_RPS: String(RATE), RATE_LIMIT_BURST: String(BURST) },
    people: true,
  });
});
afterAll(() => api?.close());

/** A new publisher and a key of it. */
const newPublisher = async (role: string) => {
  const publisher = unique(role);
  return { publisher, key: (await api.createKey(publisher)).api_key };
};

const getPolicy = (key: string) => api.request('GET', '/v1/policy', { key });

/** `FLOOD` requests at once, the `keys` taking turns; the answers and how long they took. */
const flood = async (keys: string[], send: (key: string, i: number) => Promise<ApiResponse> = getPolicy) => {
  const started = performance.now();
  const answers = await Promise.all(
    Array.from({ length: FLOOD }, (_, i) => send(keys[i % keys.length] as string, i)),
  );
  return { answers, seconds: (performance.now() - started) / 1000 };
};

const statuses = (answers: ApiResponse[]) => answers.map((a) => a.status);
const limited = (answers: ApiResponse[]) => answers.filter((a) => a.status === 429);

/** The most a full bucket can let through in `seconds`: the burst and what refilled meanwhile. */
const mostServed = (seconds: number, burst = BURST, rate = RATE) => burst + Math.floor(rate * seconds);
const served = (answers: ApiResponse[]) => answers.filter((a) => a.status === 200).length;

/** A person of the publisher, signed in to the console: their access token. */
const signedIn = async (publisherId: string, role: Role) => {
  const made = await api.createPerson(publisherId, role);
  const result = await signIn(api.identity.issuer, api.identity.redirectUri, made.email, made.password);
  if (!result.ok) throw new Error(`sign-in failed: ${result.status}`);
  return result.tokens.access_token;
};

const sleep = (seconds: number) => new Promise((done) => setTimeout(done, seconds * 1000));

/** The longest Retry-After among the 429s, in seconds. */
const retryAfter = (answers: ApiResponse[]) =>
  Math.max(...limited(answers).map((a) => Number(a.headers.get('retry-after'))));

describe('one publisher past its limit', () => {
  test("gets 429 rate_limited with Retry-After in whole seconds, in the envelope, once its key's share is spent", async () => {
    const { key } = await newPublisher('noisy');
    const { answers, seconds } = await flood([key]);
    expect(statuses(answers).every((s) => s === 200 || s === 429)).toBe(true);
    // One key alone gets its share of the publisher's bucket, not all of it.
    expect(served(answers)).toBeGreaterThanOrEqual(KEY_BURST);
    expect(served(answers)).toBeLessThanOrEqual(mostServed(seconds, KEY_BURST, KEY_RATE));
    for (const answer of limited(answers)) {
      expect(isErrorEnvelope(answer.body)).toBe(true);
      expect(answer.body.error).toEqual({
        code: 'rate_limited',
        message: gatewayAnswers.throttled.message,
      });
      expect(answer.body.request_id).toBe(answer.headers.get('x-request-id'));
      // At a key's 1 request/s a token is never more than a second away: 1, as deployed.
      expect(answer.headers.get('retry-after')).toBe('1');
    }
  });

  test('is served again after waiting Retry-After', async () => {
    const { key } = await newPublisher('patient');
    const { answers } = await flood([key]);
    expect(limited(answers).length).toBeGreaterThan(0);
    await sleep(retryAfter(answers));
    expect((await getPolicy(key)).status).toBe(200);
  });

  test("is limited per method, as the usage plan counts: another route's bucket is still full", async () => {
    const { key } = await newPublisher('one-route');
    expect(limited((await flood([key])).answers).length).toBeGreaterThan(0);
    expect((await api.request('GET', '/v1/keys', { key })).status).toBe(200);
  });
});

describe('publishers apart', () => {
  test.each([[['a', 'b', 'c']], [['c', 'b', 'a']]])(
    'three publishers, each past its burst in turn (%j), leave those after it served at that moment',
    async (order) => {
      const made = Object.fromEntries(
        await Promise.all(order.map(async (role) => [role, await newPublisher(`apart-${role}`)] as const)),
      );
      for (const [i, role] of order.entries()) {
        const noisy = made[role]?.key as string;
        const others = order.slice(i + 1).map((other) => made[other]?.key as string);
        // The others ask while the noisy one floods, and once more after it has been refused.
        const [{ answers }, ...during] = await Promise.all([flood([noisy]), ...others.map(getPolicy)]);
        expect(limited(answers).length, role).toBeGreaterThan(0);
        expect(statuses(during), role).toEqual(others.map(() => 200));
        const after = await Promise.all(others.map(getPolicy));
        expect(statuses(after), role).toEqual(others.map(() => 200));
      }
    },
  );

  test('three keys of one publisher share one bucket: together they get one burst, not three', async () => {
    const { publisher, key } = await newPublisher('three-keys');
    const more = await Promise.all(
      ['second', 'third'].map(async (name) => (await api.createKey(publisher, name)).api_key),
    );
    const { answers, seconds } = await flood([key, ...more]);
    // Three keys' own buckets would serve 3 × KEY_BURST of these at once; the publisher's, BURST.
    expect(mostServed(seconds)).toBeLessThan(3 * KEY_BURST);
    expect(served(answers)).toBeLessThanOrEqual(mostServed(seconds));
    expect(served(answers)).toBeGreaterThanOrEqual(BURST);
    expect(limited(answers).length).toBeGreaterThan(0);
  });
});

describe('credentials within a publisher', () => {
  test("one key past its share leaves another key of the publisher its own burst, and another publisher's untouched", async () => {
    const { publisher, key } = await newPublisher('key-share');
    const second = (await api.createKey(publisher, 'second')).api_key;
    const other = await newPublisher('key-share-other');
    const first = await flood([key]);
    expect(limited(first.answers).length).toBeGreaterThan(0);
    expect(served(first.answers)).toBeLessThanOrEqual(mostServed(first.seconds, KEY_BURST, KEY_RATE));
    // The first key spent at most its half: the second key gets a whole burst of its own.
    const then = await flood([second]);
    expect(served(then.answers)).toBeGreaterThanOrEqual(KEY_BURST);
    expect(
      statuses((await flood([other.key])).answers).filter((s) => s === 200).length,
    ).toBeGreaterThanOrEqual(KEY_BURST);
  });

  test("a person's burst in the console leaves the publisher's game servers their whole bucket", async () => {
    const { publisher, key } = await newPublisher('console-burst');
    const viewer = await signedIn(publisher, 'viewer');
    const console_ = await flood([viewer]);
    expect(limited(console_.answers).length).toBeGreaterThan(0);
    expect(served(console_.answers)).toBeGreaterThanOrEqual(PERSON_BURST);
    expect(served(console_.answers)).toBeLessThanOrEqual(
      mostServed(console_.seconds, PERSON_BURST, RATE * CREDENTIAL_SHARES.people),
    );
    // The game servers' key and a second key are counted in the keys' bucket, which the person
    // never touched: together they get the publisher's whole burst.
    const second = (await api.createKey(publisher, 'second')).api_key;
    const servers = await flood([key, second]);
    expect(served(servers.answers)).toBeGreaterThanOrEqual(BURST);
  });

  test('one person past their share leaves another person of the publisher served', async () => {
    const { publisher } = await newPublisher('two-people');
    const [busy, calm] = await Promise.all([signedIn(publisher, 'viewer'), signedIn(publisher, 'viewer')]);
    const first = await flood([busy]);
    expect(limited(first.answers).length).toBeGreaterThan(0);
    const then = await flood([calm]);
    expect(served(then.answers)).toBeGreaterThanOrEqual(PERSON_BURST);
  });
});

describe('a refused request', () => {
  test('changes nothing stored: a create answered 429 leaves no ban, no record, no event', async () => {
    const { key } = await newPublisher('refused');
    const prefix = unique('quota-device');
    const device = (i: number) => `${prefix}-d${String(i).padStart(2, '0')}`;
    const { answers } = await flood([key], (k, i) =>
      postBan(api, k, 'game-1', socialBanBody({ device_id: device(i) })),
    );
    const outcome = answers.map((a, i) => ({ device: device(i), status: a.status }));
    const refused = outcome.filter((o) => o.status === 429).map((o) => o.device);
    const created = outcome.filter((o) => o.status === 201).map((o) => o.device);
    expect(refused.length).toBeGreaterThan(0);
    expect(created.length + refused.length).toBe(FLOOD);

    for (const d of created) expect(await storedBans(d), d).toHaveLength(1);
    for (const d of refused) expect(await storedBans(d), d).toEqual([]);
    // No item of any kind (idempotency record, audit event, counter) names a refused device.
    const stored = JSON.stringify(await api.items());
    for (const d of refused) expect(stored).not.toContain(d);

    // After the refill, the publisher's own listing agrees, and the refused create can be retried.
    await sleep(retryAfter(answers));
    const [first] = refused as [string];
    expect((await listAll(api, key, 'game-1', first)).counts.total).toBe(0);
    const retried = await postBan(api, key, 'game-1', socialBanBody({ device_id: first }));
    expect(retried.status).toBe(201);
    expect(await storedBans(first)).toHaveLength(1);
  });
});
