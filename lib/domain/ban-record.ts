import { type BanTranslation, LOCALE_PATTERN, TRANSLATIONS_MAX, translatedBanFields } from '@kernel/locales';
import {
  automatedDecisions,
  EEA_COUNTRIES,
  resolveStatement,
  type Statement,
  statementCategories,
  statementGrounds,
  statementSources,
} from '@kernel/statement-of-reasons';
import * as z from 'zod/mini';
import { actorFromStored } from '../model/actors';
import { appealOutcomes, banScopes, banTypes } from '../model/requests';
import type { Actor } from '../model/responses';
import { BAN_APPEAL_PREFIX, banAppealAttribute, banKey } from '../storage/keys';
import { IntegrityError } from './errors';

/**
 * The ban entity as stored: its one type, and the mapping to and from its item
 * (`DEVICE#<device_id>` / `BAN#<ban_id>`, lib/storage/keys.ts).
 */

const timestamp = () => z.string();
/** Who made or revoked it (the audit trail's actor); absent on bans from before the audit. */
const actor = () => z.custom<Actor>();

/** One publisher's appeal of a ban, as the ban names it: what listings show, and when it last changed. */
const banAppealSchema = /* @__PURE__ */ (() =>
  z.object({
    appeal_id: z.string(),
    status: z.enum(['open', 'decided']),
    outcome: z.optional(z.enum(appealOutcomes)),
    /** Its filing's time, then its decision's. */
    at: timestamp(),
  }))();
export type BanAppeal = z.output<typeof banAppealSchema>;

/**
 * A ban as stored, without its keys: the one definition of `Ban`. Every read goes through it, so
 * an item this code did not write fails loudly (IntegrityError) instead of reaching a caller.
 * Formats were checked on the way in; here only the shape is, which costs microseconds an item.
 */
const banRecordSchema = /* @__PURE__ */ (() =>
  z.object({
    ban_id: z.int(),
    device_id: z.string(),
    ban_type: z.enum(banTypes),
    scope: z.enum(banScopes),
    publisher_id: z.string(),
    /** Always the game the ban was created from (listings show it for game bans only). */
    game_id: z.string(),
    reason_code: z.string(),
    /** The caller's `details`, serialised: a string, so any JSON survives DynamoDB's type rules. */
    details_json: z.optional(z.string()),
    /** What a game may show the player; absent without one. */
    player_message: z.optional(z.string()),
    /** Stored only when false: absent (and on bans from before it) means appealable. */
    appealable: z.optional(z.boolean()),
    /**
     * Its statement of reasons, as made with it; absent on bans from before statements (derived on
     * read); null in what an erasure left of it (its events), as the player's message and details go.
     */
    statement: z.optional(z.nullable(z.custom<Statement>())),
    /**
     * The language its own texts (player message, statement) are written in: the catalogue's
     * `default_locale` when it was made; absent means `en` (kernel/locales.ts DEFAULT_LOCALE).
     */
    locale: z.optional(z.string()),
    /**
     * Its texts in other languages, by language tag (lib/domain/ban-locales.ts): copied from the
     * catalogue reason when it was made, under the create's own; absent without any, and gone with
     * the player message once erased.
     */
    translations: z.optional(z.record(z.string(), z.custom<BanTranslation>())),
    /**
     * True once an appeal's decision replaced its player message: the translations of the message
     * it was made with no longer translate it (lib/domain/ban-locales.ts). Absent until then.
     */
    player_message_replaced: z.optional(z.boolean()),
    created_at: timestamp(),
    expires_at: z.nullable(timestamp()),
    revoked_at: z.nullable(timestamp()),
    /** Why the owner revoked it; absent until then. */
    revoke_reason_code: z.optional(z.string()),
    created_by: z.optional(actor()),
    revoked_by: z.optional(actor()),
    /** The idempotency key it was made with, so erasure can find the record holding its copy. */
    idempotency_key: z.optional(z.string()),
    /**
     * Its appeals (lib/domain/appeals.ts), one per publisher that filed one, by that publisher:
     * stored as `appeal#<publisher_id>` attributes (lib/storage/keys.ts), gathered here.
     */
    appeals: z.optional(z.record(z.string(), banAppealSchema)),
    /** Its one appeal, on bans appealed when a ban had one appeal in all: read, never written now. */
    appeal_id: z.optional(z.string()),
    appeal_status: z.optional(z.enum(['open', 'decided'])),
    appeal_outcome: z.optional(z.enum(appealOutcomes)),
    /** When and by whom its expiry last moved (an appeal decided `shortened`), and from what. */
    updated_at: z.optional(timestamp()),
    updated_by: z.optional(actor()),
    previous_expires_at: z.optional(z.nullable(timestamp())),
    /** Imported (POST /v1/imports, lib/domain/imports.ts): the batch and the studio's id of the row. */
    imported: z.optional(z.object({ batch_id: z.string(), external_id: z.string() })),
  }))();

export type Ban = z.output<typeof banRecordSchema>;

type Check = (value: unknown) => boolean;
const string: Check = (value) => typeof value === 'string';
const oneOf =
  (values: readonly string[]): Check =>
  (value) =>
    typeof value === 'string' && values.includes(value);
const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined || check(value);
const nullable =
  (check: Check): Check =>
  (value) =>
    value === null || check(value);
const actorCheck: Check = (value) => actorFromStored(value) !== undefined;
const nullableString = nullable(string);

/** A stored statement of reasons: every field of its shape, of its vocabularies. */
const statementCheck: Check = (value) => {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  return (
    oneOf(statementGrounds)(s.ground) &&
    nullableString(s.terms_clause) &&
    nullableString(s.terms_url) &&
    nullableString(s.legal_ground) &&
    nullableString(s.illegal_explanation) &&
    string(s.facts) &&
    typeof s.automated_detection === 'boolean' &&
    oneOf(automatedDecisions)(s.automated_decision) &&
    oneOf(statementSources)(s.source) &&
    Array.isArray(s.territorial_scope) &&
    s.territorial_scope.every(oneOf(EEA_COUNTRIES)) &&
    oneOf(statementCategories)(s.category)
  );
};

/** Stored translations: at most TRANSLATIONS_MAX tags, each of the translatable texts only, each a string. */
const translationsCheck: Check = (value) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  return (
    entries.length <= TRANSLATIONS_MAX &&
    entries.every(
      ([locale, translation]) =>
        LOCALE_PATTERN.test(locale) &&
        typeof translation === 'object' &&
        translation !== null &&
        Object.entries(translation).every(
          ([field, text]) =>
            (translatedBanFields as readonly string[]).includes(field) && typeof text === 'string',
        ),
    )
  );
};

/**
 * The runtime check of every read, field by field, without zod: the events dispatcher reads bans
 * from the stream and its bundle stays within its size budget without the validation library
 * (docs/performance.md). The schema above stays the one definition of the type: this table must
 * name exactly its fields (the `satisfies` fails to compile otherwise).
 */
const banChecks = {
  ban_id: Number.isSafeInteger,
  device_id: string,
  ban_type: oneOf(banTypes),
  scope: oneOf(banScopes),
  publisher_id: string,
  game_id: string,
  reason_code: string,
  details_json: optional(string),
  player_message: optional(string),
  appealable: optional((value) => typeof value === 'boolean'),
  statement: optional(nullable(statementCheck)),
  locale: optional((value) => typeof value === 'string' && LOCALE_PATTERN.test(value)),
  translations: optional(translationsCheck),
  player_message_replaced: optional((value) => typeof value === 'boolean'),
  created_at: string,
  expires_at: nullable(string),
  revoked_at: nullable(string),
  revoke_reason_code: optional(string),
  created_by: optional(actorCheck),
  revoked_by: optional(actorCheck),
  idempotency_key: optional(string),
  // Gathered from the `appeal#` attributes (banAppealsOf), never stored under this name.
  appeals: (value) => value === undefined,
  appeal_id: optional(string),
  appeal_status: optional(oneOf(['open', 'decided'])),
  appeal_outcome: optional(oneOf(appealOutcomes)),
  updated_at: optional(string),
  updated_by: optional(actorCheck),
  previous_expires_at: optional(nullable(string)),
  imported: optional(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      string((value as { batch_id?: unknown }).batch_id) &&
      string((value as { external_id?: unknown }).external_id),
  ),
} satisfies { [K in keyof Ban]-?: Check };

const banFields = Object.keys(banChecks) as (keyof Ban)[];

const isBanAppeal = (value: unknown): value is BanAppeal => {
  const entry = value as Partial<BanAppeal> | undefined;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    string(entry.appeal_id) &&
    oneOf(['open', 'decided'])(entry.status) &&
    optional(oneOf(appealOutcomes))(entry.outcome) &&
    string(entry.at)
  );
};

/** The `appeal#<publisher_id>` attributes of a ban item, by publisher; undefined without any. */
const banAppealsOf = (item: Record<string, unknown>): Record<string, BanAppeal> | undefined => {
  let appeals: Record<string, BanAppeal> | undefined;
  for (const [name, value] of Object.entries(item)) {
    if (!name.startsWith(BAN_APPEAL_PREFIX)) continue;
    if (!isBanAppeal(value)) throw new IntegrityError(`stored ban is malformed: ${name}`);
    appeals = { ...appeals, [name.slice(BAN_APPEAL_PREFIX.length)]: value };
  }
  return appeals;
};

/** The ban an item holds (its fields only, as the schema's parse would keep them), or IntegrityError. */
export const banFromItem = (item: Record<string, unknown> | undefined): Ban => {
  const failed = banFields.find((field) => !banChecks[field](item?.[field]));
  if (!item || failed !== undefined) throw new IntegrityError(`stored ban is malformed: ${failed ?? ''}`);
  const ban: Record<string, unknown> = {};
  for (const field of banFields) if (item[field] !== undefined) ban[field] = item[field];
  const appeals = banAppealsOf(item);
  if (appeals) ban.appeals = appeals;
  // Actors stored before people signed in have no type: they read as the keys they were.
  for (const field of ['created_by', 'revoked_by', 'updated_by'] as const)
    if (ban[field] !== undefined) ban[field] = actorFromStored(ban[field]);
  return ban as Ban;
};

export const banToItem = ({ appeals, ...ban }: Ban) => ({
  ...banKey(ban.device_id, ban.ban_id),
  ...ban,
  ...Object.fromEntries(
    Object.entries(appeals ?? {}).map(([filer, appeal]) => [banAppealAttribute(filer), appeal]),
  ),
});

/**
 * A ban kept whole inside another item (a live set's copy holds the Ban, appeals as a map): read
 * as its own item would be, so both forms pass the same checks.
 */
export const banFromCopy = (copy: unknown): Ban =>
  banFromItem(typeof copy === 'object' && copy !== null ? banToItem(copy as Ban) : undefined);

/**
 * Every appeal of the ban by id: one per publisher that filed, and the one appeal of a ban appealed
 * when a ban had one in all.
 */
export const appealIdsOf = (ban: Ban): string[] => [
  ...new Set([
    ...Object.values(ban.appeals ?? {}).map((appeal) => appeal.appeal_id),
    ...(ban.appeal_id === undefined ? [] : [ban.appeal_id]),
  ]),
];

/**
 * A ban's statement of reasons: the one made with it, or for a ban from before statements, the one
 * the defaults make of it (kernel/statement-of-reasons.ts), as its maker's kind would have had.
 */
export const statementOfBan = (ban: Ban): Statement | null =>
  ban.statement !== undefined
    ? ban.statement
    : resolveStatement(undefined, undefined, {
        ban_type: ban.ban_type,
        reason_code: ban.reason_code,
        player_message: ban.player_message,
        actor: ban.created_by?.type === 'user' ? 'person' : 'key',
      });
