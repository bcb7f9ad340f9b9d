import * as z from 'zod/mini';
import {
  banScopeSchema,
  banTranslationsSchema,
  banTypeSchema,
  detailsSchema,
  deviceIdSchema,
  expiryInstant,
  gameIdSchema,
  playerMessageSchema,
  reasonCodeSchema,
  statementInputSchema,
} from './requests';

/**
 * The import API's shapes (POST /v1/imports, docs/import-export.md#import): the body, one row, the
 * answer. The body's own shape is validated by the shared chain (a failure is the usual 400 for the
 * whole request); each row is validated on its own by the domain (lib/domain/imports.ts) with
 * importRowSchema, so one bad row is refused with its field while the others go on. Every schema is
 * built in a call marked pure, as in ./requests.ts, so a bundle keeps only what it uses.
 */

const define = <T>(make: () => T): T => make();

/** The most rows one request may carry: 500 rows are 20 BatchWriteItem calls of 25 at most. */
export const IMPORT_MAX_ROWS = 500;

/** The most bytes an import's body may have (other routes: 64 KiB). */
export const IMPORT_MAX_BODY_BYTES = 1024 * 1024;

/** The client's name for a batch: a repeat of the same name is the same batch, answered the same. */
export const BATCH_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
export const BATCH_ID_RULE = 'must be 1-64 characters of A-Z a-z 0-9 . _ : -';

/** A studio's own id of a row: printable, no control characters (C0, DEL, C1), 1-128 code points. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it refuses
export const EXTERNAL_ID_PATTERN = /^[^\u0000-\u001F\u007F-\u009F]{1,128}$/u;
export const EXTERNAL_ID_RULE = 'must be 1-128 characters, none of them a control character';

/** A time of a row's history: an RFC 3339 date-time, stored as UTC to the millisecond. */
export const importInstantSchema = /* @__PURE__ */ define(() => expiryInstant());

export const importRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    batch_id: z.string().check(z.regex(BATCH_ID_PATTERN, BATCH_ID_RULE)),
    /** Validate and look up, write nothing (no audit event, no webhook). */
    dry_run: z.optional(z.boolean()),
    /** Each row is checked on its own (importRowSchema): here only that there are 1-500 of them. */
    rows: z.array(z.unknown()).check(z.minLength(1), z.maxLength(IMPORT_MAX_ROWS)),
  }),
);
export type ImportRequest = z.output<typeof importRequestSchema>;

/**
 * One row: a ban as POST /v1/bans takes it, with its history (created_at, expires_at, revoked_at)
 * and the studio's id of it. The rules that need the clock or the publisher's state (created_at not
 * in the future nor before 1990, expiry after creation, the reason catalogue, the key's reach) are
 * the domain's, per row.
 */
export const importRowSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    external_id: z.string().check(z.regex(EXTERNAL_ID_PATTERN, EXTERNAL_ID_RULE)),
    device_id: deviceIdSchema,
    ban_type: banTypeSchema,
    scope: banScopeSchema,
    reason_code: reasonCodeSchema,
    /** The game of the ban; absent: the X-Game-Id header's. */
    game_id: z.optional(gameIdSchema),
    created_at: importInstantSchema,
    /** Absent or null: permanent. May be in the past (the ban has ended). */
    expires_at: z.optional(z.nullable(importInstantSchema)),
    /** When it was revoked; needs revoke_reason_code. */
    revoked_at: z.optional(z.nullable(importInstantSchema)),
    revoke_reason_code: z.optional(reasonCodeSchema),
    details: detailsSchema,
    player_message: z.optional(playerMessageSchema),
    appealable: z.optional(z.boolean()),
    statement: z.optional(statementInputSchema),
    translations: z.optional(banTranslationsSchema),
  }),
);
export type ImportRow = z.output<typeof importRowSchema>;

export const importRowStatuses = ['created', 'already_imported', 'changed', 'refused'] as const;
export type ImportRowStatus = (typeof importRowStatuses)[number];

/** What became of one row, in input order. */
export const importRowResultSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    /** Its position in `rows` (from 0). */
    index: z.int().check(z.minimum(0)),
    /** The row's external_id, or null when it had none a string could be read from. */
    external_id: z.nullable(z.string()),
    status: z.enum(importRowStatuses),
    /** The ban made for it (created, already_imported, changed: the stored one); null when refused. */
    ban_id: z.nullable(z.int().check(z.minimum(1))),
    device_id: z.nullable(z.string()),
    /** `changed`: the fields that differ from the stored import (which was kept as it is). */
    changed_fields: z.optional(z.array(z.string())),
    /** `refused`: why, as the error shape's details name a field and an issue. */
    error: z.optional(z.strictObject({ field: z.string(), issue: z.string(), message: z.string() })),
  }),
);
export type ImportRowResult = z.output<typeof importRowResultSchema>;

export const importCountsSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    created: z.int().check(z.minimum(0)),
    already_imported: z.int().check(z.minimum(0)),
    changed: z.int().check(z.minimum(0)),
    refused: z.int().check(z.minimum(0)),
  }),
);
export type ImportCounts = z.output<typeof importCountsSchema>;

export const importResultSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    batch_id: z.string(),
    dry_run: z.boolean(),
    counts: importCountsSchema,
    rows: z.array(importRowResultSchema),
  }),
);
export type ImportResult = z.output<typeof importResultSchema>;
