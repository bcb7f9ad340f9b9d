import { CONTROL_CHARACTERS, FORMAT_CHARACTERS } from './unicode-ranges';

/**
 * The rule of a publisher's `display_name` (`PUT /v1/publisher`), in one place without
 * dependencies: the API's schema (./requests.ts) and its OpenAPI description read it.
 *
 * The name is shown to every other publisher in the directory (`GET /v1/publishers`), where they
 * decide whose global bans to trust: it must read on screen exactly as it was stored. So it is
 * stored as sent (never trimmed or normalised) and refused when it holds what could make it read
 * otherwise or break a line:
 * - control characters (`\p{Cc}`: C0, DEL and C1, so tabs and newlines too);
 * - format characters (`\p{Cf}`): bidirectional marks, embeddings, overrides and isolates
 *   (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069), zero-width space U+200B, word joiner,
 *   byte order mark U+FEFF, soft hyphen, tags; except the zero-width non-joiner and joiner
 *   (U+200C, U+200D), which some scripts and emoji sequences need;
 * - the line and paragraph separators (U+2028, U+2029) and lone surrogates;
 * - whitespace at either end (so a name is never only spaces, and "Acme" and "Acme " cannot both
 *   look like one publisher).
 */

/** The most characters (Unicode code points: an emoji is one). */
export const DISPLAY_NAME_MAX = 64;

const displayName = (refused: string) => `^(?!\\s)(?![\\s\\S]*\\s$)(?:[\\u200C\\u200D]|[^${refused}])*$`;

export const DISPLAY_NAME_PATTERN = displayName('\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}');
/** The same with each `\p{...}` written out (./unicode-ranges.ts), as the OpenAPI document states it. */
export const DISPLAY_NAME_DOCUMENTED_PATTERN = displayName(
  `${CONTROL_CHARACTERS}${FORMAT_CHARACTERS}\\u2028\\u2029\\uD800-\\uDFFF`,
);

export const DISPLAY_NAME_RULE =
  'must be plain text: no control, format or bidirectional characters, no line separators, and no space at either end';
