import { devicePlatforms } from '@kernel/device-formats';
import { exportKinds } from '@kernel/exports';
import { roles } from '@kernel/people';
import { scopes } from '@kernel/scopes';
import {
  automatedDecisions,
  EEA_COUNTRIES,
  statementCategories,
  statementGrounds,
  statementSources,
} from '@kernel/statement-of-reasons';
import { reportAppealCounts, reportModeratorCounts, restrictionDimensions } from '@kernel/transparency';
import * as z from 'zod/mini';
import { type ErrorCode, errorStatus } from './error-codes';
import {
  appealOutcomes,
  appealStatusFilters,
  banScopeSchema,
  banStatusFilters,
  banTypeSchema,
  deliveryEventTypes,
  deliveryStatuses,
  feedEventTypes,
  policyFlagShape,
  policyFlags,
  QUORUM_MAX,
  QUORUM_MIN,
  TRUST_SOURCES_MAX,
} from './requests';

/**
 * Response schemas: what each route answers, for the OpenAPI generator (lib/openapi/) and,
 * as types (z.output), for the domain. Nothing validates a response at runtime, so no handler
 * loads this module: the domain imports it with `import type` only, which keeps its zod calls
 * (and the zod code only they use: unions, records, literals) out of every Lambda bundle.
 */

/** A declared device id format, as answered and recorded. */
export const deviceFormatResponseSchema = z.strictObject({
  platform: z.enum(devicePlatforms),
  prefix: z.string(),
});

/** One named problem with one input: `{"field": "limit", "issue": "too_big"}`. */
export const fieldIssueSchema = z.strictObject({ field: z.string(), issue: z.string() });

export const errorCodeSchema = z.enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]]);

/** An ISO 8601 UTC timestamp exactly as every response writes them: `YYYY-MM-DDTHH:mm:ss.sssZ`. */
export const timestampSchema = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/));

/**
 * Who did it: a key (its id and its name then; the operator's keys tool has key_id null), or a
 * person signed in (the provider's subject, their email, their role then).
 */
export const actorSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('key'), key_id: z.nullable(z.string()), name: z.string() }),
  z.strictObject({
    type: z.literal('user'),
    sub: z.string(),
    email: z.nullable(z.string()),
    role: z.enum(roles),
  }),
]);
export type Actor = z.output<typeof actorSchema>;

/**
 * Who holds what a 409 refused to change: the moderator whose claim an appeal is under (until
 * when), or who decided it already (when). Each time is UTC; a console shows it in local time.
 */
export const conflictHolderSchema = z.strictObject({
  reason: z.enum(['claimed', 'decided']),
  actor: actorSchema,
  /** When the claim began, or when the decision was made. */
  at: timestampSchema,
  /** When the claim ends; null for a decision. */
  until: z.nullable(timestampSchema),
});
export type ConflictHolder = z.output<typeof conflictHolderSchema>;

/** The error envelope of every failure (lib/http/errors.ts builds it; the document and tests check it). */
export const errorEnvelopeSchema = z.strictObject({
  error: z.strictObject({
    code: errorCodeSchema,
    message: z.string(),
    details: z.optional(z.array(fieldIssueSchema)),
    /** On some 409s: who holds the thing (conflictHolderSchema). */
    holder: z.optional(conflictHolderSchema),
  }),
  request_id: z.string(),
});

const timestamp = timestampSchema;
const count = z.int().check(z.minimum(0));
const banId = z.int().check(z.minimum(1));

const publisherIds = z.array(z.string()).check(z.maxLength(TRUST_SOURCES_MAX));

/** Whose global bans count (kernel/policy-trust.ts): everyone's, only some publishers', or all but some. */
export const globalSourcesResponseSchema = z.union([
  z.literal('all'),
  z.strictObject({ only: publisherIds }),
  z.strictObject({ except: publisherIds }),
]);
const quorum = z.int().check(z.minimum(QUORUM_MIN), z.maximum(QUORUM_MAX));

/** The four trust settings as every policy answer carries them (defaults: "all" and 1). */
export const policyTrustResponseShape = {
  /** Whose global bans restrict a device: "all", {"only": [...]} or {"except": [...]}; your own always count. */
  global_sources: globalSourcesResponseSchema,
  /** Distinct trusted publishers that must hold an active global ban of a type before any of them applies. */
  global_quorum: quorum,
  /** The same two settings for the reputation score. */
  rep_global_sources: globalSourcesResponseSchema,
  rep_global_quorum: quorum,
};

export const policySchema = z.strictObject({
  publisher_id: z.string(),
  ...policyFlagShape,
  ...policyTrustResponseShape,
  updated_at: timestamp,
});
export type Policy = z.output<typeof policySchema>;

/** One reason of the catalogue, as stored (lib/model/requests.ts has its rules). */
const statementShape = {
  ground: z.enum(statementGrounds),
  /** `terms`: the clause of the publisher's terms relied on; null for `illegal`. */
  terms_clause: z.nullable(z.string()),
  /** `terms`: where the player reads it; null without one. */
  terms_url: z.nullable(z.string()),
  /** `illegal`: the law relied on; null for `terms`. */
  legal_ground: z.nullable(z.string()),
  /** `illegal`: why the conduct is illegal on that ground; null for `terms`. */
  illegal_explanation: z.nullable(z.string()),
  /** The facts and circumstances relied on, written for the player. */
  facts: z.string(),
  /** Whether automated means detected what the ban is for. */
  automated_detection: z.boolean(),
  /** Whether automated means decided it: fully, partially or not (a person). */
  automated_decision: z.enum(automatedDecisions),
  source: z.enum(statementSources),
  /** Where it applies, as EEA countries. */
  territorial_scope: z.array(z.enum(EEA_COUNTRIES)),
  category: z.enum(statementCategories),
};

/**
 * A ban's statement of reasons (Digital Services Act, Art. 17), as the player is owed it: public,
 * like the player message, to whoever sees the ban; null only on an erased ban's event.
 */
export const statementSchema = z.strictObject(statementShape);

/** What a catalogue reason says of the statements of its bans: any of the fields. */
export const statementDefaultsSchema = z.partial(
  z.strictObject({
    ...statementShape,
    terms_clause: z.string(),
    terms_url: z.string(),
    legal_ground: z.string(),
    illegal_explanation: z.string(),
  }),
);

/** One language's texts of a ban: any of them (the others read in the ban's own language). */
export const banTranslationResponseSchema = z.strictObject({
  player_message: z.optional(z.string()),
  facts: z.optional(z.string()),
  terms_clause: z.optional(z.string()),
  illegal_explanation: z.optional(z.string()),
  legal_ground: z.optional(z.string()),
});

/** One language's texts of a catalogue reason: its label too. */
export const reasonTranslationResponseSchema = z.strictObject({
  label: z.optional(z.string()),
  ...banTranslationResponseSchema.shape,
});

export const catalogueReasonResponseSchema = z.strictObject({
  code: z.string(),
  label: z.string(),
  ban_type: banTypeSchema,
  scope: banScopeSchema,
  /** How long a ban for it lasts; null: permanent. */
  duration_seconds: z.nullable(z.int().check(z.minimum(1))),
  player_message: z.nullable(z.string()),
  /** The statement of reasons its bans carry unless a create says otherwise; absent without one. */
  statement: z.optional(statementDefaultsSchema),
  /** Its texts in other languages, by language tag; absent without any. */
  translations: z.optional(z.record(z.string(), reasonTranslationResponseSchema)),
});

/** The publisher's reason catalogue: empty, not strict and never written (`updated_at` null) until its first PUT. */
export const reasonCatalogueSchema = z.strictObject({
  reasons: z.array(catalogueReasonResponseSchema),
  /** Whether a new ban's `reason_code` must be one of `reasons`. */
  strict_reasons: z.boolean(),
  /** The language the reasons' own texts are written in (`en` unless the catalogue names another). */
  default_locale: z.string(),
  updated_at: z.nullable(timestamp),
});
export type ReasonCatalogue = z.output<typeof reasonCatalogueSchema>;

/** The caller's publisher as others see it in the directory (`PUT /v1/publisher`). */
export const publisherProfileSchema = z.strictObject({
  publisher_id: z.string(),
  /** The name every publisher sees beside this one's global bans (`GET /v1/publishers`). */
  display_name: z.string(),
  updated_at: timestamp,
});
export type PublisherProfile = z.output<typeof publisherProfileSchema>;

/** A publisher that has made global bans, with what others weigh before trusting them. */
export const directoryEntrySchema = z.strictObject({
  publisher_id: z.string(),
  /** Set by the publisher itself (`PUT /v1/publisher`); null until it sets one. */
  display_name: z.nullable(z.string()),
  /** Its global bans in force now: not revoked, not erased, not past their expiry (to the hour). */
  active_global_bans: count,
  /** Every global ban it ever made, revoked, expired and erased ones included. */
  global_bans: count,
  /** Of those, how many it revoked (itself or by deciding an appeal) within 30 days of making them. */
  revoked_within_30_days: count,
  /** Its global bans made long enough ago that their 30 days are over (counted by UTC day). */
  global_bans_past_30_days: count,
  /** The share of `global_bans_past_30_days` revoked within their 30 days (0 to 1); null while there is none. */
  revoked_within_30_days_share: z.nullable(z.number().check(z.minimum(0), z.maximum(1))),
  first_global_ban_at: timestamp,
  last_global_ban_at: timestamp,
});
export type DirectoryEntry = z.output<typeof directoryEntrySchema>;

export const directorySchema = z.strictObject({
  items: z.array(directoryEntrySchema),
  /** Where the next page starts; null when there is none. */
  next_cursor: z.nullable(z.string()),
});
export type Directory = z.output<typeof directorySchema>;

const banCreationFields = {
  ban_id: banId,
  device_id: z.string(),
  ban_type: banTypeSchema,
  scope: banScopeSchema,
  publisher_id: z.string(),
  game_id: z.string(),
};
/**
 * A create's answer: the ban made (`created`), the one a repeated idempotency key made
 * (`idempotent_ok`), or the caller's own ban of the same device, type, scope, game and reason that
 * is in force already (`already_active`: nothing was written), with what says how long it lasts.
 */
export const banCreationResultSchema = z.discriminatedUnion('status', [
  z.strictObject({ ...banCreationFields, status: z.enum(['created', 'idempotent_ok']) }),
  z.strictObject({
    ...banCreationFields,
    status: z.literal('already_active'),
    reason_code: z.string(),
    created_at: timestamp,
    expires_at: z.nullable(timestamp),
  }),
]);
export type BanCreationResult = z.output<typeof banCreationResultSchema>;

export const listedBanSchema = z.strictObject({
  ban_id: banId,
  ban_type: banTypeSchema,
  scope: banScopeSchema,
  publisher_id: z.string(),
  game_id: z.nullable(z.string()),
  reason_code: z.string(),
  details_json: z.nullable(z.record(z.string(), z.unknown())),
  created_at: timestamp,
  expires_at: z.nullable(timestamp),
  revoked_at: z.nullable(timestamp),
  /** Why its owner revoked it; null while it is not revoked. */
  revoke_reason_code: z.nullable(z.string()),
  /** What a game may show the player, as it is; null without one. Written for players, so shown to every caller who sees the ban. */
  player_message: z.nullable(z.string()),
  /** Whether the player may contest it (true unless made with `appealable: false`). */
  appealable: z.boolean(),
  /** Its statement of reasons: what the player is owed of why (null only once erased). */
  statement: z.nullable(statementSchema),
  /**
   * The language its `player_message` and its statement's texts are answered in, picked by the
   * `locale` parameter, else `Accept-Language`, among its own language and its translations (else its
   * own); a text the picked translation lacks reads in the ban's own language (docs/api.md#languages).
   */
  message_locale: z.string(),
  /**
   * Its texts in other languages, by language tag: to its owner only, and not in the enforcement
   * answers (the hot path answers the picked language alone); null without any, or not yours.
   */
  translations: z.nullable(z.record(z.string(), banTranslationResponseSchema)),
  /**
   * An appeal of it: the one your publisher filed, or to its owner the one that changed last; null
   * without one (each publisher that enforces a ban may appeal it once). Open, or decided with its
   * outcome; the details are the owner's.
   */
  appeal: z.nullable(
    z.strictObject({
      appeal_id: z.string(),
      status: z.enum(['open', 'decided']),
      outcome: z.nullable(z.enum(appealOutcomes)),
    }),
  ),
  /** Who made it (a key or a person), shown to its owner only: null for other publishers' bans and for bans made before it was kept. */
  created_by: z.nullable(actorSchema),
  /**
   * Whether the caller's policy enforces this ban now, as the enforcement answer decides: it is
   * active, its scope and type are enforced, and a global ban of another publisher is from a
   * trusted source with its quorum met on the device.
   */
  enforced: z.boolean(),
});
export type ListedBan = z.output<typeof listedBanSchema>;

export const banListSchema = z.strictObject({
  device_id: z.string(),
  status: z.enum(banStatusFilters),
  counts: z.strictObject({ active: count, inactive: count, total: count }),
  items: z.array(listedBanSchema),
  next_cursor: z.nullable(banId),
});
export type BanList = z.output<typeof banListSchema>;

/** A revoke answers the ban as listed, revocation time and reason filled in. */
export const revokedBanSchema = listedBanSchema;
export type RevokedBan = z.output<typeof revokedBanSchema>;

const stateCountsSchema = z.strictObject({ active: count, expired: count });
const scopeCountsSchema = z.strictObject({
  game: stateCountsSchema,
  publisher: stateCountsSchema,
  global: stateCountsSchema,
});
const stateWeightsSchema = z.strictObject({ active: z.number(), expired: z.number() });

export const reputationSchema = z.strictObject({
  score: z.int().check(z.minimum(0), z.maximum(100)),
  included_scopes: z.array(banScopeSchema),
  counts: z.strictObject({ cheat: scopeCountsSchema, social: scopeCountsSchema }),
  weights: z.strictObject({ cheat: stateWeightsSchema, social: stateWeightsSchema }),
});

export const enforcementSchema = z.strictObject({
  device_id: z.string(),
  game_id: z.string(),
  evaluated_at: timestamp,
  restricted: z.strictObject({ cheat: z.boolean(), social: z.boolean() }),
  bans: z.array(z.extend(listedBanSchema, { rule: z.array(z.enum(policyFlags)) })),
  /**
   * Every active ban of the device your policy does not apply, and why (kernel/policy-rules.ts
   * notEnforced): `policy` (a flag of its rule is off), `untrusted_source` (a global ban of a
   * publisher your `global_sources` leave out), `quorum` (fewer than `global_quorum` distinct
   * trusted publishers hold an active global ban of its type: `have` of `need`).
   */
  not_enforced: z.array(
    z.strictObject({
      ban_id: banId,
      publisher_id: z.string(),
      ban_type: banTypeSchema,
      scope: banScopeSchema,
      because: z.enum(['policy', 'untrusted_source', 'quorum']),
      /** For `quorum`: the distinct trusted publishers holding one, and how many are needed; else null. */
      have: z.nullable(count),
      need: z.nullable(quorum),
      /** The verdict in words: "1 of 2 publishers needed", "from a publisher you do not trust", ... */
      explanation: z.string(),
    }),
  ),
  reputation: reputationSchema,
  policy_updated_at: timestamp,
});
export type Enforcement = z.output<typeof enforcementSchema>;

export const enforcementBatchSchema = z.strictObject({
  game_id: z.string(),
  evaluated_at: timestamp,
  policy_updated_at: timestamp,
  results: z.array(
    z.union([
      enforcementSchema,
      z.strictObject({
        device_id: z.string(),
        error: z.strictObject({
          code: z.literal('invalid_request'),
          message: z.string(),
          details: z.array(fieldIssueSchema),
        }),
      }),
    ]),
  ),
});
export type EnforcementBatch = z.output<typeof enforcementBatchSchema>;

export const healthSchema = z.strictObject({ ok: z.boolean() });

/** Just enough of an OpenAPI document to check what is served; the rest is open. */
export const openApiDocumentSchema = z.looseObject({
  openapi: z.string().check(z.regex(/^3\.1\.\d+$/)),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

/** A key as listed: never its secret, only its last 4 characters (null for keys made before them). */
export const apiKeySchema = z.strictObject({
  key_id: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(scopes)),
  games: z.nullable(z.array(z.string())),
  created_at: timestampSchema,
  expires_at: z.nullable(timestampSchema),
  revoked_at: z.nullable(timestampSchema),
  last4: z.nullable(z.string()),
  /** Who made it: a key, the operator's keys tool, or a person; null for keys made before it was recorded. */
  created_by: z.nullable(actorSchema),
});
export type ApiKey = z.output<typeof apiKeySchema>;

/** A key as the listing shows it: also when it was last used (to within 10 minutes; null: not since this was kept). */
export const listedApiKeySchema = z.strictObject({
  ...apiKeySchema.shape,
  last_used_at: z.nullable(timestampSchema),
});

export const apiKeyListSchema = z.strictObject({
  items: z.array(listedApiKeySchema),
  next_cursor: z.nullable(z.string()),
});
export type ApiKeyList = z.output<typeof apiKeyListSchema>;

/** A new key: the secret `api_key`, shown this once. */
export const newApiKeySchema = z.strictObject({
  key_id: z.string(),
  api_key: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(scopes)),
  games: z.nullable(z.array(z.string())),
  created_at: timestampSchema,
  expires_at: z.nullable(timestampSchema),
});
export type NewApiKeyResult = z.output<typeof newApiKeySchema>;

/** A device the publisher has banned (`GET /v1/devices`), whatever its bans' state now. */
export const bannedDeviceSchema = z.strictObject({
  device_id: z.string(),
  /** When the publisher first and last banned it (its bans may since have been revoked or expired). */
  first_banned_at: timestamp,
  last_banned_at: timestamp,
  /** The games its bans were made in (for a key bound to games, those of them it holds). */
  games: z.array(z.string()),
});
export type BannedDevice = z.output<typeof bannedDeviceSchema>;

/** A device only other publishers' global bans in force name: which publishers, nothing more. */
export const globalDeviceSchema = z.strictObject({
  device_id: z.string(),
  publishers: z.array(z.string()),
});
export type GlobalDevice = z.output<typeof globalDeviceSchema>;

export const bannedDeviceListSchema = z.strictObject({
  items: z.array(bannedDeviceSchema),
  next_cursor: z.nullable(z.string()),
  /**
   * With `prefix`, on the first page: up to `limit` devices whose id begins with it that other
   * publishers' global bans in force name and this page does not list; otherwise empty.
   */
  others_global: z.array(globalDeviceSchema),
  /**
   * When `prefix` was a whole platform id that a declared device id format reads as one of the
   * publisher's ids (`PUT /v1/device-formats`): what was typed and what was searched instead.
   */
  normalised: z.optional(
    z.strictObject({ typed: z.string(), searched: z.string(), platform: z.enum(devicePlatforms) }),
  ),
});
export type BannedDeviceList = z.output<typeof bannedDeviceListSchema>;

/** `GET`/`PUT /v1/device-formats`: the formats the publisher's device ids are made of. */
export const deviceFormatsSchema = z.strictObject({
  formats: z.array(deviceFormatResponseSchema),
  /** Null until the publisher first declares any. */
  updated_at: z.nullable(timestamp),
});
export type DeviceFormats = z.output<typeof deviceFormatsSchema>;

/**
 * One ban as a statement of the DSA Transparency Database's API (its StatementStoreRequest), field
 * names and values as it takes them (lib/domain/dsa-statements.ts says how a ban maps onto it).
 */
export const dsaStatementSchema = z.strictObject({
  decision_provision: z.string(),
  end_date_service_restriction: z.optional(z.string()),
  decision_ground: z.string(),
  decision_ground_reference_url: z.optional(z.string()),
  incompatible_content_ground: z.optional(z.string()),
  incompatible_content_explanation: z.optional(z.string()),
  illegal_content_legal_ground: z.optional(z.string()),
  illegal_content_explanation: z.optional(z.string()),
  content_type: z.array(z.string()),
  content_type_other: z.optional(z.string()),
  category: z.string(),
  territorial_scope: z.array(z.string()),
  content_date: z.string(),
  application_date: z.string(),
  decision_facts: z.string(),
  source_type: z.string(),
  automated_detection: z.enum(['Yes', 'No']),
  automated_decision: z.string(),
  puid: z.string(),
});
export type DsaStatement = z.output<typeof dsaStatementSchema>;

export const dsaStatementPageSchema = z.strictObject({
  items: z.array(dsaStatementSchema),
  /** Bans of the page's events that are gone (erased): no statement is left of them. */
  not_exported: z.int(),
  next_cursor: z.nullable(z.string()),
});
export type DsaStatementPage = z.output<typeof dsaStatementPageSchema>;

/** The games the publisher has made bans in (`GET /v1/games`), in id order. */
export const gamesUsedSchema = z.strictObject({ games: z.array(z.string()) });
export type GamesUsed = z.output<typeof gamesUsedSchema>;

/** One of the publisher's bans in force that ends soon: which, where, and who made it. */
export const expiringBanSchema = z.strictObject({
  device_id: z.string(),
  ban_id: banId,
  ban_type: banTypeSchema,
  scope: banScopeSchema,
  /** The game it was made in, whatever its scope. */
  game_id: z.string(),
  reason_code: z.string(),
  created_at: timestamp,
  expires_at: timestamp,
  created_by: z.nullable(actorSchema),
});
export type ExpiringBan = z.output<typeof expiringBanSchema>;

export const expiringBanListSchema = z.strictObject({
  items: z.array(expiringBanSchema),
  next_cursor: z.nullable(z.string()),
});
export type ExpiringBanList = z.output<typeof expiringBanListSchema>;

/** Who filed an appeal: the publisher whose key filed it, from which game. */
const filedBySchema = z.strictObject({ publisher_id: z.string(), game_id: z.string() });

/** What the audit, the feed and webhooks say of an appeal: what and whose, never its texts. */
export const appealSubjectSchema = z.strictObject({
  appeal_id: z.string(),
  ban_id: banId,
  /** The ban's owner: the publisher that decides the appeal. */
  ban_publisher_id: z.string(),
  filed_by: filedBySchema,
  status: z.enum(['open', 'decided']),
  outcome: z.nullable(z.enum(appealOutcomes)),
  created_at: timestamp,
  decided_at: z.nullable(timestamp),
});
export type AppealSubject = z.output<typeof appealSubjectSchema>;

/**
 * An appeal. Its owner (the ban's publisher) sees all of it; the filer (another publisher's key)
 * sees the same with the owner's private parts null: `decision.note` and `decision.decided_by`.
 * An erasure of the device drops the player's texts: `message` and `contact` are then null.
 */
export const appealSchema = z.strictObject({
  appeal_id: z.string(),
  status: z.enum(['open', 'decided']),
  device_id: z.string(),
  ban_id: banId,
  ban_publisher_id: z.string(),
  filed_by: filedBySchema,
  /**
   * The player filed it themselves, through the page a link of this id opened (`created_by` is who
   * minted the link); null when a game server, support site or moderator filed it.
   */
  player_link_id: z.nullable(z.string()),
  /** The player's words; null once the device was erased. */
  message: z.nullable(z.string()),
  contact: z.nullable(z.string()),
  created_at: timestamp,
  decision: z.nullable(
    z.strictObject({
      outcome: z.enum(appealOutcomes),
      /** The moderator's private note: the owner's only (null for the filer). */
      note: z.nullable(z.string()),
      /** What the player is shown now, if the decision changed it. */
      player_message: z.nullable(z.string()),
      /** The ban's new expiry (shortened only). */
      expires_at: z.nullable(timestamp),
      decided_at: timestamp,
      /** Who decided: the owner's only (null for the filer). */
      decided_by: z.nullable(actorSchema),
      /** When its effect on the ban (revoke, new expiry, message) was done; null while a retry must finish it. */
      applied_at: z.nullable(timestamp),
    }),
  ),
  erased_at: z.nullable(timestamp),
  /**
   * Who holds the open appeal now (POST /v1/appeals/{appeal_id}/claim), and until when: the
   * owner's only; null when no claim is in force (none, released, expired, or decided).
   */
  claimed_by: z.nullable(actorSchema),
  claimed_until: z.nullable(timestamp),
});
export type Appeal = z.output<typeof appealSchema>;

export const appealListSchema = z.strictObject({
  items: z.array(appealSchema),
  next_cursor: z.nullable(z.string()),
});
export type AppealList = z.output<typeof appealListSchema>;

/** A filed appeal: the appeal, and whether this request filed it or repeated an earlier one. */
export const appealCreationSchema = z.extend(appealSchema, {
  result: z.enum(['created', 'idempotent_ok']),
});
export type AppealCreation = z.output<typeof appealCreationSchema>;

/** `POST /v1/player-links`: the page's link, its secret shown this once (the table keeps its hash). */
export const playerLinkCreationSchema = z.strictObject({
  /** Names the link in the appeals filed through it; opens nothing. */
  link_id: z.string(),
  /** What opens the page: give it to the player only (it is in `path`'s fragment). */
  secret: z.string(),
  /** The page's address on the API's origin: `/player/#<secret>`. */
  path: z.string(),
  device_id: z.string(),
  game_id: z.string(),
  /** Whether the player may appeal from the page. */
  appeal: z.boolean(),
  expires_at: timestamp,
});
export type PlayerLinkCreation = z.output<typeof playerLinkCreationSchema>;

/** An appeal as the player sees it: its progress and outcome, never who decided or their note. */
export const playerAppealSchema = z.strictObject({
  appeal_id: z.string(),
  status: z.enum(['open', 'decided']),
  created_at: timestamp,
  outcome: z.nullable(z.enum(appealOutcomes)),
  decided_at: z.nullable(timestamp),
  /** What the decision tells the player, if it said anything. */
  player_message: z.nullable(z.string()),
  /** The ban's new end (shortened only). */
  expires_at: z.nullable(timestamp),
});
export type PlayerAppeal = z.output<typeof playerAppealSchema>;

/** One restriction on the player's page: what, since and until when, why, and its appeal. */
export const playerRestrictionSchema = z.strictObject({
  ban_id: banId,
  ban_type: banTypeSchema,
  scope: banScopeSchema,
  created_at: timestamp,
  expires_at: z.nullable(timestamp),
  /** Whether it restricts the device in this game now (false: lifted or ended, shown for its appeal). */
  in_force: z.boolean(),
  /** The language its message and statement read in: the player's (Accept-Language), when the ban has it. */
  message_locale: z.string(),
  player_message: z.nullable(z.string()),
  statement: z.nullable(statementSchema),
  /** Whether the player may appeal it from this page now. */
  can_appeal: z.boolean(),
  appeal: z.nullable(playerAppealSchema),
});
export type PlayerRestriction = z.output<typeof playerRestrictionSchema>;

/** `GET /v1/player/restrictions`: the page of the device and game the link names, and nothing else. */
export const playerPageSchema = z.strictObject({
  device_id: z.string(),
  game_id: z.string(),
  link_expires_at: timestamp,
  /** Whether the link lets the player appeal. */
  can_appeal: z.boolean(),
  evaluated_at: timestamp,
  restrictions: z.array(playerRestrictionSchema),
});
export type PlayerPage = z.output<typeof playerPageSchema>;

/** `POST /v1/player/appeals`: the appeal filed (`created`), or the one this link filed before. */
export const playerAppealCreationSchema = z.strictObject({
  result: z.enum(['created', 'idempotent_ok']),
  appeal: playerAppealSchema,
});
export type PlayerAppealCreation = z.output<typeof playerAppealCreationSchema>;

/** `GET /v1/appeals/stats`: a team lead's numbers, from counters and daily rollups. */
export const appealStatsSchema = z.strictObject({
  open: count,
  oldest_open_at: z.nullable(timestamp),
  oldest_open_age_seconds: z.nullable(count),
  window_days: z.int(),
  decided: count,
  outcomes: z.strictObject(
    Object.fromEntries(appealOutcomes.map((outcome) => [outcome, count])) as Record<
      (typeof appealOutcomes)[number],
      typeof count
    >,
  ),
  time_to_decision_seconds: z.strictObject({ median: z.nullable(count), p90: z.nullable(count) }),
  computed_at: timestamp,
});
export type AppealStats = z.output<typeof appealStatsSchema>;

export { appealStatusFilters };

const eventBase = {
  /** Derived from what happened: the same however often it is recorded. */
  event_id: z.string(),
  occurred_at: timestamp,
  actor: actorSchema,
};

/** The ban an event is about, as its owner sees it (no details: the audit keeps what, not why). */
const banSubject = {
  device_id: z.string(),
  ban_id: banId,
  ban_type: banTypeSchema,
  scope: banScopeSchema,
  /** The game it was created from, whatever its scope. */
  game_id: z.string(),
  reason_code: z.string(),
};

/** The policy's settings as the audit records them before and after a change: the flags and the trust settings. */
const policySettingsSchema = z.strictObject({ ...policyFlagShape, ...policyTrustResponseShape });

export const auditEventSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('ban.created'),
    ...eventBase,
    ...banSubject,
    expires_at: z.nullable(timestamp),
  }),
  z.strictObject({
    type: z.literal('ban.revoked'),
    ...eventBase,
    ...banSubject,
    revoke_reason_code: z.string(),
  }),
  z.strictObject({
    type: z.literal('ban.updated'),
    ...eventBase,
    ...banSubject,
    /** Its expiry moved (an appeal decided `shortened`): from, to. */
    previous_expires_at: z.nullable(timestamp),
    expires_at: z.nullable(timestamp),
  }),
  z.strictObject({
    type: z.literal('appeal.created'),
    ...eventBase,
    device_id: z.string(),
    appeal: appealSubjectSchema,
  }),
  z.strictObject({
    type: z.literal('appeal.decided'),
    ...eventBase,
    device_id: z.string(),
    appeal: appealSubjectSchema,
  }),
  z.strictObject({
    type: z.literal('appeal.claimed'),
    ...eventBase,
    device_id: z.string(),
    appeal: appealSubjectSchema,
    claimed_until: timestamp,
    /** The holder it was taken from (an admin's take-over); null for a free appeal. */
    taken_over_from: z.nullable(actorSchema),
  }),
  z.strictObject({
    type: z.literal('appeal.released'),
    ...eventBase,
    device_id: z.string(),
    appeal: appealSubjectSchema,
    /** Whose claim ended: the actor's own, or another's an admin released. */
    claimed_by: actorSchema,
  }),
  z.strictObject({
    type: z.literal('policy.updated'),
    ...eventBase,
    before: policySettingsSchema,
    after: policySettingsSchema,
  }),
  z.strictObject({
    type: z.literal('reasons.updated'),
    ...eventBase,
    /** The catalogue's codes after the change, in its order (labels and messages stay on the catalogue). */
    codes: z.array(z.string()),
    strict_reasons: z.boolean(),
  }),
  z.strictObject({
    type: z.literal('device_formats.updated'),
    ...eventBase,
    /** The declared formats after the change. */
    formats: z.array(deviceFormatResponseSchema),
  }),
  z.strictObject({
    type: z.literal('publisher.updated'),
    ...eventBase,
    /** The name after the change, and before it (null when it had none). */
    display_name: z.string(),
    previous_display_name: z.nullable(z.string()),
  }),
  z.strictObject({
    type: z.literal('key.created'),
    ...eventBase,
    key: z.strictObject({
      key_id: z.string(),
      name: z.string(),
      scopes: z.array(z.enum(scopes)),
      games: z.nullable(z.array(z.string())),
      expires_at: z.nullable(timestamp),
      /**
       * How the expiry came about: `default` (a person named none: 90 days), `chosen`, or
       * `never`. Absent on events recorded before it was.
       */
      expiry: z.optional(z.enum(['default', 'chosen', 'never'])),
    }),
  }),
  z.strictObject({
    type: z.literal('key.revoked'),
    ...eventBase,
    key: z.strictObject({ key_id: z.string(), name: z.string() }),
  }),
  z.strictObject({
    type: z.literal('bans.imported'),
    ...eventBase,
    /** One import batch (POST /v1/imports): its id and what became of its rows, never the rows. */
    batch_id: z.string(),
    created: count,
    already_imported: count,
    changed: count,
    refused: count,
  }),
  z.strictObject({
    type: z.literal('device.erased'),
    ...eventBase,
    device_id: z.string(),
    /** How many of the publisher's bans the erasure removed: the count, never what they were. */
    erased_bans: count,
  }),
  z.strictObject({
    type: z.literal('webhook.created'),
    ...eventBase,
    /** Never the secret; the URL by its origin only (its path or query may carry a token). */
    webhook: z.strictObject({
      webhook_id: z.string(),
      url_origin: z.string(),
      events: z.array(z.enum(feedEventTypes)),
      games: z.nullable(z.array(z.string())),
    }),
  }),
  z.strictObject({
    type: z.literal('webhook.deleted'),
    ...eventBase,
    webhook: z.strictObject({ webhook_id: z.string(), url_origin: z.string() }),
  }),
  z.strictObject({
    type: z.literal('person.invited'),
    ...eventBase,
    person: z.strictObject({ person_id: z.string(), email: z.string(), role: z.enum(roles) }),
  }),
  z.strictObject({
    type: z.literal('person.updated'),
    ...eventBase,
    person: z.strictObject({ person_id: z.string(), email: z.string() }),
    /** What changed: their role and whether they may sign in, before and after. */
    before: z.strictObject({ role: z.enum(roles), enabled: z.boolean() }),
    after: z.strictObject({ role: z.enum(roles), enabled: z.boolean() }),
  }),
  z.strictObject({
    type: z.literal('data.exported'),
    ...eventBase,
    /**
     * What was exported: an export kind (GET /v1/exports/{kind}), `device` (GET
     * /v1/device/{device_id}/data), or `job` (an export job, POST /v1/export-jobs).
     */
    kind: z.enum([...exportKinds, 'device', 'job']),
    /** The export's point in time: what was made before it is in it. */
    as_of: timestamp,
    /** The device, for kind `device`. */
    device_id: z.optional(z.string()),
    /** The job, for kind `job`. */
    export_id: z.optional(z.string()),
    /** The kinds the job writes, for kind `job`. */
    kinds: z.optional(z.array(z.enum(exportKinds))),
  }),
  z.strictObject({
    type: z.literal('webhook.tested'),
    ...eventBase,
    webhook: z.strictObject({ webhook_id: z.string(), url_origin: z.string() }),
    /** The `webhook.test` event sent: its delivery is listed under this id. */
    test_event_id: z.string(),
  }),
]);
export type AuditEvent = z.output<typeof auditEventSchema>;

export const auditListSchema = z.strictObject({
  items: z.array(auditEventSchema),
  /** Where the next page starts; null when there is none. */
  next_cursor: z.nullable(z.string()),
});
export type AuditList = z.output<typeof auditListSchema>;

export const erasureSchema = z.strictObject({ device_id: z.string(), erased_bans: count });
export type Erasure = z.output<typeof erasureSchema>;

/** One change as the feed and webhooks carry it: the ban as listed to the reader, or its policy. */
const banFeedEvent = <T extends 'ban.created' | 'ban.revoked' | 'ban.erased' | 'ban.updated'>(type: T) =>
  z.strictObject({
    event_id: z.string(),
    type: z.literal(type),
    occurred_at: timestamp,
    device_id: z.string(),
    /** As a listing shows it to the reader; an erased ban's details are gone (null). */
    ban: listedBanSchema,
  });

/** An appeal as events carry it to its ban's owner and its filer: what happened, never the texts. */
const appealFeedEvent = <T extends 'appeal.created' | 'appeal.decided'>(type: T) =>
  z.strictObject({
    event_id: z.string(),
    type: z.literal(type),
    occurred_at: timestamp,
    device_id: z.string(),
    appeal: appealSubjectSchema,
  });

export const feedEventSchema = z.discriminatedUnion('type', [
  banFeedEvent('ban.created'),
  banFeedEvent('ban.revoked'),
  banFeedEvent('ban.erased'),
  banFeedEvent('ban.updated'),
  appealFeedEvent('appeal.created'),
  appealFeedEvent('appeal.decided'),
  z.strictObject({
    event_id: z.string(),
    type: z.literal('policy.updated'),
    occurred_at: timestamp,
    device_id: z.null(),
    /** The policy as it is after this change. */
    policy: policySchema,
  }),
]);
export type FeedEvent = z.output<typeof feedEventSchema>;

/**
 * Which store answered: the same for every read of one deployment's table, different for another
 * deployment's or a table restored from a backup. A copy built from one never follows another's feed.
 */
const deploymentId = z.string().check(z.minLength(1));

export const feedPageSchema = z.strictObject({
  items: z.array(feedEventSchema),
  /** Where to read on from: always present; a page with no items means "caught up". */
  next_cursor: z.string(),
  deployment_id: deploymentId,
  /**
   * How far the feed itself is behind the writes, in milliseconds: how long the newest event this
   * page reaches waited between its change and its append to the feed (a ban wave piling up in
   * the dispatcher shows here, whatever the reader's own lag). Null while the reader's partitions
   * hold no event.
   */
  delay_ms: z.nullable(count),
});
export type FeedPage = z.output<typeof feedPageSchema>;

/** A ban of the enforcement snapshot: the device it is on, and the ban as a listing shows it. */
export const snapshotBanSchema = z.extend(listedBanSchema, { device_id: z.string() });
export type SnapshotBan = z.output<typeof snapshotBanSchema>;

/** A page of the bans that may restrict a device in this game now, and where the feed takes over. */
export const enforcementSnapshotSchema = z.strictObject({
  game_id: z.string(),
  /** The caller's policy as it is when this page was read. */
  policy: policySchema,
  /** The change feed's cursor taken before the snapshot's first page was read: the same on every page. */
  feed_cursor: z.string(),
  /** The store the snapshot was read from: the feed's `deployment_id`, the same on every page. */
  deployment_id: deploymentId,
  items: z.array(snapshotBanSchema),
  /** Where the next page starts; null on the last page. */
  next_cursor: z.nullable(z.string()),
});
export type EnforcementSnapshot = z.output<typeof enforcementSnapshotSchema>;

/** How many devices a change of policy makes restricted, and how many it stops restricting. */
const reachChangeSchema = z.strictObject({
  become_restricted: count,
  no_longer_restricted: count,
});

/**
 * The reach of a policy draft in one game (`POST /v1/policy/preview`): per ban type and for either
 * type (`any`), the devices whose restriction the draft would change against the policy in force.
 */
export const policyReachSchema = z.strictObject({
  game_id: z.string(),
  evaluated_at: timestamp,
  /** The policy in force that the draft is compared with. */
  policy_updated_at: timestamp,
  /** Devices with a ban in force that may restrict them in this game (each judged under both policies). */
  devices_with_bans: count,
  cheat: reachChangeSchema,
  social: reachChangeSchema,
  any: reachChangeSchema,
});
export type PolicyReach = z.output<typeof policyReachSchema>;

/** A webhook as listed: never its secret. */
export const webhookSchema = z.strictObject({
  webhook_id: z.string(),
  url: z.string(),
  events: z.array(z.enum(feedEventTypes)),
  /** The games whose game bans it receives; null: every game. */
  games: z.nullable(z.array(z.string())),
  created_at: timestamp,
});
export type Webhook = z.output<typeof webhookSchema>;

/**
 * How a webhook's deliveries have been going, from its attempts (each recorded once by the sender):
 * the latest attempt, and the failed attempts of the last 24 hours (the current hour and the 23
 * before it, counted per hour).
 */
export const webhookHealthSchema = z.strictObject({
  /** When the latest attempt ended; null: none yet. */
  last_attempt_at: z.nullable(timestamp),
  /** `delivered`: a 2xx; `failed`: anything else (it is retried). Null: no attempt yet. */
  last_outcome: z.nullable(z.enum(['delivered', 'failed'])),
  /** The latest attempt's HTTP status; null when it got none (refused, timed out) or none was made. */
  last_status: z.nullable(z.int()),
  /** Why the latest attempt failed; null when it succeeded or none was made. */
  last_error: z.nullable(z.string()),
  /** When an attempt last got a 2xx; null: never. */
  last_delivered_at: z.nullable(timestamp),
  /** Attempts that failed in the last 24 hours. */
  failures_24h: count,
});
export type WebhookHealth = z.output<typeof webhookHealthSchema>;

/** A webhook as listed: with its health. */
export const listedWebhookSchema = z.extend(webhookSchema, { health: webhookHealthSchema });
export type ListedWebhook = z.output<typeof listedWebhookSchema>;

export const webhookListSchema = z.strictObject({ items: z.array(listedWebhookSchema) });
export type WebhookList = z.output<typeof webhookListSchema>;

/** A new webhook: its signing `secret`, shown this once. */
export const newWebhookSchema = z.extend(webhookSchema, { secret: z.string() });
export type NewWebhook = z.output<typeof newWebhookSchema>;

export { deliveryStatuses };

/** One event's delivery to one webhook. */
export const deliverySchema = z.strictObject({
  event_id: z.string(),
  type: z.enum(deliveryEventTypes),
  occurred_at: timestamp,
  /** The device the event is about; null for a policy.updated or webhook.test event. */
  device_id: z.nullable(z.string()),
  /** The ban the event is about (an appeal's event: the appealed ban); null when none. */
  ban_id: z.nullable(banId),
  /** pending: being tried (again at next_attempt_at); failed: retried for the whole window and given up. */
  status: z.enum(deliveryStatuses),
  attempts: count,
  last_attempt_at: z.nullable(timestamp),
  /** The HTTP status of the last attempt; null when it got none (refused, timed out, not yet tried). */
  last_status: z.nullable(z.int()),
  last_error: z.nullable(z.string()),
  next_attempt_at: z.nullable(timestamp),
  delivered_at: z.nullable(timestamp),
});
export type Delivery = z.output<typeof deliverySchema>;

export const deliveryListSchema = z.strictObject({
  items: z.array(deliverySchema),
  /** Where the next page starts; null when there is none. */
  next_cursor: z.nullable(z.string()),
});
export type DeliveryList = z.output<typeof deliveryListSchema>;

/** A test event queued to one webhook (`POST /v1/webhooks/{webhook_id}/test`): its delivery, as listed. */
export const webhookTestSchema = z.extend(deliverySchema, { webhook_id: z.string() });
export type WebhookTest = z.output<typeof webhookTestSchema>;

/** The body a test delivery carries: like a feed event's, with no ban, and the webhook it tests. */
export const webhookTestEventSchema = z.strictObject({
  event_id: z.string(),
  type: z.literal('webhook.test'),
  occurred_at: timestamp,
  device_id: z.null(),
  publisher_id: z.string(),
  webhook_id: z.string(),
});
export type WebhookTestEvent = z.output<typeof webhookTestEventSchema>;

/** One of the publisher's people, as the people routes show them. */
export const personSchema = z.strictObject({
  /** The identity provider's subject: what the routes name them by, and the audit trail's `sub`. */
  person_id: z.string(),
  email: z.string(),
  role: z.enum(roles),
  /** false: they cannot sign in, and their sessions are not renewed. */
  enabled: z.boolean(),
  /**
   * `invited`: has not signed in yet (deployed: the temporary password is unused); `active`:
   * has signed in at least once.
   */
  status: z.enum(['invited', 'active']),
  created_at: timestamp,
  /** When they last signed in, where the provider tells it (the local provider); else null. */
  last_sign_in_at: z.nullable(timestamp),
});
export type PersonView = z.output<typeof personSchema>;

export const personListSchema = z.strictObject({ items: z.array(personSchema) });
export type PersonList = z.output<typeof personListSchema>;

/** An invited person, and how they sign in the first time. */
export const invitedPersonSchema = z.strictObject({
  ...personSchema.shape,
  /**
   * The local provider's password for them, shown this once (hand it over yourself); null
   * deployed, where Cognito emails them a temporary one that must be changed at the first sign-in.
   */
  temporary_password: z.nullable(z.string()),
});
export type InvitedPerson = z.output<typeof invitedPersonSchema>;

/** Counts keyed by each value of a list. */
const countsOf = <const V extends readonly string[]>(values: V) =>
  z.strictObject(
    Object.fromEntries(values.map((value) => [value, count])) as Record<V[number], typeof count>,
  );

/** The restrictions made: all, then by each dimension (kernel/transparency.ts), each dimension summing to `total`. */
const restrictionCountsSchema = z.strictObject({
  total: count,
  by_type: countsOf(restrictionDimensions.type),
  by_scope: countsOf(restrictionDimensions.scope),
  by_ground: countsOf(restrictionDimensions.ground),
  by_category: countsOf(restrictionDimensions.category),
  by_automated_detection: countsOf(restrictionDimensions.automated_detection),
  by_automated_decision: countsOf(restrictionDimensions.automated_decision),
  /** By the ban's reason code: each code with restrictions (none with 0), summing to `total`. */
  by_reason: z.record(z.string(), count),
});

/** One moderator's decisions of a period: who (a person's subject or a key's id), how many, each outcome. */
const reportModeratorSchema = z.strictObject({
  moderator: z.strictObject({ type: z.enum(['user', 'key']), id: z.string() }),
  ...countsOf(reportModeratorCounts).shape,
});

/** The appeals of a period: received (filed), decided, by outcome, and the time decisions took. */
const reportAppealsSchema = z.strictObject({
  ...countsOf(reportAppealCounts).shape,
  /** Of the decisions in the period, seconds from filing to decision (nearest rank; null without decisions). */
  median_seconds_to_decision: z.nullable(count),
  p90_seconds_to_decision: z.nullable(count),
  /** The decisions by who made them: most decisions first, then by id; only moderators with decisions. */
  by_moderator: z.array(reportModeratorSchema),
});

const reportCountsShape = {
  restrictions: restrictionCountsSchema,
  /** Bans revoked in the period (by their owner or by an appeal overturned). */
  revocations: count,
  appeals: reportAppealsSchema,
};

/** `GET /v1/transparency-report`: the period's counts, and the same for each of its days. */
export const transparencyReportSchema = z.strictObject({
  publisher_id: z.string(),
  /** The first and last day of the period (UTC), both included. */
  from: z.string(),
  to: z.string(),
  days: z.int().check(z.minimum(1)),
  ...reportCountsShape,
  by_day: z.array(z.strictObject({ day: z.string(), ...reportCountsShape })),
  computed_at: timestamp,
});
export type TransparencyReport = z.output<typeof transparencyReportSchema>;
export type ReportCounts = Omit<TransparencyReport['by_day'][number], 'day'>;

/** An appeal as an export holds it: the appeal as its reader sees it (owner or filer), and who filed it. */
export const exportedAppealSchema = z.strictObject({
  ...appealSchema.shape,
  /** Who filed it: a key, a person, or the player's link's minter. */
  created_by: actorSchema,
});
export type ExportedAppeal = z.output<typeof exportedAppealSchema>;

/**
 * A ban as an export holds it: an import row (POST /v1/imports takes it as it is, its `ban_id`,
 * `updated_at` and `previous_expires_at` aside; its `appeals` are the row's) with what only the
 * export carries.
 */
export const exportedBanSchema = z.strictObject({
  /** The studio's id of an imported ban; `ban:<ban_id>` for one made here. */
  external_id: z.string(),
  device_id: z.string(),
  ban_type: banTypeSchema,
  scope: banScopeSchema,
  reason_code: z.string(),
  /** The game it was made from, whatever its scope. */
  game_id: z.string(),
  created_at: timestamp,
  expires_at: z.nullable(timestamp),
  revoked_at: z.nullable(timestamp),
  revoke_reason_code: z.optional(z.string()),
  details: z.optional(z.record(z.string(), z.unknown())),
  player_message: z.optional(z.string()),
  /** Present only when false. */
  appealable: z.optional(z.boolean()),
  /** Its statement of reasons as a create gives it: the fields it has. */
  statement: z.optional(z.record(z.string(), z.unknown())),
  /** Its texts in other languages, by language tag. */
  translations: z.optional(z.record(z.string(), z.record(z.string(), z.string()))),
  ban_id: banId,
  /** When its expiry last moved (an appeal decided `shortened`), and from what. */
  updated_at: z.optional(timestamp),
  previous_expires_at: z.optional(z.nullable(timestamp)),
  /** Its appeals (whoever filed them), as its owner sees them, oldest first. */
  appeals: z.array(exportedAppealSchema),
});
export type ExportedBan = z.output<typeof exportedBanSchema>;

/** A key as an export holds it: never its secret, its hash, nor its last characters. */
export const exportedKeySchema = z.strictObject({
  key_id: z.string(),
  name: z.string(),
  /** null: every scope, those added later included. */
  scopes: z.nullable(z.array(z.enum(scopes))),
  games: z.nullable(z.array(z.string())),
  created_at: timestamp,
  expires_at: z.nullable(timestamp),
  revoked_at: z.nullable(timestamp),
  created_by: z.nullable(actorSchema),
});
export type ExportedKey = z.output<typeof exportedKeySchema>;

/** The policy's trust settings (the `trust` kind). */
export const trustSchema = z.strictObject(policyTrustResponseShape);

/** One page of an export: its items are of the kind asked for. */
export const exportPageSchema = z.strictObject({
  kind: z.enum(exportKinds),
  /** The export's point in time, fixed by its first page: only what was made before it is listed. */
  as_of: timestamp,
  items: z.array(
    z.union([
      exportedBanSchema,
      exportedAppealSchema,
      auditEventSchema,
      policySchema,
      trustSchema,
      reasonCatalogueSchema,
      webhookSchema,
      exportedKeySchema,
    ]),
  ),
  /** Where the next page starts (it carries `as_of`); null when there is none. */
  next_cursor: z.nullable(z.string()),
});
export type ExportPage = z.output<typeof exportPageSchema>;

/** Everything a publisher holds on one device (GET /v1/device/{device_id}/data). */
export const deviceDataSchema = z.strictObject({
  device_id: z.string(),
  as_of: timestamp,
  /** Its bans on the device, whole, with their appeals. */
  bans: z.array(exportedBanSchema),
  /** The appeals it filed on other publishers' bans of the device, as a filer sees them. */
  appeals_filed: z.array(exportedAppealSchema),
  /** The events of its audit trail about the device, oldest first. */
  audit: z.array(auditEventSchema),
});
export type DeviceData = z.output<typeof deviceDataSchema>;

/** What an export job is doing: writing its files, done (the files are ready), or failed. */
export const exportJobStatuses = ['running', 'done', 'failed'] as const;

/** `POST /v1/export-jobs`: the job, started. */
export const exportJobStartedSchema = z.strictObject({
  export_id: z.string(),
  status: z.literal('running'),
  /** The kinds it writes, in that order. */
  kinds: z.array(z.enum(exportKinds)),
  /** Its point in time, as a page export's: only what was made before it is in its files. */
  as_of: timestamp,
  created_at: timestamp,
});
export type ExportJobStarted = z.output<typeof exportJobStartedSchema>;

/** One file of an export job: JSON lines, one item of the kind a line (as GET /v1/exports/{kind} lists them). */
export const exportFileSchema = z.strictObject({
  kind: z.enum(exportKinds),
  /** 1, 2, ...: a kind's items in order, part after part. */
  part: z.int().check(z.minimum(1)),
  items: count,
  bytes: count,
  /** Where to download it (a GET, no key), once the job is done; null before. */
  url: z.nullable(z.string()),
  /** When `url` stops working (15 minutes after this answer); ask again for a new one. */
  url_expires_at: z.nullable(timestamp),
});
export type ExportFile = z.output<typeof exportFileSchema>;

/** `GET /v1/export-jobs/{export_id}`. */
export const exportJobSchema = z.strictObject({
  export_id: z.string(),
  status: z.enum(exportJobStatuses),
  kinds: z.array(z.enum(exportKinds)),
  as_of: timestamp,
  created_at: timestamp,
  /** When it ended (done or failed); null while it runs. */
  finished_at: z.nullable(timestamp),
  /** The files written so far, in order: kind by kind, part by part. */
  files: z.array(exportFileSchema),
  /** Why it failed, when it did. */
  error: z.optional(z.strictObject({ code: z.literal('export_failed'), message: z.string() })),
});
export type ExportJob = z.output<typeof exportJobSchema>;
