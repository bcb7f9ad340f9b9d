/**
 * Unicode character classes written out as ranges, for the patterns of the OpenAPI document:
 * JSON Schema allows property escapes (`\p{Cf}`), but many of the tools that read the document
 * do not (Python's `re`, which openapi-spec-validator and jsonschema use, refuses the whole
 * document). Each class is the contents of a `[...]`, as of **Unicode 17.0** (Node 20.20's
 * `\p{...}`): code points of the Basic Multilingual Plane as `\uXXXX` escapes of the pattern,
 * those above it as the characters themselves (which every engine reads as one code point in
 * Unicode mode, where `\u{...}` would be JavaScript's alone).
 *
 * The server keeps its `\p{...}` rules (./display-name.ts, ./player-message.ts);
 * test/openapi/patterns.test.ts holds each class to its property over every code point, and each
 * documented pattern to the server's rule, and prints a class afresh when Unicode moves.
 */

/** `\p{Cc}`: C0, DEL and C1. Fixed by Unicode's stability policy. */
export const CONTROL_CHARACTERS = '\\u0000-\\u001F\\u007F-\\u009F';

/** `\p{Cf}`, format characters: bidirectional controls, zero-width characters, tags, ... */
export const FORMAT_CHARACTERS =
  '\\u00AD\\u0600-\\u0605\\u061C\\u06DD\\u070F\\u0890\\u0891\\u08E2\\u180E\\u200B-\\u200F' +
  '\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u206F\\uFEFF\\uFFF9-\\uFFFB\u{110BD}\u{110CD}' +
  '\u{13430}-\u{1343F}\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0001}\u{E0020}-\u{E007F}';
