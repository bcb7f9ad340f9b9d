import {
  type BanTranslation,
  DEFAULT_LOCALE,
  lookupLocale,
  type TranslatedBanField,
  translatedBanFields,
} from '@kernel/locales';
import type { Statement } from '@kernel/statement-of-reasons';
import type { CatalogueReason, CreateBanRequest } from '../model/requests';
import { type Ban, statementOfBan } from './ban-record';

/**
 * A ban's texts in the player's language (docs/api.md#languages). A ban holds its own texts (the
 * player message and the statement's readable parts) in the language it was written in (`locale`, the
 * catalogue's `default_locale` when it was made) and any translations beside them, copied from the
 * catalogue reason when it was made: so a read never needs the catalogue, and another publisher
 * reading a global ban reads the owner's translations. Picking is pure, over the item already
 * read: the hot enforcement read costs no more storage.
 */

/** The language a ban's own texts are written in. */
export const banLocaleOf = (ban: Pick<Ban, 'locale'>): string => ban.locale ?? DEFAULT_LOCALE;

/** The texts of a ban as one reader reads them. */
export interface LocalisedBan {
  /** The language picked for this ban: its own, or one of its translations. */
  message_locale: string;
  player_message: string | null;
  statement: Statement | null;
}

/**
 * The ban's texts in the language `wanted` picks (kernel/locales.ts wantedLocales: the `locale`
 * parameter, then Accept-Language; RFC 4647 lookup over the ban's own language and its
 * translations, else its own). Field by field: a text the picked translation does not give reads
 * in the ban's own language; a statement field of the other ground stays null.
 */
export const localiseBan = (ban: Ban, wanted: readonly string[]): LocalisedBan => {
  const own = banLocaleOf(ban);
  const statement = statementOfBan(ban);
  const translations = ban.translations ?? {};
  const locale = wanted.length === 0 ? own : lookupLocale(wanted, [own, ...Object.keys(translations)], own);
  const translation = locale === own ? undefined : translations[locale];
  if (!translation) return { message_locale: own, player_message: ban.player_message ?? null, statement };
  const text = (field: Exclude<TranslatedBanField, 'player_message'>) =>
    statement?.[field] === null || statement === null ? null : (translation[field] ?? statement[field]);
  return {
    message_locale: locale,
    // A message an appeal's decision replaced is its owner's new words: no translation of the old
    // one stands in.
    player_message:
      ban.player_message === undefined
        ? null
        : ban.player_message_replaced === true
          ? ban.player_message
          : (translation.player_message ?? ban.player_message),
    statement:
      statement === null
        ? null
        : {
            ...statement,
            terms_clause: text('terms_clause'),
            legal_ground: text('legal_ground'),
            illegal_explanation: text('illegal_explanation'),
            facts: text('facts') ?? statement.facts,
          },
  };
};

/** Only the texts a translation gives; undefined when it gives none. */
const nonEmpty = (translation: BanTranslation): BanTranslation | undefined =>
  Object.keys(translation).length === 0 ? undefined : translation;

/**
 * The translations a new ban carries: for each language of the catalogue reason, those of the texts
 * the ban took from the reason (a text the create left out, or gave exactly as the reason has it,
 * as the console's form does), never of a text the create wrote itself (the catalogue's
 * translation would say something else); then the create's own translations over them. Where the
 * ban's clause is the reason's label, the label's translation translates it; where its facts are
 * the reason's player message, the message's.
 */
export const translationsForBan = (
  request: Pick<CreateBanRequest, 'player_message' | 'statement' | 'translations'>,
  reason: Pick<CatalogueReason, 'label' | 'player_message' | 'statement' | 'translations'> | undefined,
  statement: Statement,
): Record<string, BanTranslation> | undefined => {
  const given = request.statement ?? {};
  const defaults = reason?.statement ?? {};
  /** Whether the ban's field is the reason's: not given, or given as the reason has it. */
  const fromReason = (field: 'terms_clause' | 'legal_ground' | 'illegal_explanation' | 'facts') =>
    given[field] === undefined || given[field] === defaults[field];
  const reasonMessage = reason?.player_message ?? undefined;
  const messageIsReasons = reasonMessage !== undefined && request.player_message === reasonMessage;
  // The message the facts default to (kernel/statement-of-reasons.ts): the create's, else the reason's.
  const factsMessage = request.player_message ?? reasonMessage;
  const result: Record<string, BanTranslation> = {};
  for (const [locale, translation] of Object.entries(reason?.translations ?? {})) {
    const copied: BanTranslation = {};
    if (messageIsReasons && translation.player_message !== undefined)
      copied.player_message = translation.player_message;
    if (statement.terms_clause !== null && fromReason('terms_clause')) {
      const clause =
        defaults.terms_clause !== undefined
          ? translation.terms_clause
          : (translation.terms_clause ?? translation.label);
      if (clause !== undefined) copied.terms_clause = clause;
    }
    for (const field of ['legal_ground', 'illegal_explanation'] as const)
      if (statement[field] !== null && fromReason(field) && translation[field] !== undefined)
        copied[field] = translation[field];
    if (fromReason('facts')) {
      // The facts are the reason's, else the player message's (the reason's, or the create's own:
      // then none), else our sentence naming the reason.
      const facts =
        defaults.facts !== undefined
          ? translation.facts
          : factsMessage === undefined
            ? translation.facts
            : factsMessage === reasonMessage
              ? (translation.facts ?? translation.player_message)
              : undefined;
      if (facts !== undefined) copied.facts = facts;
    }
    const kept = nonEmpty(copied);
    if (kept) result[locale] = kept;
  }
  for (const [locale, translation] of Object.entries(request.translations ?? {})) {
    const merged = nonEmpty({ ...result[locale], ...translation });
    if (merged) result[locale] = merged;
  }
  return Object.keys(result).length === 0 ? undefined : result;
};

/**
 * What a create's own translations may not be: one in the ban's own language (its texts are the
 * ban's own fields), or one of a text the ban does not have (a statement field of the other ground,
 * a player message on a ban without one). Undefined when they are fine.
 */
export const translationRefusal = (
  translations: CreateBanRequest['translations'],
  locale: string,
  ban: { player_message: string | undefined; statement: Statement },
): { field: string; issue: string; message: string } | undefined => {
  for (const [tag, translation] of Object.entries(translations ?? {})) {
    if (tag === locale)
      return {
        field: `translations.${tag}`,
        issue: 'default_locale',
        message: `is the ban's own language (the catalogue's default_locale): its texts are the ban's own fields`,
      };
    for (const field of translatedBanFields) {
      if (translation[field] === undefined) continue;
      const missing =
        field === 'player_message' ? ban.player_message === undefined : ban.statement[field] === null;
      if (missing)
        return {
          field: `translations.${tag}.${field}`,
          issue: 'not_for_ban',
          message:
            field === 'player_message'
              ? 'must not be given for a ban without a player_message'
              : `must not be given for a statement on the ground ${ban.statement.ground}`,
        };
    }
  }
  return undefined;
};
