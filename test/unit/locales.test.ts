import {
  ACCEPT_LANGUAGE_MAX_RANGES,
  canonicalLocale,
  LOCALE_MAX,
  LOCALE_PATTERN,
  lookupLocale,
  parseAcceptLanguage,
  pickLocale,
} from '@kernel/locales';
import { describe, expect, it } from 'vitest';

describe('the language tags a catalogue holds translations under', () => {
  it('takes a language, a language with a region, a script, or all three', () => {
    for (const tag of ['de', 'pt-BR', 'zh-Hant', 'zh-Hant-TW', 'es-419', 'fil'])
      expect(LOCALE_PATTERN.test(tag), tag).toBe(true);
  });

  it('refuses variants, extensions, private use, wrong case and anything not a tag', () => {
    for (const tag of ['', 'd', 'deutsch', 'DE', 'de-at', 'de_AT', 'de-AT-1996', 'en-x-pirate', '*', 'de-'])
      expect(LOCALE_PATTERN.test(tag), tag).toBe(false);
  });

  it('canonicalises the case of a tag given in any case, and refuses what is no tag', () => {
    expect(canonicalLocale('PT-br')).toBe('pt-BR');
    expect(canonicalLocale('zh-hant-tw')).toBe('zh-Hant-TW');
    expect(canonicalLocale('de')).toBe('de');
    expect(canonicalLocale('de_AT')).toBeUndefined();
    expect(canonicalLocale('x'.repeat(LOCALE_MAX + 1))).toBeUndefined();
  });
});

describe('reading an Accept-Language header', () => {
  it('orders the ranges by q-value, ties kept in the order sent, lower-cased', () => {
    expect(parseAcceptLanguage('fr;q=0.5, de-AT, de;q=0.9, EN;q=0.5')).toEqual(['de-at', 'de', 'fr', 'en']);
  });

  it('leaves out a range with q=0: it is not acceptable', () => {
    expect(parseAcceptLanguage('de;q=0, fr')).toEqual(['fr']);
  });

  it('keeps the wildcard as a range of its own', () => {
    expect(parseAcceptLanguage('de, *;q=0.1')).toEqual(['de', '*']);
  });

  it('never throws on a malformed header: the bad ranges are dropped, the good ones kept', () => {
    expect(parseAcceptLanguage('de;q=2, ;;, fr;q=abc, en-GB;q=0.8, 😀, de-;q=0.5, it;level=1')).toEqual([
      'en-gb',
    ]);
    for (const header of [undefined, null, '', ',,,', ';q=1', 'q=0.5', '\u0000', 'de;q=0.1234'])
      expect(parseAcceptLanguage(header), String(header)).toEqual([]);
  });

  it('reads a bounded number of ranges, however long the header', () => {
    const header = Array.from({ length: 500 }, (_, i) => `l${String.fromCharCode(97 + (i % 26))}`).join(',');
    expect(parseAcceptLanguage(header)).toHaveLength(ACCEPT_LANGUAGE_MAX_RANGES);
  });
});

describe('picking a language (RFC 4647 lookup)', () => {
  const available = ['en', 'de', 'pt-BR', 'zh-Hant'];

  it('truncates a range until it matches: de-AT reads German', () => {
    expect(pickLocale({ acceptLanguage: 'de-AT,de;q=0.9' }, available, 'en')).toBe('de');
    expect(pickLocale({ acceptLanguage: 'zh-Hant-HK' }, available, 'en')).toBe('zh-Hant');
  });

  it('answers the available spelling of a tag matched without regard to case', () => {
    expect(pickLocale({ acceptLanguage: 'PT-br' }, available, 'en')).toBe('pt-BR');
  });

  it('never widens a range: pt does not reach pt-BR', () => {
    expect(pickLocale({ acceptLanguage: 'pt' }, available, 'en')).toBe('en');
  });

  it('tries the ranges in the order wanted, before the fallback', () => {
    expect(pickLocale({ acceptLanguage: 'fr, pt-BR;q=0.8, de;q=0.9' }, available, 'en')).toBe('de');
  });

  it('takes the locale parameter before the header, and the header after a locale it lacks', () => {
    expect(pickLocale({ locale: 'de', acceptLanguage: 'pt-BR' }, available, 'en')).toBe('de');
    expect(pickLocale({ locale: 'fr', acceptLanguage: 'pt-BR' }, available, 'en')).toBe('pt-BR');
  });

  it('answers the fallback for the wildcard, for nothing asked and for nothing matching', () => {
    expect(pickLocale({ acceptLanguage: 'fr, *;q=0.5, de;q=0.1' }, available, 'en')).toBe('en');
    expect(pickLocale({}, available, 'en')).toBe('en');
    expect(pickLocale({ acceptLanguage: 'fr-CA, ja' }, available, 'en')).toBe('en');
    expect(pickLocale({ acceptLanguage: 'de;q=0' }, available, 'en')).toBe('en');
  });

  it('drops a singleton left at the end while truncating', () => {
    expect(lookupLocale(['de-x-formal'], available, 'en')).toBe('de');
  });
});
