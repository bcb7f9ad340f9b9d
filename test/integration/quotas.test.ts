import { afterAll, beforeAll, describe, expect, test } from 'vitest';
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

/**
 * Per-publisher limits through the local gateway, set low for this file (RATE_LIMIT_RPS and
 * RATE_LIMIT_BURST): a token bucket per publisher and method, filled after the authorizer, as the
 * deployed usage plan counts each publisher's API key on each method. Each case makes its own
 * publishers, so its buckets start full whatever ran before it.
 */

const RATE = 2;
const BURST = 5;
/** Enough requests at once to be sure to go past a full bucket. */
const FLOOD = 3 * BURST;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ env: { RATE_LIMIT_RPS: String(RATE), RATE_LIMIT_BURST: String(BURST) } });
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
const mostServed = (seconds: number) => BURST + Math.floor(RATE * seconds);

const sleep = (seconds: number) => new Promise((done) => setTimeout(done, seconds * 1000));

/** The longest Retry-After among the 429s, in seconds. */
const retryAfter = (answers: ApiResponse[]) =>
  Math.max(...limited(answers).map((a) => Number(a.headers.get('retry-after'))));

describe('one publisher past its limit', () => {
  test('gets 429 rate_limited with Retry-After in whole seconds, in the envelope, once its burst is spent', async () => {
    const { key } = await newPublisher('noisy');
    const { answers, seconds } = await flood([key]);
    expect(statuses(answers).every((s) => s === 200 || s === 429)).toBe(true);
    const served = answers.length - limited(answers).length;
    expect(served).toBeGreaterThanOrEqual(BURST);
    expect(served).toBeLessThanOrEqual(mostServed(seconds));
    for (const answer of limited(answers)) {
      expect(isErrorEnvelope(answer.body)).toBe(true);
      expect(answer.body.error).toEqual({
        code: 'rate_limited',
        message: gatewayAnswers.throttled.message,
      });
      expect(answer.body.request_id).toBe(answer.headers.get('x-request-id'));
      // At 2 requests/s a token is never more than half a second away: 1, as deployed.
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

  test('two keys of one publisher share one bucket: together they get one burst, not two', async () => {
    const { publisher, key } = await newPublisher('two-keys');
    const second = (await api.createKey(publisher, 'second')).api_key;
    const { answers, seconds } = await flood([key, second]);
    const served = answers.length - limited(answers).length;
    // Two buckets would serve 2 × BURST of these at once; the test means something only below that.
    expect(mostServed(seconds)).toBeLessThan(2 * BURST);
    expect(served).toBeLessThanOrEqual(mostServed(seconds));
    // Whichever key asks now, the publisher is out of tokens (or just got one back).
    expect(limited(answers).length).toBeGreaterThan(0);
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
