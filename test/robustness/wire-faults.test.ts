import { createHash, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../lib/config';
import { apiKeyKey, devicePartition, policyKey } from '../../lib/storage/keys';
import { startTestApi, type TestApi } from '../support/api';
import { expectUnavailable, type FaultProxy, startFaultProxy, type WireFault } from '../support/faults';
import { socialBanBody as ban, listAll, postBan, storedBans, unique } from '../support/fixtures';

/**
 * Storage faults on the wire: a proxy between the API and the store answers chosen requests with
 * DynamoDB's own error responses, resets the connection, or never answers. This runs the SDK's
 * real deserialisation, retry strategy and timeouts as configured in lib/storage/client.ts:
 * 3 attempts, a 1 s connect timeout and a 2 s request timeout (which must end a hung request).
 *
 * The tests mostly wait (backoff, timeouts), so they run concurrently; each arms rules on keys of
 * its own (its own publisher, key and device), so they cannot fail each other's calls.
 */

const GAME = 'game-w';
const MAX_ATTEMPTS = 3;

let upstream: { url: string; close(): Promise<void> };
let proxy: FaultProxy;
let api: TestApi;

const ownDynalite = async () => {
  const server = dynalite({ createTableMs: 0 });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
};

beforeAll(async () => {
  // The same kind of store as the rest of the run: dynalite, or TEST_DYNAMODB_ENDPOINT (DynamoDB Local).
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  upstream = endpoint ? { url: endpoint, close: async () => {} } : await ownDynalite();
  proxy = await startFaultProxy(upstream.url);
  // The attempt's timeout production has (2 s): its retries are what these cases prove.
  api = await startTestApi({
    env: {
      DYNAMODB_ENDPOINT: proxy.url,
      TABLE_NAME: `wire-${randomUUID()}`,
      DYNAMODB_REQUEST_TIMEOUT_MS: String(DEFAULT_REQUEST_TIMEOUT_MS),
    },
  });
});
afterAll(async () => {
  console.log(`wire faults: ${proxy?.faulted.length} failed store requests injected`);
  // The proxy first: it drops any request still hanging, which lets the API finish and close.
  await proxy?.close();
  await api?.close();
});

/** A publisher of the test's own, so a rule on its keys touches nothing else. */
const publisher = async () => {
  const id = unique('wire');
  const { api_key } = await api.createKey(id);
  return {
    id,
    key: api_key,
    policyKey: policyKey(id).pk,
    lookupKey: apiKeyKey(createHash('sha256').update(api_key).digest('hex')).pk,
  };
};

const quickFaults: WireFault[] = [
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'InternalServerError',
  'reset',
];

describe.concurrent('the SDK retries configured in lib/storage/client.ts', () => {
  it.each(quickFaults)(
    'tries a policy read 3 times when every attempt gets %s, then answers 503 with Retry-After',
    async (fault) => {
      const { key, policyKey } = await publisher();
      const rule = proxy.fail({ operation: 'GetItem', key: policyKey, fault });
      expectUnavailable(await api.request('GET', '/v1/policy', { key }));
      expect(rule.faulted).toHaveLength(MAX_ATTEMPTS);
      rule.clear();
    },
  );

  it.each(quickFaults)('hides %s on the first two attempts: the third attempt answers', async (fault) => {
    const { id, key, policyKey } = await publisher();
    const rule = proxy.fail({ operation: 'GetItem', key: policyKey, fault, times: MAX_ATTEMPTS - 1 });
    const res = await api.request('GET', '/v1/policy', { key });
    expect(res.status).toBe(200);
    expect(res.body.publisher_id).toBe(id);
    expect(rule.faulted).toHaveLength(MAX_ATTEMPTS - 1);
    rule.clear();
  });

  it('answers 503 when the ban write is throttled on every attempt, shows nothing, and a retry makes one ban', async () => {
    const { key } = await publisher();
    const device = unique('dev');
    const body = ban({ device_id: device, idempotency_key: unique('order') });
    const rule = proxy.fail({
      operation: 'PutItem',
      key: devicePartition(device),
      fault: 'ThrottlingException',
    });
    expectUnavailable(await postBan(api, key, GAME, body));
    expect(rule.faulted).toHaveLength(MAX_ATTEMPTS);
    rule.clear();
    expect((await listAll(api, key, GAME, device)).items).toEqual([]);

    const retry = await postBan(api, key, GAME, body);
    expect(retry.status).toBe(200);
    expect((await storedBans(device)).map((i) => i.ban_id)).toEqual([retry.body.ban_id]);
  });

  /**
   * A store that accepts the connection and never answers. The 2 s request timeout must end each
   * attempt so the SDK can retry, and the call must end as our 503 well inside the Lambda's 10 s;
   * the authorizer has no Lambda-style deadline locally, so without it the request would hang.
   */
  it('times out each attempt of a policy read that never answers, retries, and answers 503', {
    timeout: 20_000,
  }, async () => {
    const { key, policyKey } = await publisher();
    const rule = proxy.fail({ operation: 'GetItem', key: policyKey, fault: 'hang' });
    expectUnavailable(await api.request('GET', '/v1/policy', { key }));
    expect(rule.faulted).toHaveLength(MAX_ATTEMPTS);
    rule.clear();
  });

  it('answers 503 when the authorizer key lookup never answers', { timeout: 20_000 }, async () => {
    const { key, lookupKey } = await publisher();
    const rule = proxy.fail({ operation: 'GetItem', key: lookupKey, fault: 'hang' });
    try {
      expectUnavailable(await api.request('GET', '/v1/policy', { key }));
      expect(rule.faulted).toHaveLength(MAX_ATTEMPTS);
    } finally {
      rule.clear();
    }
  });
});
