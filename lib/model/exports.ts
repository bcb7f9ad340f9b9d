import { EXPORT_PAGE_DEFAULT, EXPORT_PAGE_MAX, exportKinds } from '@kernel/exports';
import * as z from 'zod/mini';
import { integerParam } from './requests';

/**
 * The export API's requests (GET /v1/exports/{kind}, docs/import-export.md#export). Built in calls
 * marked pure, as in ./requests.ts, so a bundle keeps only what it uses; the answers' shapes are in
 * ./responses.ts.
 */

const define = <T>(make: () => T): T => make();

export const exportPathSchema = /* @__PURE__ */ define(() => z.strictObject({ kind: z.enum(exportKinds) }));

/** A page: `limit` items at most; the cursor is opaque (the domain decodes and checks it). */
export const exportQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    limit: z._default(integerParam(1, EXPORT_PAGE_MAX), EXPORT_PAGE_DEFAULT),
    cursor: z.optional(
      z.string().check(z.regex(/^[A-Za-z0-9_-]{1,1000}$/, 'must be a next_cursor this API returned')),
    ),
  }),
);
export type ExportQuery = z.output<typeof exportQuerySchema>;

/** An export job's id: `exp_` and 22 random characters (lib/domain/export-jobs.ts). */
export const EXPORT_ID_PATTERN = /^exp_[A-Za-z0-9_-]{22}$/;

/** `POST /v1/export-jobs`: the kinds to write (default every kind), each once. */
export const exportJobRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    kinds: z.optional(
      z.array(z.enum(exportKinds)).check(
        z.minLength(1),
        z.refine((kinds) => new Set(kinds).size === kinds.length, 'must name each kind once'),
      ),
    ),
  }),
);
export type ExportJobRequest = z.output<typeof exportJobRequestSchema>;

export const exportJobPathSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    export_id: z
      .string()
      .check(z.regex(EXPORT_ID_PATTERN, 'must be an export_id POST /v1/export-jobs returned')),
  }),
);
