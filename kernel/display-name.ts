/**
 * The rule of a publisher's `display_name` (`PUT /v1/publisher`), in one place without
 * dependencies: the API's schema (lib/model/requests.ts) and its OpenAPI description read it.
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
 * - at either end, whatever shows nothing on its own: white space, a combining mark, a variation
 *   selector, a joiner, a Hangul filler, the blank Braille pattern (lib/model/unicode-ranges.ts,
 *   INVISIBLE_CHARACTERS). So a name begins and ends with a character that shows, and "Acme" and
 *   "Acme " (or "Acme" and a joiner) cannot both look like one publisher.
 */

/** The most characters (Unicode code points: an emoji is one). */
export const DISPLAY_NAME_MAX = 64;

/**
 * The pattern, from its two classes: what may not begin or end a name, and what it may not hold
 * (but the joiners). The server's are written with `\p{...}`; the OpenAPI document's, with the
 * same classes written out (lib/model/unicode-ranges.ts, lib/openapi/document.ts).
 */
export const displayNamePattern = (invisible: string, refused: string) =>
  `^(?![${invisible}])(?![\\s\\S]*[${invisible}]$)(?:[\\u200C\\u200D]|[^${refused}])*$`;

export const DISPLAY_NAME_PATTERN = displayNamePattern(
  '\\s\\p{Cc}\\p{Cf}\\p{Cs}\\p{Zl}\\p{Zp}\\p{M}\\p{Default_Ignorable_Code_Point}\\u2800',
  '\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}',
);

export const DISPLAY_NAME_RULE =
  'must be plain text: no control, format or bidirectional characters, no line separators, and a visible character at either end (no space, combining mark or invisible character)';
