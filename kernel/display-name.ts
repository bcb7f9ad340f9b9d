/**
 * The rule of a publisher's `display_name` (`PUT /v1/publisher`), in one place without
 * dependencies: the API's schema (lib/model/requests.ts) and its OpenAPI description read it.
 * Invariant: the name, shown to every other publisher in the directory where they decide whose
 * global bans to trust, reads on screen exactly as stored: it is stored as sent, and refused when
 * it holds control, format (but the joiners) or separator characters, or begins or ends with what
 * shows nothing on its own (lib/model/unicode-ranges.ts, INVISIBLE_CHARACTERS). The rule in full:
 * docs/api.md#the-directory-of-publishers.
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
