import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { policyFlags } from '@kernel/policy-flags';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erasureKey, policyKey } from '../../lib/storage/keys';
import { storedEvents } from '../support/audit';
import {
  banBody,
  createBan,
  postBan,
  revokeBan,
  startWithPublisher,
  storedBans,
  type TestApi,
  unique,
} from '../support/fixtures';

/**
 * The audit property under races: requests that race on one change record it once, and racing
 * changes each record their own. On dynalite and, through test/ddb-local/run.ts, DynamoDB Local.
 */

const PUBLISHER = 'audit-race';
const GAME = 'g-ar';
let api: TestApi;
let key: string;

beforeAll(async () => {
  ({ api, key } = await startWithPublisher(PUBLISHER));
});
afterAll(() => api?.close());

const events = async (type: string, about: (e: Record<string, any>) => boolean = () => true) =>
  (await storedEvents(PUBLISHER)).filter((e) => e.type === type && about(e));
const together = <T>(n: number, send: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: n }, (_, i) => send(i)));

describe('racing requests', () => {
  it('records one ban.created for 30 concurrent creates with one idempotency key', async () => {
    const body = banBody({ device_id: unique('ar'), idempotency_key: unique('k') });
    const results = await together(30, () => postBan(api, key, GAME, body));
    expect(new Set(results.map((r) => r.body.ban_id)).size).toBe(1);
    const recorded = await events('ban.created', (e) => e.device_id === body.device_id);
    expect(recorded.map((e) => e.ban_id)).toEqual([results[0]?.body.ban_id]);
  });

  it('records one ban.created per ban for 30 concurrent creates without a key', async () => {
    const device = unique('ar');
    const results = await together(30, () =>
      postBan(api, key, GAME, banBody({ device_id: device, allow_duplicate: true })),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const recorded = await events('ban.created', (e) => e.device_id === device);
    expect(recorded.map((e) => e.ban_id).sort()).toEqual(results.map((r) => r.body.ban_id).sort());
  });

  it('records one ban.revoked, with the first reason, for 30 concurrent revokes of one ban', async () => {
    const device = unique('ar');
    const banId = await createBan(api, key, GAME, banBody({ device_id: device }));
    const results = await together(30, (i) =>
      revokeBan(api, key, GAME, device, banId, { reason_code: `r${i}` }),
    );
    expect(new Set(results.map((r) => r.body.revoked_at)).size).toBe(1);
    const recorded = await events('ban.revoked', (e) => e.ban_id === banId);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.revoke_reason_code).toBe(results[0]?.body.revoke_reason_code);
  });

  it('records one policy.updated per update for 30 concurrent partial updates, as many as the versions', async () => {
    const before = (await events('policy.updated')).length;
    const results = await together(30, (i) =>
      api.request('PUT', '/v1/policy', {
        key,
        body: { [policyFlags[i % policyFlags.length] as string]: i % 3 === 0 },
      }),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const recorded = await events('policy.updated');
    expect(recorded).toHaveLength(before + 30);
    const { dynamo, tableName: boundTable } = await import('../../lib/storage/client');
    const tableName = boundTable();
    const { Item } = await dynamo.send(
      new GetCommand({ TableName: tableName, Key: policyKey(PUBLISHER), ConsistentRead: true }),
    );
    expect(Item?.version).toBe(before + 30);
    // Each update saw exactly the state it changed: every event's `before` is some event's `after`
    // (or the defaults), and exactly one `after` is the stored policy with no event after it.
    const afters = recorded.map((e) => JSON.stringify(e.after));
    for (const event of recorded.slice(0, -1 - before))
      expect(afters).toContain(JSON.stringify(event.before));
  });

  it('makes 10 concurrent erasures of one device one erasure: one event, the whole count', async () => {
    const device = unique('ar-erase');
    for (let i = 0; i < 5; i += 1)
      await createBan(api, key, GAME, banBody({ device_id: device, allow_duplicate: true }));
    const results = await together(10, () => api.request('POST', `/v1/device/${device}/erase`, { key }));
    expect(results.every((r) => r.status === 200)).toBe(true);
    // Every answer is the whole erasure (5), or 0 from one that started after it had finished.
    expect(results.every((r) => [0, 5].includes(r.body.erased_bans))).toBe(true);
    expect(results.some((r) => r.body.erased_bans === 5)).toBe(true);
    const recorded = await events('device.erased', (e) => e.device_id === device);
    expect(recorded.map((e) => e.erased_bans)).toEqual([5]);
    const left = await storedBans(device);
    expect(left).toEqual([]);
    expect(left.some((item) => item.sk === erasureKey(device, PUBLISHER).sk)).toBe(false);
  });
});
