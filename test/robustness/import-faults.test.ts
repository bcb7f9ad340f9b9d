import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bannedDeviceKeys,
  expiringBanKey,
  importBatchKey,
  importedRowKey,
  partitions,
} from '../../lib/storage/keys';
import { storedEvents } from '../support/audit';
import { faultAtEveryCall, writeCase } from '../support/fault-cases';
import { type FaultInjector, injectFaults } from '../support/faults';
import { startWithPublishers, storedBans, storedItem, type TestApi, unique } from '../support/fixtures';

/**
 * POST /v1/imports under a DynamoDB fault at each of its storage calls (each batch read and write,
 * each claim, each ban put, the slot counters, the batch record, the audit event): the request
 * answers 503, and its retry with the same batch_id completes the batch with nothing made twice:
 * one ban per new row under the ids the retry answers, one record per external id, one audit
 * event. In-process, on the embedded store and on DynamoDB Local.
 */

const OWNER = 'import-fault';
const GAME = 'g-if';
let api: TestApi;
let key: string;
let faults: FaultInjector;

beforeAll(async () => {
  const started = await startWithPublishers([OWNER], { events: false });
  api = started.api;
  key = started.keys[OWNER];
  const { dynamo } = await import('../../lib/storage/client');
  faults = injectFaults(dynamo);
});
afterAll(async () => {
  faults?.remove();
  await api?.close();
});

type Row = { external_id: string; device_id: string; created_at: string; expires_at?: string } & Record<
  string,
  unknown
>;
const row = (overrides: Record<string, unknown> = {}): Row => ({
  external_id: unique('ext'),
  device_id: unique('if-dev'),
  ban_type: 'cheat',
  scope: 'game',
  reason_code: 'aimbot',
  created_at: '2019-03-04T12:00:00Z',
  ...overrides,
});

interface Ctx {
  since: string;
  body: { batch_id: string; rows: Array<Row | string> };
  fresh: Array<Row>;
  earlier: Row;
  earlierBan: number;
}

const ownerBans = async (device: string) =>
  (await storedBans(device)).filter(
    (item) => item.publisher_id === OWNER && String(item.sk).startsWith('BAN#'),
  );

const batchEvents = async (batchId: string, since: string) =>
  (await storedEvents(OWNER, since)).filter((e) => e.type === 'bans.imported' && e.batch_id === batchId);

const importBatch = writeCase<Ctx>({
  setup: async () => {
    const since = new Date(Date.now() - 1_000).toISOString();
    const earlier = row();
    const first = await api.request('POST', '/v1/imports', {
      key,
      game: GAME,
      body: { batch_id: unique('earlier'), rows: [earlier] },
    });
    expect(first.body.counts.created).toBe(1);
    const fresh = [
      row({ expires_at: '2031-01-01T00:00:00Z' }),
      row({
        created_at: '2020-01-01T00:00:00Z',
        revoked_at: '2020-01-02T00:00:00Z',
        revoke_reason_code: 'x',
      }),
    ];
    return {
      since,
      body: { batch_id: unique('batch'), rows: [...fresh, earlier, 'not a row'] },
      fresh,
      earlier,
      earlierBan: first.body.rows[0].ban_id,
    };
  },
  send: ({ body }) => api.request('POST', '/v1/imports', { key, game: GAME, body }),
  afterFailure: async ({ fresh, body, since, earlier, earlierBan }) => {
    for (const r of fresh) expect((await ownerBans(r.device_id)).length).toBeLessThanOrEqual(1);
    expect((await ownerBans(earlier.device_id)).map((b) => b.ban_id)).toEqual([earlierBan]);
    expect((await batchEvents(body.batch_id, since)).length).toBeLessThanOrEqual(1);
  },
  afterRetry: async ({ fresh, body, since, earlier, earlierBan }, res) => {
    expect(res.status).toBe(200);
    expect(res.body.counts).toEqual({ created: fresh.length, already_imported: 1, changed: 0, refused: 1 });
    for (const [i, r] of fresh.entries()) {
      const answer = res.body.rows[i];
      expect(answer).toMatchObject({ status: 'created', external_id: r.external_id, device_id: r.device_id });
      expect((await ownerBans(r.device_id)).map((b) => b.ban_id)).toEqual([answer.ban_id]);
      const record = await storedItem(importedRowKey(OWNER, r.external_id));
      expect(record?.batch_id).toBe(body.batch_id);
      expect((record?.ban as { ban_id?: number } | undefined)?.ban_id).toBe(answer.ban_id);
      for (const k of bannedDeviceKeys(OWNER, r.device_id, answer.ban_id))
        expect(await storedItem(k), k.pk).toBeDefined();
      if (r.expires_at)
        expect(
          await storedItem(expiringBanKey(OWNER, new Date(r.expires_at).toISOString(), answer.ban_id)),
        ).toBeDefined();
    }
    expect(res.body.rows[fresh.length]).toMatchObject({ status: 'already_imported', ban_id: earlierBan });
    expect((await ownerBans(earlier.device_id)).map((b) => b.ban_id)).toEqual([earlierBan]);
    const events = await batchEvents(body.batch_id, since);
    expect(events.map((e) => [e.created, e.already_imported, e.refused])).toEqual([[fresh.length, 1, 1]]);
    const batch = await storedItem(importBatchKey(OWNER, body.batch_id));
    expect(batch).toMatchObject({ finished_at: expect.any(String), counts: res.body.counts });
    // Every record of the owner is of a row some batch answered created: none left behind.
    const records = (await api.items()).filter((item) =>
      String(item.pk).startsWith(`${partitions.importedRow}${OWNER}#`),
    );
    expect(new Set(records.map((item) => item.external_id)).size).toBe(records.length);
  },
});

describe('POST /v1/imports under faults', () => {
  it('answers 503 at a fault in each storage call, and the retried batch completes with nothing made twice', async () => {
    const { cases, injected } = await faultAtEveryCall(faults, importBatch);
    expect(cases).toBeGreaterThan(10);
    expect(injected).toBeGreaterThan(10);
  });
});
