/**
 * The rules of a publisher's reason catalogue (`PUT /v1/reasons`), in one place without
 * dependencies: the API's schema (lib/model/requests.ts), its OpenAPI description and the console's
 * editor and create form all read them.
 */

/** Reasons a catalogue holds at most: a menu a moderator reads, and one item of bounded size. */
export const REASONS_MAX = 100;

/** A reason's label: 1-80 characters (code points), one line. */
export const REASON_LABEL_MAX = 80;

export const REASON_LABEL_RULE =
  'must be plain text: no control characters or bidirectional overrides, and not only spaces';

/** The longest duration a reason may carry: ten years of 365.25 days. Longer is "permanent" (null). */
export const REASON_DURATION_MAX_SECONDS = 315_576_000;

/** The create form's duration presets, in seconds (null: permanent). */
export const DURATION_PRESETS = [
  { label: '1 h', seconds: 60 * 60 },
  { label: '24 h', seconds: 24 * 60 * 60 },
  { label: '7 d', seconds: 7 * 24 * 60 * 60 },
  { label: '30 d', seconds: 30 * 24 * 60 * 60 },
  { label: 'permanent', seconds: null },
] as const;
