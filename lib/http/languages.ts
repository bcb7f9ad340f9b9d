/**
 * The headers of an answer whose bans are read in the caller's language (lib/domain/ban-locales.ts):
 * `Vary: Accept-Language`, since the header chooses what the body says, and `Content-Language` when
 * every ban of it reads in one language (none without bans, or when they differ: each ban's
 * `message_locale` says its own).
 */
export const languageHeaders = (locales: readonly string[]): Record<string, string> => {
  const [first] = locales;
  const common = first !== undefined && locales.every((locale) => locale === first) ? first : undefined;
  return { Vary: 'Accept-Language', ...(common === undefined ? {} : { 'Content-Language': common }) };
};
