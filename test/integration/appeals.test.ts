import { CLAIM_DEFAULT_SECONDS } from '@kernel/appeal-claims';
import type { Scope } from '@kernel/scopes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../support/api';
import { startTestApi } from '../support/api';

/**
 * Appeals: a game server files a player's appeal of a ban enforced against their device,
 * the ban's owner decides it, and the decision takes effect on the ban. Three publishers throughout:
 * the owner of a global ban, another that enforces it and files, and a third that sees nothing of
 * either's appeals. Runs on the sources, the bundles, Node 24 and DynamoDB Local.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

let n = 0;
const unique = (prefix: string) => {
  n += 1;
  return `${prefix}-${Date.now().toString(36)}-${n}`;
};

const publisher = async () => {
  const id = unique('ap');
  const key = (await api.createKey(id, 'appeals test')).api_key;
  return { id, key };
};

const MESSAGE = 'I was not cheating.\nMy brother played on my console that evening.';

const ban = async (key: string, body: Record<string, unknown>, game = 'g1') => {
  const res = await api.request('POST', '/v1/bans', {
    key,
    game,
    body: { ban_type: 'cheat', scope: 'global', reason_code: 'aimbot', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.ban_id as number;
};

const file = (key: string, body: Record<string, unknown>, game = 'g1') =>
  api.request('POST', '/v1/appeals', { key, game, body: { message: MESSAGE, ...body } });

const decide = (key: string, appealId: string, body: Record<string, unknown>) =>
  api.request('POST', `/v1/appeals/${appealId}/decision`, { key, body });

const appealItems = async () => (await api.items()).filter((item) => String(item.pk).startsWith('APPEAL'));

describe('filing an appeal', () => {
  it("files an appeal of another publisher's global ban enforced here, which only its owner and the filer can read", async () => {
    const owner = await publisher();
    const filer = await publisher();
    const stranger = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device, player_message: 'Banned for cheating.' });

    const filed = await file(filer.key, { device_id: device, ban_id: banId, contact: 'p@example.com' }, 'g7');
    expect(filed.status).toBe(201);
    expect(filed.body).toMatchObject({
      status: 'open',
      device_id: device,
      ban_id: banId,
      ban_publisher_id: owner.id,
      filed_by: { publisher_id: filer.id, game_id: 'g7' },
      message: MESSAGE,
      contact: 'p@example.com',
      decision: null,
      result: 'created',
    });
    const appealId = filed.body.appeal_id as string;
    expect(appealId).toMatch(/^apl_[A-Za-z0-9_-]{22}$/);

    // Stored: the record, the owner's queue entry, and the ban names its appeal.
    const items = await appealItems();
    expect(items.filter((item) => item.pk === `APPEAL#${appealId}`)).toHaveLength(1);
    expect(items.filter((item) => item.pk === `APPEALS#${owner.id}`).map((item) => String(item.sk))).toEqual([
      expect.stringMatching(new RegExp(`^OPEN#.*#${appealId}$`)),
    ]);
    expect(items.some((item) => item.pk === `APPEALS#${filer.id}`)).toBe(false);

    // The owner and the filer see that it is appealed; the enforcement answer says so. The
    // stranger, which enforces the ban too, sees no appeal: it may file its own.
    for (const [who, game, appeal] of [
      [owner, 'g1', { appeal_id: appealId, status: 'open', outcome: null }],
      [filer, 'g7', { appeal_id: appealId, status: 'open', outcome: null }],
      [stranger, 'g3', null],
    ] as const) {
      const answer = await api.request('GET', `/v1/device/${device}/enforcement`, { key: who.key, game });
      expect(answer.body.bans[0]).toMatchObject({
        ban_id: banId,
        player_message: 'Banned for cheating.',
        appealable: true,
        appeal,
      });
    }

    // The owner's queue has it; the filer's and the stranger's have nothing.
    const queue = await api.request('GET', '/v1/appeals', { key: owner.key });
    expect(queue.status).toBe(200);
    expect(queue.body.items.map((a: { appeal_id: string }) => a.appeal_id)).toEqual([appealId]);
    for (const other of [filer, stranger]) {
      const theirs = await api.request('GET', '/v1/appeals', { key: other.key });
      expect(theirs.body).toEqual({ items: [], next_cursor: null });
    }
    // By id: owner and filer; the stranger gets the 404 of an unknown id.
    expect((await api.request('GET', `/v1/appeals/${appealId}`, { key: owner.key })).body.message).toBe(
      MESSAGE,
    );
    expect((await api.request('GET', `/v1/appeals/${appealId}`, { key: filer.key })).status).toBe(200);
    const strangers = await api.request('GET', `/v1/appeals/${appealId}`, { key: stranger.key });
    expect(strangers.status).toBe(404);
    expect(strangers.body.error.message).toBe('No such appeal');
    // Nor can the stranger or the filer decide it.
    for (const other of [filer, stranger]) {
      const before = await appealItems();
      expect((await decide(other.key, appealId, { outcome: 'overturned' })).status).toBe(404);
      expect(await appealItems()).toEqual(before);
    }
  });

  it('answers a repeat with the same key as idempotent_ok, and any other second appeal with a 409 naming the first', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device, scope: 'game' });
    const first = await file(owner.key, { device_id: device, ban_id: banId, idempotency_key: 'ticket-1' });
    expect(first.status).toBe(201);
    const repeat = await file(owner.key, {
      device_id: device,
      ban_id: banId,
      idempotency_key: 'ticket-1',
      message: 'different words, same request',
    });
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({
      appeal_id: first.body.appeal_id,
      message: MESSAGE,
      result: 'idempotent_ok',
    });
    // Without a key, the same words from the same game are the same appeal.
    const other = await file(owner.key, { device_id: device, ban_id: banId, idempotency_key: 'ticket-2' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('conflict');
    expect(other.body.error.message).toBe(
      `This ban already has an open appeal from your publisher: ${first.body.appeal_id}`,
    );
    const items = await appealItems();
    expect(items.filter((item) => item.pk === `APPEALS#${owner.id}`)).toHaveLength(1);
  });

  it('refuses bans that cannot be appealed, each with its reason, and stores nothing', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const revoked = await ban(owner.key, { device_id: device, scope: 'game' });
    await api.request('POST', `/v1/device/${device}/bans/${revoked}/revoke`, {
      key: owner.key,
      game: 'g1',
      body: { reason_code: 'mistake' },
    });
    const unappealable = await ban(owner.key, { device_id: device, scope: 'game', appealable: false });
    const otherGame = await ban(owner.key, { device_id: device, scope: 'game' }, 'g2');
    const otherDevice = await ban(owner.key, { device_id: unique('dev'), scope: 'game' });
    // A global social ban, not enforced under the default policy (enforce_social_global is off).
    const notEnforced = await ban(owner.key, {
      device_id: device,
      ban_type: 'social',
      reason_code: 'toxicity',
    });
    const before = await appealItems();
    const cases: Array<[number, number, string]> = [
      [revoked, 409, 'This ban was revoked at'],
      [unappealable, 409, 'This ban cannot be appealed (appealable: false)'],
      [notEnforced, 409, 'This ban is not enforced against the device in this game under your policy'],
      [otherGame, 404, 'No such ban on this device'],
      [otherDevice, 404, 'No such ban on this device'],
      [987654321, 404, 'No such ban on this device'],
    ];
    for (const [banId, status, message] of cases) {
      const res = await file(owner.key, { device_id: device, ban_id: banId });
      expect(res.status, String(banId)).toBe(status);
      expect(res.body.error.message).toContain(message);
    }
    expect(await appealItems()).toEqual(before);
  });

  it('refuses an expired ban', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, {
      device_id: device,
      scope: 'game',
      expires_at: new Date(Date.now() + 1500).toISOString(),
    });
    // Past its expiry: the API's clock set forward (for the rest of this file), not waited for.
    api.setClockOffset(2_000);
    const res = await file(owner.key, { device_id: device, ban_id: banId });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/^This ban expired at /);
  });

  it('checks every field: limits counted as a player reads them, newlines in the message, no control characters', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device, scope: 'game' });
    const before = await appealItems();
    const refused: Array<[Record<string, unknown>, string, string]> = [
      [{ message: 'x'.repeat(2001) }, 'message', 'too_big'],
      [{ message: '' }, 'message', 'too_small'],
      [{ message: '   \n  ' }, 'message', 'invalid_format'],
      [{ message: 'tab\there' }, 'message', 'invalid_format'],
      [{ message: 'evil \u202Etxt' }, 'message', 'invalid_format'],
      [{ contact: 'a\nb' }, 'contact', 'invalid_format'],
      [{ contact: 'c'.repeat(255) }, 'contact', 'too_big'],
      [{ ban_id: 0 }, 'ban_id', 'too_small'],
      [{ ban_id: '12' }, 'ban_id', 'invalid_type'],
      [{ device_id: '..' }, 'device_id', 'invalid_format'],
      [{ idempotency_key: 'é' }, 'idempotency_key', 'invalid_format'],
      [{ extra: 1 }, 'extra', 'unknown_field'],
    ];
    for (const [body, field, issue] of refused) {
      const res = await file(owner.key, { device_id: device, ban_id: banId, ...body });
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(res.body.error.details).toContainEqual({ field, issue });
    }
    expect(await appealItems()).toEqual(before);
    const longest = await file(owner.key, { device_id: device, ban_id: banId, message: '😀'.repeat(2000) });
    expect(longest.status).toBe(201);
  });

  it('needs appeals:write to file and appeals:decide to read the queue and decide', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device, scope: 'game' });
    const reader = (await api.createKey(owner.id, 'reader', { scopes: ['bans:read'] })).api_key;
    const server = (await api.createKey(owner.id, 'server', { scopes: ['appeals:write'] })).api_key;
    const moderator = (await api.createKey(owner.id, 'mod', { scopes: ['appeals:decide'] })).api_key;
    const refused = await file(reader, { device_id: device, ban_id: banId });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('This key lacks the scope appeals:write');
    const filed = await file(server, { device_id: device, ban_id: banId });
    expect(filed.status).toBe(201);
    expect((await api.request('GET', '/v1/appeals', { key: server })).status).toBe(403);
    expect((await api.request('GET', '/v1/appeals/stats', { key: server })).status).toBe(403);
    expect((await decide(server, filed.body.appeal_id, { outcome: 'upheld' })).status).toBe(403);
    const byReader = await api.request('GET', `/v1/appeals/${filed.body.appeal_id}`, { key: reader });
    expect(byReader.body.error.message).toBe('This key lacks the scope appeals:decide or appeals:write');
    expect((await api.request('GET', `/v1/appeals/${filed.body.appeal_id}`, { key: server })).status).toBe(
      200,
    );
    expect((await decide(moderator, filed.body.appeal_id, { outcome: 'upheld' })).status).toBe(200);
  });
});

describe('one appeal per ban and filing publisher', () => {
  it("lets each publisher that enforces a ban appeal it: a squatter's filing takes no one else's; the owner sees them together; an overturn ends the ban for everyone", async () => {
    const owner = await publisher();
    const squatter = await publisher();
    const filer = await publisher();
    const stranger = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device });

    // The squatter files first, with junk; the player's own game files next, and is not refused.
    const junk = await file(squatter.key, { device_id: device, ban_id: banId, message: 'x' }, 'g-junk');
    expect(junk.status).toBe(201);
    const real = await file(filer.key, { device_id: device, ban_id: banId, contact: 'p@example.com' }, 'g7');
    expect(real.status, JSON.stringify(real.body)).toBe(201);
    expect(real.body).toMatchObject({
      filed_by: { publisher_id: filer.id, game_id: 'g7' },
      result: 'created',
    });
    const junkId = junk.body.appeal_id as string;
    const realId = real.body.appeal_id as string;
    expect(realId).not.toBe(junkId);
    // Each publisher still appeals once: the squatter's second filing names its first.
    const again = await file(squatter.key, { device_id: device, ban_id: banId, message: 'again' }, 'g-other');
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe(
      `This ban already has an open appeal from your publisher: ${junkId}`,
    );

    // Stored: two appeals, two open entries in the owner's queue, and the ban names each under its filer.
    const stored = await appealItems();
    expect(stored.filter((item) => item.sk === 'APPEAL').map((item) => item.pk)).toEqual(
      expect.arrayContaining([`APPEAL#${junkId}`, `APPEAL#${realId}`]),
    );
    const entries = stored.filter((item) => item.pk === `APPEALS#${owner.id}`).map((item) => String(item.sk));
    expect(entries).toEqual([
      expect.stringMatching(new RegExp(`^OPEN#.*#${junkId}$`)),
      expect.stringMatching(new RegExp(`^OPEN#.*#${realId}$`)),
    ]);
    const banItem = (await api.items()).find(
      (item) => item.pk === `DEVICE#${device}` && String(item.sk).startsWith('BAN#'),
    );
    expect(banItem).toMatchObject({
      [`appeal#${squatter.id}`]: { appeal_id: junkId, status: 'open' },
      [`appeal#${filer.id}`]: { appeal_id: realId, status: 'open' },
    });
    expect(banItem?.appeal_id).toBeUndefined();

    // Each filer sees its own appeal on the ban, the owner the latest, the stranger none.
    const shown = async (who: { key: string }, game: string) =>
      (await api.request('GET', `/v1/device/${device}/bans?status=all`, { key: who.key, game })).body
        .items[0];
    expect((await shown(squatter, 'g-junk')).appeal).toEqual({
      appeal_id: junkId,
      status: 'open',
      outcome: null,
    });
    expect((await shown(filer, 'g7')).appeal).toEqual({ appeal_id: realId, status: 'open', outcome: null });
    expect((await shown(owner, 'g1')).appeal).toEqual({ appeal_id: realId, status: 'open', outcome: null });
    expect((await shown(stranger, 'g3')).appeal).toBeNull();
    // The squatter reads only its own; the owner's queue shows the ban's appeals together.
    expect((await api.request('GET', `/v1/appeals/${realId}`, { key: squatter.key })).status).toBe(404);
    const together = await api.request('GET', `/v1/appeals?ban_id=${banId}`, { key: owner.key });
    expect(together.body.items.map((a: { appeal_id: string }) => a.appeal_id)).toEqual([junkId, realId]);

    // Upholding the junk leaves the player's appeal open and the ban in force.
    expect((await decide(owner.key, junkId, { outcome: 'upheld' })).status).toBe(200);
    expect((await shown(filer, 'g7')).appeal).toEqual({ appeal_id: realId, status: 'open', outcome: null });
    expect((await shown(squatter, 'g-junk')).appeal).toEqual({
      appeal_id: junkId,
      status: 'decided',
      outcome: 'upheld',
    });
    // Overturning the player's ends the ban for every publisher that enforced it.
    expect((await decide(owner.key, realId, { outcome: 'overturned' })).status).toBe(200);
    for (const [who, game] of [
      [owner, 'g1'],
      [squatter, 'g-junk'],
      [filer, 'g7'],
      [stranger, 'g3'],
    ] as const) {
      const answer = await api.request('GET', `/v1/device/${device}/enforcement`, { key: who.key, game });
      expect(answer.body.restricted).toEqual({ cheat: false, social: false });
      expect(await shown(who, game)).toMatchObject({
        revoke_reason_code: 'appeal_overturned',
        enforced: false,
      });
    }
    expect((await shown(filer, 'g7')).appeal).toEqual({
      appeal_id: realId,
      status: 'decided',
      outcome: 'overturned',
    });
    // A revoked ban takes no new appeal.
    const late = await file(stranger.key, { device_id: device, ban_id: banId }, 'g3');
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/^This ban was revoked at /);
    // Each filer's feed has its own appeal's events; the owner's has both.
    await api.settle();
    const appealEvents = async (key: string, game: string) =>
      (await api.request('GET', '/v1/events?limit=500', { key, game })).body.items
        .filter((event: { type: string }) => event.type.startsWith('appeal.'))
        .map(
          (event: { type: string; appeal: { appeal_id: string } }) =>
            `${event.type} ${event.appeal.appeal_id}`,
        );
    expect((await appealEvents(owner.key, 'g1')).sort()).toEqual(
      [
        `appeal.created ${junkId}`,
        `appeal.created ${realId}`,
        `appeal.decided ${junkId}`,
        `appeal.decided ${realId}`,
      ].sort(),
    );
    expect(await appealEvents(squatter.key, 'g-junk')).toEqual([
      `appeal.created ${junkId}`,
      `appeal.decided ${junkId}`,
    ]);
    expect(await appealEvents(filer.key, 'g7')).toEqual([
      `appeal.created ${realId}`,
      `appeal.decided ${realId}`,
    ]);
    expect(await appealEvents(stranger.key, 'g3')).toEqual([]);
  });
});

describe('reading an appeal by id', () => {
  it("shows the owner's view only to appeals:decide; appeals:write alone reads only what its publisher filed, as filer", async () => {
    const owner = await publisher();
    const filer = await publisher();
    const stranger = await publisher();
    const device = unique('dev');
    const global = await ban(owner.key, { device_id: device });
    const own = await ban(owner.key, { device_id: device, scope: 'game' });
    const ownerServer = (await api.createKey(owner.id, 'server', { scopes: ['appeals:write'] })).api_key;
    const filerServer = (await api.createKey(filer.id, 'server', { scopes: ['appeals:write'] })).api_key;
    const filed = await file(
      filerServer,
      { device_id: device, ban_id: global, contact: 'p@example.com' },
      'g7',
    );
    const theirs = filed.body.appeal_id as string;
    const mineFiled = await file(ownerServer, {
      device_id: device,
      ban_id: own,
      idempotency_key: 'ticket-9',
    });
    const mine = mineFiled.body.appeal_id as string;
    const note = 'Private: checked the logs.';
    for (const id of [theirs, mine])
      expect((await decide(owner.key, id, { outcome: 'upheld', note })).status).toBe(200);
    const stored = await appealItems();

    // The owner's moderators (appeals:decide) read all of either.
    for (const id of [theirs, mine]) {
      const full = await api.request('GET', `/v1/appeals/${id}`, { key: owner.key });
      expect(full.status).toBe(200);
      expect(full.body.decision).toMatchObject({ note, decided_by: { type: 'key', name: 'appeals test' } });
    }
    // The owner's game server (appeals:write) does not read another publisher's appeal of its ban:
    // not its player's words, nor the note, nor the decider; the 404 of an unknown id.
    const refused = await api.request('GET', `/v1/appeals/${theirs}`, { key: ownerServer });
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 'not_found', message: 'No such appeal' });
    expect(JSON.stringify(refused.body)).not.toContain('p@example.com');
    // It reads the one its publisher filed, as the filer does: no note, no decider.
    for (const [key, id, contact] of [
      [ownerServer, mine, null],
      [filerServer, theirs, 'p@example.com'],
      [filer.key, theirs, 'p@example.com'],
    ] as const) {
      const read = await api.request('GET', `/v1/appeals/${id}`, { key });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ appeal_id: id, message: MESSAGE, contact });
      expect(read.body.decision).toMatchObject({ outcome: 'upheld', note: null, decided_by: null });
    }
    // A filing's repeat answers the filer's view too, even to the ban's owner.
    const repeat = await file(ownerServer, { device_id: device, ban_id: own, idempotency_key: 'ticket-9' });
    expect(repeat.status).toBe(200);
    expect(repeat.body.decision).toMatchObject({ outcome: 'upheld', note: null, decided_by: null });
    // A third publisher reads neither, whatever its scopes; nothing was changed by any read.
    for (const id of [theirs, mine])
      expect((await api.request('GET', `/v1/appeals/${id}`, { key: stranger.key })).status).toBe(404);
    expect(await appealItems()).toEqual(stored);
  });
});

describe('deciding an appeal', () => {
  it('overturns: the ban is revoked as a revoke does, the player sees the new message, and the decision is final', async () => {
    const owner = await publisher();
    const filer = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device });
    const filed = await file(filer.key, { device_id: device, ban_id: banId }, 'g7');
    const appealId = filed.body.appeal_id as string;
    const body = {
      outcome: 'overturned',
      note: 'Shared account; proven.',
      player_message: 'Your ban was lifted.',
    };
    const decided = await decide(owner.key, appealId, body);
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({
      status: 'decided',
      decision: {
        outcome: 'overturned',
        note: 'Shared account; proven.',
        player_message: 'Your ban was lifted.',
        expires_at: null,
        decided_by: { type: 'key', name: 'appeals test' },
      },
    });
    expect(decided.body.decision.applied_at).not.toBeNull();

    const after = await api.request('GET', `/v1/device/${device}/enforcement`, {
      key: filer.key,
      game: 'g7',
    });
    expect(after.body.restricted).toEqual({ cheat: false, social: false });
    const listed = await api.request('GET', `/v1/device/${device}/bans?status=all`, {
      key: owner.key,
      game: 'g1',
    });
    expect(listed.body.items[0]).toMatchObject({
      ban_id: banId,
      revoke_reason_code: 'appeal_overturned',
      player_message: 'Your ban was lifted.',
      appeal: { appeal_id: appealId, status: 'decided', outcome: 'overturned' },
      enforced: false,
    });
    // The filer follows it without the owner's note and decider.
    const theirs = await api.request('GET', `/v1/appeals/${appealId}`, { key: filer.key });
    expect(theirs.body.decision).toMatchObject({ outcome: 'overturned', note: null, decided_by: null });

    // The same decision again finishes nothing new; another is a 409.
    expect((await decide(owner.key, appealId, body)).status).toBe(200);
    const other = await decide(owner.key, appealId, { outcome: 'upheld' });
    expect(other.status).toBe(409);
    expect(other.body.error.message).toMatch(
      /^This appeal was decided \(overturned\) by key appeals test \(/,
    );
    expect(other.body.error.holder).toMatchObject({
      reason: 'decided',
      at: decided.body.decision.decided_at,
    });

    // The queue moved it to the decided ones; the audit trails say who did what, once each.
    const open = await api.request('GET', '/v1/appeals', { key: owner.key });
    expect(open.body.items).toEqual([]);
    const done = await api.request('GET', '/v1/appeals?status=decided', { key: owner.key });
    expect(done.body.items.map((a: { appeal_id: string }) => a.appeal_id)).toEqual([appealId]);
    const ownerAudit = await api.request('GET', '/v1/audit', { key: owner.key });
    const ownerTypes = ownerAudit.body.items.map((e: { type: string }) => e.type);
    // The decision, its revoke and new message share one instant; the ban was made before them.
    expect(ownerTypes.filter((type: string) => !type.startsWith('key.')).sort()).toEqual([
      'appeal.decided',
      'ban.created',
      'ban.revoked',
      'ban.updated',
    ]);
    const filerAudit = await api.request('GET', '/v1/audit?type=appeal.created', { key: filer.key });
    expect(filerAudit.body.items).toHaveLength(1);
    expect(filerAudit.body.items[0].appeal).toMatchObject({ appeal_id: appealId, status: 'open' });
  });

  it('shortens: the expiry moves earlier, only to a time in the future and before the current one', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const until = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const banId = await ban(owner.key, { device_id: device, scope: 'publisher', expires_at: until });
    const appealId = (await file(owner.key, { device_id: device, ban_id: banId })).body.appeal_id as string;
    const before = await appealItems();
    const refused: Array<[Record<string, unknown>, string, string]> = [
      [{ outcome: 'shortened' }, 'expires_at', 'required'],
      [{ outcome: 'upheld', expires_at: until }, 'expires_at', 'not_allowed'],
      [{ outcome: 'shortened', expires_at: '2020-01-01T00:00:00Z' }, 'expires_at', 'in_past'],
      [
        { outcome: 'shortened', expires_at: new Date(Date.now() + 40 * 86_400_000).toISOString() },
        'expires_at',
        'too_big',
      ],
      [{ outcome: 'shortened', expires_at: until }, 'expires_at', 'too_big'],
      [{ outcome: 'pardoned' }, 'outcome', 'invalid_value'],
      [{ outcome: 'upheld', note: 'n'.repeat(2001) }, 'note', 'too_big'],
      [{ outcome: 'upheld', player_message: 'two\nlines' }, 'player_message', 'invalid_format'],
    ];
    for (const [body, field, issue] of refused) {
      const res = await decide(owner.key, appealId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details).toContainEqual({ field, issue });
    }
    expect(await appealItems()).toEqual(before);
    const sooner = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const decided = await decide(owner.key, appealId, { outcome: 'shortened', expires_at: sooner });
    expect(decided.status).toBe(200);
    expect(decided.body.decision).toMatchObject({ outcome: 'shortened', expires_at: sooner });
    const listed = await api.request('GET', `/v1/device/${device}/bans`, { key: owner.key, game: 'g1' });
    expect(listed.body.items[0]).toMatchObject({
      ban_id: banId,
      expires_at: sooner,
      revoked_at: null,
      enforced: true,
    });
    const audit = await api.request('GET', '/v1/audit?type=ban.updated', { key: owner.key });
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({
      ban_id: banId,
      previous_expires_at: until,
      expires_at: sooner,
    });
  });

  it('upholds: the ban stays, and notes the outcome', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device, scope: 'game' });
    const appealId = (await file(owner.key, { device_id: device, ban_id: banId })).body.appeal_id as string;
    expect((await decide(owner.key, appealId, { outcome: 'upheld' })).status).toBe(200);
    const answer = await api.request('GET', `/v1/device/${device}/enforcement`, {
      key: owner.key,
      game: 'g1',
    });
    expect(answer.body.restricted.cheat).toBe(true);
    expect(answer.body.bans[0].appeal).toEqual({ appeal_id: appealId, status: 'decided', outcome: 'upheld' });
    // A publisher appeals a ban once.
    const again = await file(owner.key, { device_id: device, ban_id: banId, message: 'please reconsider' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('was decided (upheld): a publisher appeals a ban once');
  });

  it('records a decision on a ban revoked meanwhile without changing it, and refuses to shorten it', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device, scope: 'game' });
    const appealId = (await file(owner.key, { device_id: device, ban_id: banId })).body.appeal_id as string;
    await api.request('POST', `/v1/device/${device}/bans/${banId}/revoke`, {
      key: owner.key,
      game: 'g1',
      body: { reason_code: 'support_ticket' },
    });
    const shorten = await decide(owner.key, appealId, {
      outcome: 'shortened',
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(shorten.status).toBe(409);
    expect((await decide(owner.key, appealId, { outcome: 'overturned' })).status).toBe(200);
    const listed = await api.request('GET', `/v1/device/${device}/bans?status=all`, {
      key: owner.key,
      game: 'g1',
    });
    expect(listed.body.items[0]).toMatchObject({
      revoke_reason_code: 'support_ticket',
      appeal: { status: 'decided', outcome: 'overturned' },
    });
  });

  it('lets exactly one of two different decisions made at once win', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device, scope: 'game' });
    const appealId = (await file(owner.key, { device_id: device, ban_id: banId })).body.appeal_id as string;
    const answers = await Promise.all([
      decide(owner.key, appealId, { outcome: 'upheld' }),
      decide(owner.key, appealId, { outcome: 'overturned' }),
      decide(owner.key, appealId, { outcome: 'upheld', note: 'third' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    const winner = answers.find((a) => a.status === 200)?.body.decision.outcome;
    const listed = await api.request('GET', `/v1/device/${device}/bans?status=all`, {
      key: owner.key,
      game: 'g1',
    });
    expect(listed.body.items[0].appeal.outcome).toBe(winner);
    expect(listed.body.items[0].revoked_at !== null).toBe(winner === 'overturned');
    const audit = await api.request('GET', '/v1/audit?type=appeal.decided', { key: owner.key });
    expect(audit.body.items).toHaveLength(1);
  });
});

describe('claiming an appeal', () => {
  /** A team of one publisher: two moderators (appeals:decide only) and an admin (every scope). */
  const team = async () => {
    const owner = await publisher();
    const member = async (name: string, scopes: Scope[] | null) => {
      const made = await api.createKey(owner.id, name, { scopes });
      return { key: made.api_key, actor: { type: 'key', key_id: made.key_id, name } };
    };
    return {
      owner,
      a: await member('moderator a', ['appeals:decide']),
      b: await member('moderator b', ['appeals:decide']),
      admin: await member('admin', null),
    };
  };
  const claim = (key: string, appealId: string, body: Record<string, unknown> = {}) =>
    api.request('POST', `/v1/appeals/${appealId}/claim`, { key, body });
  const release = (key: string, appealId: string) =>
    api.request('DELETE', `/v1/appeals/${appealId}/claim`, { key });
  const read = (key: string, appealId: string) => api.request('GET', `/v1/appeals/${appealId}`, { key });
  const stored = async (appealId: string) =>
    (await appealItems()).filter((item) => item.pk === `APPEAL#${appealId}`);

  it("holds an appeal for one moderator: another's claim or decision is a 409 naming the holder until when; an admin takes over; a claim ends with its time", async () => {
    const { owner, a, b, admin } = await team();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device, scope: 'game' });
    const appealId = (await file(owner.key, { device_id: device, ban_id: banId })).body.appeal_id as string;

    const start = Date.now();
    const claimed = await claim(a.key, appealId);
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(claimed.body).toMatchObject({ appeal_id: appealId, status: 'open', claimed_by: a.actor });
    const until = Date.parse(claimed.body.claimed_until);
    expect(until - start).toBeGreaterThanOrEqual(CLAIM_DEFAULT_SECONDS * 1000 - 5_000);
    expect(until - start).toBeLessThanOrEqual(CLAIM_DEFAULT_SECONDS * 1000 + 5_000);
    // The queue and the appeal by id show the holder to every moderator.
    const queue = await api.request('GET', '/v1/appeals', { key: b.key });
    expect(queue.body.items[0]).toMatchObject({ appeal_id: appealId, claimed_by: a.actor });
    expect((await read(b.key, appealId)).body.claimed_until).toBe(claimed.body.claimed_until);

    // B can neither claim nor decide it: each 409 names A and the claim's end; nothing changes.
    const held = { reason: 'claimed', actor: a.actor, until: claimed.body.claimed_until };
    const before = await appealItems();
    const second = await claim(b.key, appealId);
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: 'conflict', holder: held });
    expect(second.body.error.message).toContain('moderator a');
    const decidedByB = await decide(b.key, appealId, { outcome: 'upheld', note: 'looked fine' });
    expect(decidedByB.status).toBe(409);
    expect(decidedByB.body.error.holder).toMatchObject(held);
    // Taking over needs keys:manage.
    const grab = await claim(b.key, appealId, { take_over: true });
    expect(grab.status).toBe(403);
    expect(await appealItems()).toEqual(before);

    // A renews (the same claim, a new end); the admin takes it over, and A may no longer decide.
    const renewed = await claim(a.key, appealId, { duration_seconds: 120 });
    expect(renewed.status).toBe(200);
    expect(Date.parse(renewed.body.claimed_until)).toBeLessThan(until);
    const taken = await claim(admin.key, appealId, { take_over: true });
    expect(taken.body).toMatchObject({ claimed_by: admin.actor });
    const refused = await decide(a.key, appealId, { outcome: 'upheld' });
    expect(refused.body.error.holder).toMatchObject({ reason: 'claimed', actor: admin.actor });
    // The admin lets it go; B claims it for a minute, which ends when the clock passes it.
    const released = await release(admin.key, appealId);
    expect(released.body).toMatchObject({ claimed_by: null, claimed_until: null });
    const brief = await claim(b.key, appealId, { duration_seconds: 60 });
    expect(brief.status).toBe(200);
    api.setClockOffset(Date.parse(brief.body.claimed_until) - Date.now() + 1_000);
    try {
      expect((await read(a.key, appealId)).body).toMatchObject({ claimed_by: null, claimed_until: null });
      const listed = await api.request('GET', '/v1/appeals', { key: a.key });
      expect(listed.body.items[0]).toMatchObject({ appeal_id: appealId, claimed_by: null });
      // Ended: A decides without claiming again; B's decision after it names A and when.
      const decided = await decide(a.key, appealId, { outcome: 'upheld', note: 'A' });
      expect(decided.status).toBe(200);
      const late = await decide(b.key, appealId, { outcome: 'overturned', note: 'B' });
      expect(late.status).toBe(409);
      expect(late.body.error.holder).toEqual({
        reason: 'decided',
        actor: a.actor,
        at: decided.body.decision.decided_at,
        until: null,
      });
      expect((await claim(b.key, appealId)).body.error.holder).toMatchObject({ reason: 'decided' });
      expect((await read(b.key, appealId)).body).toMatchObject({ decision: { note: 'A' }, claimed_by: null });
    } finally {
      api.setClockOffset(0);
    }

    // The audit: each new claim (the take-over naming whom from) and each release, not renewals.
    const audit = async (type: string) =>
      (await api.request('GET', `/v1/audit?type=${type}`, { key: owner.key })).body.items;
    expect((await audit('appeal.claimed')).map((e: { actor: unknown }) => e.actor)).toEqual([
      b.actor,
      admin.actor,
      a.actor,
    ]);
    expect((await audit('appeal.claimed'))[1]).toMatchObject({ taken_over_from: a.actor, device_id: device });
    expect(await audit('appeal.released')).toEqual([
      expect.objectContaining({ actor: admin.actor, claimed_by: admin.actor }),
    ]);
  });

  it('checks the duration, and lets another publisher neither claim, release nor see a claim', async () => {
    const { owner, a } = await team();
    const filer = await publisher();
    const stranger = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device });
    const appealId = (await file(filer.key, { device_id: device, ban_id: banId }, 'g7')).body
      .appeal_id as string;
    for (const [body, field, issue] of [
      [{ duration_seconds: 59 }, 'duration_seconds', 'too_small'],
      [{ duration_seconds: 3601 }, 'duration_seconds', 'too_big'],
      [{ until: '2030-01-01T00:00:00Z' }, 'until', 'unknown_field'],
    ] as const) {
      const res = await claim(a.key, appealId, body);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field, issue }]);
    }
    expect(await stored(appealId)).toEqual([expect.not.objectContaining({ claim: expect.anything() })]);

    expect((await claim(a.key, appealId)).status).toBe(200);
    const before = await appealItems();
    for (const other of [filer, stranger]) {
      expect((await claim(other.key, appealId)).status).toBe(404);
      expect((await release(other.key, appealId)).status).toBe(404);
    }
    expect(await appealItems()).toEqual(before);
    // The filer reads its appeal without the owner's claim; the stranger reads nothing.
    expect((await read(filer.key, appealId)).body).toMatchObject({ claimed_by: null, claimed_until: null });
    expect((await read(stranger.key, appealId)).status).toBe(404);
  });
});

describe('the queue, the numbers, the events and erasure', () => {
  it('pages the open queue oldest first, then decided newest first with status=all, and filters by device', async () => {
    const owner = await publisher();
    const devices = [unique('dev'), unique('dev'), unique('dev')];
    const ids: string[] = [];
    for (const device of devices) {
      const banId = await ban(owner.key, { device_id: device, scope: 'game' });
      ids.push((await file(owner.key, { device_id: device, ban_id: banId })).body.appeal_id);
    }
    await decide(owner.key, ids[1] as string, { outcome: 'upheld' });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: { appeal_id: string }[]; next_cursor: string | null } } =
        await api.request('GET', `/v1/appeals?status=all&limit=1${cursor ? `&cursor=${cursor}` : ''}`, {
          key: owner.key,
        });
      seen.push(...page.body.items.map((a) => a.appeal_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([ids[0], ids[2], ids[1]]);
    const one = await api.request('GET', `/v1/appeals?status=all&device_id=${devices[2]}`, {
      key: owner.key,
    });
    expect(one.body.items.map((a: { appeal_id: string }) => a.appeal_id)).toEqual([ids[2]]);
    // The queue says what reading the appeal says: a decided one was applied, when it was.
    const decided = await api.request('GET', '/v1/appeals?status=decided', { key: owner.key });
    const read = await api.request('GET', `/v1/appeals/${ids[1]}`, { key: owner.key });
    expect(read.body.decision.applied_at).not.toBeNull();
    expect(decided.body.items).toEqual([read.body]);
    const bad = await api.request('GET', '/v1/appeals?cursor=bm9wZQ', { key: owner.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ field: 'cursor', issue: 'invalid' }]);
  });

  it('counts the open queue and the decisions of the last 30 days', async () => {
    const owner = await publisher();
    const empty = await api.request('GET', '/v1/appeals/stats', { key: owner.key });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({
      open: 0,
      oldest_open_at: null,
      decided: 0,
      outcomes: { upheld: 0, overturned: 0, shortened: 0 },
      time_to_decision_seconds: { median: null, p90: null },
      window_days: 30,
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const device = unique('dev');
      const banId = await ban(owner.key, { device_id: device, scope: 'game' });
      ids.push((await file(owner.key, { device_id: device, ban_id: banId })).body.appeal_id);
    }
    const decided = [
      (await decide(owner.key, ids[0] as string, { outcome: 'upheld' })).body,
      (await decide(owner.key, ids[1] as string, { outcome: 'overturned' })).body,
    ];
    // Nearest rank over the whole seconds each took: of two, the median is the shorter, p90 the longer.
    const took = decided
      .map((a) => Math.round((Date.parse(a.decision.decided_at) - Date.parse(a.created_at)) / 1000))
      .sort((a, b) => a - b);
    const stats = await api.request('GET', '/v1/appeals/stats', { key: owner.key });
    expect(stats.body).toMatchObject({
      open: 1,
      decided: 2,
      outcomes: { upheld: 1, overturned: 1, shortened: 0 },
      time_to_decision_seconds: { median: took[0], p90: took[1] },
    });
    expect(stats.body.oldest_open_age_seconds).toBeGreaterThanOrEqual(0);
    // Complete days were rolled up once (29 of them, none with decisions); today is read live.
    const rollups = (await api.items()).filter(
      (item) => item.pk === `APPEALS#${owner.id}` && String(item.sk).startsWith('DAY#'),
    );
    expect(rollups.length).toBeGreaterThanOrEqual(28);
    expect(rollups.every((item) => (item.seconds as number[]).length === 0)).toBe(true);
  });

  it("reports appeal.created and appeal.decided in the owner's and the filer's feeds, and nobody else's", async () => {
    const owner = await publisher();
    const filer = await publisher();
    const stranger = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device });
    const appealId = (await file(filer.key, { device_id: device, ban_id: banId }, 'g7')).body.appeal_id;
    await decide(owner.key, appealId, { outcome: 'overturned' });
    await api.settle();
    const appealEvents = async (key: string, game: string) =>
      (await api.request('GET', '/v1/events?limit=500', { key, game })).body.items.filter(
        (event: { type: string }) => event.type.startsWith('appeal.'),
      );
    for (const [who, game] of [
      [owner, 'g1'],
      [filer, 'g7'],
    ] as const) {
      const events = await appealEvents(who.key, game);
      expect(events.map((e: { type: string }) => e.type)).toEqual(['appeal.created', 'appeal.decided']);
      expect(events[1]).toMatchObject({
        device_id: device,
        appeal: { appeal_id: appealId, ban_id: banId, status: 'decided', outcome: 'overturned' },
      });
      expect(JSON.stringify(events)).not.toContain(MESSAGE.slice(0, 10));
    }
    expect(await appealEvents(stranger.key, 'g1')).toEqual([]);
  });

  it('gives a key bound to games, in the feed, only the appeal events of its games, as a webhook bound to them takes', async () => {
    const owner = await publisher();
    const filer = await publisher();
    const device = unique('dev');
    const inG1 = await ban(owner.key, { device_id: device, scope: 'game' }, 'g1');
    const inG2 = await ban(owner.key, { device_id: device, scope: 'game' }, 'g2');
    const global = await ban(owner.key, { device_id: device });
    const filed = async (key: string, deviceId: string, banId: number, game: string) => {
      const res = await file(key, { device_id: deviceId, ban_id: banId }, game);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.appeal_id as string;
    };
    const g1Appeal = await filed(owner.key, device, inG1, 'g1');
    const g2Appeal = await filed(owner.key, device, inG2, 'g2');
    const g7Appeal = await filed(filer.key, device, global, 'g7');
    const g8Device = unique('dev');
    const g8Global = await ban(owner.key, { device_id: g8Device });
    const g8Appeal = await filed(filer.key, g8Device, g8Global, 'g8');
    for (const id of [g1Appeal, g2Appeal, g7Appeal, g8Appeal])
      expect((await decide(owner.key, id, { outcome: 'upheld' })).status).toBe(200);
    await api.settle();

    const appealsIn = (items: Array<{ type: string; appeal?: { appeal_id: string } }>) =>
      items.filter((event) => event.type.startsWith('appeal.')).map((e) => [e.type, e.appeal?.appeal_id]);
    const read = async (key: string, game: string, limit = 500) => {
      const pages: Array<Array<{ type: string; appeal?: { appeal_id: string } }>> = [];
      let cursor: string | undefined;
      for (;;) {
        const res = await api.request(
          'GET',
          `/v1/events?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
          {
            key,
            game,
          },
        );
        expect(res.status).toBe(200);
        pages.push(res.body.items);
        cursor = res.body.next_cursor;
        if (res.body.items.length === 0) return pages;
      }
    };
    const both = (id: string) => [
      ['appeal.created', id],
      ['appeal.decided', id],
    ];
    // Keys bound to no game read every appeal of their publisher, as owner or as filer.
    const ownerAll = appealsIn((await read(owner.key, 'g1')).flat());
    expect(ownerAll.sort()).toEqual([g1Appeal, g2Appeal, g7Appeal, g8Appeal].flatMap(both).sort());
    expect(appealsIn((await read(filer.key, 'g7')).flat()).sort()).toEqual(
      [g7Appeal, g8Appeal].flatMap(both).sort(),
    );
    // Bound to g1, the owner's key reads the appeals of its g1 game bans only (not g2's, and not
    // of a global ban, which no one game holds); bound to g7, the filer's those it filed from g7.
    const ownerG1 = (await api.createKey(owner.id, 'g1 server', { scopes: ['bans:read'], games: ['g1'] }))
      .api_key;
    const filerG7 = (await api.createKey(filer.id, 'g7 server', { scopes: ['bans:read'], games: ['g7'] }))
      .api_key;
    expect(appealsIn((await read(ownerG1, 'g1')).flat())).toEqual(both(g1Appeal));
    expect(appealsIn((await read(filerG7, 'g7')).flat())).toEqual(both(g7Appeal));
    // Page by page, an empty page still means caught up: no page before the last is empty, and the
    // pages hold the same events as one read.
    const pages = await read(ownerG1, 'g1', 1);
    expect(pages.slice(0, -1).every((page) => page.length === 1)).toBe(true);
    expect(pages.flat()).toEqual((await read(ownerG1, 'g1')).flat());
  });

  it("drops the player's texts when the device is erased, by the owner or by the filer", async () => {
    const owner = await publisher();
    const filer = await publisher();
    const device = unique('dev');
    const own = await ban(owner.key, { device_id: device, scope: 'game' });
    const global = await ban(owner.key, { device_id: device });
    const ownAppeal = (await file(owner.key, { device_id: device, ban_id: own, contact: 'me@example.com' }))
      .body.appeal_id;
    const filedAppeal = (
      await file(filer.key, { device_id: device, ban_id: global, contact: 'p@x.io' }, 'g7')
    ).body.appeal_id;
    // The filer erases what it holds of the device: it made no bans, but it filed an appeal.
    const byFiler = await api.request('POST', `/v1/device/${device}/erase`, { key: filer.key });
    expect(byFiler.body.erased_bans).toBe(0);
    const filed = await api.request('GET', `/v1/appeals/${filedAppeal}`, { key: owner.key });
    expect(filed.body).toMatchObject({ message: null, contact: null, status: 'open' });
    expect(filed.body.erased_at).not.toBeNull();
    await api.request('POST', `/v1/device/${device}/erase`, { key: owner.key });
    const mine = await api.request('GET', `/v1/appeals/${ownAppeal}`, { key: owner.key });
    expect(mine.body).toMatchObject({ message: null, contact: null });
    const queue = await api.request('GET', '/v1/appeals', { key: owner.key });
    for (const appeal of queue.body.items) expect(appeal).toMatchObject({ message: null, contact: null });
    await api.settle();
    const stored = JSON.stringify(await api.items({ derived: true }));
    expect(stored).not.toContain('me@example.com');
    expect(stored).not.toContain('p@x.io');
  });
});
