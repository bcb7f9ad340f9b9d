import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { scopes } from '@kernel/scopes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../../lib/domain/change-events';
import type { DeliveryRef } from '../../lib/domain/deliveries';
import {
  createBanRequestSchema,
  createWebhookRequestSchema,
  policyPatchSchema,
  revokeBanRequestSchema,
} from '../../lib/model/requests';
import type { Actor } from '../../lib/model/responses';
import { banKey, deliveryPartition, directoryKey, partitions, policyKey } from '../../lib/storage/keys';
import type { TestApi } from '../support/api';
import { startTestApi } from '../support/api';
import { firstAndLastOfEachStep, kindOf } from '../support/fault-cases';
import { type FaultInjector, injectFaults, type Operation } from '../support/faults';
import { storedPartition } from '../support/fixtures';

/**
 * The dispatcher under faults: a batch of change records (a ban made in a game, a global ban,
 * a revoke, a policy update, an erasure) is dispatched with a fault at each of its storage calls
 * in turn, before the call reaches the store or after it landed with its answer lost; then the
 * batch is dispatched again, as the stream (or the local log) hands it on again. Each time the
 * feed must hold every event exactly once at gapless positions, and every webhook exactly one
 * delivery per event. Concurrent dispatchers of overlapping batches must do the same.
 *
 * The API runs with its own dispatcher off, so this test alone drives the dispatcher.
 */

let api: TestApi;
let faults: FaultInjector;
let lib: {
  dispatchChanges: typeof import('../../lib/domain/dispatch').dispatchChanges;
  readFeed: typeof import('../../lib/domain/feed').readFeed;
  dynamo: typeof import('../../lib/storage/client').dynamo;
  tableName: string;
  directoryEntryFromItem: typeof import('../../lib/domain/publishers').directoryEntryFromItem;
  createWebhook: typeof import('../../lib/domain/webhooks').createWebhook;
  deleteWebhook: typeof import('../../lib/domain/webhooks').deleteWebhook;
  createBan: typeof import('../../lib/domain/bans').createBan;
  revokeBan: typeof import('../../lib/domain/bans').revokeBan;
  updatePolicy: typeof import('../../lib/domain/policy').updatePolicy;
};
const totals = { cases: 0, injected: 0 };

beforeAll(async () => {
  api = await startTestApi({ events: false });
  const [
    { dispatchChanges },
    { readFeed },
    { dynamo, tableName },
    { directoryEntryFromItem },
    { createWebhook, deleteWebhook },
    { createBan, revokeBan },
    { updatePolicy },
  ] = await Promise.all([
    import('../../lib/domain/dispatch'),
    import('../../lib/domain/feed'),
    import('../../lib/storage/client'),
    import('../../lib/domain/publishers'),
    import('../../lib/domain/webhooks'),
    import('../../lib/domain/bans'),
    import('../../lib/domain/policy'),
  ]);
  lib = {
    dispatchChanges,
    readFeed,
    dynamo,
    tableName: tableName(),
    directoryEntryFromItem,
    createWebhook,
    deleteWebhook,
    createBan,
    revokeBan,
    updatePolicy,
  };
  faults = injectFaults(dynamo);
});
afterAll(async () => {
  faults?.remove();
  await api?.close();
  console.info(`dispatch under faults: ${totals.cases} cases, ${totals.injected} faults injected`);
});

let n = 0;

/**
 * Two publishers with a webhook each, and the records of five changes of the first one's. The
 * changes are made through the domain functions the handlers call, with each request's body
 * parsed by its route's schema as the handler gets it: what is dispatched is the items they store
 * (the API's HTTP path, authorizer and contract are the integration suite's).
 */
const scenario = async () => {
  n += 1;
  const a = `dispatch-a-${n}`;
  const b = `dispatch-b-${n}`;
  const hooks: string[] = [];
  const actors: Actor[] = [];
  for (const publisher of [a, b]) {
    const made = await api.createKey(publisher);
    const actor: Actor = { type: 'key', key_id: made.key_id, name: made.name };
    const caller = { scopes, games: null, expiresAt: null };
    const body = createWebhookRequestSchema.parse({ url: 'http://127.0.0.1:9/hook' });
    hooks.push((await lib.createWebhook(publisher, caller, body, actor)).webhook_id);
    actors.push(actor);
  }
  const [actorA, actorB] = actors as [Actor, Actor];
  const device = `dispatch-device-${n}`;
  const ban = async (scope: string) => {
    const body = createBanRequestSchema.parse({
      device_id: device,
      ban_type: 'cheat',
      scope,
      reason_code: 'aimbot',
      details: { n },
    });
    const made = await lib.createBan(a, 'g1', body, actorA);
    expect(made.status).toBe('created');
    return made.ban_id;
  };
  const gameBan = await ban('game');
  const globalBan = await ban('global');
  const item = async (key: Record<string, string>) =>
    (await lib.dynamo.send(new GetCommand({ TableName: lib.tableName, Key: key, ConsistentRead: true })))
      .Item as Record<string, unknown>;
  const isBan = (id: number) => banKey(device, id);
  const isPolicy = policyKey(a);
  const image = (i: Record<string, unknown>) => marshall(i, { removeUndefinedValues: true });
  const [gameItem, globalItem, policyBefore] = await Promise.all([
    item(isBan(gameBan)),
    item(isBan(globalBan)),
    item(isPolicy),
  ]);
  const revoke = revokeBanRequestSchema.parse({ reason_code: 'appeal' });
  await lib.revokeBan(a, 'g1', device, gameBan, revoke.reason_code, actorA);
  await lib.updatePolicy(a, policyPatchSchema.parse({ enforce_global: false }), actorA);
  const [revokedItem, policyAfter] = await Promise.all([item(isBan(gameBan)), item(isPolicy)]);
  const keysOf = (i: Record<string, unknown>) => marshall({ pk: i.pk, sk: i.sk });
  const at = Date.now() / 1000;
  const records: ChangeRecord[] = [
    { eventName: 'INSERT', dynamodb: { Keys: keysOf(gameItem), NewImage: image(gameItem) } },
    { eventName: 'INSERT', dynamodb: { Keys: keysOf(globalItem), NewImage: image(globalItem) } },
    {
      eventName: 'MODIFY',
      dynamodb: { Keys: keysOf(gameItem), OldImage: image(gameItem), NewImage: image(revokedItem) },
    },
    {
      eventName: 'MODIFY',
      dynamodb: { Keys: keysOf(policyBefore), OldImage: image(policyBefore), NewImage: image(policyAfter) },
    },
    {
      eventName: 'REMOVE',
      dynamodb: { Keys: keysOf(gameItem), OldImage: image(revokedItem), ApproximateCreationDateTime: at },
    },
  ] as ChangeRecord[];
  const retire = async () => {
    await lib.deleteWebhook(a, null, hooks[0] as string, actorA);
    await lib.deleteWebhook(b, null, hooks[1] as string, actorB);
  };
  return {
    a,
    b,
    hookA: hooks[0] as string,
    hookB: hooks[1] as string,
    device,
    records,
    gameBan,
    globalBan,
    retire,
  };
};

type Scenario = Awaited<ReturnType<typeof scenario>>;

/** A call's partition with the scenario's publishers named by role, so one run's calls name the next run's. */
const roles = (s: Scenario): Array<[string, string]> => [
  [s.hookA, '<hookA>'],
  [s.hookB, '<hookB>'],
  [s.a, '<A>'],
  [s.b, '<B>'],
];
const roleOf = (s: Scenario, key: string | undefined) =>
  // A directory marker's partition is named by its event id, a hash no role can stand for: its
  // calls are named by the partition kind, and told apart by their order (nth).
  key?.startsWith(partitions.directoryMarker)
    ? partitions.directoryMarker
    : key?.startsWith(partitions.reportMarker)
      ? partitions.reportMarker
      : roles(s).reduce((text, [id, role]) => text.split(id).join(role), key ?? '');
const keyOf = (s: Scenario, role: string) =>
  roles(s).reduce((text, [id, name]) => text.split(name).join(id), role);

/** What must hold after the batch was dispatched, however many times, with whatever faults before. */
const expectDispatchedOnce = async (s: Scenario, queued: Set<string>) => {
  const feedA = await lib.readFeed(s.a, 'g1', { limit: 500 });
  const mine = feedA.items.filter((e) => e.device_id === s.device || e.type === 'policy.updated');
  expect(mine.map((e) => e.type).sort()).toEqual(
    ['ban.created', 'ban.created', 'ban.erased', 'ban.revoked', 'policy.updated'].sort(),
  );
  expect(new Set(mine.map((e) => e.event_id)).size).toBe(5);
  // The erased ban's details are gone from every event of it.
  for (const event of mine) {
    if ('ban' in event && event.ban.ban_id === s.gameBan) expect(event.ban.details_json).toBeNull();
  }
  // The directory counted the one global ban once, whatever failed and was dispatched again.
  const { Item: entry } = await lib.dynamo.send(
    new GetCommand({ TableName: lib.tableName, Key: directoryKey(s.a), ConsistentRead: true }),
  );
  expect(entry && lib.directoryEntryFromItem(entry, Date.now())).toMatchObject({
    global_bans: 1,
    active_global_bans: 1,
  });
  // The transparency rollups counted both bans made (and their reason) and the revoke once (the erasure takes nothing away).
  const days = await storedPartition(`${partitions.report}${s.a}`);
  const sum = (name: string) => days.reduce((total, day) => total + Number(day[name] ?? 0), 0);
  expect({
    restrictions: sum('restrictions'),
    revocations: sum('revocations'),
    global: sum('scope_global'),
    aimbot: sum('reason_aimbot'),
  }).toEqual({
    restrictions: 2,
    revocations: 1,
    global: 1,
    aimbot: 2,
  });
  const feedB = await lib.readFeed(s.b, 'g1', { limit: 500 });
  expect(feedB.items.filter((e) => e.device_id === s.device).map((e) => e.type)).toEqual(['ban.created']);
  // Gapless positions 1..n in each of the first publisher's partitions.
  for (const pk of [
    `${partitions.feed}PUB#${s.a}`,
    `${partitions.feed}GAME#${s.a}#g1`,
    `${partitions.feed}GLOBAL`,
  ]) {
    const appended = (await storedPartition(pk)).filter((item) => String(item.sk).startsWith('SEQ#'));
    const seqs = appended.map((item) => Number(String(item.sk).slice(4))).sort((x, y) => x - y);
    expect(seqs, pk).toEqual(seqs.map((_seq, index) => index + 1));
    const ids = appended.map((i) => i.event_id);
    expect(new Set(ids).size, pk).toBe(ids.length);
  }
  // One delivery per event and webhook, every one handed to the queue at least once.
  const toA = await storedPartition(deliveryPartition(s.a, s.hookA));
  const toB = await storedPartition(deliveryPartition(s.b, s.hookB));
  expect(toA).toHaveLength(5);
  expect(toB.map((d) => d.type)).toEqual(['ban.created']);
  // (A's global ban also goes to any webhook an earlier test left: only this one's are compared.)
  const ours = [...queued].filter(
    (ref) =>
      ref.startsWith(`${partitions.delivery}${s.a}#`) || ref.startsWith(`${partitions.delivery}${s.b}#`),
  );
  expect(ours.sort()).toEqual([...toA, ...toB].map((d) => `${d.pk}|${d.sk}`).sort());
};

const dispatch = (records: ChangeRecord[], queued: Set<string>) =>
  lib.dispatchChanges(records, async (refs: readonly DeliveryRef[]) => {
    for (const ref of refs)
      queued.add(`${partitions.delivery}${ref.publisher_id}#${ref.webhook_id}|${ref.sk}`);
  });

const WRITES: readonly string[] = ['PutItem', 'UpdateItem', 'DeleteItem'];

describe('dispatching a batch of changes', () => {
  it('leaves every event once in the feed and one delivery per webhook, with a fault at each storage call, then the retry', async () => {
    const clean = await scenario();
    faults.reset();
    await dispatch(clean.records, new Set());
    const seen = new Map<string, number>();
    const calls = faults.calls.map((call) => {
      const role = roleOf(clean, call.key);
      const id = `${call.operation} ${role}`;
      const nth = (seen.get(id) ?? 0) + 1;
      seen.set(id, nth);
      return { operation: call.operation, role, id, nth, step: `${id} ${kindOf(call.sk)}` };
    });
    faults.reset();
    await clean.retire();
    const kept = firstAndLastOfEachStep(calls);
    const rules = kept.flatMap(({ operation, role, id, nth }) => {
      return [
        { name: `${id} #${nth} before it reaches the store`, operation, role, nth, landed: false },
        ...(WRITES.includes(operation)
          ? [{ name: `${id} #${nth} after it landed, its answer lost`, operation, role, nth, landed: true }]
          : []),
      ];
    });
    expect(rules.length).toBeGreaterThan(20);
    for (const rule of rules) {
      const s = await scenario();
      const queued = new Set<string>();
      faults.reset();
      faults.fail({
        operation: rule.operation as Operation,
        keyPrefix: keyOf(s, rule.role),
        nth: rule.nth,
        ...(rule.landed
          ? { error: 'timeout', attempts: 'each', landedAttempts: 1 }
          : { error: 'InternalServerError' }),
      } as Parameters<FaultInjector['fail']>[0]);
      try {
        // A landed write whose answer was lost may be saved by the SDK's own retry (a conditional
        // write then finds its own item); any other fault fails the batch.
        const first = await dispatch(s.records, queued).then(
          () => 'ok',
          () => 'failed',
        );
        if (!rule.landed) expect(first, rule.name).toBe('failed');
        totals.injected += faults.injected.length;
        faults.clear();
        await dispatch(s.records, queued);
        await expectDispatchedOnce(s, queued);
        totals.cases += 1;
      } catch (error) {
        throw new Error(`${rule.name}: ${(error as Error).message}`);
      }
      // A global ban goes to every publisher's webhooks: each case retires its own, so the next
      // case meets the calls the clean run counted (and not one more webhook per case before it).
      faults.reset();
      await s.retire();
    }
  }, 240_000);

  it('appends each event once when dispatchers of overlapping batches run at once', async () => {
    const s = await scenario();
    faults.reset();
    const queued = new Set<string>();
    // Three dispatchers, two of them with the whole batch, one with a reordered half.
    await Promise.all([
      dispatch(s.records, queued),
      dispatch(s.records, queued),
      dispatch([s.records[1], s.records[0]] as ChangeRecord[], queued),
    ]);
    await expectDispatchedOnce(s, queued);
  });

  it("gives each event once, page by page, in each partition's own order, when the appenders' clocks disagree", async () => {
    const s = await scenario();
    faults.reset();
    // The revoke stamped by a clock an hour behind the one that made the ban: its event "happened"
    // before the ban's creation, yet comes after it, where the game's partition put it.
    const [created, global, revoked, ...rest] = s.records as [ChangeRecord, ChangeRecord, ChangeRecord];
    const skewed = structuredClone(revoked);
    const image = skewed.dynamodb?.NewImage as Record<string, { S?: string }>;
    image.revoked_at = { S: new Date(Date.now() - 3_600_000).toISOString() };
    await dispatch([created, global, skewed, ...rest], new Set());
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 1_000; page += 1) {
      const read = await lib.readFeed(s.a, 'g1', { limit: 1, ...(cursor ? { cursor } : {}) });
      if (read.items.length === 0) break;
      seen.push(
        ...read.items
          .filter((e) => e.device_id === s.device || e.type === 'policy.updated')
          .map((e) => e.type),
      );
      cursor = read.next_cursor;
    }
    const whole = (await lib.readFeed(s.a, 'g1', { limit: 500 })).items.filter(
      (e) => e.device_id === s.device || e.type === 'policy.updated',
    );
    expect(seen).toEqual(whole.map((e) => e.type));
    expect(
      whole
        .filter((e) => e.device_id === s.device && 'ban' in e && e.ban.ban_id === s.gameBan)
        .map((e) => e.type),
    ).toEqual(['ban.created', 'ban.revoked', 'ban.erased']);
    expect(seen).toHaveLength(5);
  });
});
