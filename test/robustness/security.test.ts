import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { configure, settings } from '../../lib/config';
import { apiKeyKey, partitions } from '../../lib/storage/keys';
import { type FaultInjector, injectFaults } from '../support/faults';
import { createBan, revokeBan, startWithPublishers, type TestApi, unique } from '../support/fixtures';

/**
 * Security properties as tests: keys are stored only as hashes, revoked keys stop working, keys and
 * the Authorization header never reach a log, and no publisher can read, list, revoke or change
 * what belongs to another (every ordered pair of three publishers).
 */

const PUBLISHERS = ['sec-a', 'sec-b', 'sec-c'] as const;
type Publisher = (typeof PUBLISHERS)[number];

let api: TestApi;
let faults: FaultInjector;
let keys: Record<Publisher, string>;
const made: string[] = [];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

beforeAll(async () => {
  ({ api, keys } = await startWithPublishers(PUBLISHERS));
  made.push(...PUBLISHERS.map((publisher) => keys[publisher]));
  const { dynamo } = await import('../../lib/storage/client');
  faults = injectFaults(dynamo);
});
afterEach(() => faults.reset());
afterAll(async () => {
  faults?.remove();
  await api?.close();
});

/** One request of every authenticated route, as `key` sees it. */
const everyRoute = (key: string, device = 'sec-device') =>
  [
    ['GET', '/v1/policy', {}],
    ['PUT', '/v1/policy', { body: { enforce_game: true } }],
    [
      'POST',
      '/v1/bans',
      { game: 'g', body: { device_id: device, ban_type: 'cheat', scope: 'game', reason_code: 'r' } },
    ],
    ['GET', `/v1/device/${device}/bans/social`, { game: 'g' }],
    ['GET', `/v1/device/${device}/bans/cheat`, { game: 'g' }],
    ['GET', `/v1/device/${device}/bans`, { game: 'g' }],
    ['GET', `/v1/device/${device}/enforcement`, { game: 'g' }],
    ['POST', '/v1/enforcement/batch', { game: 'g', body: { device_ids: [device] } }],
    ['POST', `/v1/device/${device}/bans/1/revoke`, { game: 'g', body: { reason_code: 'r' } }],
    ['GET', '/v1/events', { game: 'g' }],
    ['POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook' } }],
    ['GET', '/v1/webhooks', {}],
  ].map(([method, path, options]) => ({
    method: method as string,
    path: path as string,
    options: { key, ...(options as object) },
  }));

describe('API keys at rest', () => {
  it('stores keys only as SHA-256 hashes: no item holds a key or any part of its secret', async () => {
    const revoked = await api.createKey('sec-a', 'to revoke');
    made.push(revoked.api_key);
    await api.revokeKey(revoked.key_id);
    // Use every key once, so a key seen in a request has every chance to end up stored.
    for (const key of made) {
      const res = await api.request('GET', '/v1/policy', { key });
      expect(res.status).toBe(key === revoked.api_key ? 401 : 200);
    }

    const items = await api.items();
    const dump = JSON.stringify(items);
    expect(dump).not.toContain('bsk_');
    for (const key of made) {
      expect(dump).not.toContain(key.slice(4));
      // The lookup item is addressed by the hash, and the key can be found by nothing else.
      expect(items.filter((item) => item.pk === apiKeyKey(sha256(key)).pk)).toHaveLength(1);
    }
  });
});

describe('revoked keys', () => {
  it('refuses a revoked key on every route with 401, writes nothing, and leaves the publisher’s other key working', async () => {
    const publisher = unique('sec-rev');
    const kept = await api.createKey(publisher, 'kept');
    const revoked = await api.createKey(publisher, 'revoked');
    made.push(kept.api_key, revoked.api_key);
    expect((await api.request('GET', '/v1/policy', { key: revoked.api_key })).status).toBe(200);

    expect(await api.revokeKey(revoked.key_id)).toMatchObject({ revoked_at: expect.any(String) });
    const before = await api.items();
    for (const { method, path, options } of everyRoute(revoked.api_key)) {
      const res = await api.request(method, path, options);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.body).toEqual({
        error: { code: 'unauthorized', message: expect.any(String) },
        request_id: res.headers.get('x-request-id'),
      });
    }
    expect(await api.items()).toEqual(before);

    const policy = await api.request('GET', '/v1/policy', { key: kept.api_key });
    expect(policy.status).toBe(200);
    expect(policy.body.publisher_id).toBe(publisher);
  });
});

describe('logs', () => {
  it('logs every request without any API key or Authorization header, whatever the outcome', async () => {
    const lines: string[] = [];
    const capture = (...args: unknown[]) => {
      lines.push(args.map((a) => (a instanceof Error ? `${a.stack}` : String(a))).join(' '));
    };
    // vitest.config.ts silences the app's logger; this test needs it on, the other settings as bound.
    const bound = settings();
    configure({ ...bound, logLevel: 'info' });
    const spies = [
      vi.spyOn(console, 'log').mockImplementation(capture),
      vi.spyOn(console, 'info').mockImplementation(capture),
      vi.spyOn(console, 'warn').mockImplementation(capture),
      vi.spyOn(console, 'error').mockImplementation(capture),
      vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
        capture(String(chunk));
        return true;
      }),
      vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
        capture(String(chunk));
        return true;
      }),
    ];
    const secret = keys['sec-a'];
    const revoked = await api.createKey('sec-b', 'logged revoked');
    await api.revokeKey(revoked.key_id);
    made.push(revoked.api_key);
    let sent = 0;
    const send = async (method: string, path: string, options: Parameters<TestApi['request']>[2]) => {
      sent += 1;
      return api.request(method, path, options);
    };
    try {
      // Successes on every route.
      for (const { method, path, options } of everyRoute(secret, 'log-device'))
        await send(method, path, options);
      // Refusals: unknown, revoked and malformed keys, bad input carrying a key, storage failures.
      await send('GET', '/v1/policy', { key: `bsk_${'Z'.repeat(43)}` });
      await send('GET', '/v1/policy', { key: revoked.api_key });
      await send('GET', '/v1/policy', { headers: { Authorization: `Bearer  ${secret}` } });
      await send('GET', '/v1/policy', { headers: { Authorization: `Basic ${secret}` } });
      await send('GET', '/v1/policy', { headers: { Authorization: secret } });
      await send('POST', '/v1/bans', {
        key: secret,
        game: `g#${secret}`,
        body: {
          device_id: secret,
          ban_type: 'x',
          scope: 'y',
          reason_code: secret,
          idempotency_key: secret,
          z: 1,
        },
      });
      await send('GET', `/v1/device/log-device/bans/social?cursor=${secret}`, { key: secret, game: 'g' });
      await send('PUT', '/v1/policy', {
        key: secret,
        rawBody: `{"enforce_game":"${secret}"`,
        headers: { 'Content-Type': 'application/json' },
      });
      await send('GET', `/v1/nothing/${secret}`, { key: secret });
      await send('DELETE', '/v1/policy', { key: secret });
      faults.fail({ operation: 'GetItem', keyPrefix: partitions.apiKey, error: 'InternalServerError' });
      expect((await send('GET', '/v1/policy', { key: secret })).status).toBe(503);
      faults.fail({ operation: 'PutItem', keyPrefix: partitions.device, error: 'ThrottlingException' });
      const failedWrite = await send('POST', '/v1/bans', {
        key: secret,
        game: 'g',
        body: {
          device_id: 'log-device',
          ban_type: 'cheat',
          scope: 'game',
          reason_code: 'r',
          allow_duplicate: true,
        },
      });
      expect(failedWrite.status).toBe(503);
    } finally {
      for (const spy of spies) spy.mockRestore();
      configure(bound);
    }

    const log = lines.join('\n');
    const requestLines = lines.filter((line) => line.includes('"message":"request"'));
    // The log is there: every request that reached a handler left a request line, with its status.
    expect(requestLines.length).toBeGreaterThanOrEqual(everyRoute(secret).length + 4);
    expect(requestLines.length).toBeLessThanOrEqual(sent);
    expect(log).toContain('"status":503');
    expect(log).toContain('"status":400');
    // And nothing secret is in it.
    expect(log).not.toMatch(/bsk_/);
    // A webhook's signing secret is answered once (it was made above) and never logged.
    expect(log).not.toMatch(/whsec_/);
    expect(log).not.toMatch(/bearer\s/i);
    expect(log).not.toMatch(/basic\s/i);
    expect(log.toLowerCase()).not.toContain('authorization');
    for (const key of made) expect(log).not.toContain(key.slice(4, 20));
  });
});

/** Every ordered pair of publishers: `reader` tries to see or change what `owner` made. */
const pairs = PUBLISHERS.flatMap((reader) =>
  PUBLISHERS.filter((owner) => owner !== reader).map((owner) => [reader, owner] as const),
);

describe('tenants', () => {
  it.each(pairs)('%s can neither read, list, revoke nor change what %s made', async (reader, owner) => {
    const device = unique('shared');
    const game = 'game-shared';
    const ownerKey = keys[owner];
    const readerKey = keys[reader];
    const create = (scope: string, type = 'social') =>
      createBan(api, ownerKey, game, {
        device_id: device,
        ban_type: type,
        scope,
        reason_code: 'r',
        details: { secret: `${owner}-${scope}` },
        idempotency_key: `${device}-${scope}-${type}`,
      });
    const ownGame = await create('game');
    const ownPublisher = await create('publisher');
    const ownGlobal = await create('global');
    const ownCheatGame = await create('game', 'cheat');

    // Listings: only the owner's global ban shows, without its private details.
    for (const path of [`/bans/social?status=all`, `/bans?status=all`, `/bans/cheat?status=all`]) {
      const res = await api.request('GET', `/v1/device/${device}${path}`, { key: readerKey, game });
      expect(res.status).toBe(200);
      const expected = path.startsWith('/bans/cheat') ? [] : [ownGlobal];
      expect(res.body.items.map((i: { ban_id: number }) => i.ban_id)).toEqual(expected);
      expect(res.body.items.every((i: { details_json: unknown }) => i.details_json === null)).toBe(true);
      expect(res.text).not.toContain(`${owner}-`);
    }
    // Enforcement reads the same way, alone and in a batch.
    const enforcement = await api.request('GET', `/v1/device/${device}/enforcement`, {
      key: readerKey,
      game,
    });
    expect(enforcement.status).toBe(200);
    const batch = await api.request('POST', '/v1/enforcement/batch', {
      key: readerKey,
      game,
      body: { device_ids: [device] },
    });
    expect(batch.status).toBe(200);
    for (const answer of [enforcement.body, batch.body.results[0]]) {
      expect(answer.bans.map((b: { ban_id: number }) => b.ban_id)).not.toContain(ownGame);
      expect(answer.bans.map((b: { ban_id: number }) => b.ban_id)).not.toContain(ownPublisher);
      expect(JSON.stringify(answer)).not.toContain(`${owner}-`);
    }
    // Revoking another publisher's ban is the same 404 as a ban that does not exist.
    for (const banId of [ownGame, ownPublisher, ownGlobal, ownCheatGame]) {
      const res = await revokeBan(api, readerKey, game, device, banId, { reason_code: 'hostile' });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const ownerView = await api.request('GET', `/v1/device/${device}/bans?status=all`, {
      key: ownerKey,
      game,
    });
    expect(ownerView.body.items.map((i: { revoked_at: unknown }) => i.revoked_at)).toEqual([
      null,
      null,
      null,
      null,
    ]);
    // The same idempotency key in the same game makes the reader its own ban.
    const sameKey = await api.request('POST', '/v1/bans', {
      key: readerKey,
      game,
      body: {
        device_id: device,
        ban_type: 'social',
        scope: 'game',
        reason_code: 'r',
        idempotency_key: `${device}-game-social`,
      },
    });
    expect(sameKey.status).toBe(201);
    expect(sameKey.body).toMatchObject({ publisher_id: reader, status: 'created' });
    expect(sameKey.body.ban_id).not.toBe(ownGame);
    // No way to act as the owner: a body field is refused, a header is ignored.
    const asOwner = await api.request('POST', '/v1/bans', {
      key: readerKey,
      game,
      body: { device_id: device, ban_type: 'social', scope: 'game', reason_code: 'r', publisher_id: owner },
    });
    expect(asOwner.status).toBe(400);
    const viaHeader = await api.request('POST', '/v1/bans', {
      key: readerKey,
      game,
      headers: { 'X-Publisher-Id': owner },
      body: { device_id: device, ban_type: 'social', scope: 'game', reason_code: 'r' },
    });
    expect(viaHeader.body.publisher_id).toBe(reader);
    expect((await api.request('GET', `/v1/policy?publisher_id=${owner}`, { key: readerKey })).status).toBe(
      400,
    );

    // Policies: each reads its own, and the reader's changes never touch the owner's.
    const ownerPolicy = (await api.request('GET', '/v1/policy', { key: ownerKey })).body;
    const readerPolicy = await api.request('GET', '/v1/policy', { key: readerKey });
    expect(readerPolicy.body.publisher_id).toBe(reader);
    const change = { enforce_publisher: !readerPolicy.body.enforce_publisher, rep_include_game: false };
    const changed = await api.request('PUT', '/v1/policy', { key: readerKey, body: change });
    expect(changed.body).toMatchObject({ publisher_id: reader, ...change });
    expect((await api.request('GET', '/v1/policy', { key: ownerKey })).body).toEqual(ownerPolicy);
  });
});
