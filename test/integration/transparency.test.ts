import { marshall } from '@aws-sdk/util-dynamodb';
import type { Statement } from '@kernel/statement-of-reasons';
import {
  daysOfPeriod,
  percentileOfCounts,
  REPORT_CSV_HEADER,
  reportAppealCounts,
  restrictionDimensionNames,
  restrictionDimensions,
  roundDecisionSeconds,
} from '@kernel/transparency';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../../lib/domain/change-events';
import { appealKey, banKey, partitions } from '../../lib/storage/keys';
import { startTestApi, type TestApi } from '../support/api';
import { signIn } from '../support/sign-in';

/**
 * The transparency report (DSA Art. 15 and 24; docs/player-rights.md): two publishers make bans of
 * several kinds, revoke some, file and decide appeals; each one's report must equal a count over
 * the bans, revocations and appeals the test made for it, day by day and in all, as JSON and as
 * CSV, whatever the stream hands on again. Read from the dispatcher's daily rollups.
 */

let api: TestApi;
let dispatchChanges: typeof import('../../lib/domain/dispatch').dispatchChanges;

beforeAll(async () => {
  api = await startTestApi({ people: true });
  ({ dispatchChanges } = await import('../../lib/domain/dispatch'));
});
afterAll(() => api?.close());

let n = 0;
const unique = (prefix: string) => {
  n += 1;
  return `${prefix}-${Date.now().toString(36)}-${n}`;
};
const publisher = async () => {
  const id = unique('tr');
  const made = await api.createKey(id, 'transparency test');
  return { id, key: made.api_key, keyId: made.key_id as string };
};

const DAY_MS = 86_400_000;
const dayOf = (at: string) => at.slice(0, 10);
const later = (ms: number) => new Date(Date.now() + ms).toISOString();

interface MadeBan {
  ban_id: number;
  device_id: string;
  ban_type: 'cheat' | 'social';
  scope: 'game' | 'publisher' | 'global';
  reason_code: string;
  created_at: string;
  revoked_at: string | null;
  statement: Statement;
}
interface MadeAppeal {
  appeal_id: string;
  created_at: string;
  decided_at: string | null;
  outcome: 'upheld' | 'overturned' | 'shortened' | null;
  /** Who decided it: a key (its id) or a person (their subject). */
  decided_by: ModeratorRow['moderator'] | null;
}

interface ModeratorRow {
  moderator: { type: 'user' | 'key'; id: string };
  decided: number;
  upheld: number;
  overturned: number;
  shortened: number;
}

/** What a report must say of these bans and appeals for the days `days` (zero where nothing happened). */
const expectedCounts = (bans: readonly MadeBan[], appeals: readonly MadeAppeal[], on?: string) => {
  const made = bans.filter((ban) => on === undefined || dayOf(ban.created_at) === on);
  const dimensionValue = (ban: MadeBan, dimension: (typeof restrictionDimensionNames)[number]) =>
    dimension === 'type'
      ? ban.ban_type
      : dimension === 'scope'
        ? ban.scope
        : dimension === 'automated_detection'
          ? String(ban.statement.automated_detection)
          : ban.statement[dimension];
  const by = (dimension: (typeof restrictionDimensionNames)[number]) =>
    Object.fromEntries(
      restrictionDimensions[dimension].map((value) => [
        value,
        made.filter((ban) => dimensionValue(ban, dimension) === value).length,
      ]),
    );
  const filed = appeals.filter((a) => on === undefined || dayOf(a.created_at) === on);
  const decided = appeals.filter(
    (a) => a.decided_at !== null && (on === undefined || dayOf(a.decided_at) === on),
  );
  const times = new Map<number, number>();
  for (const appeal of decided) {
    const seconds = roundDecisionSeconds(
      (Date.parse(appeal.decided_at as string) - Date.parse(appeal.created_at)) / 1000,
    );
    times.set(seconds, (times.get(seconds) ?? 0) + 1);
  }
  const byReason: Record<string, number> = {};
  for (const ban of made) byReason[ban.reason_code] = (byReason[ban.reason_code] ?? 0) + 1;
  const byModerator = new Map<string, ModeratorRow>();
  for (const appeal of decided) {
    const moderator = appeal.decided_by as ModeratorRow['moderator'];
    const id = `${moderator.type}:${moderator.id}`;
    const row = byModerator.get(id) ?? {
      moderator,
      decided: 0,
      upheld: 0,
      overturned: 0,
      shortened: 0,
    };
    row.decided += 1;
    row[appeal.outcome as 'upheld'] += 1;
    byModerator.set(id, row);
  }
  return {
    restrictions: {
      total: made.length,
      by_type: by('type'),
      by_scope: by('scope'),
      by_ground: by('ground'),
      by_category: by('category'),
      by_automated_detection: by('automated_detection'),
      by_automated_decision: by('automated_decision'),
      by_reason: byReason,
    },
    revocations: bans.filter(
      (ban) => ban.revoked_at !== null && (on === undefined || dayOf(ban.revoked_at) === on),
    ).length,
    appeals: {
      received: filed.length,
      decided: decided.length,
      upheld: decided.filter((a) => a.outcome === 'upheld').length,
      overturned: decided.filter((a) => a.outcome === 'overturned').length,
      shortened: decided.filter((a) => a.outcome === 'shortened').length,
      median_seconds_to_decision: percentileOfCounts(times, 50),
      p90_seconds_to_decision: percentileOfCounts(times, 90),
      // Most decisions first, then by id.
      by_moderator: [...byModerator.values()].sort(
        (a, b) =>
          b.decided - a.decided ||
          (a.moderator.id < b.moderator.id ? -1 : a.moderator.id > b.moderator.id ? 1 : 0),
      ),
    },
  };
};

const report = (key: string, query: string) =>
  api.request('GET', `/v1/transparency-report?${query}`, { key });

/** The scenario, made once: owner's bans and appeals, and the other publisher's. */
const world = {} as {
  owner: { id: string; key: string; keyId: string };
  other: { id: string; key: string; keyId: string };
  /** The owner's second moderator: a person signed in. */
  moderator: { token: string; sub: string };
  ownerBans: MadeBan[];
  otherBans: MadeBan[];
  appeals: MadeAppeal[];
  from: string;
  to: string;
};

const create = async (key: string, body: Record<string, unknown>, game = 'g1') => {
  const res = await api.request('POST', '/v1/bans', {
    key,
    game,
    body: { device_id: unique('tr-dev'), reason_code: 'aimbot', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as MadeBan;
};

const file = async (key: string, ban: MadeBan, game = 'g1') => {
  const res = await api.request('POST', '/v1/appeals', {
    key,
    game,
    body: { device_id: ban.device_id, ban_id: ban.ban_id, message: 'It was not me.' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { appeal_id: string; created_at: string };
};

const decide = async (key: string, appealId: string, body: Record<string, unknown>) => {
  const res = await api.request('POST', `/v1/appeals/${appealId}/decision`, { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.decision as { decided_at: string; outcome: MadeAppeal['outcome'] };
};

beforeAll(async () => {
  const [owner, other] = [await publisher(), await publisher()];
  const person = await api.createPerson(owner.id, 'moderator');
  const signedIn = await signIn(api.identity.issuer, api.identity.redirectUri, person.email, person.password);
  if (!signedIn.ok) throw new Error(`could not sign in: ${signedIn.status}`);
  const moderator = { token: signedIn.tokens.access_token, sub: person.sub };
  const ownerBans = [
    // A key's ban: detected and decided by automated means, on the terms.
    await create(owner.key, { ban_type: 'cheat', scope: 'game' }),
    await create(owner.key, {
      ban_type: 'social',
      scope: 'game',
      reason_code: 'hate_speech',
      statement: {
        category: 'illegal_or_harmful_speech',
        automated_detection: false,
        automated_decision: 'not',
      },
    }),
    await create(owner.key, {
      ban_type: 'cheat',
      scope: 'publisher',
      reason_code: 'fraud',
      statement: {
        ground: 'illegal',
        legal_ground: 'Criminal Code, s. 263a',
        illegal_explanation: 'Paying for items with stolen cards is computer fraud.',
        category: 'scams_and_fraud',
        automated_decision: 'partially',
      },
    }),
    await create(owner.key, { ban_type: 'cheat', scope: 'global', expires_at: later(30 * DAY_MS) }),
    await create(owner.key, { ban_type: 'cheat', scope: 'global' }),
    await create(owner.key, {
      ban_type: 'social',
      scope: 'publisher',
      reason_code: 'harassment',
      statement: { category: 'cyber_violence', automated_detection: false },
    }),
    await create(owner.key, { ban_type: 'cheat', scope: 'game', expires_at: later(10 * DAY_MS) }, 'g2'),
  ];
  const otherBans = [
    await create(other.key, { ban_type: 'cheat', scope: 'game' }, 'o1'),
    await create(other.key, {
      ban_type: 'social',
      scope: 'global',
      statement: { category: 'violence', automated_detection: false, automated_decision: 'not' },
    }),
  ];
  // Revoked by their owners.
  for (const [who, ban] of [
    [owner, ownerBans[1]],
    [owner, ownerBans[5]],
    [other, otherBans[0]],
  ] as const) {
    const game = ban === otherBans[0] ? 'o1' : 'g1';
    const res = await api.request('POST', `/v1/device/${ban?.device_id}/bans/${ban?.ban_id}/revoke`, {
      key: who.key,
      game,
      body: { reason_code: 'mistake' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  // Appeals of the owner's bans: its own, and the other publisher's of its global ban (the owner's to count).
  const [first, second, third, fourth] = [
    await file(owner.key, ownerBans[0] as MadeBan),
    await file(owner.key, ownerBans[3] as MadeBan),
    await file(other.key, ownerBans[4] as MadeBan, 'o1'),
    await file(owner.key, ownerBans[6] as MadeBan, 'g2'),
  ];
  const appeals: MadeAppeal[] = [first, second, third, fourth].map((a) => ({
    appeal_id: (a as { appeal_id: string }).appeal_id,
    created_at: (a as { created_at: string }).created_at,
    decided_at: null,
    outcome: null,
    decided_by: null,
  }));
  const decided = (
    index: number,
    by: ModeratorRow['moderator'],
    decision: { decided_at: string; outcome: MadeAppeal['outcome'] },
  ) => {
    const appeal = appeals[index] as MadeAppeal;
    appeal.decided_at = decision.decided_at;
    appeal.outcome = decision.outcome;
    appeal.decided_by = by;
  };
  // One decided at once (seconds, exact), two an hour and a half later (rounded), one left open.
  const ownerKey = { type: 'key' as const, id: owner.keyId };
  // Two moderators: the person signed in decides the first, the owner's key the others.
  decided(
    0,
    { type: 'user', id: moderator.sub },
    await decide(moderator.token, first.appeal_id, { outcome: 'upheld' }),
  );
  await api.settle();
  api.setClockOffset(90 * 60_000);
  try {
    decided(
      1,
      ownerKey,
      await decide(owner.key, second.appeal_id, {
        outcome: 'shortened',
        expires_at: later(2 * DAY_MS),
      }),
    );
    decided(2, ownerKey, await decide(owner.key, third.appeal_id, { outcome: 'overturned' }));
    await api.settle();
  } finally {
    api.setClockOffset(0);
  }
  void fourth;
  // Each ban as it is now: the revocations (the overturned appeal's too).
  const now = async (who: { key: string }, ban: MadeBan, game: string) => {
    const res = await api.request('GET', `/v1/device/${ban.device_id}/bans?status=all`, {
      key: who.key,
      game,
    });
    const found = (res.body.items as MadeBan[]).find((b) => b.ban_id === ban.ban_id);
    if (!found) throw new Error(`ban ${ban.ban_id} not listed`);
    return { ...found, device_id: ban.device_id };
  };
  const gameOf = (ban: MadeBan, fallback: string) => (ban === ownerBans[6] ? 'g2' : fallback);
  world.owner = owner;
  world.other = other;
  world.moderator = moderator;
  world.ownerBans = await Promise.all(ownerBans.map((ban) => now(owner, ban, gameOf(ban, 'g1'))));
  world.otherBans = await Promise.all(otherBans.map((ban) => now(other, ban, 'o1')));
  world.appeals = appeals;
  const instants = [
    ...world.ownerBans.flatMap((b) => [b.created_at, b.revoked_at ?? b.created_at]),
    ...appeals.flatMap((a) => [a.created_at, a.decided_at ?? a.created_at]),
  ].sort();
  world.from = dayOf(new Date(Date.parse(instants[0] as string) - DAY_MS).toISOString());
  world.to = dayOf(new Date(Date.parse(instants.at(-1) as string) + DAY_MS).toISOString());
}, 120_000);

const period = () => `from=${world.from}&to=${world.to}`;

describe('the transparency report', () => {
  it('equals a count over the bans, revocations and appeals made, in all and day by day', async () => {
    const res = await report(world.owner.key, period());
    expect(res.status, res.text).toBe(200);
    const days = daysOfPeriod(world.from, world.to);
    const { by_day, computed_at, ...totals } = res.body;
    expect(totals).toEqual({
      publisher_id: world.owner.id,
      from: world.from,
      to: world.to,
      days: days.length,
      ...expectedCounts(world.ownerBans, world.appeals),
    });
    expect(by_day).toEqual(
      days.map((day) => ({ day, ...expectedCounts(world.ownerBans, world.appeals, day) })),
    );
    // The scenario reaches what it means to: every kind it made is counted.
    expect(totals.restrictions).toMatchObject({
      total: 7,
      by_ground: { terms: 6, illegal: 1 },
      by_automated_decision: { fully: 5, partially: 1, not: 1 },
    });
    expect(totals.revocations).toBe(3);
    expect(totals.appeals).toMatchObject({ received: 4, decided: 3, upheld: 1, overturned: 1, shortened: 1 });
    expect(totals.appeals.p90_seconds_to_decision).toBeGreaterThanOrEqual(90 * 60);
    expect(totals.restrictions.by_reason).toEqual({ aimbot: 4, fraud: 1, harassment: 1, hate_speech: 1 });
    // The codes in code order.
    expect(Object.keys(totals.restrictions.by_reason)).toEqual([
      'aimbot',
      'fraud',
      'harassment',
      'hate_speech',
    ]);
    expect(totals.appeals.by_moderator).toEqual([
      {
        moderator: { type: 'key', id: world.owner.keyId },
        decided: 2,
        upheld: 0,
        overturned: 1,
        shortened: 1,
      },
      {
        moderator: { type: 'user', id: world.moderator.sub },
        decided: 1,
        upheld: 1,
        overturned: 0,
        shortened: 0,
      },
    ]);
  });

  it("holds the other publisher's own bans only, not those of another nor the appeals it filed on them", async () => {
    const res = await report(world.other.key, period());
    expect(res.status, res.text).toBe(200);
    const { by_day: _days, computed_at: _at, publisher_id, from: _f, to: _t, days: _n, ...totals } = res.body;
    expect(publisher_id).toBe(world.other.id);
    expect(totals).toEqual(expectedCounts(world.otherBans, []));
    expect(totals.restrictions.total).toBe(2);
    expect(totals.appeals.received).toBe(0);
    // None of the owner's reasons but the one both used, and none of its moderators' decisions.
    expect(totals.restrictions.by_reason).toEqual({ aimbot: 2 });
    expect(totals.appeals.by_moderator).toEqual([]);
    for (const day of res.body.by_day) expect(day.appeals.by_moderator).toEqual([]);
  });

  it('counts a change record handed on again once, whenever it comes again', async () => {
    const before = (await report(world.owner.key, period())).body;
    const stored = await api.items();
    const read = (key: { pk: string; sk: string }) =>
      stored.find((item) => item.pk === key.pk && item.sk === key.sk) as Record<string, unknown>;
    const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true });
    const keys = (item: Record<string, unknown>) => marshall({ pk: item.pk, sk: item.sk });
    const made = world.ownerBans[0] as MadeBan;
    const revoked = world.ownerBans[5] as MadeBan;
    const banItem = read(banKey(made.device_id, made.ban_id));
    const revokedItem = read(banKey(revoked.device_id, revoked.ban_id));
    const decidedItem = read(appealKey((world.appeals[0] as MadeAppeal).appeal_id));
    const openItem = { ...decidedItem, status: 'open' } as Record<string, unknown>;
    delete openItem.decision;
    delete openItem.applied_at;
    const records = [
      { eventName: 'INSERT', dynamodb: { Keys: keys(banItem), NewImage: image(banItem) } },
      {
        eventName: 'MODIFY',
        dynamodb: {
          Keys: keys(revokedItem),
          OldImage: image({ ...revokedItem, revoked_at: null }),
          NewImage: image(revokedItem),
        },
      },
      {
        eventName: 'MODIFY',
        dynamodb: { Keys: keys(decidedItem), OldImage: image(openItem), NewImage: image(decidedItem) },
      },
    ] as ChangeRecord[];
    // Twice in one batch, then again alone: the same events, counted before.
    await dispatchChanges([...records, ...records], async () => {});
    for (const record of records) await dispatchChanges([record], async () => {});
    const after = (await report(world.owner.key, period())).body;
    expect({ ...after, computed_at: null }).toEqual({ ...before, computed_at: null });
  });

  /**
   * A publisher of its own whose bans were made on a day of their own (its day's item is the test's
   * alone): the INSERT records of two bans, copied from a ban the scenario made, and its report's total.
   */
  const syntheticDay = async (prefix: string, day: string) => {
    const publisherId = unique(prefix);
    const made = world.ownerBans[0] as MadeBan;
    const key0 = banKey(made.device_id, made.ban_id);
    const template = (await api.items()).find((item) => item.pk === key0.pk && item.sk === key0.sk) as Record<
      string,
      unknown
    >;
    n += 1;
    const record = (banId: number) => {
      const device = unique(`${prefix}-dev`);
      const item = {
        ...template,
        ...banKey(device, banId),
        ban_id: banId,
        device_id: device,
        publisher_id: publisherId,
        created_at: `${day}T10:00:00.000Z`,
      };
      return {
        eventName: 'INSERT',
        dynamodb: {
          Keys: marshall({ pk: item.pk, sk: item.sk }),
          NewImage: marshall(item, { removeUndefinedValues: true }),
        },
      } as ChangeRecord;
    };
    const key = (await api.createKey(publisherId, 'marks')).api_key;
    return {
      publisherId,
      first: record(900_000_000 + 2 * n),
      second: record(900_000_001 + 2 * n),
      total: async () => (await report(key, `from=${day}&to=${day}`)).body.restrictions.total as number,
    };
  };

  it("counts a record handed on again once also after its mark left the day's item for a marker item", async () => {
    const { publisherId, first, second, total } = await syntheticDay('tr-marks', '2026-01-05');
    await dispatchChanges([first], async () => {});
    expect(await total()).toBe(1);
    // Twenty minutes on, the next count moves the first one's mark off the item, to a marker item.
    api.setClockOffset(20 * 60_000);
    try {
      await dispatchChanges([second], async () => {});
      const derived = await api.items({ derived: true });
      const day = derived.find((item) => item.pk === `${partitions.report}${publisherId}`) as Record<
        string,
        unknown
      >;
      expect(Object.keys(day).filter((name) => name.startsWith('m_'))).toHaveLength(1);
      expect(
        derived.filter(
          (item) => item.publisher_id === publisherId && String(item.pk).startsWith(partitions.reportMarker),
        ),
      ).toHaveLength(1);
      await dispatchChanges([first, second], async () => {});
      await dispatchChanges([first], async () => {});
    } finally {
      api.setClockOffset(0);
    }
    expect(await total()).toBe(2);
  });

  it('counts a record handed on again once when its mark moves off the item between its check and its update', async () => {
    const { first, second, total, publisherId } = await syntheticDay('tr-race', '2026-01-07');
    await dispatchChanges([first], async () => {});
    const { dynamo } = await import('../../lib/storage/client');
    const stack = dynamo.middlewareStack as unknown as {
      add(middleware: unknown, options: Record<string, unknown>): void;
      remove(name: string): boolean;
    };
    // Staged: the first one's record comes again, reads no marker item (its mark is still on the
    // day's item), and just before its update a count of the second moves that mark off the item.
    let staged = false;
    stack.add(
      (next: (args: unknown) => Promise<unknown>) => async (args: { input?: unknown }) => {
        const input = args.input as { Key?: { pk?: unknown }; UpdateExpression?: string };
        if (
          !staged &&
          input.Key?.pk === `${partitions.report}${publisherId}` &&
          input.UpdateExpression?.startsWith('SET ')
        ) {
          staged = true;
          await dispatchChanges([second], async () => {});
        }
        return next(args);
      },
      { step: 'initialize', name: 'transparencyRace' },
    );
    api.setClockOffset(20 * 60_000);
    try {
      await dispatchChanges([first], async () => {});
    } finally {
      stack.remove('transparencyRace');
      api.setClockOffset(0);
    }
    expect(staged).toBe(true);
    const marker = (await api.items({ derived: true })).filter(
      (item) => item.publisher_id === publisherId && String(item.pk).startsWith(partitions.reportMarker),
    );
    expect(marker).toHaveLength(1);
    expect(await total()).toBe(2);
  });

  it('answers CSV for an Accept that prefers it, JSON otherwise, and format over Accept', async () => {
    const csv = await report(world.owner.key, `${period()}&format=csv`);
    const asked = (accept: string, query = period()) =>
      api.request('GET', `/v1/transparency-report?${query}`, {
        key: world.owner.key,
        headers: { Accept: accept },
      });
    for (const accept of ['text/csv', 'text/csv, application/json;q=0.5', 'application/json;q=0.2, text/*']) {
      const res = await asked(accept);
      expect(res.status, accept).toBe(200);
      expect(res.headers.get('content-type'), accept).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('vary'), accept).toBe('Accept');
      // The same rows, but for when each was read.
      expect(res.text.split('\r\n').length, accept).toBe(csv.text.split('\r\n').length);
    }
    for (const accept of [
      'application/json',
      '*/*',
      'text/csv;q=0.5, application/json',
      'text/csv;q=x',
      '',
    ]) {
      const res = await asked(accept);
      expect(res.headers.get('content-type'), accept).toContain('application/json');
      expect(res.body.publisher_id, accept).toBe(world.owner.id);
    }
    // `format` decides whatever Accept says, and then the answer does not vary by it.
    const json = await asked('text/csv', `${period()}&format=json`);
    expect(json.headers.get('content-type')).toContain('application/json');
    expect(json.headers.get('vary')).toBeNull();
  });

  it('answers the same as CSV: a header, then a row per day and dimension, then the period', async () => {
    const json = (await report(world.owner.key, period())).body;
    const res = await report(world.owner.key, `${period()}&format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = res.text
      .trimEnd()
      .split('\r\n')
      .map((line) => line.split(','));
    expect(rows[0]).toEqual([...REPORT_CSV_HEADER]);
    const fixedPerDay =
      1 +
      restrictionDimensionNames.reduce((sum, d) => sum + restrictionDimensions[d].length, 0) +
      1 +
      reportAppealCounts.length +
      2;
    // Then a row per reason and four per moderator, of those each day (and the period) has.
    const variable = (counts: Record<string, any>) =>
      Object.keys(counts.restrictions.by_reason).length + 4 * counts.appeals.by_moderator.length;
    expect(rows.length).toBe(
      1 +
        (json.days + 1) * fixedPerDay +
        (json.by_day as Array<Record<string, any>>).reduce((sum, day) => sum + variable(day), 0) +
        variable(json),
    );
    const find = (day: string, dimension: string, value: string) =>
      rows.find((row) => row[0] === day && row[1] === dimension && row[2] === value)?.[3];
    for (const day of json.by_day as Array<Record<string, any>>) {
      expect(find(day.day, 'restrictions', 'total')).toBe(String(day.restrictions.total));
      expect(find(day.day, 'ground', 'illegal')).toBe(String(day.restrictions.by_ground.illegal));
      expect(find(day.day, 'automated_detection', 'false')).toBe(
        String(day.restrictions.by_automated_detection.false),
      );
      expect(find(day.day, 'revocations', 'total')).toBe(String(day.revocations));
      for (const [code, count] of Object.entries(day.restrictions.by_reason))
        expect(find(day.day, 'reason', code)).toBe(String(count));
      for (const row of day.appeals.by_moderator as ModeratorRow[])
        for (const name of ['decided', 'upheld', 'overturned', 'shortened'] as const)
          expect(find(day.day, `moderator_${name}`, `${row.moderator.type}:${row.moderator.id}`)).toBe(
            String(row[name]),
          );
      expect(find(day.day, 'appeals', 'overturned')).toBe(String(day.appeals.overturned));
      expect(find(day.day, 'time_to_decision_seconds', 'median')).toBe(
        day.appeals.median_seconds_to_decision === null ? '' : String(day.appeals.median_seconds_to_decision),
      );
    }
    expect(find('total', 'restrictions', 'total')).toBe('7');
    expect(find('total', 'category', 'scams_and_fraud')).toBe('1');
    expect(find('total', 'reason', 'aimbot')).toBe('4');
    expect(find('total', 'reason', 'mistake')).toBeUndefined();
    expect(find('total', 'moderator_decided', `key:${world.owner.keyId}`)).toBe('2');
    expect(find('total', 'moderator_shortened', `key:${world.owner.keyId}`)).toBe('1');
    expect(find('total', 'moderator_upheld', `user:${world.moderator.sub}`)).toBe('1');
    expect(find('total', 'moderator_shortened', `user:${world.moderator.sub}`)).toBe('0');
    expect(find('total', 'time_to_decision_seconds', 'p90')).toBe(
      String(json.appeals.p90_seconds_to_decision),
    );
  });

  it('refuses a period out of order, too long or not of days with a 400 naming it, storing nothing', async () => {
    const before = await api.items();
    for (const [query, field, issue] of [
      ['from=2026-03-02&to=2026-03-01', 'to', 'before_from'],
      ['from=2025-01-01&to=2026-01-02', 'to', 'too_big'],
      ['from=2026-02-30&to=2026-03-01', 'from', undefined],
      ['from=2026-03-01', 'to', undefined],
      ['from=2026-03-01&to=2026-03-02&format=xml', 'format', undefined],
    ] as const) {
      const res = await report(world.owner.key, query);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      if (issue) expect(res.body.error.details).toContainEqual({ field, issue });
    }
    // A leap year's 366 days are one period.
    expect((await report(world.owner.key, 'from=2028-01-01&to=2028-12-31')).status).toBe(200);
    expect(await api.items()).toEqual(before);
  });

  it('refuses a key bound to games and a key without audit:read (403)', async () => {
    const bound = (await api.createKey(world.owner.id, 'one game', { games: ['g1'] })).api_key;
    const reader = (await api.createKey(world.owner.id, 'no audit', { scopes: ['bans:read'] })).api_key;
    for (const key of [bound, reader]) {
      const res = await report(key, period());
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
  });
});
