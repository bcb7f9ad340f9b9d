import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appealDecisionRequestSchema,
  createAppealRequestSchema,
  createBanRequestSchema,
} from '../../lib/model/requests';
import type { Actor } from '../../lib/model/responses';
import { appealIdOf, appealKey, banAppealAttribute, banKey } from '../../lib/storage/keys';
import { startTestApi } from '../support/api';
import { storedEvents } from '../support/audit';
import { faultAtEveryCall, type WriteCase, writeCase } from '../support/fault-cases';
import { type FaultInjector, injectFaults } from '../support/faults';
import {
  appealTextsStored,
  banBody,
  queueEntries,
  storedItem,
  type TestApi,
  unique,
} from '../support/fixtures';

/**
 * Appeals under faults: a fault at every storage call of filing and of deciding (before the call
 * reaches the store, and after it landed with its answer lost), then the retry of the same request.
 * Nothing is lost or doubled: one appeal per ban, in the queue once, its ban claimed by it, one
 * `appeal.created` in the filer's trail; one decision, its effect on the ban, one `appeal.decided`
 * and one event of the effect. The filer is another publisher, as for a global ban. In-process, on
 * the embedded store and on DynamoDB Local.
 */

const OWNER = 'appeal-fault';
const FILER = 'appeal-fault-filer';
const GAME = 'g-apf';
let api: TestApi;
let faults: FaultInjector;
let ownerKey: string;
let filerKey: string;
const totals = { cases: 0, injected: 0 };

let ownerActor: Actor;
let filerActor: Actor;
let domain: {
  createBan: typeof import('../../lib/domain/bans').createBan;
  fileAppeal: typeof import('../../lib/domain/appeals').fileAppeal;
  decideAppeal: typeof import('../../lib/domain/appeals').decideAppeal;
};

beforeAll(async () => {
  // No change log nor dispatcher: the trail and the items a request leaves are its own writes
  // (the dispatcher under faults is dispatch-faults.test.ts's).
  api = await startTestApi({ events: false });
  const owner = await api.createKey(OWNER);
  const filer = await api.createKey(FILER);
  ownerKey = owner.api_key;
  filerKey = filer.api_key;
  ownerActor = { type: 'key', key_id: owner.key_id, name: owner.name };
  filerActor = { type: 'key', key_id: filer.key_id, name: filer.name };
  const [{ dynamo }, { createBan }, { fileAppeal, decideAppeal }] = await Promise.all([
    import('../../lib/storage/client'),
    import('../../lib/domain/bans'),
    import('../../lib/domain/appeals'),
  ]);
  domain = { createBan, fileAppeal, decideAppeal };
  faults = injectFaults(dynamo);
});
afterAll(async () => {
  faults?.remove();
  await api?.close();
  console.info(`appeals under faults: ${totals.cases} cases, ${totals.injected} faults injected`);
});

const item = storedItem;
const queueOf = (appealId: string) => queueEntries(OWNER, appealId);
const events = async (publisher: string, type: string, appealId: string, since: string) =>
  (await storedEvents(publisher, since)).filter(
    (e) => e.type === type && (e.appeal as { appeal_id?: string } | undefined)?.appeal_id === appealId,
  );

interface Filing {
  /** A moment before the filing's ban was made: the trail is read from there. */
  since: string;
  device: string;
  banId: number;
  appealId: string;
  body: Record<string, unknown>;
}

/*
 * A case's set-up (its ban, and the appeal and decision it starts from) is made through the domain
 * functions the handlers call, each body parsed by its route's schema as the handler gets it, as
 * the keys' holders: only the request under the fault, and its retry, go over HTTP.
 */
const setUpBan = async (device: string) => {
  const body = createBanRequestSchema.parse(
    banBody({ device_id: device, scope: 'global', allow_duplicate: true }),
  );
  const made = await domain.createBan(OWNER, GAME, body, ownerActor);
  expect(made.status).toBe('created');
  return made.ban_id;
};
const setUpAppeal = async (body: Record<string, unknown>) => {
  const filed = await domain.fileAppeal(FILER, 'g-filer', createAppealRequestSchema.parse(body), filerActor);
  expect(filed.result).toBe('created');
};
const setUpDecision = async (appealId: string, body: Record<string, unknown>) => {
  const decided = await domain.decideAppeal(
    OWNER,
    appealId,
    appealDecisionRequestSchema.parse(body),
    ownerActor,
  );
  expect(decided.status).toBe('decided');
};

const newFiling = async (withKey: boolean): Promise<Filing> => {
  const since = new Date(Date.now() - 1_000).toISOString();
  const device = unique('apf');
  const banId = await setUpBan(device);
  return {
    since,
    device,
    banId,
    appealId: appealIdOf(banId, FILER),
    body: {
      device_id: device,
      ban_id: banId,
      message: 'It was not me.',
      ...(withKey ? { idempotency_key: unique('ticket') } : {}),
    },
  };
};

const fileAppeal = (body: Record<string, unknown>) =>
  api.request('POST', '/v1/appeals', { key: filerKey, game: 'g-filer', body });

/** What a failed filing may leave: nothing that claims an appeal the store does not hold. */
const noHalfFiling = async ({ since, device, banId, appealId }: Filing) => {
  const appeal = await item(appealKey(appealId));
  const ban = await item(banKey(device, banId));
  if (ban?.[banAppealAttribute(FILER)] !== undefined) expect(appeal).toBeDefined();
  if ((await queueOf(appealId)).length > 0) expect(appeal).toBeDefined();
  if ((await events(FILER, 'appeal.created', appealId, since)).length > 0) expect(appeal).toBeDefined();
};

const filedOnce = async ({ since, device, banId, appealId }: Filing, res: { status: number; body: any }) => {
  expect([200, 201]).toContain(res.status);
  expect(res.body.appeal_id).toBe(appealId);
  expect((await item(appealKey(appealId)))?.status).toBe('open');
  expect((await item(banKey(device, banId)))?.[banAppealAttribute(FILER)]).toMatchObject({
    appeal_id: appealId,
  });
  expect((await queueOf(appealId)).map((entry) => String(entry.sk).slice(0, 5))).toEqual(['OPEN#']);
  expect(await events(FILER, 'appeal.created', appealId, since)).toHaveLength(1);
};

const filing = (withKey: boolean) =>
  writeCase<Filing>({
    setup: () => newFiling(withKey),
    send: (ctx) => fileAppeal(ctx.body),
    afterFailure: noHalfFiling,
    afterRetry: filedOnce,
  });

const deciding = (
  decision: () => Record<string, unknown>,
  effect: (ban: Record<string, any>, decision: Record<string, unknown>) => void,
) =>
  writeCase<Filing & { decision: Record<string, unknown> }>({
    setup: async () => {
      const ctx = await newFiling(true);
      await setUpAppeal(ctx.body);
      return { ...ctx, decision: decision() };
    },
    send: (ctx) =>
      api.request('POST', `/v1/appeals/${ctx.appealId}/decision`, { key: ownerKey, body: ctx.decision }),
    afterFailure: async ({ since, device, banId, appealId }) => {
      // The ban changes only after the decision is recorded, and an event only after its change.
      const appeal = await item(appealKey(appealId));
      const ban = await item(banKey(device, banId));
      if (ban?.[banAppealAttribute(FILER)]?.status === 'decided') expect(appeal?.status).toBe('decided');
      if ((await events(OWNER, 'appeal.decided', appealId, since)).length > 0)
        expect(appeal?.status).toBe('decided');
      const revoked = (await storedEvents(OWNER, since)).filter(
        (e) => e.type === 'ban.revoked' && e.ban_id === banId,
      );
      if (revoked.length > 0) expect(ban?.revoked_at).not.toBeNull();
    },
    afterRetry: async ({ since, device, banId, appealId, decision: body }, res) => {
      expect(res.status).toBe(200);
      expect(res.body.decision).toMatchObject({ outcome: body.outcome });
      expect(res.body.decision.applied_at).not.toBeNull();
      const ban = (await item(banKey(device, banId))) as Record<string, any>;
      expect(ban[banAppealAttribute(FILER)]).toEqual({
        appeal_id: appealId,
        status: 'decided',
        outcome: body.outcome,
        at: res.body.decision.decided_at,
      });
      effect(ban, body);
      expect((await queueOf(appealId)).map((entry) => String(entry.sk).slice(0, 5))).toEqual(['DONE#']);
      expect(await events(OWNER, 'appeal.decided', appealId, since)).toHaveLength(1);
      const ofBan = (await storedEvents(OWNER, since)).filter(
        (e) => (e.type === 'ban.revoked' || e.type === 'ban.updated') && e.ban_id === banId,
      );
      expect(ofBan.map((e) => e.type).sort()).toEqual(
        [
          ...(body.outcome === 'overturned' ? ['ban.revoked'] : []),
          ...(body.outcome === 'shortened' || body.player_message ? ['ban.updated'] : []),
        ].sort(),
      );
    },
  });

const textsOf = (appealId: string) => appealTextsStored(api, appealId);

/** An erasure of the device by the ban's owner, its appeal decided: the texts go from every copy. */
const erasing = writeCase<Filing>({
  setup: async () => {
    const ctx = await newFiling(true);
    await setUpAppeal({ ...ctx.body, contact: 'player@example.com' });
    await setUpDecision(ctx.appealId, { outcome: 'upheld' });
    return ctx;
  },
  send: (ctx) => api.request('POST', `/v1/device/${ctx.device}/erase`, { key: ownerKey }),
  afterFailure: async () => {},
  afterRetry: async ({ appealId }, res) => {
    expect(res.status).toBe(200);
    expect(await textsOf(appealId)).toEqual([]);
    expect((await item(appealKey(appealId)))?.erased_at).toBeDefined();
  },
});

const operations: Record<string, WriteCase<any>> = {
  'erasing the device of a decided appeal': erasing,
  'filing an appeal with an idempotency key': filing(true),
  'filing an appeal without one': filing(false),
  'deciding overturned with a new player message': deciding(
    () => ({ outcome: 'overturned', note: 'proven', player_message: 'Your ban was lifted.' }),
    (ban) =>
      expect(ban).toMatchObject({
        revoke_reason_code: 'appeal_overturned',
        player_message: 'Your ban was lifted.',
      }),
  ),
  'deciding shortened': deciding(
    () => ({ outcome: 'shortened', expires_at: new Date(Date.now() + 86_400_000).toISOString() }),
    (ban, decision) => {
      expect(ban.revoked_at).toBeNull();
      // Moved once, from permanent: a repeated move would have recorded its own expiry as the previous one.
      expect(ban.previous_expires_at).toBeNull();
      expect(ban.expires_at).toBe(decision.expires_at);
    },
  ),
  'deciding upheld': deciding(
    () => ({ outcome: 'upheld' }),
    (ban) => expect(ban.revoked_at).toBeNull(),
  ),
};

describe.each(Object.entries(operations))('%s', (_name, op) => {
  it('loses nothing and doubles nothing with a fault at each of its storage calls, then the retry', async () => {
    const { cases, injected } = await faultAtEveryCall(faults, op);
    totals.cases += cases;
    totals.injected += injected;
  });
});
