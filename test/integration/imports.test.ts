import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importedRowKey, partitions } from '../../lib/storage/keys';
import { startTestApi } from '../support/api';
import { storedEvents } from '../support/audit';
import { type Body, storedItem, type TestApi, unique } from '../support/fixtures';
import { type Receiver, startReceiver } from '../support/receiver';

/**
 * POST /v1/imports end to end: rows made bans exactly like created ones (listings, counts,
 * enforcement, the feed), each row answered on its own, repeats answered as what they are, the
 * batch audited once and summarised to webhooks once, and another publisher seeing none of it.
 * On the embedded store and on DynamoDB Local.
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

const publisher = async (grants?: { scopes?: string[]; games?: string[] }) => {
  const id = unique('imp');
  const key = await api.createKey(id, 'imports test', grants as never);
  return { id, key: key.api_key, keyId: key.key_id };
};

const row = (overrides: Body = {}): Body => ({
  external_id: unique('ext'),
  device_id: unique('imp-dev'),
  ban_type: 'cheat',
  scope: 'game',
  reason_code: 'aimbot',
  created_at: '2019-03-04T12:00:00Z',
  ...overrides,
});

const importRows = (key: string, rows: unknown[], extra: Body = {}, game = 'g-imp') =>
  api.request('POST', '/v1/imports', { key, game, body: { batch_id: unique('batch'), rows, ...extra } });

const listAll = async (key: string, device: string, game = 'g-imp') => {
  const res = await api.request('GET', `/v1/device/${device}/bans?status=all`, { key, game });
  expect(res.status).toBe(200);
  return res.body;
};

const enforcement = async (key: string, device: string, game = 'g-imp') => {
  const res = await api.request('GET', `/v1/device/${device}/enforcement`, { key, game });
  expect(res.status).toBe(200);
  return res.body;
};

/** What the import stored for a publisher: its rows' records and bans. */
const importItems = async (publisherId: string) =>
  (await api.items()).filter(
    (item) =>
      String(item.pk).startsWith(`${partitions.importedRow}${publisherId}#`) ||
      (String(item.pk).startsWith(partitions.device) && item.publisher_id === publisherId),
  );

describe('POST /v1/imports', () => {
  it('makes each row a ban listed in created_at order among native bans of the same device', async () => {
    const a = await publisher();
    const device = unique('imp-order');
    const native = await api.request('POST', '/v1/bans', {
      key: a.key,
      game: 'g-imp',
      body: { device_id: device, ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
    });
    expect(native.status).toBe(201);
    const now = Date.now();
    const rows = [
      row({ device_id: device, created_at: '2015-06-01T00:00:00Z', reason_code: 'oldest' }),
      row({ device_id: device, created_at: new Date(now - 60_000).toISOString(), reason_code: 'recent' }),
      row({ device_id: device, created_at: '2021-02-03T04:05:06.789Z', reason_code: 'middle' }),
    ];
    const res = await importRows(a.key, rows);
    expect(res.status).toBe(200);
    expect(res.body.counts).toEqual({ created: 3, already_imported: 0, changed: 0, refused: 0 });
    expect(res.body.dry_run).toBe(false);
    expect(res.body.rows).toEqual(
      rows.map((r, index) => ({
        index,
        external_id: r.external_id,
        status: 'created',
        ban_id: expect.any(Number),
        device_id: device,
      })),
    );
    const listed = await listAll(a.key, device);
    // Newest first: the native ban (made now), then the imports by their created_at.
    expect(listed.items.map((b: any) => b.reason_code)).toEqual(['aimbot', 'recent', 'middle', 'oldest']);
    expect(listed.items[0].ban_id).toBe(native.body.ban_id);
    expect(listed.items.map((b: any) => b.created_at).slice(1)).toEqual([
      new Date(now - 60_000).toISOString(),
      '2021-02-03T04:05:06.789Z',
      '2015-06-01T00:00:00.000Z',
    ]);
    // Paging by "ban id lower than" walks the same order.
    const page = await api.request('GET', `/v1/device/${device}/bans?status=all&limit=2`, {
      key: a.key,
      game: 'g-imp',
    });
    const next = await api.request(
      'GET',
      `/v1/device/${device}/bans?status=all&limit=2&cursor=${page.body.next_cursor}`,
      { key: a.key, game: 'g-imp' },
    );
    expect([...page.body.items, ...next.body.items].map((b: any) => b.reason_code)).toEqual([
      'aimbot',
      'recent',
      'middle',
      'oldest',
    ]);
    expect(listed.items[1]).toMatchObject({ created_by: expect.objectContaining({ type: 'key' }) });
  });

  it('counts expired, revoked and permanent imported bans as a create would, and enforces only the active one', async () => {
    const a = await publisher();
    const device = unique('imp-state');
    const res = await importRows(a.key, [
      row({ device_id: device, reason_code: 'expired', expires_at: '2019-04-04T12:00:00Z' }),
      row({
        device_id: device,
        reason_code: 'revoked',
        ban_type: 'social',
        revoked_at: '2019-03-05T00:00:00Z',
        revoke_reason_code: 'appeal_granted',
      }),
      row({ device_id: device, reason_code: 'permanent', expires_at: null }),
    ]);
    expect(res.body.counts.created).toBe(3);
    const listed = await listAll(a.key, device);
    expect(listed.counts).toEqual({ active: 1, inactive: 2, total: 3 });
    const byReason = Object.fromEntries(listed.items.map((b: any) => [b.reason_code, b]));
    expect(byReason.permanent).toMatchObject({ enforced: true, expires_at: null, revoked_at: null });
    expect(byReason.expired).toMatchObject({ enforced: false, expires_at: '2019-04-04T12:00:00.000Z' });
    expect(byReason.revoked).toMatchObject({
      enforced: false,
      revoked_at: '2019-03-05T00:00:00.000Z',
      revoke_reason_code: 'appeal_granted',
    });
    const active = await api.request('GET', `/v1/device/${device}/bans?status=active`, {
      key: a.key,
      game: 'g-imp',
    });
    expect(active.body.items.map((b: any) => b.reason_code)).toEqual(['permanent']);
    const verdict = await enforcement(a.key, device);
    expect(verdict.restricted).toEqual({ cheat: true, social: false });
    expect(verdict.bans.map((b: any) => b.reason_code)).toEqual(['permanent']);
    // The ended ban counts as expired history in the reputation, as a created one would; the revoked one not at all.
    expect(verdict.reputation.counts.cheat.game).toEqual({ active: 1, expired: 1 });
    expect(verdict.reputation.counts.social.game).toEqual({ active: 0, expired: 0 });
  });

  it('answers a re-import of the same rows already_imported and stores nothing new', async () => {
    const a = await publisher();
    const rows = [row(), row({ expires_at: '2020-01-01T00:00:00+02:00' })];
    const first = await importRows(a.key, rows);
    expect(first.body.counts.created).toBe(2);
    const before = await importItems(a.id);
    // The same rows, written differently (an offset, a default spelled out): the same content.
    const again = await importRows(a.key, [
      { ...rows[0], expires_at: null, game_id: 'g-imp' },
      { ...rows[1], expires_at: '2019-12-31T22:00:00Z' },
    ]);
    expect(again.status).toBe(200);
    expect(again.body.counts).toEqual({ created: 0, already_imported: 2, changed: 0, refused: 0 });
    expect(again.body.rows.map((r: any) => [r.status, r.ban_id])).toEqual(
      first.body.rows.map((r: any) => ['already_imported', r.ban_id]),
    );
    expect(await importItems(a.id)).toEqual(before);
  });

  it('answers a changed row changed with the fields that differ, and applies nothing', async () => {
    const a = await publisher();
    const original = row({ player_message: 'Banned for cheating.' });
    const first = await importRows(a.key, [original]);
    const before = await importItems(a.id);
    const res = await importRows(a.key, [
      { ...original, reason_code: 'wallhack', expires_at: '2030-01-01T00:00:00Z', player_message: 'Other.' },
    ]);
    expect(res.body.counts).toEqual({ created: 0, already_imported: 0, changed: 1, refused: 0 });
    expect(res.body.rows[0]).toEqual({
      index: 0,
      external_id: original.external_id,
      status: 'changed',
      ban_id: first.body.rows[0].ban_id,
      device_id: original.device_id,
      changed_fields: ['expires_at', 'player_message', 'reason_code'],
    });
    expect(await importItems(a.id)).toEqual(before);
    const listed = await listAll(a.key, original.device_id as string);
    expect(listed.items.map((b: any) => b.reason_code)).toEqual(['aimbot']);
  });

  it('answers a retried batch created again with the same ban ids, and makes nothing twice', async () => {
    const a = await publisher();
    const body = { batch_id: unique('batch'), rows: [row(), row(), row({ device_id: '..' })] };
    const first = await api.request('POST', '/v1/imports', { key: a.key, game: 'g-imp', body });
    const stored = await importItems(a.id);
    const second = await api.request('POST', '/v1/imports', { key: a.key, game: 'g-imp', body });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.body.counts).toEqual({ created: 2, already_imported: 0, changed: 0, refused: 1 });
    expect(await importItems(a.id)).toEqual(stored);
    // One audit event for the batch, however often it was sent.
    const events = (await storedEvents(a.id)).filter((e: any) => e.type === 'bans.imported');
    expect(events).toEqual([
      expect.objectContaining({
        type: 'bans.imported',
        batch_id: body.batch_id,
        created: 2,
        already_imported: 0,
        changed: 0,
        refused: 1,
        actor: expect.objectContaining({ type: 'key', key_id: a.keyId }),
      }),
    ]);
  });

  it('refuses each bad row with its field and issue, storing nothing for it, while the good rows are created', async () => {
    const a = await publisher();
    const catalogue = await api.request('PUT', '/v1/reasons', {
      key: a.key,
      body: {
        strict_reasons: true,
        reasons: [
          {
            code: 'aimbot',
            label: 'Aimbot',
            ban_type: 'cheat',
            scope: 'game',
            duration_seconds: null,
            player_message: null,
          },
        ],
      },
    });
    expect(catalogue.status).toBe(200);
    const bound = await api.createKey(a.id, 'bound', { games: ['g-imp'] } as never);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const dup = unique('dup');
    const cases: Array<[Body | unknown, string, string]> = [
      [row({ device_id: 'has space' }), 'device_id', 'invalid_format'],
      [row({ colour: 'red' }), 'colour', 'unknown_field'],
      [row({ created_at: future }), 'created_at', 'in_future'],
      [row({ created_at: '1989-12-31T23:59:59Z' }), 'created_at', 'too_early'],
      [row({ expires_at: '2019-03-04T11:00:00Z' }), 'expires_at', 'not_after_created'],
      [row({ revoked_at: '2019-03-05T00:00:00Z' }), 'revoke_reason_code', 'required'],
      [row({ reason_code: 'not-in-catalogue' }), 'reason_code', 'not_in_catalogue'],
      [row({ statement: { ground: 'illegal' } }), 'statement.legal_ground', 'required'],
      [row({ created_at: 'yesterday' }), 'created_at', 'invalid_format'],
      ['not an object', 'row', 'invalid_type'],
      [row({ external_id: undefined }), 'external_id', 'required'],
    ];
    const good = [row({ external_id: dup }), row()];
    const rows = [...cases.map(([r]) => r), ...good, row({ external_id: dup })];
    const res = await importRows(a.key, rows);
    expect(res.status).toBe(200);
    expect(res.body.counts).toEqual({
      created: 2,
      already_imported: 0,
      changed: 0,
      refused: cases.length + 1,
    });
    cases.forEach(([, field, issue], index) => {
      expect(res.body.rows[index], `row ${index}`).toMatchObject({
        index,
        status: 'refused',
        ban_id: null,
        error: { field, issue, message: expect.any(String) },
      });
    });
    expect(res.body.rows.at(-1)).toMatchObject({
      status: 'refused',
      external_id: dup,
      error: { field: 'external_id', issue: 'duplicate_in_batch' },
    });
    // Only the good rows were stored: their records and their bans.
    const records = (await importItems(a.id)).filter((item) =>
      String(item.pk).startsWith(partitions.importedRow),
    );
    expect(records.map((item) => item.external_id).sort()).toEqual(good.map((r) => r.external_id).sort());
    for (const [r] of cases) {
      const device = (r as Body)?.device_id;
      if (typeof device === 'string' && device !== 'has space')
        expect((await listAll(a.key, device)).items, device).toEqual([]);
    }
    // A key bound to games: game bans of its games only.
    const reach = await importRows(bound.api_key, [
      row({ scope: 'publisher' }),
      row({ game_id: 'g-other' }),
      row({ scope: 'global' }),
      row(),
    ]);
    expect(reach.body.rows.map((r: any) => r.error?.field ?? r.status)).toEqual([
      'scope',
      'game_id',
      'scope',
      'created',
    ]);
    expect(reach.body.rows.slice(0, 3).map((r: any) => r.error.issue)).toEqual([
      'forbidden',
      'forbidden',
      'forbidden',
    ]);
  });

  it('answers 400 for a body that is not an import, storing nothing', async () => {
    const a = await publisher();
    const bodies: unknown[] = [
      [],
      { batch_id: 'b1' },
      { batch_id: 'b1', rows: [] },
      { batch_id: 'b 1', rows: [row()] },
      { batch_id: 'b1', rows: Array.from({ length: 501 }, () => ({})) },
      { batch_id: 'b1', rows: [row()], extra: true },
      { batch_id: 'b1', rows: [row()], dry_run: 'yes' },
    ];
    for (const body of bodies) {
      const res = await api.request('POST', '/v1/imports', { key: a.key, game: 'g-imp', body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    const noGame = await api.request('POST', '/v1/imports', {
      key: a.key,
      body: { batch_id: 'b1', rows: [row()] },
    });
    expect(noGame.status).toBe(400);
    expect(await importItems(a.id)).toEqual([]);
    const everything = await api.items();
    expect(
      everything.filter(
        (item) =>
          String(item.pk) === `${partitions.importBatch}${a.id}` ||
          (String(item.pk) === `${partitions.audit}${a.id}` && item.type === 'bans.imported'),
      ),
    ).toEqual([]);
  });

  it('takes a body past the 64 KiB of other routes, up to 1 MiB (413 beyond, nothing stored)', async () => {
    const a = await publisher();
    const message = 'This device is banned for cheating. '.repeat(11);
    const rows = Array.from({ length: 100 }, () =>
      row({ player_message: message, details: { note: 'n'.repeat(300) } }),
    );
    const body = { batch_id: unique('batch'), rows };
    expect(JSON.stringify(body).length).toBeGreaterThan(64 * 1024);
    const res = await api.request('POST', '/v1/imports', { key: a.key, game: 'g-imp', body });
    expect(res.status).toBe(200);
    expect(res.body.counts.created).toBe(100);
    const huge = { batch_id: unique('batch'), rows: [row({ details: { blob: 'x'.repeat(1024 * 1024) } })] };
    const tooBig = await api.request('POST', '/v1/imports', { key: a.key, game: 'g-imp', body: huge });
    expect(tooBig.status).toBe(413);
    expect(await storedItem(importedRowKey(a.id, huge.rows[0]?.external_id as string))).toBeUndefined();
  });

  it('needs the scope bans:import, which bans:write alone does not give', async () => {
    const writer = await publisher({ scopes: ['bans:write', 'bans:read'] });
    const res = await importRows(writer.key, [row()]);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('bans:import');
    expect(await importItems(writer.id)).toEqual([]);
  });

  it('writes nothing on a dry run, and answers what the run would do', async () => {
    const a = await publisher();
    const imported = row();
    await importRows(a.key, [imported]);
    const before = await api.items();
    const fresh = row();
    const res = await importRows(a.key, [imported, fresh, row({ created_at: 'x' })], { dry_run: true });
    expect(res.status).toBe(200);
    expect(res.body.dry_run).toBe(true);
    expect(res.body.rows.map((r: any) => [r.status, r.ban_id === null])).toEqual([
      ['already_imported', false],
      ['created', true],
      ['refused', true],
    ]);
    expect(await api.items()).toEqual(before);
    expect(await storedItem(importedRowKey(a.id, fresh.external_id as string))).toBeUndefined();
  });

  it("keeps each publisher's imports its own: none of its bans seen, its external ids a space of their own", async () => {
    const a = await publisher();
    const b = await publisher();
    const shared = row({ scope: 'publisher' });
    const made = await importRows(a.key, [shared, row({ device_id: shared.device_id, scope: 'game' })]);
    expect(made.body.counts.created).toBe(2);
    expect((await listAll(b.key, shared.device_id as string)).items).toEqual([]);
    expect((await enforcement(b.key, shared.device_id as string)).restricted).toEqual({
      cheat: false,
      social: false,
    });
    // The same external id is new to another publisher: created, its own ban.
    const theirs = await importRows(b.key, [shared]);
    expect(theirs.body.rows[0]).toMatchObject({ status: 'created' });
    expect(theirs.body.rows[0].ban_id).not.toBe(made.body.rows[0].ban_id);
    expect((await listAll(b.key, shared.device_id as string)).items).toHaveLength(1);
    expect((await listAll(a.key, shared.device_id as string)).items).toHaveLength(2);
    const audit = await api.request('GET', '/v1/audit?type=bans.imported', { key: b.key });
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0].created).toBe(1);
  });

  it('carries ban.created, and ban.revoked for a revoked one, in the feed for imported bans', async () => {
    const a = await publisher();
    const device = unique('imp-feed');
    const res = await importRows(a.key, [
      row({ device_id: device, reason_code: 'kept' }),
      row({
        device_id: device,
        reason_code: 'lifted',
        created_at: '2018-01-01T00:00:00Z',
        revoked_at: '2018-02-01T00:00:00Z',
        revoke_reason_code: 'appeal_granted',
      }),
    ]);
    const [kept, lifted] = res.body.rows.map((r: any) => r.ban_id);
    await api.settle();
    const feed = await api.request('GET', '/v1/events?limit=100', { key: a.key, game: 'g-imp' });
    expect(feed.status).toBe(200);
    const mine = feed.body.items.filter((e: any) => e.device_id === device);
    expect(mine.map((e: any) => [e.type, e.ban.ban_id, e.occurred_at]).sort()).toEqual(
      [
        ['ban.created', kept, '2019-03-04T12:00:00.000Z'],
        ['ban.created', lifted, '2018-01-01T00:00:00.000Z'],
        ['ban.revoked', lifted, '2018-02-01T00:00:00.000Z'],
      ].sort(),
    );
    // Another publisher's feed carries none of them.
    const b = await publisher();
    const theirs = await api.request('GET', '/v1/events?limit=100', { key: b.key, game: 'g-imp' });
    expect(theirs.body.items.filter((e: any) => e.device_id === device)).toEqual([]);
  });

  it('sends webhooks one bans.imported event per batch and no event per imported ban', async () => {
    const a = await publisher();
    const hook = await api.request('POST', '/v1/webhooks', {
      key: a.key,
      body: { url: `${receiver.url}/hooks` },
    });
    expect(hook.status).toBe(201);
    const b = await publisher();
    const other = await api.request('POST', '/v1/webhooks', {
      key: b.key,
      body: { url: `${receiver.url}/hooks` },
    });
    const body = {
      batch_id: unique('batch'),
      rows: [
        row(),
        row({ revoked_at: '2019-03-05T00:00:00Z', revoke_reason_code: 'appeal_granted' }),
        row({ created_at: 'x' }),
      ],
    };
    const first = await api.request('POST', '/v1/imports', { key: a.key, game: 'g-imp', body });
    expect(first.body.counts).toMatchObject({ created: 2, refused: 1 });
    // A retry of the batch is the same batch: no second summary.
    await api.request('POST', '/v1/imports', { key: a.key, game: 'g-imp', body });
    // A native ban after it, whose event is delivered: everything before it has been dispatched.
    const native = await api.request('POST', '/v1/bans', {
      key: a.key,
      game: 'g-imp',
      body: { device_id: unique('imp-native'), ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
    });
    await api.settle();
    await receiver.waitFor(() =>
      receiver.verified(hook.body.secret).some((e) => e.ban?.ban_id === native.body.ban_id),
    );
    const delivered = receiver.verified(hook.body.secret);
    const summaries = delivered.filter((e) => e.type === 'bans.imported');
    expect(summaries).toEqual([
      {
        event_id: expect.stringMatching(/^evt_/),
        type: 'bans.imported',
        occurred_at: expect.any(String),
        publisher_id: a.id,
        device_id: null,
        import: { batch_id: body.batch_id, created: 2, already_imported: 0, changed: 0, refused: 1 },
      },
    ]);
    const importedIds = first.body.rows.map((r: any) => r.ban_id).filter((id: unknown) => id !== null);
    expect(delivered.filter((e) => importedIds.includes(e.ban?.ban_id))).toEqual([]);
    expect(receiver.verified(other.body.secret).filter((e) => e.type === 'bans.imported')).toEqual([]);
    // Listed among the webhook's deliveries.
    const deliveries = await api.request('GET', `/v1/webhooks/${hook.body.webhook_id}/deliveries`, {
      key: a.key,
    });
    expect(deliveries.body.items.filter((d: any) => d.type === 'bans.imported')).toHaveLength(1);
  });

  it('erases an imported ban with its record, so a re-import makes it anew rather than restore it', async () => {
    const a = await publisher();
    const erased = row();
    const first = await importRows(a.key, [erased]);
    const gone = await api.request('POST', `/v1/device/${erased.device_id}/erase`, { key: a.key });
    expect(gone.status).toBe(200);
    expect(gone.body.erased_bans).toBe(1);
    expect(await storedItem(importedRowKey(a.id, erased.external_id as string))).toBeUndefined();
    expect((await listAll(a.key, erased.device_id as string)).items).toEqual([]);
    const again = await importRows(a.key, [erased]);
    expect(again.body.rows[0].status).toBe('created');
    expect(again.body.rows[0].ban_id).not.toBe(first.body.rows[0].ban_id);
  });

  it('counts imported bans and their revocations in the transparency report on the days they happened', async () => {
    const a = await publisher();
    await importRows(a.key, [
      row({ created_at: '2019-06-01T10:00:00Z', reason_code: 'aimbot' }),
      row({
        created_at: '2019-06-01T11:00:00Z',
        reason_code: 'wallhack',
        revoked_at: '2019-06-03T09:00:00Z',
        revoke_reason_code: 'appeal_granted',
      }),
    ]);
    await api.settle();
    const res = await api.request('GET', '/v1/transparency-report?from=2019-06-01&to=2019-06-03', {
      key: a.key,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.restrictions).toMatchObject({ total: 2, by_reason: { aimbot: 1, wallhack: 1 } });
    expect(res.body.revocations).toBe(1);
    expect(res.body.by_day.map((d: any) => [d.day, d.restrictions.total, d.revocations])).toEqual([
      ['2019-06-01', 2, 0],
      ['2019-06-02', 0, 0],
      ['2019-06-03', 0, 1],
    ]);
    // Another publisher's report counts none of them.
    const b = await publisher();
    const theirs = await api.request('GET', '/v1/transparency-report?from=2019-06-01&to=2019-06-03', {
      key: b.key,
    });
    expect(theirs.body.restrictions.total).toBe(0);
  });
});
