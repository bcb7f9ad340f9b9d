/**
 * The rule of a ban's message for the player (`player_message`), in one place without
 * dependencies: the API's schema (lib/model/requests.ts), its OpenAPI description and the console's form
 * all read it.
 */

/** The most characters (Unicode code points, as a player reads them: an emoji is one). */
export const PLAYER_MESSAGE_MAX = 500;

/** One paragraph: no control characters (newlines included), no bidirectional overrides, not only spaces. */
export const oneLinePattern = (controls: string) =>
  `^(?=[\\s\\S]*\\S)[^${controls}\\u202A-\\u202E\\u2066-\\u2069]*$`;
/** Paragraphs: the same, but a newline is allowed (no other control character). */
export const paragraphsPattern = (controls: string) =>
  `^(?=[\\s\\S]*\\S)(?:\\n|[^${controls}\\u202A-\\u202E\\u2066-\\u2069])*$`;

/** Plain text: no control characters (newlines included: one paragraph), no bidirectional overrides, not only spaces. */
export const PLAYER_MESSAGE_PATTERN = oneLinePattern('\\p{Cc}');

export const PLAYER_MESSAGE_RULE =
  'must be plain text: no control characters (newlines included) or bidirectional overrides, and not only spaces';

/**
 * An appeal's texts (the player's message, a moderator's note): the same rule, but several
 * paragraphs may be written, so a newline is allowed (no other control character).
 */
export const APPEAL_TEXT_MAX = 2000;
export const MULTILINE_TEXT_PATTERN = paragraphsPattern('\\p{Cc}');
export const MULTILINE_TEXT_RULE =
  'must be plain text: no control characters but newlines, no bidirectional overrides, and not only spaces';

/** How the player may be reached about an appeal (an email, a handle): one line. */
export const APPEAL_CONTACT_MAX = 254;

/** The code points of a text: what the length limit counts. */
export const playerMessageLength = (text: string) => [...text].length;
