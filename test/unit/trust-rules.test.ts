import {
  enforcedBans,
  explainVerdict,
  type GlobalSources,
  judgeBans,
  type RuleBan,
  type RulePolicy,
  reputation,
} from '@kernel/policy-rules';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * Trust in other publishers' global bans, held against a plain reference model written
 * here from the issue's own words, not from the module:
 *
 *   `global_sources`: "all", or {"only": [ids]}, or {"except": [ids]}; your own id is always trusted.
 *   `global_quorum` N: a global ban of type T is enforced only while at least N distinct trusted
 *   publishers hold an active global ban of type T on the device; your own global ban always counts
 *   alone. Game and publisher bans, the policy's flags and "active" are as before.
 */

const ME = 'me';
const OTHERS = ['p1', 'p2', 'p3', 'p4'] as const;
const NOW = '2026-06-01T00:00:00.000Z';
const PAST = '2026-05-01T00:00:00.000Z';
const FUTURE = '2026-07-01T00:00:00.000Z';

const policyOf = (over: Partial<RulePolicy> = {}): RulePolicy => ({
  publisher_id: ME,
  enforce_game: true,
  enforce_publisher: true,
  enforce_global: true,
  enforce_cheat_global: true,
  enforce_social_global: true,
  rep_include_game: true,
  rep_include_publisher: true,
  rep_include_global: true,
  ...over,
});

const globalBan = (publisher: string, over: Partial<RuleBan> = {}): RuleBan => ({
  scope: 'global',
  ban_type: 'cheat',
  publisher_id: publisher,
  revoked_at: null,
  expires_at: null,
  ...over,
});

/** The reference model: one ban at a time, straight from the text above. */
const referenceEnforced = (policy: RulePolicy, bans: readonly RuleBan[], ban: RuleBan): boolean => {
  const active = (b: RuleBan) => b.revoked_at === null && (b.expires_at === null || b.expires_at > NOW);
  if (!active(ban)) return false;
  if (ban.scope === 'game') return policy.enforce_game;
  if (ban.scope === 'publisher') return policy.enforce_publisher;
  const typeFlag = ban.ban_type === 'cheat' ? policy.enforce_cheat_global : policy.enforce_social_global;
  if (!policy.enforce_global || !typeFlag) return false;
  if (ban.publisher_id === ME) return true;
  const sources = policy.global_sources ?? 'all';
  const trusted = (p: string) =>
    p === ME ||
    sources === 'all' ||
    ('only' in sources && sources.only.includes(p)) ||
    ('except' in sources && !sources.except.includes(p));
  if (!trusted(ban.publisher_id)) return false;
  const agreeing = new Set(
    bans
      .filter(
        (b) => b.scope === 'global' && b.ban_type === ban.ban_type && active(b) && trusted(b.publisher_id),
      )
      .map((b) => b.publisher_id),
  );
  return agreeing.size >= (policy.global_quorum ?? 1);
};

const ids = fc.subarray([...OTHERS, ME]);
const sources: fc.Arbitrary<GlobalSources> = fc.oneof(
  fc.constant('all' as const),
  ids.map((only) => ({ only })),
  ids.map((except) => ({ except })),
);
const banArb: fc.Arbitrary<RuleBan> = fc.record({
  scope: fc.constantFrom('game' as const, 'publisher' as const, 'global' as const, 'global' as const),
  ban_type: fc.constantFrom('cheat' as const, 'social' as const),
  publisher_id: fc.constantFrom(ME, ...OTHERS),
  revoked_at: fc.constantFrom(null, null, null, PAST),
  expires_at: fc.constantFrom(null, null, PAST, FUTURE),
});
const policyArb: fc.Arbitrary<RulePolicy> = fc
  .record({
    enforce_global: fc.boolean(),
    enforce_cheat_global: fc.boolean(),
    enforce_social_global: fc.boolean(),
    enforce_game: fc.boolean(),
    enforce_publisher: fc.boolean(),
    global_sources: fc.option(sources, { nil: undefined }),
    global_quorum: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
  })
  .map(({ global_sources, global_quorum, ...flags }) =>
    policyOf({
      ...flags,
      ...(global_sources === undefined ? {} : { global_sources }),
      ...(global_quorum === undefined ? {} : { global_quorum }),
    }),
  );

describe('trust in global bans against the reference model', () => {
  it('judges every ban of random devices, policies, sources and quorums as the model does', () => {
    fc.assert(
      fc.property(policyArb, fc.array(banArb, { maxLength: 12 }), (policy, bans) => {
        const verdicts = judgeBans(policy, bans, NOW);
        expect(verdicts.map((v) => v.applies)).toEqual(
          bans.map((ban) => referenceEnforced(policy, bans, ban)),
        );
        expect(enforcedBans(policy, bans, NOW)).toEqual(
          bans.filter((ban) => referenceEnforced(policy, bans, ban)),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps today's answer when no trust is set (everyone trusted, a quorum of 1)", () => {
    fc.assert(
      fc.property(policyArb, fc.array(banArb, { maxLength: 12 }), (policy, bans) => {
        const { global_sources: _s, global_quorum: _q, ...flagsOnly } = policy;
        const verdicts = judgeBans(flagsOnly, bans, NOW);
        const active = (b: RuleBan) => b.revoked_at === null && (b.expires_at === null || b.expires_at > NOW);
        const byFlags = (b: RuleBan) =>
          b.scope === 'game'
            ? policy.enforce_game
            : b.scope === 'publisher'
              ? policy.enforce_publisher
              : policy.enforce_global &&
                (b.ban_type === 'cheat' ? policy.enforce_cheat_global : policy.enforce_social_global);
        expect(verdicts.map((v) => v.applies)).toEqual(bans.map((b) => active(b) && byFlags(b)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('quorum edges', () => {
  const two = policyOf({ global_quorum: 2 });

  it('applies with exactly N distinct trusted publishers', () => {
    const bans = [globalBan('p1'), globalBan('p2')];
    expect(judgeBans(two, bans, NOW)).toEqual([{ applies: true }, { applies: true }]);
  });

  it('does not apply with N - 1, and says how many of how many', () => {
    const verdicts = judgeBans(two, [globalBan('p1')], NOW);
    expect(verdicts).toEqual([{ applies: false, because: 'quorum', have: 1, need: 2 }]);
    expect(explainVerdict(verdicts[0] as (typeof verdicts)[number])).toBe('1 of 2 publishers needed');
  });

  it('counts two bans of one publisher once', () => {
    expect(judgeBans(two, [globalBan('p1'), globalBan('p1')], NOW).every((v) => !v.applies)).toBe(true);
  });

  it('drops below N when one of them is revoked', () => {
    const bans = [globalBan('p1'), globalBan('p2', { revoked_at: PAST })];
    expect(judgeBans(two, bans, NOW)[0]).toEqual({ applies: false, because: 'quorum', have: 1, need: 2 });
  });

  it('drops below N when one of them ends by its expiry', () => {
    const bans = [globalBan('p1'), globalBan('p2', { expires_at: '2026-06-01T00:00:00.001Z' })];
    expect(judgeBans(two, bans, NOW)[0]?.applies).toBe(true);
    expect(judgeBans(two, bans, '2026-06-01T00:00:00.001Z')[0]).toEqual({
      applies: false,
      because: 'quorum',
      have: 1,
      need: 2,
    });
  });

  it('does not count a distrusted publisher among the N, and names it untrusted', () => {
    const policy = policyOf({ global_quorum: 2, global_sources: { except: ['p2'] } });
    const verdicts = judgeBans(policy, [globalBan('p1'), globalBan('p2')], NOW);
    expect(verdicts).toEqual([
      { applies: false, because: 'quorum', have: 1, need: 2 },
      { applies: false, because: 'untrusted_source' },
    ]);
    expect(explainVerdict(verdicts[1] as (typeof verdicts)[number])).toBe(
      'from a publisher you do not trust',
    );
  });

  it('counts only the type asked: a social ban does not help a cheat quorum', () => {
    const verdicts = judgeBans(two, [globalBan('p1'), globalBan('p2', { ban_type: 'social' })], NOW);
    expect(verdicts.every((v) => !v.applies)).toBe(true);
  });

  it("applies the publisher's own global ban alone, whatever the quorum and sources", () => {
    const policy = policyOf({ global_quorum: 10, global_sources: { only: [] } });
    expect(judgeBans(policy, [globalBan(ME)], NOW)).toEqual([{ applies: true }]);
  });

  it('trusts only the listed publishers with `only`', () => {
    const policy = policyOf({ global_sources: { only: ['p1'] } });
    expect(judgeBans(policy, [globalBan('p1'), globalBan('p2')], NOW).map((v) => v.applies)).toEqual([
      true,
      false,
    ]);
  });
});

describe('reputation under its own trust settings', () => {
  it('counts a global ban only from a trusted publisher and while the reputation quorum is met', () => {
    const bans = [globalBan('p1'), globalBan('p2', { expires_at: PAST })];
    const all = reputation(policyOf(), bans, NOW);
    expect(all.counts.cheat.global).toEqual({ active: 1, expired: 1 });
    // An ended ban still holds its publisher's place in the reputation's quorum (it was a ban).
    expect(reputation(policyOf({ rep_global_quorum: 2 }), bans, NOW).counts.cheat.global).toEqual({
      active: 1,
      expired: 1,
    });
    expect(reputation(policyOf({ rep_global_quorum: 3 }), bans, NOW).score).toBe(100);
    expect(
      reputation(policyOf({ rep_global_sources: { except: ['p1'] } }), bans, NOW).counts.cheat.global,
    ).toEqual({
      active: 0,
      expired: 1,
    });
  });

  it('is independent of the enforcement trust settings', () => {
    const bans = [globalBan('p1')];
    const policy = policyOf({ global_sources: { only: [] }, global_quorum: 5 });
    expect(judgeBans(policy, bans, NOW)[0]?.applies).toBe(false);
    expect(reputation(policy, bans, NOW).counts.cheat.global.active).toBe(1);
  });
});
