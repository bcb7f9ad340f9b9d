import { CLAIM_MAX_SECONDS, CLAIM_MIN_SECONDS } from '@kernel/appeal-claims';
import {
  DEVICE_FORMAT_PREFIX_PATTERN,
  DEVICE_FORMAT_PREFIX_RULE,
  DEVICE_FORMATS_MAX,
  devicePlatforms,
} from '@kernel/device-formats';
import {
  DEVICE_ID_PATTERN,
  DEVICE_ID_PREFIX_PATTERN,
  DEVICE_ID_PREFIX_RULE,
  DEVICE_ID_RULE,
} from '@kernel/device-ids';
import { DISPLAY_NAME_MAX, DISPLAY_NAME_PATTERN, DISPLAY_NAME_RULE } from '@kernel/display-name';
import {
  DEFAULT_LOCALE,
  LOCALE_PATTERN,
  LOCALE_RULE,
  type ReasonTranslation,
  TRANSLATIONS_MAX,
  translatedBanFields,
} from '@kernel/locales';
import { roles } from '@kernel/people';
import { PLAYER_LINK_MAX_SECONDS, PLAYER_LINK_MIN_SECONDS, PLAYER_LINK_PATTERN } from '@kernel/player-links';
import {
  APPEAL_CONTACT_MAX,
  APPEAL_TEXT_MAX,
  MULTILINE_TEXT_PATTERN,
  MULTILINE_TEXT_RULE,
  PLAYER_MESSAGE_MAX,
  PLAYER_MESSAGE_PATTERN,
  PLAYER_MESSAGE_RULE,
  playerMessageLength,
} from '@kernel/player-message';
import { type PolicyFlag, policyFlags } from '@kernel/policy-flags';
import {
  type GlobalSources,
  PUBLISHER_ID_PATTERN,
  PUBLISHER_ID_RULE,
  QUORUM_MAX,
  QUORUM_MIN,
  TRUST_SOURCES_MAX,
} from '@kernel/policy-trust';
import {
  REASON_DURATION_MAX_SECONDS,
  REASON_LABEL_MAX,
  REASON_LABEL_RULE,
  REASONS_MAX,
} from '@kernel/reason-catalogue';
import { type AppealOutcome, appealOutcomes, appealStatusFilters, BATCH_MAX_DEVICES } from '@kernel/requests';
import { scopes } from '@kernel/scopes';
import {
  automatedDecisions,
  EEA_COUNTRIES,
  STATEMENT_EXPLANATION_MAX,
  STATEMENT_FACTS_MAX,
  STATEMENT_GROUND_MAX,
  STATEMENT_URL_PATTERN,
  STATEMENT_URL_RULE,
  statementCategories,
  statementGrounds,
  statementSources,
} from '@kernel/statement-of-reasons';
import { isReportDay } from '@kernel/transparency';
import * as z from 'zod/mini';
import { parseSafeInteger } from './numbers';

/**
 * Request schemas: what the handlers validate at runtime (ids, bodies, queries, paths, the game
 * header). With lib/model/responses.ts (which only the OpenAPI generator loads: a handler never
 * validates what it answers, so that code stays out of bundles), the only place the API's shapes
 * are written down; types are inferred from them (z.infer), the OpenAPI description generated.
 * zod/mini rather than classic zod: the same engine with functional, tree-shakable checks, each
 * Lambda bundle ~65 KB smaller and its cold start ~30 ms shorter (npm run bench). Invariant: the
 * character rules keep '#' out of every id, so the storage keys built from them cannot collide
 * (docs/data-model.md#the-table).
 */

/**
 * Messages for the issues a schema gives no message of its own. zod/mini carries no locale (that
 * is part of its size), and ours say what the rule is rather than what went wrong inside zod.
 */
const plural = (n: unknown, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
z.config({
  customError: (issue) => {
    switch (issue.code) {
      case 'invalid_type':
        return issue.expected === 'object' || issue.expected === 'array'
          ? `must be an ${issue.expected}`
          : issue.expected === 'boolean'
            ? 'must be true or false'
            : `must be a ${issue.expected === 'int' ? 'whole number' : issue.expected}`;
      case 'invalid_value':
        return `must be one of ${issue.values.map(String).join(', ')}`;
      case 'too_small':
        return issue.origin === 'array'
          ? `must have at least ${plural(issue.minimum, 'item')}`
          : `must be at least ${issue.minimum}`;
      case 'too_big':
        return issue.origin === 'array'
          ? `must have at most ${plural(issue.maximum, 'item')}`
          : `must be at most ${issue.maximum}`;
      case 'invalid_union':
        return 'matches none of the allowed shapes';
      default:
        return 'is not valid';
    }
  },
});

/**
 * Every schema is built inside a call marked pure, so that esbuild keeps only the schemas a
 * bundle uses: a zod call cannot be proven pure, and without the mark every schema of this module
 * would be built at each cold start, whatever the handler (about 3 ms of zod's first-use
 * compilation for a handler that needs none of the others). `define` itself just calls `make`.
 */
const define = <T>(make: () => T): T => make();

const pattern = (re: RegExp, description: string) => z.string().check(z.regex(re, description));

/** A device id (./device-ids.ts): `.` and `..` are refused everywhere. */
export const deviceIdSchema = /* @__PURE__ */ define(() => pattern(DEVICE_ID_PATTERN, DEVICE_ID_RULE));
export const gameIdSchema = /* @__PURE__ */ define(() =>
  pattern(/^[A-Za-z0-9._~:-]{1,64}$/, 'must be 1-64 characters of A-Z a-z 0-9 . _ ~ : -'),
);
export const publisherIdSchema = /* @__PURE__ */ define(() =>
  pattern(PUBLISHER_ID_PATTERN, PUBLISHER_ID_RULE),
);
export const reasonCodeSchema = /* @__PURE__ */ define(() =>
  pattern(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1-64 characters of A-Z a-z 0-9 . _ : -'),
);
export { PLAYER_MESSAGE_MAX, PLAYER_MESSAGE_PATTERN };

/**
 * What a game may show the banned player, as it is: 1-500 characters counted as code points (an
 * emoji is one), so the length is checked apart from the characters; bidirectional overrides could
 * make it read on screen differently from what was stored.
 */
/**
 * Plain text of 1-`max` characters counted as code points (an emoji is one), so the length is
 * checked apart from the characters; bidirectional overrides could make it read on screen
 * differently from what was stored.
 */
const plainText = (max: number, characters: string, rule: string) => {
  const schema = z.string().check(
    z.superRefine((value, ctx) => {
      const length = playerMessageLength(value);
      if (length === 0 || length > max)
        ctx.addIssue({
          code: length === 0 ? 'too_small' : 'too_big',
          origin: 'string',
          ...(length === 0 ? { minimum: 1 } : { maximum: max }),
          message: length === 0 ? 'must be at least 1 character' : `must be at most ${max} characters`,
        } as never);
    }),
    z.regex(new RegExp(characters, 'u'), rule),
  );
  // JSON Schema counts a string's length in code points, as this check does: the OpenAPI document
  // states the limits from here.
  z.globalRegistry.add(schema, { minLength: 1, maxLength: max });
  return schema;
};

/** What a game may show the banned player, as it is: 1-500 characters, one paragraph. */
export const playerMessageSchema = /* @__PURE__ */ define(() =>
  plainText(PLAYER_MESSAGE_MAX, PLAYER_MESSAGE_PATTERN, PLAYER_MESSAGE_RULE),
);
/**
 * A ban's statement of reasons as a create or a catalogue reason gives it (kernel/statement-of-reasons.ts):
 * any of its fields; what is not given comes from the catalogue reason, then the defaults.
 */
export const statementInputSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    ground: z.optional(z.enum(statementGrounds)),
    terms_clause: z.optional(plainText(STATEMENT_GROUND_MAX, PLAYER_MESSAGE_PATTERN, PLAYER_MESSAGE_RULE)),
    terms_url: z.optional(pattern(STATEMENT_URL_PATTERN, STATEMENT_URL_RULE)),
    legal_ground: z.optional(plainText(STATEMENT_GROUND_MAX, PLAYER_MESSAGE_PATTERN, PLAYER_MESSAGE_RULE)),
    illegal_explanation: z.optional(
      plainText(STATEMENT_EXPLANATION_MAX, MULTILINE_TEXT_PATTERN, MULTILINE_TEXT_RULE),
    ),
    facts: z.optional(plainText(STATEMENT_FACTS_MAX, MULTILINE_TEXT_PATTERN, MULTILINE_TEXT_RULE)),
    automated_detection: z.optional(z.boolean()),
    automated_decision: z.optional(z.enum(automatedDecisions)),
    source: z.optional(z.enum(statementSources)),
    territorial_scope: z.optional(
      z.array(z.enum(EEA_COUNTRIES)).check(
        z.minLength(1),
        z.maxLength(EEA_COUNTRIES.length),
        z.superRefine((countries, ctx) => {
          const seen = new Set<string>();
          countries.forEach((country, index) => {
            if (seen.has(country))
              ctx.addIssue({
                code: 'custom',
                path: [index],
                params: { issue: 'duplicate' },
                message: 'repeats a country earlier in the list',
              } as never);
            seen.add(country);
          });
        }),
      ),
    ),
    category: z.optional(z.enum(statementCategories)),
  }),
);
export type StatementInputRequest = z.output<typeof statementInputSchema>;

/** A language tag as a catalogue and a ban hold translations under (kernel/locales.ts): `de`, `pt-BR`, `zh-Hant`. */
export const localeSchema = /* @__PURE__ */ define(() => pattern(LOCALE_PATTERN, LOCALE_RULE));

/**
 * A `locale` query parameter: the language the answer's bans are read in, before `Accept-Language`
 * (kernel/locales.ts). Any case (tags compare without it); the same tags as a translation's.
 */
export const localeParamSchema = /* @__PURE__ */ define(() =>
  z.string().check(z.regex(new RegExp(LOCALE_PATTERN.source, 'i'), LOCALE_RULE)),
);

/**
 * The texts of a ban in one more language: each with the same rules as the untranslated field
 * (the player message one paragraph of 500, the facts and the explanation paragraphs, the clause and
 * the law one line of 500). A catalogue reason's translation may give its label too.
 */
const banTranslationShape = /* @__PURE__ */ define(() => ({
  player_message: z.optional(playerMessageSchema),
  facts: z.optional(plainText(STATEMENT_FACTS_MAX, MULTILINE_TEXT_PATTERN, MULTILINE_TEXT_RULE)),
  terms_clause: z.optional(plainText(STATEMENT_GROUND_MAX, PLAYER_MESSAGE_PATTERN, PLAYER_MESSAGE_RULE)),
  illegal_explanation: z.optional(
    plainText(STATEMENT_EXPLANATION_MAX, MULTILINE_TEXT_PATTERN, MULTILINE_TEXT_RULE),
  ),
  legal_ground: z.optional(plainText(STATEMENT_GROUND_MAX, PLAYER_MESSAGE_PATTERN, PLAYER_MESSAGE_RULE)),
}));
export const banTranslationSchema = /* @__PURE__ */ define(() => z.strictObject(banTranslationShape));
export const reasonTranslationSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    label: z.optional(plainText(REASON_LABEL_MAX, PLAYER_MESSAGE_PATTERN, REASON_LABEL_RULE)),
    ...banTranslationShape,
  }),
);
export { TRANSLATIONS_MAX, translatedBanFields };

/**
 * Translations by language tag: at most TRANSLATIONS_MAX, each key a tag in its canonical case (so
 * one language is one key). Checked by hand rather than as a zod record, so that a 400 names the
 * key that is wrong (`translations.de_AT`); the OpenAPI document describes the shape.
 */
const translationsOf = <T extends z.ZodMiniType>(item: T) =>
  z.record(z.string(), item).check(
    z.superRefine((translations, ctx) => {
      const locales = Object.keys(translations);
      if (locales.length > TRANSLATIONS_MAX)
        ctx.addIssue({
          code: 'too_big',
          origin: 'object',
          maximum: TRANSLATIONS_MAX,
          message: `must have at most ${TRANSLATIONS_MAX} languages`,
        } as never);
      for (const locale of locales)
        if (!LOCALE_PATTERN.test(locale))
          ctx.addIssue({
            code: 'custom',
            path: [locale],
            params: { issue: 'invalid_locale' },
            message: LOCALE_RULE,
          } as never);
    }),
  );
export const banTranslationsSchema = /* @__PURE__ */ define(() => translationsOf(banTranslationSchema));
export const reasonTranslationsSchema = /* @__PURE__ */ define(() => translationsOf(reasonTranslationSchema));
export type ReasonTranslations = Record<string, ReasonTranslation>;

/** An appeal's message or a decision's note: 1-2,000 characters, newlines allowed. */
export const appealTextSchema = /* @__PURE__ */ define(() =>
  plainText(APPEAL_TEXT_MAX, MULTILINE_TEXT_PATTERN, MULTILINE_TEXT_RULE),
);
export const appealContactSchema = /* @__PURE__ */ define(() =>
  plainText(APPEAL_CONTACT_MAX, PLAYER_MESSAGE_PATTERN, PLAYER_MESSAGE_RULE),
);
export const idempotencyKeySchema = /* @__PURE__ */ define(() =>
  pattern(/^[\x20-\x7E]{1,255}$/, 'must be 1-255 printable ASCII characters'),
);

export const banTypes = ['cheat', 'social'] as const;
export const banScopes = ['game', 'publisher', 'global'] as const;
export const banTypeSchema = /* @__PURE__ */ define(() => z.enum(banTypes));
export const banScopeSchema = /* @__PURE__ */ define(() => z.enum(banScopes));
export type BanType = (typeof banTypes)[number];
export type BanScope = (typeof banScopes)[number];

/**
 * RFC 3339's date-time with an offset, narrowed: seconds 00-59 (no leap second `:60`, which no
 * clock we compare with can hold) and at most 9 fraction digits (nanoseconds; stored to the
 * millisecond). The OpenAPI document states the same pattern.
 */
export const RFC3339_PATTERN =
  '^(\\d{4})-(\\d{2})-(\\d{2})[Tt]([01]\\d|2[0-3]):([0-5]\\d):([0-5]\\d)(\\.\\d{1,9})?([Zz]|[+-]([01]\\d|2[0-3]):([0-5]\\d))$';
const RFC3339 = new RegExp(RFC3339_PATTERN);

/** The latest instant an expiry may name: four-digit years end here, in UTC. */
export const LATEST_EXPIRY = '9999-12-31T23:59:59.999Z';

/** Parses an RFC 3339 date-time with an offset; rejects impossible dates such as 02-30. */
export const parseRfc3339 = (value: string): Date | undefined => {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, , , oh, om] = m.map((part) => part ?? '');
  const nums = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const [year, month, day, hour, minute, second] = nums;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  if (oh && (Number(oh) > 23 || Number(om) > 59)) return undefined;
  const date = new Date(value.toUpperCase());
  return Number.isNaN(date.getTime()) ? undefined : date;
};

/** An expiry: a date-time, its checks made here; `expiresAtSchema` makes it optional and nullable. */
export const expiryInstant = () =>
  z.pipe(
    z.string(),
    z.transform((value: string, ctx) => {
      const date = parseRfc3339(value);
      if (!date) {
        ctx.issues.push({
          code: 'invalid_format',
          format: 'date-time',
          input: value,
          message: 'must be an RFC 3339 date-time with an offset, e.g. 2030-01-01T00:00:00Z',
        });
        return z.NEVER;
      }
      // 9999-12-31T23:59:59-23:59 is a valid date-time, but in year 10000 in UTC, where the
      // stored form (YYYY-...) ends: refused as what it is, not as "in the past".
      if (date.getTime() > Date.parse(LATEST_EXPIRY)) {
        ctx.issues.push({
          code: 'too_big',
          origin: 'date',
          maximum: Date.parse(LATEST_EXPIRY),
          input: value,
          message: `must be at most ${LATEST_EXPIRY} (in UTC)`,
        });
        return z.NEVER;
      }
      // "Later than now" is the domain's check (lib/domain/bans.ts): a repeated idempotency key
      // answers its original ban even once that ban's expiry has passed.
      return date.toISOString();
    }),
  );

/** An expiry that may be absent or null (permanent). */
const expiresAtSchema = /* @__PURE__ */ define(() => z.optional(z.nullable(expiryInstant())));

export const DETAILS_MAX_BYTES = 16 * 1024;
export const DETAILS_MAX_DEPTH = 32;

/** Depth of a parsed JSON value, counted without recursion so hostile nesting cannot blow the stack. */
const jsonDepth = (value: unknown): number => {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    max = Math.max(max, depth);
    if (max > DETAILS_MAX_DEPTH) return max;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return max;
};

export const detailsSchema = /* @__PURE__ */ define(() =>
  z.optional(
    z.nullable(
      z
        .custom<Record<string, unknown>>(
          (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
          {
            message: 'must be a JSON object',
            params: { issue: 'invalid_type' },
          },
        )
        .check(
          z.superRefine((value, ctx) => {
            if (jsonDepth(value) > DETAILS_MAX_DEPTH) {
              ctx.addIssue({
                code: 'too_big',
                origin: 'object',
                maximum: DETAILS_MAX_DEPTH,
                message: `must nest at most ${DETAILS_MAX_DEPTH} levels`,
              });
              return;
            }
            if (Buffer.byteLength(JSON.stringify(value)) > DETAILS_MAX_BYTES) {
              ctx.addIssue({
                code: 'too_big',
                origin: 'object',
                maximum: DETAILS_MAX_BYTES,
                message: 'must be at most 16 KiB serialised',
              });
            }
          }),
        ),
    ),
  ),
);

export const createBanRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    device_id: deviceIdSchema,
    ban_type: banTypeSchema,
    scope: banScopeSchema,
    reason_code: reasonCodeSchema,
    expires_at: expiresAtSchema,
    details: detailsSchema,
    player_message: z.optional(playerMessageSchema),
    appealable: z.optional(z.boolean()),
    idempotency_key: z.optional(idempotencyKeySchema),
    /** true: make the ban even when the same one is in force already (else `already_active`). */
    allow_duplicate: z.optional(z.boolean()),
    /** Its statement of reasons, over the catalogue reason's and the defaults. */
    statement: z.optional(statementInputSchema),
    /** Its texts in other languages, over the catalogue reason's (docs/api.md#languages). */
    translations: z.optional(banTranslationsSchema),
  }),
);
export type CreateBanRequest = z.output<typeof createBanRequestSchema>;

export { type PolicyFlag, policyFlags } from '@kernel/policy-flags';

/** One boolean per flag; the policy response (lib/model/responses.ts) spreads the same schemas. */
export const policyFlagShape = /* @__PURE__ */ define(
  () =>
    Object.fromEntries(policyFlags.map((flag) => [flag, z.boolean()])) as Record<
      PolicyFlag,
      z.ZodMiniBoolean<boolean>
    >,
);

export {
  defaultPolicyTrust,
  type GlobalSources,
  type PolicyTrust,
  QUORUM_MAX,
  QUORUM_MIN,
  TRUST_SOURCES_MAX,
  trustFields,
} from '@kernel/policy-trust';

const issueAt = (
  ctx: { addIssue: (issue: never) => void },
  path: PropertyKey[],
  issue: string,
  message: string,
) => ctx.addIssue({ code: 'custom', path, params: { issue }, message } as never);

/**
 * `global_sources` / `rep_global_sources`: `"all"`, `{"only": [ids]}` or `{"except": [ids]}`, at
 * most 100 distinct publisher ids. Checked by hand rather than as a zod union, so that a 400 names
 * exactly what is wrong (`global_sources.only.3`) instead of "matches none of the shapes"; the
 * OpenAPI document describes it (lib/openapi/document.ts). A repeated id is refused (`duplicate`),
 * as a repeated code of the reason catalogue is: what is stored is exactly what was sent.
 */
export const globalSourcesSchema = /* @__PURE__ */ define(() =>
  z
    .custom<GlobalSources>(() => true)
    .check(
      z.superRefine((value: unknown, ctx) => {
        const shapes = 'must be "all", {"only": [publisher ids]} or {"except": [publisher ids]}';
        if (typeof value === 'string') {
          if (value !== 'all') issueAt(ctx, [], 'invalid_value', shapes);
          return;
        }
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          issueAt(ctx, [], 'invalid_type', shapes);
          return;
        }
        const keys = Object.keys(value);
        const lists = keys.filter((key) => key === 'only' || key === 'except');
        for (const key of keys)
          if (key !== 'only' && key !== 'except')
            issueAt(ctx, [key], 'unknown_field', 'is not a known field');
        if (lists.length !== 1) {
          issueAt(ctx, [], 'invalid_value', `must have exactly one of only or except: ${shapes}`);
          return;
        }
        const list = lists[0] as 'only' | 'except';
        const ids = (value as Record<string, unknown>)[list];
        if (!Array.isArray(ids)) {
          issueAt(ctx, [list], 'invalid_type', 'must be an array of publisher ids');
          return;
        }
        if (ids.length > TRUST_SOURCES_MAX) {
          issueAt(ctx, [list], 'too_big', `must have at most ${TRUST_SOURCES_MAX} items`);
          return;
        }
        const seen = new Set<string>();
        ids.forEach((id, index) => {
          if (typeof id !== 'string') issueAt(ctx, [list, index], 'invalid_type', 'must be a string');
          else if (!PUBLISHER_ID_PATTERN.test(id))
            issueAt(ctx, [list, index], 'invalid_format', PUBLISHER_ID_RULE);
          else if (seen.has(id))
            issueAt(ctx, [list, index], 'duplicate', 'repeats an id earlier in the list');
          seen.add(String(id));
        });
      }),
    ),
);

/** `global_quorum` / `rep_global_quorum`: a whole number from 1 to 10. */
export const quorumSchema = /* @__PURE__ */ define(() =>
  z.int().check(z.minimum(QUORUM_MIN), z.maximum(QUORUM_MAX)),
);

/** The trust settings, one schema each (the policy response spreads the same names). */
export const policyTrustShape = /* @__PURE__ */ define(() => ({
  global_sources: globalSourcesSchema,
  global_quorum: quorumSchema,
  rep_global_sources: globalSourcesSchema,
  rep_global_quorum: quorumSchema,
}));

/** `PUT /v1/policy`: any subset of the eight flags and the four trust settings. */
export const policyPatchSchema = /* @__PURE__ */ define(() =>
  z.partial(z.strictObject({ ...policyFlagShape, ...policyTrustShape })),
);
export type PolicyPatch = z.output<typeof policyPatchSchema>;

export {
  DURATION_PRESETS,
  REASON_DURATION_MAX_SECONDS,
  REASON_LABEL_MAX,
  REASONS_MAX,
} from '@kernel/reason-catalogue';

/** One reason of the catalogue: what choosing it fills in on a new ban. */
export const catalogueReasonSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    code: reasonCodeSchema,
    label: plainText(REASON_LABEL_MAX, PLAYER_MESSAGE_PATTERN, REASON_LABEL_RULE),
    ban_type: banTypeSchema,
    scope: banScopeSchema,
    /** How long a ban for it lasts; null: permanent. */
    duration_seconds: z.nullable(z.int().check(z.minimum(1), z.maximum(REASON_DURATION_MAX_SECONDS))),
    player_message: z.nullable(playerMessageSchema),
    /** The statement of reasons a ban for it carries unless the create says otherwise. */
    statement: z.optional(statementInputSchema),
    /** Its label, player message and statement's texts in other languages than the catalogue's `default_locale`. */
    translations: z.optional(reasonTranslationsSchema),
  }),
);
export type CatalogueReason = z.output<typeof catalogueReasonSchema>;

/** `PUT /v1/reasons`: the whole catalogue, replaced. A repeated code is named where it repeats. */
export const putReasonsRequestSchema = /* @__PURE__ */ define(() =>
  z
    .strictObject({
      reasons: z.array(catalogueReasonSchema).check(
        z.maxLength(REASONS_MAX),
        z.superRefine((reasons, ctx) => {
          const seen = new Set<string>();
          reasons.forEach(({ code }, index) => {
            if (seen.has(code))
              ctx.addIssue({
                code: 'custom',
                path: [index, 'code'],
                params: { issue: 'duplicate' },
                message: 'repeats a code earlier in the list',
              } as never);
            seen.add(code);
          });
        }),
      ),
      strict_reasons: z.boolean(),
      /** The language the untranslated texts are written in (default `en`): no reason translates into it. */
      default_locale: z.optional(localeSchema),
    })
    .check(
      z.superRefine(({ reasons, default_locale = DEFAULT_LOCALE }, ctx) => {
        if (!Array.isArray(reasons)) return;
        reasons.forEach((reason, index) => {
          const translations = (reason as { translations?: unknown } | undefined)?.translations;
          if (
            typeof translations === 'object' &&
            translations !== null &&
            Object.hasOwn(translations, default_locale)
          )
            ctx.addIssue({
              code: 'custom',
              path: ['reasons', index, 'translations', default_locale],
              params: { issue: 'default_locale' },
              message: `is the catalogue's default_locale: its texts are the reason's own fields`,
            } as never);
        });
      }),
    ),
);
export type PutReasonsRequest = z.output<typeof putReasonsRequestSchema>;

/** One declared device id format: the platform, and the prefix the publisher's ids of it carry. */
export const deviceFormatSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    platform: z.enum(devicePlatforms),
    prefix: pattern(DEVICE_FORMAT_PREFIX_PATTERN, DEVICE_FORMAT_PREFIX_RULE),
  }),
);

/** `PUT /v1/device-formats`: the whole list, at most one per platform. */
export const putDeviceFormatsRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    formats: z.array(deviceFormatSchema).check(
      z.maxLength(DEVICE_FORMATS_MAX),
      z.superRefine((formats, ctx) => {
        const seen = new Set<string>();
        formats.forEach(({ platform }, index) => {
          if (seen.has(platform))
            ctx.addIssue({
              code: 'custom',
              path: [index, 'platform'],
              params: { issue: 'duplicate' },
              message: 'repeats a platform earlier in the list',
            } as never);
          seen.add(platform);
        });
      }),
    ),
  }),
);
export type PutDeviceFormatsRequest = z.output<typeof putDeviceFormatsRequestSchema>;

export { DISPLAY_NAME_MAX, DISPLAY_NAME_PATTERN } from '@kernel/display-name';

/** `PUT /v1/publisher`: the name every publisher sees in the directory (./display-name.ts has its rule). */
export const putPublisherRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({ display_name: plainText(DISPLAY_NAME_MAX, DISPLAY_NAME_PATTERN, DISPLAY_NAME_RULE) }),
);
export type PutPublisherRequest = z.output<typeof putPublisherRequestSchema>;

/** Digits only: "1e3", "0x10", " 5" and "5.0" are all refused rather than coerced. */
/**
 * Digits only, then one issue: `too_small` or `too_big` past the bounds, however many digits
 * (the last stage is what the OpenAPI document shows: an integer between the bounds).
 */
export const integerParam = (min: number, max: number) =>
  z.pipe(
    z.pipe(
      z.string().check(z.regex(/^[0-9]+$/, 'must be an integer')),
      z.transform((text: string, ctx) => {
        const value = parseSafeInteger(text);
        if (value !== undefined && value >= min && value <= max) return value;
        const message = `must be between ${min} and ${max}`;
        ctx.issues.push(
          value !== undefined && value < min
            ? { code: 'too_small', origin: 'number', minimum: min, input: text, message }
            : { code: 'too_big', origin: 'number', maximum: max, input: text, message },
        );
        return z.NEVER;
      }),
    ),
    z.int().check(z.minimum(min), z.maximum(max)),
  );

export const banStatusFilters = ['active', 'inactive', 'all'] as const;

export const listBansQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    status: z._default(z.enum(banStatusFilters), 'active'),
    limit: z._default(integerParam(1, 200), 50),
    cursor: z.optional(integerParam(1, Number.MAX_SAFE_INTEGER)),
    locale: z.optional(localeParamSchema),
  }),
);
export type ListBansQuery = z.output<typeof listBansQuerySchema>;

export const listAllBansQuerySchema = /* @__PURE__ */ define(() =>
  z.extend(listBansQuerySchema, { type: z.optional(banTypeSchema) }),
);
export type ListAllBansQuery = z.output<typeof listAllBansQuerySchema>;

export const devicePathSchema = /* @__PURE__ */ define(() => z.strictObject({ device_id: deviceIdSchema }));
export const banPathSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    device_id: deviceIdSchema,
    ban_id: integerParam(1, Number.MAX_SAFE_INTEGER),
  }),
);

export const revokeBanRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({ reason_code: reasonCodeSchema }),
);
export type RevokeBanRequest = z.output<typeof revokeBanRequestSchema>;

export { BATCH_MAX_DEVICES };

/**
 * The items are strings (anything else makes the body invalid); their format is checked one by one
 * in the domain, so one malformed id fails only its own entry.
 */
export const enforcementBatchRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    device_ids: z.array(z.string()).check(z.minLength(1), z.maxLength(BATCH_MAX_DEVICES)),
  }),
);

/** The query of an answer that carries bans and takes nothing else: the language to read them in. */
export const localeQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({ locale: z.optional(localeParamSchema) }),
);
export type LocaleQuery = z.output<typeof localeQuerySchema>;

/** The game header, validated like any other input. */
export const gameHeaderSchema = /* @__PURE__ */ define(() => z.strictObject({ 'x-game-id': gameIdSchema }));

/** At most as many games as a batch has devices: a key bound to more should not be bound. */
export const KEY_MAX_GAMES = 100;

/** What `POST /v1/keys` takes. Whether the caller may grant it is the domain's check. */
export const createKeyRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    name: z
      .string()
      .check(z.minLength(1, 'must be 1-64 characters'), z.maxLength(64, 'must be 1-64 characters')),
    scopes: z.array(z.enum(scopes)).check(z.minLength(1), z.maxLength(scopes.length)),
    games: z.optional(z.array(gameIdSchema).check(z.minLength(1), z.maxLength(KEY_MAX_GAMES))),
    expires_at: expiresAtSchema,
  }),
);
export type CreateKeyRequest = z.output<typeof createKeyRequestSchema>;

export const keyIdSchema = /* @__PURE__ */ define(() =>
  pattern(/^key_[A-Za-z0-9_-]{12}$/, 'must be key_ and 12 characters of A-Z a-z 0-9 _ -'),
);
export const keyPathSchema = /* @__PURE__ */ define(() => z.strictObject({ key_id: keyIdSchema }));

/** What the audit trail records (lib/domain/audit.ts): one event per change that took effect. */
export const auditEventTypes = [
  'ban.created',
  'ban.revoked',
  'policy.updated',
  'key.created',
  'key.revoked',
  'device.erased',
  'webhook.created',
  'webhook.deleted',
  'ban.updated',
  'appeal.created',
  'appeal.decided',
  'reasons.updated',
  'publisher.updated',
  'webhook.tested',
  'appeal.claimed',
  'appeal.released',
  'person.invited',
  'person.updated',
  'device_formats.updated',
  'bans.imported',
  'data.exported',
] as const;
export type AuditEventType = (typeof auditEventTypes)[number];

/** One end of a time range (a listing's `from`, `to`): a date-time, returned as UTC to the millisecond. */
const rangeInstant = () =>
  z.pipe(
    z.string(),
    z.transform((value: string, ctx) => {
      const date = parseRfc3339(value);
      if (!date || date.getTime() > Date.parse(LATEST_EXPIRY) || date.getUTCFullYear() < 1) {
        ctx.issues.push({
          code: 'invalid_format',
          format: 'date-time',
          input: value,
          message: 'must be an RFC 3339 date-time with an offset, e.g. 2030-01-01T00:00:00Z',
        });
        return z.NEVER;
      }
      return date.toISOString();
    }),
  );

/** `GET /v1/audit`: newest first; the cursor is opaque (the domain decodes and checks it). */
export const auditQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    limit: z._default(integerParam(1, 200), 50),
    cursor: z.optional(pattern(/^[A-Za-z0-9_-]{1,400}$/, 'must be a next_cursor this API returned')),
    type: z.optional(z.enum(auditEventTypes)),
    device_id: z.optional(deviceIdSchema),
    /** A key's id, or a person's `sub` (printable ASCII, as providers make them). */
    actor: z.optional(pattern(/^[\x21-\x7e]{1,255}$/, "must be a key_id or a person's sub")),
    /** Events that happened at or after this instant (an RFC 3339 date-time with an offset). */
    from: z.optional(rangeInstant()),
    /** Events that happened before this instant (the range is half-open: `from` <= t < `to`). */
    to: z.optional(rangeInstant()),
  }),
);
export type AuditQuery = z.output<typeof auditQuerySchema>;

/** `GET /v1/statements`: the statements of the bans made in a time range, newest first. */
export const dsaStatementsQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    limit: z._default(integerParam(1, 200), 100),
    cursor: z.optional(pattern(/^[A-Za-z0-9_-]{1,400}$/, 'must be a next_cursor this API returned')),
    /** Bans made at or after this instant. */
    from: z.optional(rangeInstant()),
    /** Bans made before this instant. */
    to: z.optional(rangeInstant()),
  }),
);
export type DsaStatementsQuery = z.output<typeof dsaStatementsQuerySchema>;

/** What the change feed and webhooks carry (lib/domain/change-events.ts). */
export const feedEventTypes = [
  'ban.created',
  'ban.revoked',
  'ban.erased',
  'policy.updated',
  'ban.updated',
  'appeal.created',
  'appeal.decided',
] as const;
export type FeedEventType = (typeof feedEventTypes)[number];

/**
 * What a delivery carries: a feed event, the test a publisher asks for
 * (`POST /v1/webhooks/{webhook_id}/test`), which goes to that one webhook, or an import batch's
 * summary (`bans.imported`); neither of the last two is in the feed.
 */
export const deliveryEventTypes = [...feedEventTypes, 'webhook.test', 'bans.imported'] as const;
export type DeliveryEventType = (typeof deliveryEventTypes)[number];

/** `GET /v1/events`: oldest first from the cursor (opaque; the domain decodes and checks it). */
export const eventsQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    limit: z._default(integerParam(1, 500), 100),
    cursor: z.optional(pattern(/^[A-Za-z0-9_-]{1,200}$/, 'must be a next_cursor this API returned')),
    locale: z.optional(localeParamSchema),
  }),
);
export type EventsQuery = z.output<typeof eventsQuerySchema>;

/** `GET /v1/enforcement/snapshot`: the live bans in pages; the cursor is opaque (the domain decodes and checks it). */
export const snapshotQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    limit: z._default(integerParam(1, 1000), 500),
    cursor: z.optional(pattern(/^[A-Za-z0-9_-]{1,1000}$/, 'must be a next_cursor this API returned')),
  }),
);
export type SnapshotQuery = z.output<typeof snapshotQuerySchema>;

/** Webhooks a publisher may have at once. */
export const WEBHOOK_MAX_PER_PUBLISHER = 10;

/** What `POST /v1/webhooks` takes. Whether the URL may be called is the domain's check. */
export const createWebhookRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    url: z
      .string()
      .check(z.minLength(1, 'must be 1-2048 characters'), z.maxLength(2048, 'must be 1-2048 characters')),
    events: z.optional(
      z.array(z.enum(feedEventTypes)).check(z.minLength(1), z.maxLength(feedEventTypes.length)),
    ),
    games: z.optional(z.array(gameIdSchema).check(z.minLength(1), z.maxLength(KEY_MAX_GAMES))),
  }),
);
export type CreateWebhookRequest = z.output<typeof createWebhookRequestSchema>;

export const webhookIdSchema = /* @__PURE__ */ define(() =>
  pattern(/^wh_[A-Za-z0-9_-]{16}$/, 'must be wh_ and 16 characters of A-Z a-z 0-9 _ -'),
);
export const webhookPathSchema = /* @__PURE__ */ define(() =>
  z.strictObject({ webhook_id: webhookIdSchema }),
);

/** `GET /v1/keys`: in key_id order; the cursor is opaque (the domain decodes and checks it). */
export const listKeysQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    limit: z._default(integerParam(1, 200), 50),
    cursor: z.optional(pattern(/^[A-Za-z0-9_-]{1,100}$/, 'must be a next_cursor this API returned')),
  }),
);
export type ListKeysQuery = z.output<typeof listKeysQuerySchema>;

/** `GET /v1/publishers`: the directory in publisher_id order; the cursor is opaque (the domain decodes and checks it). */
export const listPublishersQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    limit: z._default(integerParam(1, 200), 50),
    cursor: z.optional(pattern(/^[A-Za-z0-9_-]{1,100}$/, 'must be a next_cursor this API returned')),
  }),
);
export type ListPublishersQuery = z.output<typeof listPublishersQuerySchema>;

/** `GET /v1/webhooks/{webhook_id}/deliveries`: newest first. */
/** What became of a delivery: still being tried, delivered (2xx), or given up on. */
export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;

export const deliveriesQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    limit: z._default(integerParam(1, 200), 50),
    cursor: z.optional(pattern(/^[A-Za-z0-9_-]{1,200}$/, 'must be a next_cursor this API returned')),
    /** Only the deliveries in this state (the cursor then resumes within them). */
    status: z.optional(z.enum(deliveryStatuses)),
  }),
);
export type DeliveriesQuery = z.output<typeof deliveriesQuerySchema>;

/** An appeal's id: `apl_` and 22 characters, derived from the ban it contests (lib/domain/appeals.ts). */
export const appealIdSchema = /* @__PURE__ */ define(() =>
  pattern(/^apl_[A-Za-z0-9_-]{22}$/, 'must be apl_ and 22 characters of A-Z a-z 0-9 _ -'),
);
export const appealPathSchema = /* @__PURE__ */ define(() => z.strictObject({ appeal_id: appealIdSchema }));

/** `POST /v1/appeals`: a player's appeal of a ban enforced against their device in this game. */
export const createAppealRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    device_id: deviceIdSchema,
    ban_id: z.int().check(z.minimum(1), z.maximum(Number.MAX_SAFE_INTEGER)),
    message: appealTextSchema,
    contact: z.optional(appealContactSchema),
    idempotency_key: z.optional(idempotencyKeySchema),
  }),
);
export type CreateAppealRequest = z.output<typeof createAppealRequestSchema>;

/**
 * `POST /v1/player-links`: a page for one device in the caller's game (X-Game-Id). `appeal`: the
 * player may file appeals from it (the key needs `appeals:write` too).
 */
export const createPlayerLinkRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    device_id: deviceIdSchema,
    appeal: z.optional(z.boolean()),
    /** How long the link lasts from now; an hour when absent. */
    expires_in_seconds: z.optional(
      z.int().check(z.minimum(PLAYER_LINK_MIN_SECONDS), z.maximum(PLAYER_LINK_MAX_SECONDS)),
    ),
  }),
);
export type CreatePlayerLinkRequest = z.output<typeof createPlayerLinkRequestSchema>;

/** The player's page's link, as its header carries it (kernel/player-links.ts). */
export const playerLinkHeaderSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    'x-player-link': pattern(PLAYER_LINK_PATTERN, 'must be a player page link (bpl_ and 43 characters)'),
  }),
);

/** `POST /v1/player/appeals`: the player's own appeal of one of the restrictions their page shows. */
export const playerAppealRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    ban_id: z.int().check(z.minimum(1), z.maximum(Number.MAX_SAFE_INTEGER)),
    message: appealTextSchema,
    contact: z.optional(appealContactSchema),
  }),
);
export type PlayerAppealRequest = z.output<typeof playerAppealRequestSchema>;

export { type AppealOutcome, appealOutcomes };

/**
 * `POST /v1/appeals/{appeal_id}/decision`. Whether `expires_at` fits (shortened only, earlier than
 * the ban's expiry, in the future) is the domain's check: it needs the ban.
 */
export const appealDecisionRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    outcome: z.enum(appealOutcomes),
    note: z.optional(appealTextSchema),
    player_message: z.optional(playerMessageSchema),
    /** The shortened ban's new expiry: for `shortened` only, and then required (never null). */
    expires_at: z.optional(expiryInstant()),
  }),
);
export type AppealDecisionRequest = z.output<typeof appealDecisionRequestSchema>;

/** `POST /v1/appeals/{appeal_id}/claim`: hold an open appeal for a while (kernel/appeal-claims.ts). */
export const appealClaimRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    /** How long from now; CLAIM_DEFAULT_SECONDS when absent. */
    duration_seconds: z.optional(z.int().check(z.minimum(CLAIM_MIN_SECONDS), z.maximum(CLAIM_MAX_SECONDS))),
    /** Take the appeal from another holder (only with TAKE_OVER_SCOPE, audited). */
    take_over: z.optional(z.boolean()),
  }),
);
export type AppealClaimRequest = z.output<typeof appealClaimRequestSchema>;

/** `GET /v1/devices`: the devices the publisher has banned, by the start or the end of their id. */
export const devicesQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    prefix: z.optional(pattern(DEVICE_ID_PREFIX_PATTERN, DEVICE_ID_PREFIX_RULE)),
    /** The end of the id (a report quotes the tail digits); with `prefix`, both must hold. */
    suffix: z.optional(pattern(DEVICE_ID_PREFIX_PATTERN, DEVICE_ID_PREFIX_RULE)),
    /** `true`: search the prefix as typed, not as the publisher's declared device id formats read it. */
    as_typed: z._default(z.enum(['true', 'false']), 'false'),
    limit: z._default(integerParam(1, 100), 25),
    cursor: z.optional(pattern(/^[A-Za-z0-9_-]{1,200}$/, 'must be a next_cursor this API returned')),
  }),
);
export type DevicesQuery = z.output<typeof devicesQuerySchema>;

/** `GET /v1/bans/expiring`: the publisher's bans in force that end within the next hours. */
export const expiringBansQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    within_hours: z._default(integerParam(1, 168), 24),
    limit: z._default(integerParam(1, 100), 25),
    cursor: z.optional(pattern(/^[A-Za-z0-9_-]{1,200}$/, 'must be a next_cursor this API returned')),
  }),
);
export type ExpiringBansQuery = z.output<typeof expiringBansQuerySchema>;

export { appealStatusFilters };

/** `GET /v1/appeals`: the owner's queue, open ones oldest first, then decided ones newest first. */
export const appealsQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    status: z._default(z.enum(appealStatusFilters), 'open'),
    ban_id: z.optional(integerParam(1, Number.MAX_SAFE_INTEGER)),
    device_id: z.optional(deviceIdSchema),
    limit: z._default(integerParam(1, 200), 50),
    cursor: z.optional(pattern(/^[A-Za-z0-9_-]{1,200}$/, 'must be a next_cursor this API returned')),
  }),
);
export type AppealsQuery = z.output<typeof appealsQuerySchema>;

/** An email address as the people routes take it: one @, a dot in the domain, no spaces; at most 254. */
export const personEmailSchema = /* @__PURE__ */ define(() =>
  z
    .string()
    .check(
      z.maxLength(254, 'must be at most 254 characters'),
      z.regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address'),
    ),
);

/** `POST /v1/people`: who to invite, and as what. */
export const invitePersonRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({ email: personEmailSchema, role: z.enum(roles) }),
);
export type InvitePersonRequest = z.output<typeof invitePersonRequestSchema>;

/** `PUT /v1/people/{person_id}`: only what is sent changes (`{}` changes nothing). */
export const updatePersonRequestSchema = /* @__PURE__ */ define(() =>
  z.strictObject({ role: z.optional(z.enum(roles)), enabled: z.optional(z.boolean()) }),
);
export type UpdatePersonRequest = z.output<typeof updatePersonRequestSchema>;

/** A person's id: the identity provider's subject (a UUID, Cognito's and the local provider's alike). */
export const personPathSchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    person_id: pattern(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      'must be a person_id (a UUID)',
    ),
  }),
);

/** A report's day, `YYYY-MM-DD` (UTC), a real calendar day. */
const reportDay = () =>
  z
    .string()
    .check(z.refine((day: string) => isReportDay(day), 'must be a day as YYYY-MM-DD (UTC), e.g. 2026-03-01'));

/**
 * `GET /v1/transparency-report`: the days `from` to `to`, both included; at most REPORT_MAX_DAYS
 * (the domain checks the order and the length). `format=csv` answers CSV (kernel/transparency.ts).
 */
export const transparencyReportQuerySchema = /* @__PURE__ */ define(() =>
  z.strictObject({
    from: reportDay(),
    to: reportDay(),
    /** `json` or `csv`; absent: as `Accept` prefers (lib/http/media-types.ts), else JSON. */
    format: z.optional(z.enum(['json', 'csv'])),
  }),
);
export type TransparencyReportQuery = z.output<typeof transparencyReportQuerySchema>;
