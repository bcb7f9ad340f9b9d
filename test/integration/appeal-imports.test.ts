import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appealIdOf } from '../../lib/storage/keys';
import { startTestApi } from '../support/api';
import { type Body, type TestApi, unique } from '../support/fixtures';
import { type Receiver, startReceiver } from '../support/receiver';

/**
 * The appeals of imported bans (a row's `appeals`, as the export writes them): the owner's appeal
 * made an appeal of the imported ban, with its decision, in the queue and the listings, in the feed
 * and to no webhook; another publisher's left out; a re-import changing nothing; bad appeals
 * refusing their row. On the embedded store and on DynamoDB Local.
 */

let api: TestApi;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  api = await startTestApi({ env: { WEBHOOK_RETRY_BASE_MS: '50' } });
});
afterAll(async () => {
  await api?.close();
  await receiver?.close();
});

const GAME = 'g-apl-imp';

const publisher = async (grants?: { scopes?: string[]; games?: string[] }) => {
  const id = unique('aimp');
  const key = await api.createKey(id, 'appeal imports test', grants as never);
  return { id, key: key.api_key };
};

const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

const row = (overrides: Body = {}): Body => ({
  external_id: unique('ext'),
  device_id: unique('aimp-dev'),
  ban_type: 'cheat',
  scope: 'game',
  reason_code: 'aimbot',
  created_at: '2026-01-04T12:00:00Z',
  ...overrides,
});

const importRows = (key: string, rows: unknown[], batchId = unique('batch'), game = GAME) =>
  api.request('POST', '/v1/imports', { key, game, body: { batch_id: batchId, rows } });

const listAll = async (key: string, device: string) => {
  const res = await api.request('GET', `/v1/device/${device}/bans?status=all`, { key, game: GAME });
  expect(res.status).toBe(200);
  return res.body.items as any[];
};

const queue = async (key: string, status = 'all') => {
  const res = await api.request('GET', `/v1/appeals?status=${status}&limit=200`, { key });
  expect(res.status).toBe(200);
  return res.body.items as any[];
};

describe('imported appeals', () => {
  it("makes the owner's appeals of imported bans appeals of them, with their decisions, queue and listings", async () => {
    const a = await publisher();
    const open = row({ expires_at: null });
    const filedAt = minutesAgo(50);
    open.appeals = [{ created_at: filedAt, message: 'It was my brother.', contact: 'me@example.com' }];
    const upheld = row({
      appeals: [
        {
          status: 'decided',
          created_at: '2026-01-05T00:00:00Z',
          message: 'Please.',
          filed_by: { publisher_id: 'old-id', game_id: GAME },
          ban_publisher_id: 'old-id',
          decision: {
            outcome: 'upheld',
            note: 'Seen on the replay.',
            player_message: null,
            expires_at: null,
            decided_at: '2026-01-06T00:00:00Z',
            decided_by: { type: 'key', key_id: 'key_old', name: 'old moderator' },
            applied_at: '2026-01-06T00:00:01Z',
          },
        },
      ],
    });
    const overturned = row({
      revoked_at: '2026-01-07T00:00:00Z',
      revoke_reason_code: 'appeal_overturned',
      player_message: 'Lifted on appeal.',
      appeals: [
        {
          created_at: '2026-01-05T00:00:00Z',
          message: 'Not me.',
          decision: {
            outcome: 'overturned',
            player_message: 'Lifted on appeal.',
            decided_at: '2026-01-07T00:00:00Z',
          },
        },
      ],
    });
    const until = new Date(Date.now() + 86_400_000).toISOString();
    const shortened = row({
      expires_at: until,
      appeals: [
        {
          created_at: hourAgo(),
          message: 'Too long.',
          decision: { outcome: 'shortened', expires_at: until, decided_at: minutesAgo(30) },
        },
      ],
    });
    const rows = [open, upheld, overturned, shortened];
    const res = await importRows(a.key, rows);
    expect(res.status).toBe(200);
    expect(res.body.counts).toMatchObject({ created: 4, refused: 0 });
    const ids = res.body.rows.map((r: any) => r.ban_id as number);
    const appealIds = ids.map((id: number) => appealIdOf(id, a.id));

    // The listing shows each ban's appeal as the owner's.
    const shown = await Promise.all(rows.map(async (r) => (await listAll(a.key, String(r.device_id)))[0]));
    expect(shown.map((ban) => ban.appeal)).toEqual([
      { appeal_id: appealIds[0], status: 'open', outcome: null },
      { appeal_id: appealIds[1], status: 'decided', outcome: 'upheld' },
      { appeal_id: appealIds[2], status: 'decided', outcome: 'overturned' },
      { appeal_id: appealIds[3], status: 'decided', outcome: 'shortened' },
    ]);
    expect(shown[2]).toMatchObject({
      revoked_at: '2026-01-07T00:00:00.000Z',
      player_message: 'Lifted on appeal.',
    });

    // The queue: the open one, then the decided ones newest first, as filed by the importer.
    const all = await queue(a.key);
    expect(all.map((appeal) => appeal.appeal_id)).toEqual([
      appealIds[0],
      appealIds[3],
      appealIds[2],
      appealIds[1],
    ]);
    expect(all[0]).toMatchObject({
      status: 'open',
      ban_id: ids[0],
      device_id: open.device_id,
      ban_publisher_id: a.id,
      filed_by: { publisher_id: a.id, game_id: GAME },
      message: 'It was my brother.',
      contact: 'me@example.com',
      created_at: new Date(filedAt).toISOString(),
      decision: null,
    });
    const decided = await api.request('GET', `/v1/appeals/${appealIds[1]}`, { key: a.key });
    expect(decided.body.decision).toEqual({
      outcome: 'upheld',
      note: 'Seen on the replay.',
      player_message: null,
      expires_at: null,
      decided_at: '2026-01-06T00:00:00.000Z',
      // The importing key decides: the old deployment's keys are not this one's.
      decided_by: expect.objectContaining({ type: 'key', name: 'appeal imports test' }),
      applied_at: '2026-01-06T00:00:01.000Z',
    });
    const stats = await api.request('GET', '/v1/appeals/stats', { key: a.key });
    expect(stats.body).toMatchObject({ open: 1, oldest_open_at: new Date(filedAt).toISOString() });
    expect(stats.body.outcomes.shortened).toBe(1);

    // Another publisher sees none of it.
    const b = await publisher();
    expect(await queue(b.key)).toEqual([]);
    expect((await api.request('GET', `/v1/appeals/${appealIds[0]}`, { key: b.key })).status).toBe(404);
  });

  it('answers a re-import already_imported and stores nothing new', async () => {
    const a = await publisher();
    const rows = [
      row({ appeals: [{ created_at: '2026-02-01T00:00:00Z', message: 'Again?' }] }),
      row({
        appeals: [
          {
            created_at: '2026-02-01T00:00:00Z',
            decision: { outcome: 'upheld', decided_at: '2026-02-02T00:00:00Z' },
          },
        ],
      }),
    ];
    expect((await importRows(a.key, rows)).body.counts.created).toBe(2);
    await api.settle();
    const before = await api.items();
    const again = await importRows(a.key, rows);
    expect(again.body.counts).toEqual({ created: 0, already_imported: 2, changed: 0, refused: 0 });
    await api.settle();
    const after = await api.items();
    // Only the second batch's own record and its audit event are new.
    const added = after.filter((item) => !before.some((old) => old.pk === item.pk && old.sk === item.sk));
    expect(added.every((item) => /^(IMPORT#|AUDIT)/.test(String(item.pk)))).toBe(true);
    expect(after.filter((item) => String(item.pk).startsWith('APPEAL'))).toEqual(
      before.filter((item) => String(item.pk).startsWith('APPEAL')),
    );
    // A changed appeal is a changed row: reported, not applied.
    const changed = [
      { ...rows[0], appeals: [{ created_at: '2026-02-01T00:00:00Z', message: 'Other words.' }] },
    ];
    const res = await importRows(a.key, changed);
    expect(res.body.rows[0]).toMatchObject({ status: 'changed', changed_fields: ['appeals'] });
    expect((await queue(a.key, 'open'))[0].message).toBe('Again?');
  });

  it('counts an imported decision of a day already rolled up in the stats, once', async () => {
    const a = await publisher();
    // The first stats call rolls up every ended day of the window, this one empty.
    const empty = await api.request('GET', '/v1/appeals/stats', { key: a.key });
    expect(empty.body).toMatchObject({ decided: 0 });
    const day = Date.now() - 3 * 86_400_000;
    const rows = [
      row({
        created_at: new Date(day - 7_200_000).toISOString(),
        appeals: [
          {
            created_at: new Date(day - 3_600_000).toISOString(),
            decision: { outcome: 'overturned', decided_at: new Date(day).toISOString() },
          },
        ],
        revoked_at: new Date(day).toISOString(),
        revoke_reason_code: 'appeal_overturned',
      }),
    ];
    expect((await importRows(a.key, rows)).body.counts.created).toBe(1);
    const counted = await api.request('GET', '/v1/appeals/stats', { key: a.key });
    expect(counted.body).toMatchObject({
      decided: 1,
      outcomes: { upheld: 0, overturned: 1, shortened: 0 },
      time_to_decision_seconds: { median: 3600, p90: 3600 },
    });
    // Imported again (another batch): the day's sum is not added to twice.
    expect((await importRows(a.key, rows)).body.counts.already_imported).toBe(1);
    const again = await api.request('GET', '/v1/appeals/stats', { key: a.key });
    expect(again.body).toMatchObject({ decided: 1, outcomes: { overturned: 1 } });
  });

  it("leaves out another publisher's appeal, and keeps its decision's new message untranslated", async () => {
    const a = await publisher();
    const device = unique('aimp-other');
    const res = await importRows(a.key, [
      row({
        device_id: device,
        scope: 'global',
        player_message: 'New words.',
        translations: { de: { player_message: 'Alte Worte.' } },
        appeals: [
          {
            created_at: '2026-03-01T00:00:00Z',
            filed_by: { publisher_id: 'someone-else', game_id: 'their-game' },
            ban_publisher_id: 'old-owner',
            decision: { outcome: 'upheld', player_message: 'New words.', decided_at: '2026-03-02T00:00:00Z' },
          },
        ],
      }),
    ]);
    expect(res.body.counts.created).toBe(1);
    const [ban] = await listAll(a.key, device);
    expect(ban.appeal).toBeNull();
    expect(await queue(a.key)).toEqual([]);
    const de = await api.request('GET', `/v1/device/${device}/bans?status=all&locale=de`, {
      key: a.key,
      game: GAME,
    });
    expect(de.body.items[0].player_message).toBe('New words.');
  });

  it('refuses a row whose appeals break the rules, with the field, storing nothing for it', async () => {
    const a = await publisher();
    const cases: Array<[Body, string, string]> = [
      [{ appeals: [{ created_at: '2026-01-01T00:00:00Z' }] }, 'appeals.0.created_at', 'before_created'],
      [
        { appeals: [{ created_at: '2026-02-01T00:00:00Z', status: 'decided' }] },
        'appeals.0.status',
        'mismatch',
      ],
      [
        {
          appeals: [
            {
              created_at: '2026-02-01T00:00:00Z',
              decision: { outcome: 'shortened', decided_at: '2026-02-02T00:00:00Z' },
            },
          ],
        },
        'appeals.0.decision.expires_at',
        'required',
      ],
      [
        {
          appeals: [
            {
              created_at: '2026-02-01T00:00:00Z',
              decision: { outcome: 'upheld', decided_at: '2026-01-31T00:00:00Z' },
            },
          ],
        },
        'appeals.0.decision.decided_at',
        'before_created',
      ],
      [
        { appeals: [{ created_at: '2026-02-01T00:00:00Z' }, { created_at: '2026-02-03T00:00:00Z' }] },
        'appeals.1',
        'duplicate',
      ],
      [
        { appeals: [{ created_at: '2026-02-01T00:00:00Z', colour: 'red' }] },
        'appeals.0.colour',
        'unknown_field',
      ],
    ];
    const rows = cases.map(([overrides]) => row({ created_at: '2026-01-04T12:00:00Z', ...overrides }));
    const res = await importRows(a.key, rows);
    expect(res.status).toBe(200);
    expect(res.body.rows.map((r: any) => [r.status, r.error?.field, r.error?.issue])).toEqual(
      cases.map(([, field, issue]) => ['refused', field, issue]),
    );
    expect(await queue(a.key)).toEqual([]);
    // A key bound to games files only from them.
    const bound = await publisher({ games: [GAME] });
    const other = await importRows(bound.key, [
      row({
        appeals: [
          { created_at: '2026-02-01T00:00:00Z', filed_by: { publisher_id: bound.id, game_id: 'elsewhere' } },
        ],
      }),
    ]);
    expect(other.body.rows[0]).toMatchObject({
      status: 'refused',
      error: { field: 'appeals.0.filed_by.game_id', issue: 'forbidden' },
    });
  });

  it('carries appeal.created and appeal.decided in the feed, and sends no webhook an imported appeal', async () => {
    const a = await publisher();
    const hook = await api.request('POST', '/v1/webhooks', {
      key: a.key,
      body: { url: `${receiver.url}/hooks` },
    });
    expect(hook.status).toBe(201);
    const device = unique('aimp-feed');
    const res = await importRows(a.key, [
      row({
        device_id: device,
        appeals: [
          {
            created_at: '2026-02-01T00:00:00Z',
            decision: { outcome: 'upheld', decided_at: '2026-02-02T00:00:00Z' },
          },
        ],
      }),
    ]);
    const appealId = appealIdOf(res.body.rows[0].ban_id, a.id);
    const native = await api.request('POST', '/v1/bans', {
      key: a.key,
      game: GAME,
      body: { device_id: unique('aimp-native'), ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
    });
    await api.settle();
    const feed = await api.request('GET', '/v1/events?limit=200', { key: a.key, game: GAME });
    expect(
      feed.body.items
        .filter((e: any) => e.appeal?.appeal_id === appealId)
        .map((e: any) => [e.type, e.occurred_at])
        .sort(),
    ).toEqual([
      ['appeal.created', '2026-02-01T00:00:00.000Z'],
      ['appeal.decided', '2026-02-02T00:00:00.000Z'],
    ]);
    await receiver.waitFor(() =>
      receiver.verified(hook.body.secret).some((e) => e.ban?.ban_id === native.body.ban_id),
    );
    const delivered = receiver.verified(hook.body.secret);
    expect(delivered.filter((e) => e.appeal?.appeal_id === appealId)).toEqual([]);
    expect(delivered.filter((e) => e.type === 'bans.imported')).toHaveLength(1);
  });
});
