import {
  EEA_COUNTRIES,
  missingForGround,
  otherGroundFields,
  resolveStatement,
} from '@kernel/statement-of-reasons';
import { describe, expect, it } from 'vitest';

const context = { ban_type: 'cheat', reason_code: 'aimbot', actor: 'key' } as const;

describe('the statement of reasons a ban is made with', () => {
  it("says truthfully what the service knows by default: a key's ban automated, a person's by hand", () => {
    expect(resolveStatement(undefined, undefined, context)).toEqual({
      ground: 'terms',
      terms_clause: 'aimbot',
      terms_url: null,
      legal_ground: null,
      illegal_explanation: null,
      facts: 'This device received a cheat ban for aimbot.',
      automated_detection: true,
      automated_decision: 'fully',
      source: 'own_initiative',
      territorial_scope: [...EEA_COUNTRIES],
      category: 'other_violation_tc',
    });
    const byHand = resolveStatement(undefined, undefined, { ...context, actor: 'person' });
    expect([byHand.automated_detection, byHand.automated_decision]).toEqual([false, 'not']);
  });

  it("takes the create's fields over the catalogue reason's, and those over the defaults", () => {
    const statement = resolveStatement(
      { facts: 'Replay 12 shows it.', source: 'notice' },
      { terms_clause: 'ToS 7.3', facts: 'Catalogue facts.', category: 'scams_and_fraud' },
      { ...context, reason_label: 'Aimbot', player_message: 'You are banned.' },
    );
    expect(statement).toMatchObject({
      terms_clause: 'ToS 7.3',
      facts: 'Replay 12 shows it.',
      source: 'notice',
      category: 'scams_and_fraud',
    });
    // Without facts, the player's message; without a clause, the catalogue label.
    expect(
      resolveStatement(undefined, undefined, {
        ...context,
        reason_label: 'Aimbot',
        player_message: 'You are banned.',
      }),
    ).toMatchObject({
      terms_clause: 'Aimbot',
      facts: 'You are banned.',
    });
  });

  it('keeps only the fields of its ground, and names what an illegal one lacks', () => {
    const illegal = resolveStatement(
      { ground: 'illegal', legal_ground: 'A law' },
      { terms_clause: 'ToS 7.3' },
      context,
    );
    expect([illegal.terms_clause, illegal.terms_url, illegal.legal_ground]).toEqual([null, null, 'A law']);
    expect(missingForGround(illegal)).toEqual(['illegal_explanation']);
    expect(missingForGround(resolveStatement(undefined, undefined, context))).toEqual([]);
    expect(otherGroundFields({ legal_ground: 'A law', facts: 'x' }, 'terms')).toEqual(['legal_ground']);
    expect(otherGroundFields({ terms_url: 'https://a.example' }, 'illegal')).toEqual(['terms_url']);
  });
});
