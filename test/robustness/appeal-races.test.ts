import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appealIdOf, appealKey, banAppealAttribute, banKey, partitions } from '../../lib/storage/keys';
import { storedEvents } from '../support/audit';
import {
  appealTextsStored,
  banBody,
  createBan,
  queueEntries,
  startWithPublishers,
  storedItem,
  type TestApi,
  unique,
} from '../support/fixtures';

/**
 * Appeals racing the other writes to their ban, made to interleave exactly: a hook on the storage
 * client runs the other request to completion just before a chosen call of the filing reaches the
 * store. A revoke before the filing claims the ban, a revoke after it, and a decision made while
 * the filing is still putting its queue entry. In-process, on the embedded store and on DynamoDB
 * Local.
 */

const OWNER = 'appeal-race';
const FILER = 'appeal-race-filer';
const GAME = 'g-apr';
const FILER_GAME = 'g-apr-filer';
let api: TestApi;
let ownerKey: string;
let filerKey: string;

type Input = Record<string, any>;
let hook: { when: (operation: string, input: Input) => boolean; run: () => Promise<unknown> } | undefined;
let client: { middlewareStack: { add(m: unknown, o: object): void; remove(name: string): boolean } };

beforeAll(async () => {
  const started = await startWithPublishers([OWNER, FILER]);
  api = started.api;
  ownerKey = started.keys[OWNER];
  filerKey = started.keys[FILER];
  client = (await import('../../lib/storage/client')).dynamo as unknown as typeof client;
  client.middlewareStack.add(
    (next: (args: any) => Promise<any>, context: Record<string, any>) => async (args: { input: Input }) => {
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      const armed = hook;
      if (armed?.when(operation, args.input)) {
        hook = undefined; // once: the interleaved request's own calls pass through
        await armed.run();
      }
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: 'appealRaceHook' },
  );
});
afterAll(async () => {
  client?.middlewareStack.remove('appealRaceHook');
  await api?.close();
});

const item = storedItem;
const queueOf = async (appealId: string) =>
  (await queueEntries(OWNER, appealId)).map((e) => String(e.sk).slice(0, 5));
const appealEvents = async (publisher: string, appealId: string) =>
  (await storedEvents(publisher))
    .filter((e) => (e.appeal as { appeal_id?: string } | undefined)?.appeal_id === appealId)
    .map((e) => e.type);

/** The filing's claim of the ban: the update that names the appeal on it. */
const isClaim = (operation: string, input: Input) =>
  operation === 'UpdateItem' &&
  String(input.Key?.pk).startsWith(partitions.device) &&
  String(input.UpdateExpression).startsWith('SET #filed = if_not_exists(#filed');
/** The filing's put of the appeal's open entry in the owner's queue. */
const isOpenEntryPut = (operation: string, input: Input) =>
  operation === 'PutItem' && String(input.Item?.sk).startsWith('OPEN#');
/** The decision's put of the appeal's decided entry. */
const isDecidedEntryPut = (operation: string, input: Input) =>
  operation === 'PutItem' && String(input.Item?.sk).startsWith('DONE#');

const newBan = async () => {
  const device = unique('apr');
  const banId = await createBan(api, ownerKey, GAME, banBody({ device_id: device, scope: 'global' }));
  const body = { device_id: device, ban_id: banId, message: 'It was not me.', idempotency_key: unique('t') };
  return { device, banId, appealId: appealIdOf(banId, FILER), body };
};
const file = (body: Record<string, unknown>) =>
  api.request('POST', '/v1/appeals', { key: filerKey, game: FILER_GAME, body });
const revoke = (device: string, banId: number) =>
  api.request('POST', `/v1/device/${device}/bans/${banId}/revoke`, {
    key: ownerKey,
    game: GAME,
    body: { reason_code: 'support_ticket' },
  });
const erase = (device: string) => api.request('POST', `/v1/device/${device}/erase`, { key: ownerKey });
const textsOf = (appealId: string) => appealTextsStored(api, appealId);
const decide = (appealId: string, body: Record<string, unknown>) =>
  api.request('POST', `/v1/appeals/${appealId}/decision`, { key: ownerKey, body });

describe('an appeal filed while its ban is revoked', () => {
  it('refuses the filing and keeps nothing of it when the revoke lands between its read and its claim', async () => {
    const { device, banId, appealId, body } = await newBan();
    let revoked = 0;
    hook = { when: isClaim, run: async () => (revoked = (await revoke(device, banId)).status) };
    const res = await file(body);
    expect(revoked).toBe(200);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/revoked/);
    expect(await item(appealKey(appealId))).toBeUndefined();
    expect((await item(banKey(device, banId)))?.appeal_id).toBeUndefined();
    expect(await queueOf(appealId)).toEqual([]);
    expect(await appealEvents(FILER, appealId)).toEqual([]);
    expect((await api.request('GET', `/v1/appeals/${appealId}`, { key: filerKey })).status).toBe(404);
    // The retry is refused the same way, and the owner's queue never showed it.
    expect((await file(body)).status).toBe(409);
    expect(await item(appealKey(appealId))).toBeUndefined();
    const queue = await api.request('GET', '/v1/appeals?status=all', { key: ownerKey });
    expect(queue.body.items.map((a: { appeal_id: string }) => a.appeal_id)).not.toContain(appealId);
  });

  it('keeps the appeal when the revoke lands after the claim; its decision leaves the revoke as it was', async () => {
    const { device, banId, appealId, body } = await newBan();
    hook = { when: isOpenEntryPut, run: () => revoke(device, banId) };
    const res = await file(body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ appeal_id: appealId, status: 'open' });
    expect(await queueOf(appealId)).toEqual(['OPEN#']);
    const ban = await item(banKey(device, banId));
    expect(ban).toMatchObject({
      [banAppealAttribute(FILER)]: { appeal_id: appealId, status: 'open' },
      revoke_reason_code: 'support_ticket',
    });
    const decided = await decide(appealId, { outcome: 'overturned' });
    expect(decided.status).toBe(200);
    expect(await item(banKey(device, banId))).toMatchObject({
      revoke_reason_code: 'support_ticket',
      [banAppealAttribute(FILER)]: { appeal_id: appealId, status: 'decided', outcome: 'overturned' },
    });
    expect(await queueOf(appealId)).toEqual(['DONE#']);
    // The revoke's event is the owner's revoke, once; the decision adds no second one.
    const revokes = (await storedEvents(OWNER)).filter((e) => e.type === 'ban.revoked' && e.ban_id === banId);
    expect(revokes).toHaveLength(1);
    expect(revokes[0]).toMatchObject({ revoke_reason_code: 'support_ticket' });
  });
});

describe('an appeal decided while its filing is finishing', () => {
  it('leaves it out of the open queue and answers the filing with the decided appeal', async () => {
    const { appealId, body } = await newBan();
    let decision = 0;
    hook = {
      when: isOpenEntryPut,
      run: async () => (decision = (await decide(appealId, { outcome: 'upheld' })).status),
    };
    const res = await file(body);
    expect(decision).toBe(200);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      appeal_id: appealId,
      status: 'decided',
      decision: { outcome: 'upheld' },
    });
    expect(await queueOf(appealId)).toEqual(['DONE#']);
    const open = await api.request('GET', '/v1/appeals?status=open', { key: ownerKey });
    expect(open.body.items.map((a: { appeal_id: string }) => a.appeal_id)).not.toContain(appealId);
    expect(await appealEvents(FILER, appealId)).toEqual(['appeal.created']);
    expect(await appealEvents(OWNER, appealId)).toEqual(['appeal.decided']);
    // A retry of the filing answers the same, and puts nothing back in the open queue.
    const again = await file(body);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ result: 'idempotent_ok', status: 'decided' });
    expect(await queueOf(appealId)).toEqual(['DONE#']);
  });

  it('removes an open entry a stale retry of the filing puts back after the decision', async () => {
    const { appealId, body } = await newBan();
    expect((await file(body)).status).toBe(201);
    // The retry read the appeal as open; the decision then completes before its entry's put.
    hook = { when: isOpenEntryPut, run: () => decide(appealId, { outcome: 'upheld' }) };
    const res = await file(body);
    expect(res.status).toBe(200);
    expect(await queueOf(appealId)).toEqual(['DONE#']);
    expect(await appealEvents(FILER, appealId)).toEqual(['appeal.created']);
  });
});

describe('an appeal copied into the queue while its device is erased', () => {
  it("drops the player's texts from the open entry a filing puts meanwhile", async () => {
    const { device, appealId, body } = await newBan();
    hook = { when: isOpenEntryPut, run: () => erase(device) };
    expect((await file({ ...body, contact: 'player@example.com' })).status).toBe(201);
    expect(await queueOf(appealId)).toEqual(['OPEN#']);
    expect(await textsOf(appealId)).toEqual([]);
  });

  it("drops the player's texts from the decided entry a decision puts meanwhile", async () => {
    const { device, appealId, body } = await newBan();
    expect((await file({ ...body, contact: 'player@example.com' })).status).toBe(201);
    hook = { when: isDecidedEntryPut, run: () => erase(device) };
    const decided = await decide(appealId, { outcome: 'upheld' });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ message: null, contact: null });
    expect(await queueOf(appealId)).toEqual(['DONE#']);
    expect(await textsOf(appealId)).toEqual([]);
  });
});
