import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appealIdOf, appealKey, decidedAppealKey, openAppealKey, partitions } from '../../lib/storage/keys';
import { faultAtEveryCall, writeCase } from '../support/fault-cases';
import { type FaultInjector, injectFaults } from '../support/faults';
import { startWithPublishers, storedBans, storedItem, type TestApi, unique } from '../support/fixtures';

/**
 * POST /v1/imports of rows with appeals under a DynamoDB fault at each of its storage calls: the
 * request answers 503, and its retry with the same batch_id completes each appeal (its item, the
 * ban's attribute naming it, its queue entry) with none made twice and none left half-made.
 * In-process, on the embedded store and on DynamoDB Local.
 */

const OWNER = 'appeal-import-fault';
const GAME = 'g-aif';
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

const row = (appeal: Record<string, unknown>) => ({
  external_id: unique('ext'),
  device_id: unique('aif-dev'),
  ban_type: 'cheat',
  scope: 'game',
  reason_code: 'aimbot',
  created_at: '2026-01-04T12:00:00Z',
  appeals: [appeal],
});

interface Ctx {
  body: { batch_id: string; rows: Array<ReturnType<typeof row>> };
}

const OPEN = { created_at: '2026-01-05T00:00:00Z', message: 'Not me.' };
const DECIDED = {
  created_at: '2026-01-05T00:00:00Z',
  message: 'Please.',
  decision: { outcome: 'upheld', note: 'Stands.', decided_at: '2026-01-06T00:00:00Z' },
};

const appealItems = async () =>
  (await api.items()).filter(
    (item) => String(item.pk).startsWith(partitions.appeal) && item.ban_publisher_id === OWNER,
  );

const importWithAppeals = writeCase<Ctx>({
  setup: async () => ({ body: { batch_id: unique('batch'), rows: [row(OPEN), row(DECIDED)] } }),
  send: ({ body }) => api.request('POST', '/v1/imports', { key, game: GAME, body }),
  afterFailure: async ({ body }) => {
    // At most one appeal per row's ban, and only of a ban whose row was claimed.
    const items = await appealItems();
    const devices = body.rows.map((r) => r.device_id);
    expect(items.filter((item) => devices.includes(String(item.device_id))).length).toBeLessThanOrEqual(2);
  },
  afterRetry: async ({ body }, res) => {
    expect(res.status).toBe(200);
    expect(res.body.counts).toMatchObject({ created: 2, refused: 0 });
    for (const [i, r] of body.rows.entries()) {
      const banId = res.body.rows[i].ban_id as number;
      const appealId = appealIdOf(banId, OWNER);
      const decided = i === 1;
      const appeal = await storedItem(appealKey(appealId));
      expect(appeal).toMatchObject({
        status: decided ? 'decided' : 'open',
        ban_id: banId,
        filer_publisher_id: OWNER,
        created_at: '2026-01-05T00:00:00.000Z',
      });
      const [ban] = (await storedBans(r.device_id)).filter((item) => item.publisher_id === OWNER);
      expect(ban?.[`appeal#${OWNER}`]).toMatchObject({ appeal_id: appealId, status: appeal?.status });
      const open = await storedItem(openAppealKey(OWNER, '2026-01-05T00:00:00.000Z', appealId));
      const done = await storedItem(decidedAppealKey(OWNER, '2026-01-06T00:00:00.000Z', appealId));
      expect([open !== undefined, done !== undefined]).toEqual(decided ? [false, true] : [true, false]);
    }
    const devices = body.rows.map((r) => r.device_id);
    expect((await appealItems()).filter((item) => devices.includes(String(item.device_id)))).toHaveLength(2);
  },
});

describe('POST /v1/imports of appeals under faults', () => {
  it('answers 503 at a fault in each storage call, and the retried batch completes every appeal once', async () => {
    const { cases } = await faultAtEveryCall(faults, importWithAppeals);
    expect(cases).toBeGreaterThan(10);
  });
});
