import { judgeBans, policyEnforces, REPUTATION_WEIGHTS, reputation } from '@kernel/policy-rules';
import { describe, expect, it } from 'vitest';
import type { Ban } from '../../lib/domain/ban-record';
import { defaultPolicyFlags } from '../../lib/domain/policy';
import type { Policy } from '../../lib/model/responses';

const allOn: Policy = {
  publisher_id: 'p',
  global_sources: 'all',
  global_quorum: 1,
  rep_global_sources: 'all',
  rep_global_quorum: 1,
  enforce_game: true,
  enforce_publisher: true,
  enforce_global: true,
  enforce_cheat_global: true,
  enforce_social_global: true,
  rep_include_game: true,
  rep_include_publisher: true,
  rep_include_global: true,
  updated_at: 't',
};

const now = '2026-06-01T00:00:00.000Z';
let nextId = 1;
const ban = (over: Partial<Ban>): Ban => ({
  ban_id: nextId++,
  device_id: 'd',
  ban_type: 'cheat',
  scope: 'game',
  publisher_id: 'p',
  game_id: 'g',
  reason_code: 'r',
  created_at: '2026-01-01T00:00:00.000Z',
  expires_at: null,
  revoked_at: null,
  ...over,
});

const combos = [
  ['game', 'cheat'],
  ['game', 'social'],
  ['publisher', 'cheat'],
  ['publisher', 'social'],
  ['global', 'cheat'],
  ['global', 'social'],
] as const;

describe('which bans a policy enforces', () => {
  // Columns: game/cheat, game/social, publisher/cheat, publisher/social, global/cheat, global/social.
  const table: Array<[string, Partial<Policy>, boolean[]]> = [
    ['every flag on', {}, [true, true, true, true, true, true]],
    ['enforce_game off', { enforce_game: false }, [false, false, true, true, true, true]],
    ['enforce_publisher off', { enforce_publisher: false }, [true, true, false, false, true, true]],
    ['enforce_global off', { enforce_global: false }, [true, true, true, true, false, false]],
    ['enforce_cheat_global off', { enforce_cheat_global: false }, [true, true, true, true, false, true]],
    ['enforce_social_global off', { enforce_social_global: false }, [true, true, true, true, true, false]],
    ['the defaults', defaultPolicyFlags, [true, true, true, true, true, false]],
    [
      'every enforce flag off',
      {
        enforce_game: false,
        enforce_publisher: false,
        enforce_global: false,
        enforce_cheat_global: false,
        enforce_social_global: false,
      },
      [false, false, false, false, false, false],
    ],
    [
      'only the global flags on',
      { enforce_game: false, enforce_publisher: false },
      [false, false, false, false, true, true],
    ],
  ];

  it.each(table)('with %s', (_, flags, expected) => {
    const policy = { ...allOn, ...flags };
    expect(combos.map(([scope, ban_type]) => policyEnforces(policy, { scope, ban_type }))).toEqual(expected);
  });

  it('holds for all 32 combinations of the enforce flags', () => {
    for (let mask = 0; mask < 32; mask++) {
      const [game, publisher, global, cheat, social] = [0, 1, 2, 3, 4].map((bit) =>
        Boolean(mask & (1 << bit)),
      ) as boolean[];
      const policy = {
        ...allOn,
        enforce_game: game,
        enforce_publisher: publisher,
        enforce_global: global,
        enforce_cheat_global: cheat,
        enforce_social_global: social,
      } as Policy;
      expect(combos.map(([scope, ban_type]) => policyEnforces(policy, { scope, ban_type }))).toEqual([
        game,
        game,
        publisher,
        publisher,
        global && cheat,
        global && social,
      ]);
    }
  });

  it('never enforces a revoked or expired ban', () => {
    const isEnforced = (policy: Policy, one: Ban, at: string) => judgeBans(policy, [one], at)[0]?.applies;
    expect(isEnforced(allOn, ban({ revoked_at: now }), now)).toBe(false);
    expect(isEnforced(allOn, ban({ expires_at: '2026-05-31T23:59:59.999Z' }), now)).toBe(false);
    expect(isEnforced(allOn, ban({ expires_at: '2026-06-01T00:00:00.001Z' }), now)).toBe(true);
  });
});

describe('reputation', () => {
  it('is 100 for a clean device', () => {
    expect(reputation(allOn, [], now).score).toBe(100);
  });

  it('takes 40 for an active cheat ban and 5 for an expired social ban: 100 − 40 − 5 = 55', () => {
    const result = reputation(
      allOn,
      [ban({ scope: 'global' }), ban({ ban_type: 'social', expires_at: '2026-01-02T00:00:00.000Z' })],
      now,
    );
    expect(result.score).toBe(55);
    expect(result.counts.cheat.global).toEqual({ active: 1, expired: 0 });
    expect(result.counts.social.game).toEqual({ active: 0, expired: 1 });
    expect(result.weights).toEqual(REPUTATION_WEIGHTS);
  });

  it('takes 15 per active social ban and 10 per expired cheat ban: 100 − 15 − 15 − 10 = 60', () => {
    const bans = [
      ban({ ban_type: 'social', scope: 'publisher' }),
      ban({ ban_type: 'social', scope: 'game' }),
      ban({ scope: 'publisher', expires_at: '2026-03-01T00:00:00.000Z' }),
    ];
    expect(reputation(allOn, bans, now).score).toBe(60);
  });

  it('never counts a revoked ban', () => {
    expect(reputation(allOn, [ban({ revoked_at: '2026-02-01T00:00:00.000Z' })], now).score).toBe(100);
  });

  it('counts only the scopes the rep_include flags pick: 100 − 15 (game social only) = 85', () => {
    const policy = { ...allOn, rep_include_global: false, rep_include_publisher: false };
    const result = reputation(
      policy,
      [ban({ scope: 'global' }), ban({ scope: 'publisher' }), ban({ ban_type: 'social' })],
      now,
    );
    expect(result.score).toBe(85);
    expect(result.included_scopes).toEqual(['game']);
    expect(result.counts.cheat.global).toEqual({ active: 0, expired: 0 });
  });

  it('counts bans whether or not the policy enforces them', () => {
    const policy = { ...allOn, enforce_global: false };
    expect(reputation(policy, [ban({ scope: 'global' })], now).score).toBe(60);
  });

  it('never goes below 0: three active cheat bans give 0, not −20', () => {
    expect(reputation(allOn, [ban({}), ban({}), ban({})], now).score).toBe(0);
  });
});
