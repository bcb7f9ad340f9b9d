/**
 * The rule of a ban's message for the player (`player_message`), in one place without
 * dependencies: the API's schema (./requests.ts), its OpenAPI description and the console's form
 * all read it.
 */

/** The most characters (Unicode code points, as a player reads them: an emoji is one). */
export const PLAYER_MESSAGE_MAX = 500;

/** Plain text: no control characters (newlines included: one paragraph), no bidirectional overrides, not only spaces. */
export const PLAYER_MESSAGE_PATTERN = '^(?=[\\s\\S]*\\S)[^\\p{Cc}\\u202A-\\u202E\\u2066-\\u2069]*$';

export const PLAYER_MESSAGE_RULE =
  'must be plain text: no control characters (newlines included) or bidirectional overrides, and not only spaces';

/** The code points of a text: what the length limit counts. */
export const playerMessageLength = (text: string) => [...text].length;
