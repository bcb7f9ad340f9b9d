import { exportKinds } from '@kernel/exports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRowSchema } from '../../lib/model/imports';
import { startTestApi, type TestApi } from '../support/api';
import { expectUnavailable, injectFaults } from '../support/faults';

/**
 * The export: `GET /v1/exports/{kind}` reads everything a publisher holds of one kind, in pages
 * that make one listing as of the first page, and `GET /v1/device/{device_id}/data` everything it
 * holds on one device. Each kind's content is what the test made, never a secret, never another
 * publisher's; bound keys are refused, a bad cursor is a 400, a store fault a 503. Runs on the
 * sources, the bundles, Node 24 and DynamoDB Local like every integration suite.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ events: false });
});
afterAll(() => api?.close());

let n = 0;
const unique = (prefix: string) => {
  n += 1;
  return `${prefix}-${Date.now().toString(36)}-${n}`;
};

const publisher = async () => {
  const id = unique('xp');
  const made = await api.createKey(id, 'export test');
  return { id, key: made.api_key, keyId: made.key_id };
};

const ban = async (key: string, body: Record<string, unknown>, game = 'g1') => {
  const res = await api.request('POST', '/v1/bans', {
    key,
    game,
    body: { ban_type: 'cheat', scope: 'game', reason_code: 'aimbot', allow_duplicate: true, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.ban_id as number;
};

const exportPage = (key: string, kind: string, query = '') =>
  api.request('GET', `/v1/exports/${kind}${query}`, { key });

/** Every item of an export, page by page, and its pages' answers. */
const exportAll = async (key: string, kind: string, limit = 500) => {
  const pages: Array<{ as_of: string; items: unknown[]; next_cursor: string | null }> = [];
  let cursor: string | null = null;
  do {
    const res = await exportPage(key, kind, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.kind).toBe(kind);
    pages.push(res.body);
    cursor = res.body.next_cursor;
  } while (cursor);
  return { items: pages.flatMap((page) => page.items) as any[], pages };
};

/** What only an export carries beside an import row. */
const asImportRow = ({ ban_id: _id, appeals: _a, updated_at: _u, previous_expires_at: _p, ...row }: any) =>
  row;

describe('the export of a publisher', () => {
  it('holds every ban the publisher made, revoked ones too, as import rows with their appeals', async () => {
    const owner = await publisher();
    const filer = await publisher();
    const device = unique('dev');
    const first = await ban(owner.key, {
      device_id: device,
      scope: 'global',
      details: { match: 'm-1', score: 3 },
      player_message: 'Banned for using an aimbot.',
    });
    const revokedDevice = unique('dev');
    const revoked = await ban(
      owner.key,
      { device_id: revokedDevice, ban_type: 'social', scope: 'publisher', reason_code: 'chat.spam' },
      'g2',
    );
    const done = await api.request('POST', `/v1/device/${revokedDevice}/bans/${revoked}/revoke`, {
      key: owner.key,
      game: 'g2',
      body: { reason_code: 'mistake' },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const filed = await api.request('POST', '/v1/appeals', {
      key: filer.key,
      game: 'g7',
      body: { device_id: device, ban_id: first, message: 'Not me.' },
    });
    expect(filed.status, JSON.stringify(filed.body)).toBe(201);
    // Another publisher's ban on the same device is never in the owner's export.
    await ban(filer.key, { device_id: device }, 'g7');

    const { items, pages } = await exportAll(owner.key, 'bans');
    expect(pages).toHaveLength(1);
    expect(items.map((item) => item.ban_id).sort()).toEqual([first, revoked].sort());
    const global = items.find((item) => item.ban_id === first);
    expect(global).toEqual({
      external_id: `ban:${first}`,
      device_id: device,
      ban_type: 'cheat',
      scope: 'global',
      reason_code: 'aimbot',
      game_id: 'g1',
      created_at: expect.stringMatching(/Z$/),
      expires_at: null,
      revoked_at: null,
      details: { match: 'm-1', score: 3 },
      player_message: 'Banned for using an aimbot.',
      statement: expect.objectContaining({ ground: 'terms' }),
      ban_id: first,
      appeals: [
        expect.objectContaining({
          appeal_id: filed.body.appeal_id,
          status: 'open',
          filed_by: { publisher_id: filer.id, game_id: 'g7' },
          message: 'Not me.',
          created_by: expect.objectContaining({ type: 'key', key_id: filer.keyId }),
        }),
      ],
    });
    expect(items.find((item) => item.ban_id === revoked)).toMatchObject({
      external_id: `ban:${revoked}`,
      device_id: revokedDevice,
      scope: 'publisher',
      game_id: 'g2',
      revoked_at: expect.stringMatching(/Z$/),
      revoke_reason_code: 'mistake',
      appeals: [],
    });
    // Each item is an import row once the export's own fields are set aside.
    for (const item of items) {
      const parsed = importRowSchema.safeParse(asImportRow(item));
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    }
    // The filer's export holds its own ban and the appeal it filed, never the owner's bans.
    const theirs = await exportAll(filer.key, 'bans');
    expect(theirs.items.map((item) => item.device_id)).toEqual([device]);
    expect(theirs.items[0].appeals).toEqual([]);
    const filedAppeals = await exportAll(filer.key, 'appeals');
    expect(filedAppeals.items).toEqual([
      expect.objectContaining({
        appeal_id: filed.body.appeal_id,
        ban_publisher_id: owner.id,
        message: 'Not me.',
      }),
    ]);
    const ownedAppeals = await exportAll(owner.key, 'appeals');
    expect(ownedAppeals.items.map((appeal) => appeal.appeal_id)).toEqual([filed.body.appeal_id]);
  });

  it("names an imported ban by the studio's external_id, a native one by ban:<ban_id>", async () => {
    const owner = await publisher();
    const device = unique('dev');
    const imported = await ban(owner.key, { device_id: device });
    const native = await ban(owner.key, { device_id: device, reason_code: 'wallhack' });
    // What an import stores on its ban (POST /v1/imports): the batch and the studio's id.
    const { dynamo, tableName } = await import('../../lib/storage/client');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { banKey } = await import('../../lib/storage/keys');
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: banKey(device, imported),
        UpdateExpression: 'SET imported = :imported',
        ExpressionAttributeValues: { ':imported': { batch_id: 'b-1', external_id: 'sourcebans:42' } },
      }),
    );
    const { items } = await exportAll(owner.key, 'bans');
    expect(Object.fromEntries(items.map((item) => [item.ban_id, item.external_id]))).toEqual({
      [imported]: 'sourcebans:42',
      [native]: `ban:${native}`,
    });
    const data = await api.request('GET', `/v1/device/${device}/data`, { key: owner.key });
    expect(data.body.bans.map((item: { external_id: string }) => item.external_id).sort()).toEqual(
      ['sourcebans:42', `ban:${native}`].sort(),
    );
  });

  it('pages a consistent listing as of the first page: bans made meanwhile are absent, none skipped or repeated', async () => {
    const owner = await publisher();
    const before: number[] = [];
    for (let i = 0; i < 7; i += 1) before.push(await ban(owner.key, { device_id: `${unique('pg')}-${i}` }));
    // `~` is the highest character a device id may hold: its bans sort last.
    before.push(await ban(owner.key, { device_id: `~${unique('tilde')}` }));
    const first = await exportPage(owner.key, 'bans', '?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(2);
    const seen = [...first.body.items];
    let cursor = first.body.next_cursor as string | null;
    const during: number[] = [];
    while (cursor) {
      // Bans made between pages, sorting before, among and after the pages' keys.
      during.push(await ban(owner.key, { device_id: `${unique('a')}` }));
      during.push(await ban(owner.key, { device_id: `${unique('zz')}` }));
      const res = await exportPage(owner.key, 'bans', `?limit=2&cursor=${cursor}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.as_of).toBe(first.body.as_of);
      seen.push(...res.body.items);
      cursor = res.body.next_cursor;
    }
    const ids = seen.map((item) => item.ban_id);
    expect([...ids].sort()).toEqual([...before].sort());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => during.includes(id))).toEqual([]);
    // A new export lists them all.
    expect((await exportAll(owner.key, 'bans')).items).toHaveLength(before.length + during.length);
  });

  it("pages the appeals of the publisher's bans, then those it filed, each once at any page size", async () => {
    const owner = await publisher();
    const [a, b] = [await publisher(), await publisher()];
    const file = async (key: string, game: string, device: string, banId: number) => {
      const res = await api.request('POST', '/v1/appeals', {
        key,
        game,
        body: { device_id: device, ban_id: banId, message: 'Not me.' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.appeal_id as string;
    };
    const own: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const device = `${unique('ap')}-${i}`;
      const banId = await ban(owner.key, { device_id: device, scope: 'global' });
      // Two filers of one ban: its appeals, oldest first.
      own.push(await file(a.key, 'ga', device, banId));
      own.push(await file(b.key, 'gb', device, banId));
    }
    const filed: string[] = [];
    for (const other of [a, b]) {
      const device = unique('theirs');
      filed.push(
        await file(owner.key, 'g1', device, await ban(other.key, { device_id: device, scope: 'global' })),
      );
    }
    for (const limit of [1, 2, 3, 500]) {
      const { items } = await exportAll(owner.key, 'appeals', limit);
      expect(
        items.map((appeal) => appeal.appeal_id),
        `limit ${limit}`,
      ).toEqual([...own, ...filed]);
    }
    // A filer's export: the appeal of its own ban, then those it filed; nothing of the other filer's.
    const ofA = (await exportAll(a.key, 'appeals')).items;
    expect(ofA.map((appeal) => appeal.appeal_id)).toEqual([filed[0], own[0], own[2]]);
    // Those it filed on the owner's bans name it as their filer.
    expect(ofA.slice(1).every((appeal) => appeal.filed_by.publisher_id === a.id)).toBe(true);
  });

  it('holds the trail oldest first, the policy, trust, reasons, webhooks and keys, never a secret', async () => {
    const owner = await publisher();
    const other = await publisher();
    await ban(owner.key, { device_id: unique('dev') });
    const hook = await api.request('POST', '/v1/webhooks', {
      key: owner.key,
      body: { url: 'https://hooks.example.com/receive?token=t0ps3cret' },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const secret = hook.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const policy = await api.request('PUT', '/v1/policy', {
      key: owner.key,
      body: { enforce_global: false },
    });
    expect(policy.status).toBe(200);

    const whole: Record<string, any[]> = {};
    for (const kind of exportKinds) whole[kind] = (await exportAll(owner.key, kind, 2)).items;
    const text = JSON.stringify(whole);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(owner.key);
    expect(text).not.toContain(owner.key.slice(-12));

    const audit = whole.audit as Array<{ type: string; occurred_at: string }>;
    expect(audit.map((event) => event.type)).toEqual([
      'key.created',
      'ban.created',
      'webhook.created',
      'policy.updated',
      // The exports read before this one (bans, appeals), each recorded once at its as_of.
      'data.exported',
      'data.exported',
    ]);
    expect(audit.map((event) => event.occurred_at)).toEqual(audit.map((event) => event.occurred_at).sort());
    expect(whole.policy).toEqual([(await api.request('GET', '/v1/policy', { key: owner.key })).body]);
    expect(whole.policy?.[0].enforce_global).toBe(false);
    expect(whole.trust).toEqual([
      {
        global_sources: whole.policy?.[0].global_sources,
        global_quorum: whole.policy?.[0].global_quorum,
        rep_global_sources: whole.policy?.[0].rep_global_sources,
        rep_global_quorum: whole.policy?.[0].rep_global_quorum,
      },
    ]);
    expect(whole.reasons).toEqual([(await api.request('GET', '/v1/reasons', { key: owner.key })).body]);
    expect(whole.webhooks).toEqual([
      {
        webhook_id: hook.body.webhook_id,
        url: 'https://hooks.example.com/receive?token=t0ps3cret',
        events: hook.body.events,
        games: null,
        created_at: hook.body.created_at,
      },
    ]);
    expect(whole.keys).toHaveLength(1);
    expect(Object.keys(whole.keys?.[0]).sort()).toEqual(
      ['key_id', 'name', 'scopes', 'games', 'created_at', 'expires_at', 'revoked_at', 'created_by'].sort(),
    );
    expect(whole.keys?.[0]).toMatchObject({
      key_id: owner.keyId,
      name: 'export test',
      scopes: null,
      games: null,
      revoked_at: null,
    });
    // Each export is recorded once, on its first page, with its kind and as_of.
    const events = await api.request('GET', '/v1/audit?type=data.exported&limit=50', { key: owner.key });
    expect(events.body.items.map((event: { kind: string }) => event.kind).sort()).toEqual(
      [...exportKinds].sort(),
    );

    // Another publisher's export holds nothing of the first's.
    const theirs: Record<string, unknown[]> = {};
    for (const kind of exportKinds) theirs[kind] = (await exportAll(other.key, kind)).items;
    const theirText = JSON.stringify(theirs);
    expect(theirText).not.toContain(owner.id);
    expect(theirText).not.toContain(hook.body.webhook_id);
    expect(theirs.bans).toEqual([]);
    expect(theirs.webhooks).toEqual([]);
  });

  it('refuses a key bound to games or without data:export (403), a bad kind, limit or cursor (400)', async () => {
    const owner = await publisher();
    const bound = (await api.createKey(owner.id, 'bound', { games: ['g1'] })).api_key;
    const reader = (await api.createKey(owner.id, 'reader', { scopes: ['bans:read', 'audit:read'] })).api_key;
    const exporter = (await api.createKey(owner.id, 'exporter', { scopes: ['data:export'] })).api_key;
    await ban(owner.key, { device_id: unique('dev') });
    await ban(owner.key, { device_id: unique('dev') });
    const before = await api.items();
    expect((await exportPage(bound, 'bans')).status).toBe(403);
    expect((await exportPage(reader, 'bans')).status).toBe(403);
    expect((await api.request('GET', `/v1/device/d-1/data`, { key: bound })).status).toBe(403);
    expect((await api.request('GET', `/v1/device/d-1/data`, { key: reader })).status).toBe(403);
    const badKind = await exportPage(exporter, 'secrets');
    expect(badKind.status).toBe(400);
    expect(badKind.body.error.details).toEqual([expect.objectContaining({ field: 'kind' })]);
    expect((await exportPage(exporter, 'bans', '?limit=1001')).status).toBe(400);
    const tampered = await exportPage(exporter, 'bans', '?cursor=bm90LWEtY3Vyc29y');
    expect(tampered.status).toBe(400);
    expect(tampered.body.error.details).toEqual([{ field: 'cursor', issue: 'invalid' }]);
    // Nothing was recorded by the refused requests.
    expect(await api.items()).toEqual(before);

    const page = await exportPage(exporter, 'bans', '?limit=1');
    expect(page.status).toBe(200);
    const cursor = page.body.next_cursor as string;
    // A cursor of another kind, or another publisher's, is a 400.
    expect((await exportPage(exporter, 'audit', `?cursor=${cursor}`)).status).toBe(400);
    const stranger = await publisher();
    expect((await exportPage(stranger.key, 'bans', `?cursor=${cursor}`)).status).toBe(400);
  });

  it.each([
    ['the index of banned devices', 'Query', 'BANNED#', 'bans'],
    ['a ban', 'GetItem', 'DEVICE#', 'bans'],
    ['an appeal', 'GetItem', 'APPEAL#', 'bans'],
    ['the trail', 'Query', 'AUDIT#', 'audit'],
    ['the event of the export', 'PutItem', 'AUDIT#', 'bans'],
    ['the policy', 'GetItem', 'PUBLISHER#', 'policy'],
    ['the reasons', 'GetItem', 'PUBLISHER#', 'reasons'],
    ['the keys', 'Query', 'PUBLISHER#', 'keys'],
    ['the webhooks', 'Query', 'WEBHOOKS#', 'webhooks'],
  ] as const)(
    'answers 503 when the store fails reading %s, and records nothing',
    async (_what, operation, keyPrefix, kind) => {
      const owner = await publisher();
      const other = await publisher();
      const device = unique('dev');
      const banId = await ban(owner.key, { device_id: device, scope: 'global' });
      const filed = await api.request('POST', '/v1/appeals', {
        key: other.key,
        game: 'g1',
        body: { device_id: device, ban_id: banId, message: 'Not me.' },
      });
      expect(filed.status).toBe(201);
      const { dynamo } = await import('../../lib/storage/client');
      const faults = injectFaults(dynamo);
      try {
        const before = await api.items();
        faults.fail({ operation, keyPrefix, error: 'ThrottlingException' });
        expectUnavailable(await exportPage(owner.key, kind));
        expect(faults.injected).toHaveLength(1);
        faults.clear();
        expect(await api.items()).toEqual(before);
        const retried = await exportPage(owner.key, kind);
        expect(retried.status).toBe(200);
      } finally {
        faults.remove();
      }
    },
  );
});

describe("the data held on one device (a data subject's request)", () => {
  it('holds its bans there with their history and appeals, the appeals it filed, and the events about it', async () => {
    const owner = await publisher();
    const filer = await publisher();
    const stranger = await publisher();
    const device = unique('dev');
    const own = await ban(owner.key, { device_id: device, scope: 'global' });
    await ban(owner.key, { device_id: unique('elsewhere') });
    const theirs = await ban(filer.key, { device_id: device, scope: 'global' }, 'g7');
    const appealOfOwn = await api.request('POST', '/v1/appeals', {
      key: filer.key,
      game: 'g7',
      body: { device_id: device, ban_id: own, message: 'Not me.' },
    });
    expect(appealOfOwn.status, JSON.stringify(appealOfOwn.body)).toBe(201);
    const appealFiled = await api.request('POST', '/v1/appeals', {
      key: owner.key,
      game: 'g1',
      body: { device_id: device, ban_id: theirs, message: 'Our player says it was not them.' },
    });
    expect(appealFiled.status, JSON.stringify(appealFiled.body)).toBe(201);
    const decided = await api.request('POST', `/v1/appeals/${appealOfOwn.body.appeal_id}/decision`, {
      key: owner.key,
      body: { outcome: 'overturned', note: 'Shared account.' },
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);

    const res = await api.request('GET', `/v1/device/${device}/data`, { key: owner.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.device_id).toBe(device);
    expect(res.body.bans).toEqual([
      expect.objectContaining({
        ban_id: own,
        external_id: `ban:${own}`,
        revoked_at: expect.stringMatching(/Z$/),
        appeals: [
          expect.objectContaining({
            appeal_id: appealOfOwn.body.appeal_id,
            status: 'decided',
            decision: expect.objectContaining({ outcome: 'overturned', note: 'Shared account.' }),
          }),
        ],
      }),
    ]);
    expect(res.body.appeals_filed).toEqual([
      expect.objectContaining({
        appeal_id: appealFiled.body.appeal_id,
        ban_id: theirs,
        ban_publisher_id: filer.id,
        message: 'Our player says it was not them.',
      }),
    ]);
    // The decision and the revocation it made may share a millisecond: compared as a set.
    expect(res.body.audit.map((event: { type: string }) => event.type).sort()).toEqual(
      ['ban.created', 'appeal.created', 'appeal.decided', 'ban.revoked'].sort(),
    );
    expect(res.body.audit[0].type).toBe('ban.created');
    const audit = res.body.audit as Array<{ occurred_at: string }>;
    expect(audit.map((e) => e.occurred_at)).toEqual(audit.map((e) => e.occurred_at).sort());

    // The other publisher's call shows only what it holds: its ban, its appeal of the owner's.
    const other = await api.request('GET', `/v1/device/${device}/data`, { key: filer.key });
    expect(other.status).toBe(200);
    expect(other.body.bans.map((b: { ban_id: number }) => b.ban_id)).toEqual([theirs]);
    expect(other.body.bans[0].appeals).toEqual([
      expect.objectContaining({ appeal_id: appealFiled.body.appeal_id, decision: null }),
    ]);
    expect(other.body.appeals_filed).toEqual([
      expect.objectContaining({
        appeal_id: appealOfOwn.body.appeal_id,
        // The filer's view: never the owner's note or who decided.
        decision: expect.objectContaining({ outcome: 'overturned', note: null, decided_by: null }),
      }),
    ]);
    expect(JSON.stringify(other.body)).not.toContain('Shared account.');
    // A publisher that holds nothing on the device gets nothing.
    const none = await api.request('GET', `/v1/device/${device}/data`, { key: stranger.key });
    expect(none.body).toMatchObject({ bans: [], appeals_filed: [], audit: [] });
    // Each call is recorded, about the device.
    const recorded = await api.request('GET', `/v1/audit?type=data.exported&device_id=${device}`, {
      key: owner.key,
    });
    expect(recorded.body.items).toEqual([
      expect.objectContaining({ kind: 'device', device_id: device, as_of: res.body.as_of }),
    ]);
  });

  it.each([
    ['Query', 'DEVICE#'],
    ['GetItem', 'APPEAL#'],
    ['Query', 'AUDIT#'],
    ['PutItem', 'AUDIT#'],
  ] as const)(
    'answers 503 when the store fails a %s of %s, and records nothing',
    async (operation, keyPrefix) => {
      const owner = await publisher();
      const other = await publisher();
      const device = unique('dev');
      const banId = await ban(owner.key, { device_id: device, scope: 'global' });
      const filed = await api.request('POST', '/v1/appeals', {
        key: other.key,
        game: 'g1',
        body: { device_id: device, ban_id: banId, message: 'Not me.' },
      });
      expect(filed.status).toBe(201);
      const { dynamo } = await import('../../lib/storage/client');
      const faults = injectFaults(dynamo);
      try {
        const before = await api.items();
        faults.fail({ operation, keyPrefix, error: 'InternalServerError' });
        expectUnavailable(await api.request('GET', `/v1/device/${device}/data`, { key: owner.key }));
        expect(faults.injected).toHaveLength(1);
        faults.clear();
        expect(await api.items()).toEqual(before);
        expect((await api.request('GET', `/v1/device/${device}/data`, { key: owner.key })).status).toBe(200);
      } finally {
        faults.remove();
      }
    },
  );
});
