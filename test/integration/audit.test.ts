import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { defaultPolicyFlags } from '@kernel/policy-flags';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEventKey } from '../../lib/storage/keys';
import { auditPages, storedEvents } from '../support/audit';
import {
  banBody,
  createBan,
  postBan,
  revokeBan,
  startWithPublishers,
  storedBans,
  storedRecord,
  type TestApi,
  unique,
} from '../support/fixtures';

/**
 * The audit trail (`GET /v1/audit`) and erasure (`POST /v1/device/{id}/erase`): one event per
 * change that took effect, with the key that made it; none for a repeat or a refusal; only the
 * caller's own publisher's events; never a secret. Erasure removes the caller's bans and the
 * idempotency records holding them, and nothing of anyone else's.
 */

const PUBLISHERS = ['audit-a', 'audit-b', 'audit-c'] as const;
type Publisher = (typeof PUBLISHERS)[number];
const GAME = 'g-audit';
let api: TestApi;
let admin: Record<Publisher, string>;
/** A key per publisher with every scope, made through the API, so events name it. */
const ops = {} as Record<Publisher, { key: string; key_id: string; name: string }>;

beforeAll(async () => {
  ({ api, keys: admin } = await startWithPublishers(PUBLISHERS));
  for (const publisher of PUBLISHERS) {
    const res = await api.request('POST', '/v1/keys', {
      key: admin[publisher],
      body: {
        name: `${publisher} moderation`,
        scopes: ['bans:read', 'bans:write', 'policy:read', 'policy:write', 'keys:manage', 'audit:read'],
      },
    });
    expect(res.status).toBe(201);
    ops[publisher] = { key: res.body.api_key, key_id: res.body.key_id, name: res.body.name };
  }
});
afterAll(() => api?.close());

const actorOf = (publisher: Publisher) => ({
  type: 'key',
  key_id: ops[publisher].key_id,
  name: ops[publisher].name,
});
const audit = (publisher: Publisher, query = '') =>
  api.request('GET', `/v1/audit${query}`, { key: ops[publisher].key });
/** The publisher's newest events about `device`, through the API. */
const eventsAbout = async (publisher: Publisher, device: string) =>
  (await auditPages(api, ops[publisher].key, `device_id=${device}`)).events;
const erase = (publisher: Publisher, device: string, key = ops[publisher].key) =>
  api.request('POST', `/v1/device/${device}/erase`, { key });

describe('GET /v1/audit', () => {
  it('records a ban made, with what and where and who, never its details', async () => {
    const device = unique('aud');
    const body = banBody({ device_id: device, details: { note: 'private words' } });
    const banId = await createBan(api, ops['audit-a'].key, GAME, body);

    const events = await eventsAbout('audit-a', device);
    expect(events).toEqual([
      {
        type: 'ban.created',
        event_id: expect.stringMatching(/^evt_[A-Za-z0-9_-]{24}$/),
        occurred_at: expect.any(String),
        actor: actorOf('audit-a'),
        device_id: device,
        ban_id: banId,
        ban_type: 'cheat',
        scope: 'game',
        game_id: GAME,
        reason_code: 'aimbot',
        expires_at: null,
      },
    ]);
    expect(JSON.stringify(events)).not.toContain('private words');
  });

  it('records a revocation once: revoking again, or a refused revoke, adds nothing', async () => {
    const device = unique('aud');
    const banId = await createBan(api, ops['audit-a'].key, GAME, banBody({ device_id: device }));
    const first = await revokeBan(api, ops['audit-a'].key, GAME, device, banId, { reason_code: 'appeal.ok' });
    expect(first.status).toBe(200);
    const again = await revokeBan(api, ops['audit-a'].key, GAME, device, banId, { reason_code: 'other' });
    expect(again.status).toBe(200);
    // Another publisher, and another game of the owner, cannot see the game ban: 404, no event.
    expect((await revokeBan(api, ops['audit-b'].key, GAME, device, banId, { reason_code: 'x' })).status).toBe(
      404,
    );
    expect(
      (await revokeBan(api, ops['audit-a'].key, 'g-other', device, banId, { reason_code: 'x' })).status,
    ).toBe(404);

    const events = await eventsAbout('audit-a', device);
    expect(events.map((e) => e.type)).toEqual(['ban.revoked', 'ban.created']);
    expect(events[0]).toMatchObject({
      actor: actorOf('audit-a'),
      ban_id: banId,
      revoke_reason_code: 'appeal.ok',
      occurred_at: first.body.revoked_at,
    });
    expect(await eventsAbout('audit-b', device)).toEqual([]);
  });

  it('adds no event for an idempotent repeat, nor for a refused create', async () => {
    const device = unique('aud');
    const body = banBody({ device_id: device, idempotency_key: unique('idem') });
    expect((await postBan(api, ops['audit-a'].key, GAME, body)).status).toBe(201);
    expect((await postBan(api, ops['audit-a'].key, GAME, body)).status).toBe(200);
    expect((await postBan(api, ops['audit-a'].key, GAME, { ...body, ban_type: 'nope' })).status).toBe(400);
    expect(
      (
        await postBan(
          api,
          ops['audit-a'].key,
          GAME,
          banBody({ device_id: device, expires_at: '2020-01-01T00:00:00Z' }),
        )
      ).status,
    ).toBe(400);
    expect((await eventsAbout('audit-a', device)).map((e) => e.type)).toEqual(['ban.created']);
  });

  it('records each policy change with the eight flags before and after, replaying to the stored policy', async () => {
    const put = (body: Record<string, boolean>) =>
      api.request('PUT', '/v1/policy', { key: ops['audit-c'].key, body });
    expect((await put({ enforce_global: false })).status).toBe(200);
    expect((await put({ enforce_social_global: true, rep_include_game: true })).status).toBe(200);
    expect((await put({ enforce_global: 'yes' } as never)).status).toBe(400);

    const events = (await auditPages(api, ops['audit-c'].key, 'type=policy.updated')).events.reverse();
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      actor: actorOf('audit-c'),
      before: defaultPolicyFlags,
      after: { ...defaultPolicyFlags, enforce_global: false },
    });
    expect(events[1]?.before).toEqual(events[0]?.after);
    const stored = (await api.request('GET', '/v1/policy', { key: ops['audit-c'].key })).body;
    const { publisher_id: _p, updated_at, ...flags } = stored;
    expect(events[1]?.after).toEqual(flags);
    expect(events[1]?.occurred_at).toBe(updated_at);
  });

  it('records keys made and revoked, by whom, without their secrets; a second revoke adds nothing', async () => {
    const made = await api.request('POST', '/v1/keys', {
      key: ops['audit-b'].key,
      body: { name: 'temporary reader', scopes: ['bans:read'], games: [GAME] },
    });
    expect(made.status).toBe(201);
    const revoke = () =>
      api.request('POST', `/v1/keys/${made.body.key_id}/revoke`, { key: ops['audit-b'].key });
    expect((await revoke()).status).toBe(200);
    expect((await revoke()).status).toBe(200);
    // Another publisher cannot revoke it (404) and records nothing.
    expect(
      (await api.request('POST', `/v1/keys/${made.body.key_id}/revoke`, { key: ops['audit-c'].key })).status,
    ).toBe(404);

    const keyEvents = (await auditPages(api, ops['audit-b'].key)).events.filter(
      (e) => e.key?.key_id === made.body.key_id,
    );
    expect(keyEvents).toEqual([
      expect.objectContaining({
        type: 'key.revoked',
        actor: actorOf('audit-b'),
        key: { key_id: made.body.key_id, name: 'temporary reader' },
      }),
      expect.objectContaining({
        type: 'key.created',
        actor: actorOf('audit-b'),
        key: {
          key_id: made.body.key_id,
          name: 'temporary reader',
          scopes: ['bans:read'],
          games: [GAME],
          expires_at: null,
          // Made by a key: no expiry unless one was asked for.
          expiry: 'never',
        },
      }),
    ]);
    // No secret anywhere in any publisher's trail: neither the new key nor the ones in use.
    for (const publisher of PUBLISHERS) {
      const text = JSON.stringify(await storedEvents(publisher));
      for (const secret of [made.body.api_key, ...Object.values(admin), ...PUBLISHERS.map((p) => ops[p].key)])
        expect(text).not.toContain(secret);
      expect(text).not.toMatch(/bsk_/);
    }
  });

  it('lists newest first, filters by type and device, and pages through every event exactly once', async () => {
    const device = unique('aud-page');
    const ids: number[] = [];
    for (let i = 0; i < 7; i += 1)
      ids.push(await createBan(api, ops['audit-b'].key, GAME, banBody({ device_id: device })));
    const all = await auditPages(api, ops['audit-b'].key, `device_id=${device}`, 3);
    expect(all.pages).toBe(3);
    expect(all.events.map((e) => e.ban_id)).toEqual([...ids].reverse());
    const everything = await auditPages(api, ops['audit-b'].key, '', 4);
    expect(new Set(everything.events.map((e) => e.event_id)).size).toBe(everything.events.length);
    const stored = await storedEvents('audit-b');
    expect(everything.events).toEqual(stored);
    const times = everything.events.map((e) => e.occurred_at);
    expect([...times].sort().reverse()).toEqual(times);
    const created = await auditPages(api, ops['audit-b'].key, 'type=ban.created', 5);
    expect(created.events.every((e) => e.type === 'ban.created')).toBe(true);
    expect(created.events.length).toBe(stored.filter((e) => e.type === 'ban.created').length);
  });

  it("filters by actor: only what that key did, and nothing by another publisher's key", async () => {
    const device = unique('aud-actor');
    const mine = await createBan(api, ops['audit-c'].key, GAME, banBody({ device_id: device }));
    await createBan(api, admin['audit-c'], GAME, banBody({ device_id: device }));
    const byOps = await auditPages(
      api,
      ops['audit-c'].key,
      `device_id=${device}&actor=${ops['audit-c'].key_id}`,
    );
    expect(byOps.events.map((e) => [e.ban_id, e.actor])).toEqual([[mine, actorOf('audit-c')]]);
    const everyOps = await auditPages(api, ops['audit-c'].key, `actor=${ops['audit-c'].key_id}`);
    expect(everyOps.events.length).toBeGreaterThan(0);
    expect(everyOps.events.every((e) => e.actor.key_id === ops['audit-c'].key_id)).toBe(true);
    // Another publisher's key id matches none of this publisher's events.
    expect((await auditPages(api, ops['audit-c'].key, `actor=${ops['audit-a'].key_id}`)).events).toEqual([]);
  });

  it('filters by actor, device, type and time range, alone and combined: exactly the matching events, across pages', async () => {
    const [first, second] = [unique('aud-f1'), unique('aud-f2')];
    const trailBefore = (await storedEvents('audit-c')).length; // the trail before, for the counts below
    const made: number[] = [];
    const at = async (hours: number, work: () => Promise<unknown>) => {
      api.setClockOffset(hours * 3_600_000);
      await work();
    };
    const t0 = Date.now();
    try {
      for (const hours of [1, 3, 5]) {
        await at(hours, async () => {
          made.push(await createBan(api, ops['audit-c'].key, GAME, banBody({ device_id: first })));
          made.push(await createBan(api, admin['audit-c'], GAME, banBody({ device_id: second })));
          made.push(await createBan(api, ops['audit-c'].key, GAME, banBody({ device_id: second })));
          const revoked = await revokeBan(api, ops['audit-c'].key, GAME, second, made.at(-1) ?? 0, {
            reason_code: 'appeal_upheld',
          });
          expect(revoked.status).toBe(200);
        });
      }
    } finally {
      api.setClockOffset(0);
    }
    const stored = await storedEvents('audit-c');
    expect(stored.length).toBe(trailBefore + 12);
    const from = new Date(t0 + 2 * 3_600_000).toISOString();
    const to = new Date(t0 + 4 * 3_600_000).toISOString();
    const inRange = (e: Record<string, any>) => e.occurred_at >= from && e.occurred_at < to;
    const mine = (e: Record<string, any>) => e.actor.key_id === ops['audit-c'].key_id;
    for (const [query, match] of [
      [`actor=${ops['audit-c'].key_id}`, mine],
      [`device_id=${second}`, (e) => e.device_id === second],
      ['type=ban.revoked', (e) => e.type === 'ban.revoked'],
      [`from=${from}&to=${to}`, inRange],
      [`from=${from}`, (e) => e.occurred_at >= from],
      [`to=${encodeURIComponent(to.replace('Z', '+00:00'))}`, (e) => e.occurred_at < to],
      [
        `actor=${ops['audit-c'].key_id}&device_id=${second}&type=ban.created&from=${from}&to=${to}`,
        (e) => mine(e) && e.device_id === second && e.type === 'ban.created' && inRange(e),
      ],
      [
        `device_id=${second}&type=ban.revoked&from=${from}`,
        (e) => e.device_id === second && e.type === 'ban.revoked' && e.occurred_at >= from,
      ],
    ] as Array<[string, (e: Record<string, any>) => boolean]>) {
      const expected = stored.filter(match);
      expect(expected.length, query).toBeGreaterThan(0);
      const read = await auditPages(api, ops['audit-c'].key, query, 2);
      expect(read.events, query).toEqual(expected);
      expect(read.pages, query).toBe(Math.ceil(expected.length / 2));
    }
    // The middle hour's one combination: the ban the moderation key made on the second device.
    const middle = await auditPages(
      api,
      ops['audit-c'].key,
      `actor=${ops['audit-c'].key_id}&device_id=${second}&type=ban.created&from=${from}&to=${to}`,
    );
    expect(middle.events.map((e) => e.ban_id)).toEqual([made[5]]);
  });

  it('lists an event recorded before the indexes unfiltered and by type and time, not by actor or device', async () => {
    const device = unique('aud-old');
    const occurredAt = '2020-01-01T00:00:00.000Z';
    const event = {
      event_id: 'evt_OldEventOldEventOldEvent',
      occurred_at: occurredAt,
      actor: actorOf('audit-a'),
      type: 'ban.revoked',
      device_id: device,
      ban_id: 1,
      ban_type: 'cheat',
      scope: 'game',
      game_id: GAME,
      reason_code: 'aimbot',
      revoke_reason_code: 'appeal_upheld',
    };
    // As the trail stored it before: the event item alone, no copies under its actor or device.
    const { dynamo, tableName } = await import('../../lib/storage/client');
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...auditEventKey('audit-a', occurredAt, event.event_id),
          type: event.type,
          device_id: device,
          event,
        },
      }),
    );
    const upTo = 'to=2020-01-02T00:00:00Z';
    expect((await auditPages(api, ops['audit-a'].key, upTo)).events).toEqual([event]);
    expect((await auditPages(api, ops['audit-a'].key, `type=ban.revoked&${upTo}`)).events).toEqual([event]);
    expect(
      (await auditPages(api, ops['audit-a'].key, `actor=${ops['audit-a'].key_id}&${upTo}`)).events,
    ).toEqual([]);
    expect((await auditPages(api, ops['audit-a'].key, `device_id=${device}`)).events).toEqual([]);
  });

  it('refuses a cursor with other filters and a range that ends before it starts, changing nothing', async () => {
    const key = ops['audit-b'].key;
    const before = await storedEvents('audit-b');
    const page = await audit('audit-b', `?limit=1&actor=${ops['audit-b'].key_id}`);
    expect(page.body.next_cursor).toEqual(expect.any(String));
    for (const query of [
      `?cursor=${page.body.next_cursor}`,
      `?cursor=${page.body.next_cursor}&actor=${ops['audit-b'].key_id}&type=ban.created`,
      `?cursor=${page.body.next_cursor}&device_id=d-1`,
    ]) {
      const res = await api.request('GET', `/v1/audit${query}`, { key });
      expect(res.status, query).toBe(400);
      expect(res.body.error.details, query).toEqual([{ field: 'cursor', issue: 'invalid' }]);
    }
    const backwards = await audit('audit-b', '?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z');
    expect(backwards.status).toBe(400);
    expect(backwards.body.error.details).toEqual([expect.objectContaining({ field: 'to' })]);
    expect(await storedEvents('audit-b')).toEqual(before);
  });

  it('refuses a bad query in the envelope, naming the field', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=201', 'limit'],
      ['?type=ban.deleted', 'type'],
      ['?device_id=..', 'device_id'],
      ['?actor=a%20b', 'actor'],
      ['?from=yesterday', 'from'],
      ['?to=2026-02-30T00:00:00Z', 'to'],
      ['?from=2026-01-01T00:00:00', 'from'],
      ['?cursor=not*base64', 'cursor'],
      [`?cursor=${Buffer.from('2026-01-01#evt_x').toString('base64url')}`, 'cursor'],
      ['?colour=red', 'colour'],
    ] as const) {
      const res = await audit('audit-a', query);
      expect(res.status, query).toBe(400);
      expect(res.body.error.details, query).toEqual([expect.objectContaining({ field })]);
    }
  });

  it('is refused (403, naming the scope) to a key without audit:read', async () => {
    const res = await api.request('POST', '/v1/keys', {
      key: admin['audit-a'],
      body: { name: 'no audit', scopes: ['bans:read', 'bans:write'] },
    });
    const denied = await api.request('GET', '/v1/audit', { key: res.body.api_key });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toEqual({ code: 'forbidden', message: 'This key lacks the scope audit:read' });
  });

  it.each(PUBLISHERS.flatMap((a) => PUBLISHERS.filter((b) => b !== a).map((b) => [a, b] as const)))(
    "shows %s's changes to %s in no way, and refuses it the owner's cursor",
    async (owner, other) => {
      const device = unique('aud-iso');
      await createBan(api, ops[owner].key, GAME, banBody({ device_id: device, scope: 'global' }));
      expect(await eventsAbout(other, device)).toEqual([]);
      const mine = (await auditPages(api, ops[other].key)).events;
      expect(mine.every((e) => e.actor.key_id !== ops[owner].key_id)).toBe(true);
      expect(mine.map((e) => e.event_id)).toEqual((await storedEvents(other)).map((e) => e.event_id));
      // The owner's cursor is bound to the owner: the other publisher's use of it is refused.
      const page = await audit(owner, '?limit=1');
      const borrowed = await audit(other, `?cursor=${page.body.next_cursor}`);
      expect(borrowed.status).toBe(400);
      expect(borrowed.body.error.details).toEqual([{ field: 'cursor', issue: 'invalid' }]);
      expect(borrowed.body.items).toBeUndefined();
    },
  );
});

describe('POST /v1/device/{device_id}/erase', () => {
  it("deletes the caller's bans of every scope and game and their idempotency records, and no one else's", async () => {
    const device = unique('erase');
    const idem = unique('idem');
    const mine = [
      await createBan(api, ops['audit-a'].key, GAME, banBody({ device_id: device, idempotency_key: idem })),
      await createBan(api, ops['audit-a'].key, 'g-two', banBody({ device_id: device, scope: 'publisher' })),
      await createBan(api, ops['audit-a'].key, GAME, banBody({ device_id: device, scope: 'global' })),
    ];
    const theirs = await createBan(
      api,
      ops['audit-b'].key,
      GAME,
      banBody({ device_id: device, scope: 'global' }),
    );
    expect(await storedRecord('audit-a', GAME, idem)).toBeDefined();

    const res = await erase('audit-a', device);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ device_id: device, erased_bans: 3 });

    const left = await storedBans(device);
    expect(left.map((item) => item.ban_id)).toEqual([theirs]);
    expect(await storedRecord('audit-a', GAME, idem)).toBeUndefined();
    // The other publisher still sees its ban; the owner sees only that one.
    const seen = await api.request('GET', `/v1/device/${device}/bans?status=all`, {
      key: ops['audit-a'].key,
      game: GAME,
    });
    expect(seen.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual([theirs]);
    // The audit keeps the count, not what the bans were; the creations stay recorded.
    const events = await eventsAbout('audit-a', device);
    expect(events[0]).toEqual({
      type: 'device.erased',
      event_id: expect.stringMatching(/^evt_/),
      occurred_at: expect.any(String),
      actor: actorOf('audit-a'),
      device_id: device,
      erased_bans: 3,
    });
    expect(
      events
        .filter((e) => e.type === 'ban.created')
        .map((e) => e.ban_id)
        .sort(),
    ).toEqual([...mine].sort());
    expect(await eventsAbout('audit-b', device)).toHaveLength(1);
  });

  it('answers 0 and records nothing when there is nothing (left) to erase', async () => {
    const device = unique('erase');
    await createBan(api, ops['audit-c'].key, GAME, banBody({ device_id: device }));
    expect((await erase('audit-c', device)).body.erased_bans).toBe(1);
    expect((await erase('audit-c', device)).body).toEqual({ device_id: device, erased_bans: 0 });
    expect((await erase('audit-c', unique('never'))).body.erased_bans).toBe(0);
    expect((await eventsAbout('audit-c', device)).map((e) => e.type)).toEqual([
      'device.erased',
      'ban.created',
    ]);
  });

  it('lets an erased idempotency key make a new ban (the record that remembered it is gone)', async () => {
    const device = unique('erase');
    const body = banBody({ device_id: device, idempotency_key: unique('idem') });
    const first = await postBan(api, ops['audit-b'].key, GAME, body);
    await erase('audit-b', device);
    const again = await postBan(api, ops['audit-b'].key, GAME, body);
    expect(again.status).toBe(201);
    expect(again.body.ban_id).not.toBe(first.body.ban_id);
  });

  it('is refused to a key without bans:write, and to a key bound to games (erasure covers every game)', async () => {
    const device = unique('erase');
    await createBan(api, ops['audit-a'].key, GAME, banBody({ device_id: device }));
    const reader = await api.request('POST', '/v1/keys', {
      key: admin['audit-a'],
      body: { name: 'reader', scopes: ['bans:read'] },
    });
    const bound = await api.request('POST', '/v1/keys', {
      key: admin['audit-a'],
      body: { name: 'bound writer', scopes: ['bans:write'], games: [GAME] },
    });
    const noScope = await erase('audit-a', device, reader.body.api_key);
    expect(noScope.status).toBe(403);
    expect(noScope.body.error.message).toBe('This key lacks the scope bans:write');
    const gameBound = await erase('audit-a', device, bound.body.api_key);
    expect(gameBound.status).toBe(403);
    expect(gameBound.body.error.message).toBe(
      'This key is bound to games, and this operation covers every game',
    );
    expect(await storedBans(device)).toHaveLength(1);
  });

  it('refuses a bad device id with 400, erasing nothing', async () => {
    const res = await erase('audit-a', 'bad%20id');
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'device_id' })]);
  });

  it.each(PUBLISHERS.flatMap((a) => PUBLISHERS.filter((b) => b !== a).map((b) => [a, b] as const)))(
    "lets %s erase nothing of %s's",
    async (caller, owner) => {
      const device = unique('erase-iso');
      const ids = [
        await createBan(api, ops[owner].key, GAME, banBody({ device_id: device, scope: 'global' })),
        await createBan(api, ops[owner].key, GAME, banBody({ device_id: device, scope: 'publisher' })),
      ];
      expect((await erase(caller, device)).body.erased_bans).toBe(0);
      expect((await storedBans(device)).map((b) => b.ban_id).sort()).toEqual(ids.sort());
      expect(await eventsAbout(caller, device)).toEqual([]);
    },
  );
});
