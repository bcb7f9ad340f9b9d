import { EEA_COUNTRIES } from '@kernel/statement-of-reasons';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { signIn } from '../support/sign-in';
import { transparencyDatabaseProblems } from '../support/transparency-database';

/**
 * The statement of reasons every ban carries (Digital Services Act, Art. 17; docs/player-rights.md):
 * made at create from what the create gives, over the catalogue reason's defaults, over ours (a
 * key's ban detected and decided by automated means, a person's by hand); stored with the ban;
 * shown to every publisher who sees the ban, in listings, the enforcement answer and the feed; and
 * gone with an erasure, as the player's message is. A statement the create gets wrong is a 400 that
 * stores nothing.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ people: true });
});
afterAll(() => api?.close());

let n = 0;
const unique = (prefix: string) => {
  n += 1;
  return `${prefix}-${Date.now().toString(36)}-${n}`;
};
const publisher = async () => {
  const id = unique('sr');
  return { id, key: (await api.createKey(id, 'statements test')).api_key };
};
const create = (key: string, body: Record<string, unknown>, game = 'g1') =>
  api.request('POST', '/v1/bans', {
    key,
    game,
    body: { ban_type: 'cheat', scope: 'game', reason_code: 'aimbot', ...body },
  });
const listed = async (key: string, device: string, game = 'g1') => {
  const res = await api.request('GET', `/v1/device/${device}/bans`, { key, game });
  expect(res.status).toBe(200);
  return res.body.items as Array<Record<string, any>>;
};
const storedBans = async (device: string) =>
  (await api.items()).filter((item) => item.pk === `DEVICE#${device}` && String(item.sk).startsWith('BAN#'));

const DEFAULTS = {
  terms_url: null,
  legal_ground: null,
  illegal_explanation: null,
  source: 'own_initiative',
  territorial_scope: [...EEA_COUNTRIES],
  category: 'other_violation_tc',
};

describe('the statement of reasons of a ban', () => {
  it("is made from the defaults when the create says nothing: a key's ban automated, stored and shown to all", async () => {
    const [owner, other] = [await publisher(), await publisher()];
    const device = unique('dev');
    const made = await create(owner.key, { device_id: device, scope: 'global', details: { clip: 'c-1' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const expected = {
      ground: 'terms',
      terms_clause: 'aimbot',
      facts: 'This device received a cheat ban for aimbot.',
      automated_detection: true,
      automated_decision: 'fully',
      ...DEFAULTS,
    };
    const [mine] = await listed(owner.key, device);
    expect(mine?.statement).toEqual(expected);
    // Written for the player: every publisher who sees the ban reads it; the details stay the owner's.
    const [theirs] = await listed(other.key, device, 'g9');
    expect(theirs?.statement).toEqual(expected);
    expect(theirs?.details_json).toBeNull();
    const enforcement = await api.request('GET', `/v1/device/${device}/enforcement`, {
      key: other.key,
      game: 'g9',
    });
    expect(enforcement.body.bans[0].statement).toEqual(expected);
    // Stored with the ban, as made: a later catalogue change does not rewrite it.
    const [item] = await storedBans(device);
    expect(item?.statement).toEqual(expected);
  });

  it("takes the catalogue reason's defaults, the create's fields over them, and a person's ban is decided by hand", async () => {
    const owner = await publisher();
    const catalogue = await api.request('PUT', '/v1/reasons', {
      key: owner.key,
      body: {
        strict_reasons: false,
        reasons: [
          {
            code: 'wallhack',
            label: 'Seeing through walls',
            ban_type: 'cheat',
            scope: 'publisher',
            duration_seconds: null,
            player_message: 'Banned for cheat software that shows players through walls.',
            statement: {
              terms_clause: 'Terms of service, 7.3: no cheat software',
              terms_url: 'https://acme.example/terms#7.3',
              automated_detection: true,
              category: 'other_violation_tc',
            },
          },
        ],
      },
    });
    expect(catalogue.status, JSON.stringify(catalogue.body)).toBe(200);
    const read = await api.request('GET', '/v1/reasons', { key: owner.key });
    expect(read.body.reasons[0].statement).toEqual({
      terms_clause: 'Terms of service, 7.3: no cheat software',
      terms_url: 'https://acme.example/terms#7.3',
      automated_detection: true,
      category: 'other_violation_tc',
    });

    // A person of the publisher makes the ban: decided by hand, detected as the catalogue says.
    const person = await api.createPerson(owner.id, 'moderator');
    const signedIn = await signIn(
      api.identity.issuer,
      api.identity.redirectUri,
      person.email,
      person.password,
    );
    if (!signedIn.ok) throw new Error(`could not sign in: ${signedIn.status}`);
    const token = signedIn.tokens.access_token;
    const device = unique('dev');
    const made = await create(token, {
      device_id: device,
      scope: 'publisher',
      reason_code: 'wallhack',
      statement: { facts: 'Replay 7781 shows tracking through two walls.', source: 'notice' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const [ban] = await listed(owner.key, device);
    expect(ban?.statement).toEqual({
      ground: 'terms',
      terms_clause: 'Terms of service, 7.3: no cheat software',
      terms_url: 'https://acme.example/terms#7.3',
      legal_ground: null,
      illegal_explanation: null,
      facts: 'Replay 7781 shows tracking through two walls.',
      automated_detection: true,
      automated_decision: 'not',
      source: 'notice',
      territorial_scope: [...EEA_COUNTRIES],
      category: 'other_violation_tc',
    });
    // Without facts, the facts are the message the player is shown (here, the catalogue's).
    const second = unique('dev');
    expect((await create(owner.key, { device_id: second, reason_code: 'wallhack' })).status).toBe(201);
    expect((await listed(owner.key, second))[0]?.statement.facts).toBe(
      'Banned for cheat software that shows players through walls.',
    );
  });

  it('takes an illegal ground with its law and explanation, and only a territorial scope it names', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const statement = {
      ground: 'illegal',
      legal_ground: 'Directive 2011/93/EU, Art. 6',
      illegal_explanation: 'Soliciting a child in chat.',
      facts: 'Chat logs of 3 May reported by a trusted flagger.',
      source: 'trusted_flagger',
      territorial_scope: ['DE', 'AT'],
      category: 'protection_of_minors',
      automated_decision: 'partially',
    };
    const made = await create(owner.key, {
      device_id: device,
      ban_type: 'social',
      reason_code: 'grooming',
      statement,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect((await listed(owner.key, device))[0]?.statement).toEqual({
      ...statement,
      terms_clause: null,
      terms_url: null,
      automated_detection: true,
    });
  });

  it('refuses a statement it cannot make with the field named, and stores nothing', async () => {
    const owner = await publisher();
    const device = unique('dev');
    for (const [statement, field] of [
      [{ ground: 'illegal', illegal_explanation: 'x' }, 'statement.legal_ground'],
      [{ ground: 'illegal', legal_ground: 'a law' }, 'statement.illegal_explanation'],
      [{ legal_ground: 'a law' }, 'statement.legal_ground'],
      [
        { ground: 'illegal', legal_ground: 'a law', illegal_explanation: 'x', terms_clause: 'c' },
        'statement.terms_clause',
      ],
      [{ category: 'cheating' }, 'statement.category'],
      [{ source: 'rumour' }, 'statement.source'],
      [{ automated_decision: true }, 'statement.automated_decision'],
      [{ terms_url: 'http://acme.example/terms' }, 'statement.terms_url'],
      [{ territorial_scope: ['DE', 'US'] }, 'statement.territorial_scope.1'],
      [{ territorial_scope: ['DE', 'DE'] }, 'statement.territorial_scope.1'],
      [{ territorial_scope: [] }, 'statement.territorial_scope'],
      [{ facts: '' }, 'statement.facts'],
      [{ facts: 'x'.repeat(5001) }, 'statement.facts'],
      [{ colour: 'red' }, 'statement.colour'],
    ] as const) {
      const res = await create(owner.key, { device_id: device, statement });
      expect(res.status, JSON.stringify(statement)).toBe(400);
      expect(
        res.body.error.details.map((d: { field: string }) => d.field),
        JSON.stringify(statement),
      ).toContain(field);
    }
    expect(await storedBans(device)).toEqual([]);
  });

  it('goes with an erasure: the erased event and the earlier one keep no statement, nor the deliveries', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const made = await create(owner.key, {
      device_id: device,
      statement: {
        facts: 'Detected by anti-cheat on 2 May; the player wrote to support from jo@example.com.',
      },
    });
    expect(made.status).toBe(201);
    await api.settle();
    const before = await api.request('GET', '/v1/events?limit=100', { key: owner.key, game: 'g1' });
    const created = before.body.items.find((e: { device_id: string }) => e.device_id === device);
    expect(created.ban.statement.facts).toContain('jo@example.com');
    expect((await api.request('POST', `/v1/device/${device}/erase`, { key: owner.key })).status).toBe(200);
    await api.settle();
    const feed = await api.request('GET', '/v1/events?limit=100', { key: owner.key, game: 'g1' });
    const events = feed.body.items.filter((e: { device_id: string }) => e.device_id === device);
    expect(events.map((e: { type: string }) => e.type)).toEqual(['ban.created', 'ban.erased']);
    for (const event of events) expect(event.ban.statement).toBeNull();
    expect(JSON.stringify(await api.items({ derived: true }))).not.toContain('jo@example.com');
  });
});

describe("the statements in the DSA Transparency Database's format", () => {
  it("exports each ban of a period as a statement the database's rules accept, and nobody else's", async () => {
    const [owner, other] = [await publisher(), await publisher()];
    const from = new Date(Date.now() - 1000).toISOString();
    const permanent = unique('dev');
    const muted = unique('dev');
    const erased = unique('dev');
    expect((await create(owner.key, { device_id: permanent, scope: 'global' })).status).toBe(201);
    const illegal = await create(owner.key, {
      device_id: muted,
      ban_type: 'social',
      reason_code: 'grooming',
      expires_at: '2031-02-03T04:05:06Z',
      statement: {
        ground: 'illegal',
        legal_ground: 'Directive 2011/93/EU, Art. 6',
        illegal_explanation: 'Soliciting a child in chat.',
        facts: 'Chat logs of 3 May, reported by a trusted flagger.',
        source: 'trusted_flagger',
        category: 'protection_of_minors',
        automated_decision: 'not',
        automated_detection: false,
        territorial_scope: ['DE', 'AT'],
      },
    });
    expect(illegal.status, JSON.stringify(illegal.body)).toBe(201);
    expect((await create(owner.key, { device_id: erased })).status).toBe(201);
    expect((await api.request('POST', `/v1/device/${erased}/erase`, { key: owner.key })).status).toBe(200);
    expect((await create(other.key, { device_id: unique('dev') })).status).toBe(201);

    const exported = await api.request('GET', `/v1/statements?from=${encodeURIComponent(from)}`, {
      key: owner.key,
    });
    expect(exported.status, JSON.stringify(exported.body)).toBe(200);
    const { items, not_exported, next_cursor } = exported.body;
    expect(next_cursor).toBeNull();
    expect(not_exported).toBe(1);
    expect(items.map((s: { puid: string }) => s.puid)).toEqual([
      `ban-${illegal.body.ban_id}`,
      expect.stringMatching(/^ban-\d+$/),
    ]);
    for (const statement of items)
      expect(transparencyDatabaseProblems(statement), statement.puid).toEqual([]);
    const [social, cheat] = items;
    expect(social).toEqual({
      decision_provision: 'DECISION_PROVISION_PARTIAL_SUSPENSION',
      end_date_service_restriction: '2031-02-03',
      decision_ground: 'DECISION_GROUND_ILLEGAL_CONTENT',
      illegal_content_legal_ground: 'Directive 2011/93/EU, Art. 6',
      illegal_content_explanation: 'Soliciting a child in chat.',
      content_type: ['CONTENT_TYPE_TEXT'],
      category: 'STATEMENT_CATEGORY_PROTECTION_OF_MINORS',
      territorial_scope: ['DE', 'AT'],
      content_date: new Date().toISOString().slice(0, 10),
      application_date: new Date().toISOString().slice(0, 10),
      decision_facts: 'Chat logs of 3 May, reported by a trusted flagger.',
      source_type: 'SOURCE_TRUSTED_FLAGGER',
      automated_detection: 'No',
      automated_decision: 'AUTOMATED_DECISION_NOT_AUTOMATED',
      puid: `ban-${illegal.body.ban_id}`,
    });
    expect(cheat).toMatchObject({
      decision_provision: 'DECISION_PROVISION_TOTAL_TERMINATION',
      decision_ground: 'DECISION_GROUND_INCOMPATIBLE_CONTENT',
      incompatible_content_ground: 'aimbot',
      content_type: ['CONTENT_TYPE_OTHER'],
      category: 'STATEMENT_CATEGORY_OTHER_VIOLATION_TC',
      source_type: 'SOURCE_VOLUNTARY',
      automated_detection: 'Yes',
      automated_decision: 'AUTOMATED_DECISION_FULLY',
    });

    // Page by page: the same statements, one at a time.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ from, limit: '1', ...(cursor ? { cursor } : {}) });
      const page = await api.request('GET', `/v1/statements?${query}`, { key: owner.key });
      expect(page.status).toBe(200);
      paged.push(...page.body.items.map((s: { puid: string }) => s.puid));
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    expect(paged).toEqual(items.map((s: { puid: string }) => s.puid));

    // The other publisher exports its own ban only.
    const theirs = await api.request('GET', `/v1/statements?from=${encodeURIComponent(from)}`, {
      key: other.key,
    });
    expect(theirs.body.items).toHaveLength(1);
    expect(theirs.body.items[0].puid).not.toBe(social.puid);
    // A key bound to games, one without audit:read, and a bad range are refused.
    const bound = (await api.createKey(owner.id, 'bound', { scopes: ['audit:read'], games: ['g1'] })).api_key;
    expect((await api.request('GET', '/v1/statements', { key: bound })).status).toBe(403);
    const reader = (await api.createKey(owner.id, 'reader', { scopes: ['bans:read'] })).api_key;
    expect((await api.request('GET', '/v1/statements', { key: reader })).status).toBe(403);
    const bad = await api.request('GET', '/v1/statements?from=yesterday', { key: owner.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toContain('from');
  });

  it("holds a statement to the database's rules: our copy refuses what it would refuse", () => {
    const good = {
      decision_provision: 'DECISION_PROVISION_TOTAL_SUSPENSION',
      decision_ground: 'DECISION_GROUND_INCOMPATIBLE_CONTENT',
      incompatible_content_ground: 'ToS 7.3',
      incompatible_content_explanation: 'Cheat software.',
      content_type: ['CONTENT_TYPE_OTHER'],
      content_type_other: 'Conduct in an online game',
      category: 'STATEMENT_CATEGORY_OTHER_VIOLATION_TC',
      content_date: '2026-03-03',
      application_date: '2026-03-03',
      decision_facts: 'Facts.',
      source_type: 'SOURCE_VOLUNTARY',
      automated_detection: 'Yes',
      automated_decision: 'AUTOMATED_DECISION_FULLY',
      puid: 'ban-1',
    };
    expect(transparencyDatabaseProblems(good)).toEqual([]);
    expect(transparencyDatabaseProblems({ ...good, puid: 'ban 1' })).toEqual(['puid: regex']);
    expect(transparencyDatabaseProblems({ ...good, content_type_other: undefined })).toEqual([
      'content_type_other: required',
    ]);
    expect(transparencyDatabaseProblems({ ...good, application_date: '2026-03-03-12' })).toEqual([
      'application_date: date_format:Y-m-d',
    ]);
    expect(
      transparencyDatabaseProblems({ ...good, decision_ground: 'DECISION_GROUND_ILLEGAL_CONTENT' }),
    ).toEqual(['illegal_content_legal_ground: required', 'illegal_content_explanation: required']);
    expect(transparencyDatabaseProblems({ ...good, territorial_scope: ['DE', 'US'] })).toEqual([
      'territorial_scope: in',
    ]);
  });
});
