/**
 * The languages a player reads their bans in: the language tags a reason catalogue and a ban hold
 * translations under, and how an answer picks one of them for a request (its `locale` parameter,
 * else its `Accept-Language` header). The API's schemas (lib/model/requests.ts), the answers that
 * carry bans (lib/domain/ban-locales.ts) and the console's reason editor all read this.
 */

/**
 * A language tag (BCP 47) as we accept it: a language of 2-3 letters, then optionally a script of 4
 * letters, then optionally a region of 2 letters or 3 digits: `de`, `pt-BR`, `zh-Hant`,
 * `zh-Hant-TW`, `es-419`. No variants, extensions or private use: a catalogue names the languages
 * it is written in, not a dialect's spelling reform. Stored in the canonical case (language lower,
 * script title, region upper), so one language is one key.
 */
export const LOCALE_PATTERN = /^[a-z]{2,3}(-[A-Z][a-z]{3})?(-(?:[A-Z]{2}|[0-9]{3}))?$/;
export const LOCALE_RULE =
  'must be a language tag such as de, pt-BR or zh-Hant: a language of 2-3 lower-case letters, then optionally a script (Latn) and a region (BR or 419)';

/** The longest tag the pattern takes: `abc-Abcd-AB`. */
export const LOCALE_MAX = 11;

/** Translations a catalogue reason, or a ban, holds at most: a bounded item, and a form a lead can read. */
export const TRANSLATIONS_MAX = 12;

/** The language a catalogue's untranslated texts are written in when it names none (and of every ban from before). */
export const DEFAULT_LOCALE = 'en';

/** The texts of a ban a translation may give, as a ban answers them. */
export const translatedBanFields = [
  'player_message',
  'facts',
  'terms_clause',
  'illegal_explanation',
  'legal_ground',
] as const;
export type TranslatedBanField = (typeof translatedBanFields)[number];

/** One language's texts of a ban: any of them; what is missing reads in the ban's own language. */
export type BanTranslation = Partial<Record<TranslatedBanField, string>>;

/** A catalogue reason's translation: its label too (the menu a moderator reads, and a clause's default). */
export type ReasonTranslation = BanTranslation & { label?: string };

/**
 * A tag in its canonical case (`pt-br` -> `pt-BR`), or undefined when it is not one we accept.
 * Tags compare without regard to case (RFC 5646, 2.1.1); a `locale` parameter may come in any case.
 */
export const canonicalLocale = (tag: string): string | undefined => {
  if (tag.length > LOCALE_MAX) return undefined;
  const parts = tag.split('-');
  const canonical = parts
    .map((part, i) => {
      if (i === 0) return part.toLowerCase();
      if (part.length === 4) return `${part.charAt(0).toUpperCase()}${part.slice(1).toLowerCase()}`;
      return part.toUpperCase();
    })
    .join('-');
  return LOCALE_PATTERN.test(canonical) ? canonical : undefined;
};

/** The most of an `Accept-Language` header read: browsers send a few dozen characters. */
export const ACCEPT_LANGUAGE_MAX_CHARS = 1024;
/** The most language ranges of one header weighed; the rest are ignored. */
export const ACCEPT_LANGUAGE_MAX_RANGES = 32;

/** A language range (RFC 4647, 2.1): `*`, or subtags of 1-8 letters and digits (the first letters only). */
const RANGE = /^(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$/;
const QUALITY = /^[qQ]=(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The language ranges of an `Accept-Language` header (RFC 9110, 12.5.4), most wanted first (by
 * q-value, then by their order), lower-cased. A range with `q=0` is "not acceptable" and left out;
 * a malformed range or q-value leaves out that range only; nothing here throws, and an empty,
 * absent or malformed header is an empty list (the caller's fallback). At most
 * ACCEPT_LANGUAGE_MAX_RANGES ranges of the first ACCEPT_LANGUAGE_MAX_CHARS characters are read.
 */
export const parseAcceptLanguage = (header: string | null | undefined): string[] => {
  if (typeof header !== 'string' || header === '') return [];
  const ranges: Array<{ range: string; q: number; order: number }> = [];
  const entries = header.slice(0, ACCEPT_LANGUAGE_MAX_CHARS).split(',');
  for (const [order, entry] of entries.entries()) {
    if (ranges.length === ACCEPT_LANGUAGE_MAX_RANGES) break;
    const [rangePart = '', ...params] = entry.split(';').map((part) => part.trim());
    if (!RANGE.test(rangePart)) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      if (QUALITY.test(param)) q = Number(param.slice(2));
      else valid = false;
    }
    if (!valid || q === 0) continue;
    ranges.push({ range: rangePart.toLowerCase(), q, order });
  }
  return ranges.sort((a, b) => b.q - a.q || a.order - b.order).map(({ range }) => range);
};

/** What a request asks for: its `locale` parameter (already checked) and its `Accept-Language` header. */
export interface LocaleRequest {
  locale?: string | undefined;
  acceptLanguage?: string | null | undefined;
}

/**
 * The ranges a request wants, in order: its `locale` parameter first (an explicit choice, e.g. the
 * game's own language setting), then its `Accept-Language` header's. Read once per request, then
 * looked up against each ban's languages (lookupLocale).
 */
export const wantedLocales = ({ locale, acceptLanguage }: LocaleRequest): string[] => [
  ...(locale === undefined ? [] : [locale.toLowerCase()]),
  ...parseAcceptLanguage(acceptLanguage),
];

/**
 * RFC 4647 lookup (3.4): each wanted range in turn, tried whole, then truncated from the end a
 * subtag at a time (`de-AT` -> `de`; a single letter or digit left at the end goes with it), against
 * the available tags (compared without regard to case); the first match is the answer, in its
 * available spelling. `*` matches the fallback (any language will do: the one the texts are written
 * in). Nothing matching: the fallback.
 */
export const lookupLocale = (
  wanted: readonly string[],
  available: readonly string[],
  fallback: string,
): string => {
  const byLower = new Map(available.map((tag) => [tag.toLowerCase(), tag]));
  for (const range of wanted) {
    if (range === '*') return fallback;
    let candidate = range.toLowerCase();
    while (candidate !== '') {
      const found = byLower.get(candidate);
      if (found !== undefined) return found;
      const cut = candidate.lastIndexOf('-');
      if (cut < 0) break;
      candidate = candidate.slice(0, cut);
      // A singleton (an extension's or private use's introducer) never ends a tag.
      if (candidate.length >= 2 && candidate.at(-2) === '-') candidate = candidate.slice(0, -2);
    }
  }
  return fallback;
};

/** pickLocale(request, available, fallback): the one step both above make, for a single answer. */
export const pickLocale = (request: LocaleRequest, available: readonly string[], fallback: string): string =>
  lookupLocale(wantedLocales(request), available, fallback);
