import { wantedLocales } from '@kernel/locales';
import { resolveStatement } from '@kernel/statement-of-reasons';
import { describe, expect, it } from 'vitest';
import { localiseBan, translationRefusal, translationsForBan } from '../../lib/domain/ban-locales';
import type { Ban } from '../../lib/domain/ban-record';

const statement = resolveStatement(
  { terms_clause: 'Terms, 7.3: no cheat software', facts: 'Aim assistance found on this device.' },
  undefined,
  { ban_type: 'cheat', reason_code: 'aimbot', actor: 'key' },
);

const ban = (over: Partial<Ban> = {}): Ban => ({
  ban_id: 1,
  device_id: 'd-1',
  ban_type: 'cheat',
  scope: 'global',
  publisher_id: 'p-1',
  game_id: 'g-1',
  reason_code: 'aimbot',
  player_message: 'Banned for cheat software.',
  statement,
  translations: {
    de: { player_message: 'Wegen Cheat-Software gesperrt.', facts: 'Zielhilfe auf diesem Gerät gefunden.' },
    'pt-BR': { terms_clause: 'Termos, 7.3' },
  },
  created_at: '2026-01-01T00:00:00.000Z',
  expires_at: null,
  revoked_at: null,
  ...over,
});

describe('reading a ban in a language (localiseBan)', () => {
  it('reads the picked translation, field by field over the ban’s own texts', () => {
    const read = localiseBan(ban(), wantedLocales({ acceptLanguage: 'de-AT,de;q=0.9' }));
    expect(read.message_locale).toBe('de');
    expect(read.player_message).toBe('Wegen Cheat-Software gesperrt.');
    expect(read.statement?.facts).toBe('Zielhilfe auf diesem Gerät gefunden.');
    // Not translated into German: the ban's own.
    expect(read.statement?.terms_clause).toBe('Terms, 7.3: no cheat software');
    // Never a text of the other ground.
    expect(read.statement?.legal_ground).toBeNull();
  });

  it('reads the ban’s own language when nothing is wanted or nothing matches', () => {
    for (const wanted of [[], ['fr'], ['*']])
      expect(localiseBan(ban(), wanted)).toEqual({
        message_locale: 'en',
        player_message: 'Banned for cheat software.',
        statement,
      });
  });

  it('answers the ban’s own language as written when it is not en, and reads a ban from before translations', () => {
    expect(localiseBan(ban({ locale: 'de', translations: undefined }), ['en']).message_locale).toBe('de');
    const old = ban({ translations: undefined, statement: undefined, player_message: undefined });
    expect(localiseBan(old, ['de'])).toMatchObject({ message_locale: 'en', player_message: null });
    expect(localiseBan(old, ['de']).statement?.facts).toBe('This device received a cheat ban for aimbot.');
  });

  it('reads a message an appeal’s decision replaced as written: the old message’s translation no longer fits', () => {
    const read = localiseBan(
      ban({ player_message: 'Your ban was shortened on appeal.', player_message_replaced: true }),
      ['de'],
    );
    expect(read.player_message).toBe('Your ban was shortened on appeal.');
    // The statement's translations still apply.
    expect(read.statement?.facts).toBe('Zielhilfe auf diesem Gerät gefunden.');
  });

  it('keeps an erased ban’s statement null in any language', () => {
    expect(localiseBan(ban({ statement: null, player_message: undefined }), ['de'])).toEqual({
      message_locale: 'de',
      player_message: null,
      statement: null,
    });
  });
});

describe('the translations a new ban carries (translationsForBan)', () => {
  const reason = {
    label: 'Aim assistance',
    player_message: 'Banned for cheat software.',
    statement: { facts: 'Aim assistance found.' },
    translations: {
      de: { label: 'Zielhilfe', player_message: 'Gesperrt.', facts: 'Zielhilfe gefunden.' },
    },
  };
  const made = (request: Parameters<typeof translationsForBan>[0]) =>
    translationsForBan(
      request,
      reason,
      resolveStatement(request.statement, reason.statement, {
        ban_type: 'cheat',
        reason_code: 'aimbot',
        reason_label: reason.label,
        player_message: request.player_message ?? reason.player_message,
        actor: 'key',
      }),
    );

  it('copies the translations of the texts taken from the reason, the label translating the clause', () => {
    expect(made({ player_message: 'Banned for cheat software.' })).toEqual({
      de: { player_message: 'Gesperrt.', terms_clause: 'Zielhilfe', facts: 'Zielhilfe gefunden.' },
    });
  });

  it('copies no translation of a text the create wrote itself', () => {
    expect(made({ player_message: 'Banned in match m-7.', statement: { facts: 'Seen in m-7.' } })).toEqual({
      de: { terms_clause: 'Zielhilfe' },
    });
  });

  it('puts the create’s own translations over the reason’s', () => {
    expect(made({ translations: { de: { facts: 'In m-7 gesehen.' }, fr: { facts: 'Vu en m-7.' } } })).toEqual(
      {
        de: { terms_clause: 'Zielhilfe', facts: 'In m-7 gesehen.' },
        fr: { facts: 'Vu en m-7.' },
      },
    );
  });

  it('carries nothing without a reason or translations', () => {
    expect(translationsForBan({}, undefined, statement)).toBeUndefined();
  });

  it('refuses a create’s translation into the ban’s own language or of a text the ban lacks', () => {
    const texts = { player_message: undefined, statement };
    expect(translationRefusal({ en: { facts: 'x' } }, 'en', texts)?.issue).toBe('default_locale');
    expect(translationRefusal({ de: { player_message: 'x' } }, 'en', texts)?.field).toBe(
      'translations.de.player_message',
    );
    expect(translationRefusal({ de: { illegal_explanation: 'x' } }, 'en', texts)?.issue).toBe('not_for_ban');
    expect(translationRefusal({ de: { facts: 'x', terms_clause: 'y' } }, 'en', texts)).toBeUndefined();
  });
});
