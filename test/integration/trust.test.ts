import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyKey } from '../../lib/storage/keys';
import type { TestApi } from '../support/api';
import {
  createBan,
  propertyOptions,
  propertyRuns,
  revokeBan,
  startWithPublishers,
  storedItem,
  unique,
} from '../support/fixtures';

/**
 * Trust controls on the shared list, at the API: whose global bans a publisher enforces
 * (`global_sources`), how many distinct trusted publishers must agree (`global_quorum`), and the
 * same pair for reputation. The enforcement answer, the batch, the listings' `enforced`, the feed
 * and the snapshot are compared with a reference model written here from the issue's text alone
 * (it does not import kernel/policy-rules.ts):
 *
 *   a ban applies when it is active (not revoked, not past its expiry) and its flags are on
 *   (game → enforce_game; publisher → enforce_publisher; global of type T → enforce_global and
 *   enforce_T_global); a global ban of type T by another publisher applies only when the policy's
 *   sources trust that publisher and at least `global_quorum` distinct trusted publishers (the
 *   reader always trusted) hold an active global ban of type T on the device; the reader's own
 *   global ban applies alone. Every active ban that does not apply is listed in `not_enforced`
 *   with why: policy, untrusted_source, or quorum ("H of N publishers needed").
 */

const PUBLISHERS = ['tr-a', 'tr-b', 'tr-c', 'tr-d'] as const;
type Publisher = (typeof PUBLISHERS)[number];

let api: TestApi;
let keys: Record<Publisher, string>;

beforeAll(async () => {
  ({ api, keys } = await startWithPublishers(PUBLISHERS));
});
afterAll(() => api?.close());

const FLAGS = {
  enforce_game: true,
  enforce_publisher: true,
  enforce_global: true,
  enforce_cheat_global: true,
  enforce_social_global: false,
  rep_include_game: true,
  rep_include_publisher: true,
  rep_include_global: true,
};
const TRUST_DEFAULTS = {
  global_sources: 'all',
  global_quorum: 1,
  rep_global_sources: 'all',
  rep_global_quorum: 1,
};

type Sources = 'all' | { only: string[] } | { except: string[] };
interface Policy {
  enforce_game: boolean;
  enforce_publisher: boolean;
  enforce_global: boolean;
  enforce_cheat_global: boolean;
  enforce_social_global: boolean;
  rep_include_game: boolean;
  rep_include_publisher: boolean;
  rep_include_global: boolean;
  global_sources: Sources;
  global_quorum: number;
  rep_global_sources: Sources;
  rep_global_quorum: number;
}
interface ModelBan {
  ban_id: number;
  publisher_id: string;
  ban_type: 'cheat' | 'social';
  scope: 'game' | 'publisher' | 'global';
  game: string;
  revoked: boolean;
  expires_at: string | null;
}

/* ------------------------------------------------------------------------------------------------ */
/* The reference model, from the issue's text                                                      */

const isLive = (ban: ModelBan, now: string) =>
  !ban.revoked && (ban.expires_at === null || ban.expires_at > now);

const sourceTrusted = (reader: string, sources: Sources, publisher: string) => {
  if (publisher === reader || sources === 'all') return true;
  if ('only' in sources) return sources.only.includes(publisher);
  return !sources.except.includes(publisher);
};

const flagsApply = (policy: Policy, ban: ModelBan) => {
  if (ban.scope === 'game') return policy.enforce_game;
  if (ban.scope === 'publisher') return policy.enforce_publisher;
  return (
    policy.enforce_global &&
    (ban.ban_type === 'cheat' ? policy.enforce_cheat_global : policy.enforce_social_global)
  );
};

/** What `reader` in `game` can see of the device's bans: its own game bans of that game, its publisher bans, every global ban. */
const visibleTo = (reader: string, game: string, bans: readonly ModelBan[]) =>
  bans.filter(
    (ban) =>
      ban.scope === 'global' ||
      (ban.publisher_id === reader && (ban.scope === 'publisher' || ban.game === game)),
  );

interface Expected {
  restricted: { cheat: boolean; social: boolean };
  enforced: number[];
  notEnforced: {
    ban_id: number;
    because: string;
    have: number | null;
    need: number | null;
    explanation: string;
  }[];
  score: number;
}

const model = (reader: string, policy: Policy, visible: readonly ModelBan[], now: string): Expected => {
  const agreeing = (type: string) =>
    new Set(
      visible
        .filter(
          (ban) =>
            ban.scope === 'global' &&
            ban.ban_type === type &&
            isLive(ban, now) &&
            sourceTrusted(reader, policy.global_sources, ban.publisher_id),
        )
        .map((ban) => ban.publisher_id),
    ).size;
  const enforced: number[] = [];
  const notEnforced: Expected['notEnforced'] = [];
  for (const ban of visible) {
    if (!isLive(ban, now)) continue;
    const skip = (
      because: string,
      explanation: string,
      have: number | null = null,
      need: number | null = null,
    ) => notEnforced.push({ ban_id: ban.ban_id, because, have, need, explanation });
    if (!flagsApply(policy, ban)) skip('policy', 'your policy does not enforce this type and scope');
    else if (ban.scope !== 'global' || ban.publisher_id === reader) enforced.push(ban.ban_id);
    else if (!sourceTrusted(reader, policy.global_sources, ban.publisher_id))
      skip('untrusted_source', 'from a publisher you do not trust');
    else if (agreeing(ban.ban_type) >= policy.global_quorum) enforced.push(ban.ban_id);
    else {
      const have = agreeing(ban.ban_type);
      skip('quorum', `${have} of ${policy.global_quorum} publishers needed`, have, policy.global_quorum);
    }
  }
  // Reputation: 100 minus 40/10 per active/ended cheat ban and 15/5 per social ban, never below 0,
  // revoked bans never; global bans by the reputation's own sources and quorum (among unrevoked ones).
  const repAgreeing = (type: string) =>
    new Set(
      visible
        .filter(
          (ban) =>
            ban.scope === 'global' &&
            ban.ban_type === type &&
            !ban.revoked &&
            sourceTrusted(reader, policy.rep_global_sources, ban.publisher_id),
        )
        .map((ban) => ban.publisher_id),
    ).size;
  let score = 100;
  for (const ban of visible) {
    if (ban.revoked || !policy[`rep_include_${ban.scope}`]) continue;
    if (
      ban.scope === 'global' &&
      ban.publisher_id !== reader &&
      !(
        sourceTrusted(reader, policy.rep_global_sources, ban.publisher_id) &&
        repAgreeing(ban.ban_type) >= policy.rep_global_quorum
      )
    )
      continue;
    const live = isLive(ban, now);
    score -= ban.ban_type === 'cheat' ? (live ? 40 : 10) : live ? 15 : 5;
  }
  const enforcedBans = visible.filter((ban) => enforced.includes(ban.ban_id));
  return {
    restricted: {
      cheat: enforcedBans.some((ban) => ban.ban_type === 'cheat'),
      social: enforcedBans.some((ban) => ban.ban_type === 'social'),
    },
    enforced: enforced.sort((x, y) => x - y),
    notEnforced: notEnforced.sort((x, y) => x.ban_id - y.ban_id),
    score: Math.max(0, score),
  };
};

/* ------------------------------------------------------------------------------------------------ */
/* Through the API                                                                                  */

const putPolicy = async (publisher: Publisher, body: Record<string, unknown>) => {
  const res = await api.request('PUT', '/v1/policy', { key: keys[publisher], body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Policy & { publisher_id: string; updated_at: string };
};

const enforcementOf = async (publisher: Publisher, game: string, device: string) => {
  const res = await api.request('GET', `/v1/device/${device}/enforcement`, { key: keys[publisher], game });
  expect(res.status).toBe(200);
  return res.body;
};

/** An enforcement answer reduced to what the model decides. */
const decided = (answer: any) => ({
  restricted: answer.restricted,
  enforced: answer.bans.map((ban: any) => ban.ban_id).sort((x: number, y: number) => x - y),
  notEnforced: answer.not_enforced
    .map(({ ban_id, because, have, need, explanation }: any) => ({
      ban_id,
      because,
      have,
      need,
      explanation,
    }))
    .sort((x: any, y: any) => x.ban_id - y.ban_id),
  score: answer.reputation.score,
});

/** The listing's `enforced` of each active ban of the device (every type, every status). */
const listedEnforced = async (publisher: Publisher, game: string, device: string) => {
  const res = await api.request('GET', `/v1/device/${device}/bans?status=all&limit=200`, {
    key: keys[publisher],
    game,
  });
  expect(res.status).toBe(200);
  return Object.fromEntries(res.body.items.map((ban: any) => [ban.ban_id, ban.enforced]));
};

const globalBan = (
  device: string,
  ban_type: 'cheat' | 'social' = 'cheat',
  extra: Record<string, unknown> = {},
) => ({
  device_id: device,
  ban_type,
  scope: 'global',
  reason_code: 'aimbot',
  ...extra,
});

const storedPolicy = (publisher: Publisher) => storedItem(policyKey(publisher));

/**
 * The API's clock: the wall clock, moved forward by `passUntil` instead of waiting for an expiry.
 * Times the tests send are taken from it, so a ban's end is never behind the API's now.
 */
let offsetMs = 0;
const serverNow = () => Date.now() + offsetMs;
const passUntil = (iso: string) => {
  const ahead = Date.parse(iso) + 1 - serverNow();
  if (ahead <= 0) return;
  offsetMs += ahead;
  api.setClockOffset(offsetMs);
};

/* ------------------------------------------------------------------------------------------------ */

describe('the policy carries the trust settings', () => {
  it('answers the defaults on GET, keeps them on a flag-only PUT, and another publisher keeps its own', async () => {
    const res = await api.request('GET', '/v1/policy', { key: keys['tr-d'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      publisher_id: 'tr-d',
      ...FLAGS,
      ...TRUST_DEFAULTS,
      updated_at: expect.any(String),
    });
    const changed = await putPolicy('tr-d', {
      global_sources: { only: ['tr-b', 'tr-d'] },
      rep_global_quorum: 3,
    });
    expect(changed).toMatchObject({
      global_sources: { only: ['tr-b', 'tr-d'] },
      global_quorum: 1,
      rep_global_quorum: 3,
    });
    expect(await storedPolicy('tr-d')).toMatchObject({
      global_sources: { only: ['tr-b', 'tr-d'] },
      rep_global_quorum: 3,
    });
    const flagOnly = await putPolicy('tr-d', { enforce_game: false });
    expect(flagOnly).toMatchObject({
      enforce_game: false,
      global_sources: { only: ['tr-b', 'tr-d'] },
      rep_global_quorum: 3,
    });
    // Another publisher's policy is untouched.
    expect((await api.request('GET', '/v1/policy', { key: keys['tr-c'] })).body).toMatchObject(
      TRUST_DEFAULTS,
    );
    await putPolicy('tr-d', { enforce_game: true, ...TRUST_DEFAULTS });
  });

  it('reads a policy item from before trust settings as their defaults', async () => {
    const { dynamo, tableName: boundTable } = await import('../../lib/storage/client');
    const tableName = boundTable();
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    await putPolicy('tr-c', { global_quorum: 4 });
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: policyKey('tr-c'),
        UpdateExpression:
          'REMOVE global_sources, global_quorum, rep_global_sources, rep_global_quorum, before_global_sources, before_global_quorum, before_rep_global_sources, before_rep_global_quorum',
      }),
    );
    const res = await api.request('GET', '/v1/policy', { key: keys['tr-c'] });
    expect(res.body).toMatchObject(TRUST_DEFAULTS);
    // An update of such an item records the defaults as what came before.
    await putPolicy('tr-c', { global_quorum: 2 });
    await api.settle();
    const audit = await api.request('GET', '/v1/audit?type=policy.updated&limit=1', { key: keys['tr-c'] });
    expect(audit.body.items[0].before).toMatchObject(TRUST_DEFAULTS);
    expect(audit.body.items[0].after).toMatchObject({ ...TRUST_DEFAULTS, global_quorum: 2 });
    await putPolicy('tr-c', { global_quorum: 1 });
  });

  it('puts the new settings in the policy.updated event of the feed and in the audit, still one event', async () => {
    const game = unique('trg');
    await putPolicy('tr-b', { global_sources: { except: ['tr-c'] }, global_quorum: 2 });
    await api.settle();
    const feed = await api.request('GET', '/v1/events?limit=500', { key: keys['tr-b'], game });
    const updates = feed.body.items.filter((event: any) => event.type === 'policy.updated');
    expect(updates.at(-1).policy).toMatchObject({ global_sources: { except: ['tr-c'] }, global_quorum: 2 });
    for (const update of updates)
      expect(Object.keys(update.policy)).toEqual(expect.arrayContaining(Object.keys(TRUST_DEFAULTS)));
    const audit = await api.request('GET', '/v1/audit?type=policy.updated&limit=1', { key: keys['tr-b'] });
    expect(audit.body.items[0]).toMatchObject({
      before: TRUST_DEFAULTS,
      after: { ...TRUST_DEFAULTS, global_sources: { except: ['tr-c'] }, global_quorum: 2 },
    });
    // Another publisher's feed has no event of it.
    const others = await api.request('GET', '/v1/events?limit=500', { key: keys['tr-a'], game });
    expect(
      others.body.items.filter(
        (event: any) => event.type === 'policy.updated' && event.policy.publisher_id === 'tr-b',
      ),
    ).toEqual([]);
    await putPolicy('tr-b', TRUST_DEFAULTS);
  });
});

describe('bad trust settings', () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['a string other than "all"', { global_sources: 'everyone' }, 'global_sources', 'invalid_value'],
    ['a number', { global_sources: 7 }, 'global_sources', 'invalid_type'],
    ['null', { rep_global_sources: null }, 'rep_global_sources', 'invalid_type'],
    [
      'only and except at once',
      { global_sources: { only: ['tr-b'], except: ['tr-c'] } },
      'global_sources',
      'invalid_value',
    ],
    ['an empty object', { global_sources: {} }, 'global_sources', 'invalid_value'],
    [
      'an extra key',
      { global_sources: { only: ['tr-b'], colour: 'red' } },
      'global_sources.colour',
      'unknown_field',
    ],
    [
      'a list that is no array',
      { global_sources: { except: 'tr-b' } },
      'global_sources.except',
      'invalid_type',
    ],
    [
      '101 ids',
      { global_sources: { only: Array.from({ length: 101 }, (_, i) => `p${i}`) } },
      'global_sources.only',
      'too_big',
    ],
    [
      'a malformed id',
      { global_sources: { only: ['tr-b', 'tr-c', 'tr-d', 'Bad Id'] } },
      'global_sources.only.3',
      'invalid_format',
    ],
    [
      'an id with #',
      { rep_global_sources: { except: ['a#b'] } },
      'rep_global_sources.except.0',
      'invalid_format',
    ],
    ['a non-string id', { global_sources: { only: [5] } }, 'global_sources.only.0', 'invalid_type'],
    ['a repeated id', { global_sources: { only: ['tr-b', 'tr-b'] } }, 'global_sources.only.1', 'duplicate'],
    ['quorum 0', { global_quorum: 0 }, 'global_quorum', 'too_small'],
    ['quorum 11', { global_quorum: 11 }, 'global_quorum', 'too_big'],
    ['quorum 1.5', { rep_global_quorum: 1.5 }, 'rep_global_quorum', 'invalid_type'],
    ['quorum "2"', { global_quorum: '2' }, 'global_quorum', 'invalid_type'],
  ];

  it.each(cases)(
    'refuses %s with a 400 naming the field, and stores nothing',
    async (_, body, field, issue) => {
      const before = await storedPolicy('tr-a');
      // A valid flag beside the bad setting: nothing of the request lands.
      const res = await api.request('PUT', '/v1/policy', {
        key: keys['tr-a'],
        body: { enforce_game: false, ...body },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details).toContainEqual({ field, issue });
      expect(await storedPolicy('tr-a')).toEqual(before);
      expect((await api.request('GET', '/v1/policy', { key: keys['tr-b'] })).body).toMatchObject(
        TRUST_DEFAULTS,
      );
    },
  );

  it('accepts 100 ids, the empty list and the own id', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `p-${i}`);
    expect((await putPolicy('tr-a', { global_sources: { except: hundred } })).global_sources).toEqual({
      except: hundred,
    });
    expect((await putPolicy('tr-a', { global_sources: { only: [] } })).global_sources).toEqual({ only: [] });
    expect(
      (await putPolicy('tr-a', { rep_global_sources: { except: ['tr-a'] } })).rep_global_sources,
    ).toEqual({ except: ['tr-a'] });
    await putPolicy('tr-a', TRUST_DEFAULTS);
  });
});

describe('quorum edges at the API (tr-a reads with global_quorum 2)', () => {
  const game = 'trust-game';
  beforeAll(async () => {
    await putPolicy('tr-a', { global_sources: { except: ['tr-d'] }, global_quorum: 2 });
  });
  afterAll(async () => {
    await putPolicy('tr-a', TRUST_DEFAULTS);
  });

  it('N−1: one trusted publisher is 1 of 2 needed; exactly N: a second one makes both apply', async () => {
    const device = unique('trdev');
    const first = await createBan(api, keys['tr-b'], 'b-game', globalBan(device));
    let answer = await enforcementOf('tr-a', game, device);
    expect(answer.restricted).toEqual({ cheat: false, social: false });
    expect(answer.bans).toEqual([]);
    expect(answer.not_enforced).toEqual([
      {
        ban_id: first,
        publisher_id: 'tr-b',
        ban_type: 'cheat',
        scope: 'global',
        because: 'quorum',
        have: 1,
        need: 2,
        explanation: '1 of 2 publishers needed',
      },
    ]);
    expect(await listedEnforced('tr-a', game, device)).toEqual({ [first]: false });
    // Another publisher (default trust) is restricted by the same ban.
    expect((await enforcementOf('tr-c', game, device)).restricted.cheat).toBe(true);

    const second = await createBan(api, keys['tr-c'], 'c-game', globalBan(device));
    answer = await enforcementOf('tr-a', game, device);
    expect(answer.restricted.cheat).toBe(true);
    expect(answer.bans.map((ban: any) => ban.ban_id).sort()).toEqual([first, second].sort());
    expect(answer.bans.every((ban: any) => ban.enforced)).toBe(true);
    expect(answer.not_enforced).toEqual([]);
    expect(await listedEnforced('tr-a', game, device)).toEqual({ [first]: true, [second]: true });
    const cheatListing = await api.request('GET', `/v1/device/${device}/bans/cheat`, {
      key: keys['tr-a'],
      game,
    });
    expect(cheatListing.body.items.map((ban: any) => ban.enforced)).toEqual([true, true]);
  });

  it('a revoke dropping below N: the other ban no longer applies, and the revoke answer says enforced false', async () => {
    const device = unique('trdev');
    const first = await createBan(api, keys['tr-b'], 'b-game', globalBan(device));
    const second = await createBan(api, keys['tr-c'], 'c-game', globalBan(device));
    expect((await enforcementOf('tr-a', game, device)).restricted.cheat).toBe(true);
    const revoked = await revokeBan(api, keys['tr-c'], 'c-game', device, second, { reason_code: 'mistake' });
    expect(revoked.status).toBe(200);
    expect(revoked.body.enforced).toBe(false);
    const answer = await enforcementOf('tr-a', game, device);
    expect(answer.restricted.cheat).toBe(false);
    expect(answer.not_enforced).toEqual([
      expect.objectContaining({ ban_id: first, because: 'quorum', have: 1, need: 2 }),
    ]);
    expect(await listedEnforced('tr-a', game, device)).toEqual({ [first]: false, [second]: false });
  });

  it('an expiry dropping below N: once one ban ends the other is 1 of 2 again', async () => {
    const device = unique('trdev');
    const ends = new Date(serverNow() + 3_000).toISOString();
    const ending = await createBan(
      api,
      keys['tr-b'],
      'b-game',
      globalBan(device, 'cheat', { expires_at: ends }),
    );
    const lasting = await createBan(api, keys['tr-c'], 'c-game', globalBan(device));
    const before = await enforcementOf('tr-a', game, device);
    expect(before.evaluated_at < ends).toBe(true);
    expect(before.restricted.cheat).toBe(true);
    passUntil(ends);
    const after = await enforcementOf('tr-a', game, device);
    expect(after.restricted.cheat).toBe(false);
    expect(after.not_enforced).toEqual([
      expect.objectContaining({ ban_id: lasting, because: 'quorum', have: 1, need: 2 }),
    ]);
    expect(await listedEnforced('tr-a', game, device)).toEqual({ [ending]: false, [lasting]: false });
  });

  it("a distrusted publisher's ban among N counts for nothing and says so", async () => {
    const device = unique('trdev');
    const trusted = await createBan(api, keys['tr-b'], 'b-game', globalBan(device));
    const distrusted = await createBan(api, keys['tr-d'], 'd-game', globalBan(device));
    const answer = await enforcementOf('tr-a', game, device);
    expect(answer.restricted.cheat).toBe(false);
    expect(answer.not_enforced).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          ban_id: trusted,
          because: 'quorum',
          have: 1,
          need: 2,
          explanation: '1 of 2 publishers needed',
        }),
        {
          ban_id: distrusted,
          publisher_id: 'tr-d',
          ban_type: 'cheat',
          scope: 'global',
          because: 'untrusted_source',
          have: null,
          need: null,
          explanation: 'from a publisher you do not trust',
        },
      ]),
    );
    // Reputation keeps its own (default) trust: both bans count, 100 − 40 − 40.
    expect(answer.reputation.score).toBe(20);
    // tr-d's own view (default policy): its ban and tr-b's both apply.
    expect((await enforcementOf('tr-d', game, device)).bans).toHaveLength(2);
  });

  it("the reader's own global ban applies alone and counts toward the others' quorum", async () => {
    const device = unique('trdev');
    const own = await createBan(api, keys['tr-a'], game, globalBan(device));
    let answer = await enforcementOf('tr-a', game, device);
    expect(answer.bans.map((ban: any) => ban.ban_id)).toEqual([own]);
    const other = await createBan(api, keys['tr-b'], 'b-game', globalBan(device));
    answer = await enforcementOf('tr-a', game, device);
    expect(answer.bans.map((ban: any) => ban.ban_id).sort()).toEqual([own, other].sort());
  });

  it('the batch answers each device as the single read does, not_enforced included', async () => {
    const device = unique('trdev');
    await createBan(api, keys['tr-b'], 'b-game', globalBan(device));
    const single = await enforcementOf('tr-a', game, device);
    const res = await api.request('POST', '/v1/enforcement/batch', {
      key: keys['tr-a'],
      game,
      body: { device_ids: [device, 'bad/id'] },
    });
    expect(res.status).toBe(200);
    const { evaluated_at: _a, ...result } = res.body.results[0];
    const { evaluated_at: _b, ...expected } = single;
    expect(result).toEqual(expected);
  });

  it('the feed and the snapshot say enforced as the enforcement answer does', async () => {
    const feedGame = unique('trfeed');
    const device = unique('trdev');
    const alone = await createBan(api, keys['tr-b'], 'b-game', globalBan(device, 'cheat'));
    await api.settle();
    const { next_cursor: cursor } = (
      await api.request('GET', '/v1/events?limit=500', { key: keys['tr-a'], game: feedGame })
    ).body;
    let snapshot = await readSnapshot('tr-a', feedGame);
    expect(snapshot.get(alone)).toBe(false);
    const second = await createBan(api, keys['tr-c'], 'c-game', globalBan(device, 'cheat'));
    await api.settle();
    const later = await api.request('GET', `/v1/events?limit=500&cursor=${cursor}`, {
      key: keys['tr-a'],
      game: feedGame,
    });
    const created = later.body.items.find((event: any) => event.ban?.ban_id === second);
    expect(created.ban.enforced).toBe(true);
    snapshot = await readSnapshot('tr-a', feedGame);
    expect([snapshot.get(alone), snapshot.get(second)]).toEqual([true, true]);
    // A snapshot read a ban at a time splits the device across pages: the same answer.
    expect(await readSnapshot('tr-a', feedGame, 1)).toEqual(snapshot);
    // tr-c (default trust) sees its own and tr-b's as enforced too, tr-d excluded by nobody.
    expect((await readSnapshot('tr-c', feedGame)).get(alone)).toBe(true);
  });
});

/** Every page of the snapshot: ban id → enforced. */
const readSnapshot = async (publisher: Publisher, game: string, limit = 500) => {
  const found = new Map<number, boolean>();
  let cursor: string | null = null;
  do {
    const query: string = `limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
    const res = await api.request('GET', `/v1/enforcement/snapshot?${query}`, { key: keys[publisher], game });
    expect(res.status).toBe(200);
    for (const item of res.body.items) found.set(item.ban_id, item.enforced);
    cursor = res.body.next_cursor;
  } while (cursor);
  return found;
};

/** Every ban of the snapshot as the model reads it (every page), keyed by device. */
const snapshotBans = async (publisher: Publisher, game: string) => {
  const byDevice = new Map<string, ModelBan[]>();
  let cursor: string | null = null;
  do {
    const query: string = `limit=500${cursor ? `&cursor=${cursor}` : ''}`;
    const res = await api.request('GET', `/v1/enforcement/snapshot?${query}`, { key: keys[publisher], game });
    expect(res.status).toBe(200);
    for (const item of res.body.items)
      byDevice.set(item.device_id, [
        ...(byDevice.get(item.device_id) ?? []),
        { ...item, game: item.game_id ?? game, revoked: item.revoked_at !== null },
      ]);
    cursor = res.body.next_cursor;
  } while (cursor);
  return byDevice;
};

/** The reach the model counts: devices whose restriction differs between the two policies. */
const modelReach = (
  reader: string,
  before: Policy,
  after: Policy,
  byDevice: Map<string, ModelBan[]>,
  now: string,
) => {
  const change = () => ({ become_restricted: 0, no_longer_restricted: 0 });
  const reach = { cheat: change(), social: change(), any: change() };
  const tally = (into: ReturnType<typeof change>, was: boolean, is: boolean) => {
    if (!was && is) into.become_restricted += 1;
    if (was && !is) into.no_longer_restricted += 1;
  };
  for (const bans of byDevice.values()) {
    const was = model(reader, before, bans, now).restricted;
    const is = model(reader, after, bans, now).restricted;
    tally(reach.cheat, was.cheat, is.cheat);
    tally(reach.social, was.social, is.social);
    tally(reach.any, was.cheat || was.social, is.cheat || is.social);
  }
  return reach;
};

describe('the reach of a policy draft (POST /v1/policy/preview)', () => {
  it('counts what the model counts over the same live bans, saves nothing, and refuses a bad draft', async () => {
    const game = unique('reach');
    const d1 = unique('reachdev');
    const d2 = unique('reachdev');
    const d3 = unique('reachdev');
    const d4 = unique('reachdev');
    const d5 = unique('reachdev');
    const before = await putPolicy('tr-a', { ...FLAGS, ...TRUST_DEFAULTS });
    await createBan(api, keys['tr-a'], game, {
      device_id: d1,
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'aimbot',
    });
    await createBan(api, keys['tr-a'], 'other-game', {
      device_id: d5,
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'aimbot',
    });
    await createBan(api, keys['tr-a'], game, {
      device_id: d2,
      ban_type: 'social',
      scope: 'publisher',
      reason_code: 'spam',
    });
    await createBan(api, keys['tr-b'], 'b-game', globalBan(d3, 'cheat'));
    await createBan(api, keys['tr-c'], 'c-game', globalBan(d3, 'cheat'));
    await createBan(api, keys['tr-b'], 'b-game', globalBan(d4, 'cheat'));
    await createBan(api, keys['tr-b'], 'b-game', globalBan(d4, 'social'));
    await createBan(api, keys['tr-c'], 'c-game', globalBan(d4, 'social'));
    await createBan(api, keys['tr-b'], game, {
      device_id: d5,
      ban_type: 'social',
      scope: 'publisher',
      reason_code: 'spam',
    });
    await api.settle();

    // Off: game bans; on: social global bans; a quorum of two: d4's lone cheat ban stops applying,
    // its two social ones start.
    const draft = { enforce_game: false, enforce_social_global: true, global_quorum: 2 };
    const res = await api.request('POST', '/v1/policy/preview', { key: keys['tr-a'], game, body: draft });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const bans = await snapshotBans('tr-a', game);
    const expected = modelReach('tr-a', before, { ...before, ...draft }, bans, res.body.evaluated_at);
    expect(res.body).toEqual({
      game_id: game,
      evaluated_at: expect.any(String),
      policy_updated_at: before.updated_at,
      devices_with_bans: bans.size,
      ...expected,
    });
    // The devices made here move as drafted (others of this file may too).
    expect(expected.cheat.no_longer_restricted).toBeGreaterThanOrEqual(2); // d1, d4
    expect(expected.social.become_restricted).toBeGreaterThanOrEqual(1); // d4
    expect(bans.has(d5)).toBe(false);
    expect((await storedPolicy('tr-a'))?.updated_at).toBe(before.updated_at);

    const bad = await api.request('POST', '/v1/policy/preview', {
      key: keys['tr-a'],
      game,
      body: { global_quorum: 0, enforce_game: 'no' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect(bad.body.error.details.map((d: any) => d.field).sort()).toEqual(['enforce_game', 'global_quorum']);
    expect((await api.request('GET', '/v1/policy', { key: keys['tr-a'] })).body).toEqual(before);
  });

  it("another publisher's preview sees none of this publisher's game and publisher bans", async () => {
    const game = unique('reach');
    const device = unique('reachdev');
    await createBan(api, keys['tr-a'], game, {
      device_id: device,
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'aimbot',
    });
    await createBan(api, keys['tr-a'], game, {
      device_id: device,
      ban_type: 'social',
      scope: 'publisher',
      reason_code: 'spam',
    });
    await api.settle();
    const policy = await putPolicy('tr-b', { ...FLAGS, ...TRUST_DEFAULTS });
    const draft = { enforce_game: false, enforce_publisher: false };
    const res = await api.request('POST', '/v1/policy/preview', { key: keys['tr-b'], game, body: draft });
    expect(res.status).toBe(200);
    const bans = await snapshotBans('tr-b', game);
    expect(bans.has(device)).toBe(false);
    const expected = modelReach('tr-b', policy, { ...policy, ...draft }, bans, res.body.evaluated_at);
    expect(res.body).toMatchObject({ devices_with_bans: bans.size, ...expected });
    // tr-a's own reach of the same draft does count it.
    const own = await api.request('POST', '/v1/policy/preview', { key: keys['tr-a'], game, body: draft });
    const ownBans = await snapshotBans('tr-a', game);
    expect(ownBans.has(device)).toBe(true);
    expect(own.body.devices_with_bans).toBe(ownBans.size);
  });

  it("stays exact after the copies it keeps warm: bans made and revoked since, by it and others, count at once, other publishers' game and publisher bans never", async () => {
    const game = unique('reach');
    const [d1, d2, d3, d4] = [1, 2, 3, 4].map(() => unique('reachdev')) as [string, string, string, string];
    const policies = {
      'tr-a': await putPolicy('tr-a', { ...FLAGS, ...TRUST_DEFAULTS }),
      'tr-b': await putPolicy('tr-b', { ...FLAGS, ...TRUST_DEFAULTS }),
    };
    const draft = { enforce_game: false, enforce_social_global: true, global_quorum: 2 };
    /** The preview, checked against the model over a whole read of the live sets (the snapshot). */
    const previewMatches = async (reader: 'tr-a' | 'tr-b') => {
      const res = await api.request('POST', '/v1/policy/preview', { key: keys[reader], game, body: draft });
      expect(res.status).toBe(200);
      const bans = await snapshotBans(reader, game);
      const policy = policies[reader];
      expect(res.body).toMatchObject({
        devices_with_bans: bans.size,
        ...modelReach(reader, policy, { ...policy, ...draft }, bans, res.body.evaluated_at),
      });
      return bans;
    };
    await createBan(api, keys['tr-a'], game, {
      device_id: d1,
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'aimbot',
    });
    await api.settle();
    // Warms both readers' copies of their partitions and of the global one.
    await previewMatches('tr-a');
    await previewMatches('tr-b');

    // Since: another publisher's global bans (a quorum of two on d2), each reader's own game and
    // publisher bans in the same game id, one of them revoked, and a ban made last of all.
    await createBan(api, keys['tr-b'], 'b-game', globalBan(d2, 'social'));
    await createBan(api, keys['tr-c'], 'c-game', globalBan(d2, 'social'));
    await createBan(api, keys['tr-b'], game, {
      device_id: d3,
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'aimbot',
    });
    await createBan(api, keys['tr-b'], game, {
      device_id: d3,
      ban_type: 'social',
      scope: 'publisher',
      reason_code: 'spam',
    });
    const revoked = await createBan(api, keys['tr-a'], game, {
      device_id: d4,
      ban_type: 'social',
      scope: 'publisher',
      reason_code: 'spam',
    });
    await api.settle();
    expect((await revokeBan(api, keys['tr-a'], game, d4, revoked, { reason_code: 'mistake' })).status).toBe(
      200,
    );
    await createBan(api, keys['tr-a'], game, {
      device_id: d4,
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'aimbot',
    });
    await api.settle();

    const seenByA = await previewMatches('tr-a');
    expect([d1, d2, d3, d4].map((device) => seenByA.get(device)?.length ?? 0)).toEqual([1, 2, 0, 1]);
    const seenByB = await previewMatches('tr-b');
    expect([d1, d2, d3, d4].map((device) => seenByB.get(device)?.length ?? 0)).toEqual([0, 2, 2, 0]);
  });
});

/* ------------------------------------------------------------------------------------------------ */
/* The property                                                                                     */

const sources = fc.oneof(
  { weight: 2, arbitrary: fc.constant<Sources>('all') },
  { weight: 1, arbitrary: fc.subarray([...PUBLISHERS]).map((only): Sources => ({ only })) },
  { weight: 1, arbitrary: fc.subarray([...PUBLISHERS]).map((except): Sources => ({ except })) },
);
const policyArb = fc.record({
  enforce_global: fc.boolean(),
  enforce_cheat_global: fc.boolean(),
  enforce_social_global: fc.boolean(),
  enforce_game: fc.boolean(),
  global_sources: sources,
  global_quorum: fc.integer({ min: 1, max: 4 }),
  rep_global_sources: sources,
  rep_global_quorum: fc.integer({ min: 1, max: 4 }),
});
const banArb = fc.record({
  by: fc.constantFrom(...PUBLISHERS),
  device: fc.integer({ min: 0, max: 2 }),
  ban_type: fc.constantFrom('cheat' as const, 'social' as const),
  scope: fc.constantFrom(
    'global' as const,
    'global' as const,
    'global' as const,
    'game' as const,
    'publisher' as const,
  ),
  ending: fc.constantFrom('never', 'later', 'soon'),
  revoked: fc.boolean(),
});

describe('the enforcement answer, the batch and the listings against the reference model', () => {
  it('agree for random bans of four publishers and random trust settings of two readers', async () => {
    const readers: Publisher[] = ['tr-a', 'tr-b'];
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(banArb, { minLength: 1, maxLength: 9 }),
        policyArb,
        policyArb,
        async (specs, policyA, policyB) => {
          runs += 1;
          const game = unique('trpg');
          const devices = [0, 1, 2].map(() => unique('trpd'));
          // Each "soon" end is taken as its ban is made (a loaded machine can take longer than a
          // shared one would last to make them all); the reads wait until the last has passed.
          let soon = new Date(serverNow()).toISOString();
          const bans: (ModelBan & { device: string })[] = [];
          for (const spec of specs) {
            const banGame = spec.by === 'tr-a' || spec.by === 'tr-b' ? game : `${spec.by}-game`;
            if (spec.ending === 'soon') soon = new Date(serverNow() + 1_200).toISOString();
            const expires_at =
              spec.ending === 'never' ? null : spec.ending === 'soon' ? soon : '2099-01-01T00:00:00.000Z';
            const device = devices[spec.device] as string;
            const id = await createBan(api, keys[spec.by], banGame, {
              device_id: device,
              ban_type: spec.ban_type,
              scope: spec.scope,
              reason_code: 'prop',
              ...(expires_at ? { expires_at } : {}),
            });
            bans.push({
              ban_id: id,
              publisher_id: spec.by,
              ban_type: spec.ban_type,
              scope: spec.scope,
              game: banGame,
              revoked: false,
              expires_at,
              device,
            });
            if (spec.revoked) {
              const res = await revokeBan(api, keys[spec.by], banGame, device, id, { reason_code: 'prop' });
              expect(res.status).toBe(200);
              (bans.at(-1) as ModelBan).revoked = true;
            }
          }
          const policies = {
            'tr-a': (await putPolicy('tr-a', policyA)) as Policy,
            'tr-b': (await putPolicy('tr-b', policyB)) as Policy,
          };
          // Every "soon" ban has ended before anything is read, so no answer races its end.
          passUntil(soon);
          for (const reader of readers) {
            const policy = policies[reader as 'tr-a' | 'tr-b'];
            const batch = await api.request('POST', '/v1/enforcement/batch', {
              key: keys[reader],
              game,
              body: { device_ids: devices },
            });
            expect(batch.status).toBe(200);
            for (const [i, device] of devices.entries()) {
              const visible = visibleTo(
                reader,
                game,
                bans.filter((ban) => ban.device === device),
              );
              const single = await enforcementOf(reader, game, device);
              const expected = model(reader, policy, visible, single.evaluated_at);
              expect(decided(single), `${reader} ${device}`).toEqual(expected);
              expect(decided(batch.body.results[i]), `${reader} ${device} in the batch`).toEqual(
                model(reader, policy, visible, batch.body.evaluated_at),
              );
              const listed = await listedEnforced(reader, game, device);
              expect(listed).toEqual(
                Object.fromEntries(
                  visible.map((ban) => [ban.ban_id, expected.enforced.includes(ban.ban_id)]),
                ),
              );
            }
          }
          // A third publisher with the default policy sees every device as the model says for it.
          const defaults = { ...FLAGS, ...TRUST_DEFAULTS } as Policy;
          for (const device of devices) {
            const visible = visibleTo(
              'tr-d',
              'tr-d-game',
              bans.filter((ban) => ban.device === device),
            );
            const answer = await enforcementOf('tr-d', 'tr-d-game', device);
            expect(decided(answer)).toEqual(model('tr-d', defaults, visible, answer.evaluated_at));
          }
        },
      ),
      propertyOptions('trust against the model', 12),
    );
    expect(runs).toBe(propertyRuns(12));
    await putPolicy('tr-a', { ...FLAGS, ...TRUST_DEFAULTS });
    await putPolicy('tr-b', { ...FLAGS, ...TRUST_DEFAULTS });
    // Twelve runs of real requests: about 20 s alone, and well over the default 30 s under npm test's
    // two lanes on 2 cores.
  }, 180_000);
});
