import { DISPLAY_NAME_PATTERN, displayNamePattern } from '@kernel/display-name';
import {
  MULTILINE_TEXT_PATTERN,
  oneLinePattern,
  PLAYER_MESSAGE_PATTERN,
  paragraphsPattern,
} from '@kernel/player-message';
import { scopesOf } from '@kernel/scopes';
import { REPORT_MAX_DAYS } from '@kernel/transparency';
import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import packageJson from '../../package.json' with { type: 'json' };
import { auditReaderOf } from '../domain/audit';
import { cursorOf } from '../domain/cursors';
import { exportCursor } from '../domain/exports';
import { MAX_BODY_BYTES } from '../http/chain';
import { type ErrorCode, errorStatus } from '../model/error-codes';
import { exportJobRequestSchema } from '../model/exports';
import {
  IMPORT_MAX_ROWS,
  importInstantSchema,
  importRequestSchema,
  importResultSchema,
  importRowResultSchema,
  importRowSchema,
} from '../model/imports';
import {
  appealClaimRequestSchema,
  appealDecisionRequestSchema,
  catalogueReasonSchema,
  createAppealRequestSchema,
  createBanRequestSchema,
  createKeyRequestSchema,
  createPlayerLinkRequestSchema,
  createWebhookRequestSchema,
  DETAILS_MAX_BYTES,
  DETAILS_MAX_DEPTH,
  DISPLAY_NAME_MAX,
  deviceIdSchema,
  enforcementBatchRequestSchema,
  gameHeaderSchema,
  globalSourcesSchema,
  invitePersonRequestSchema,
  LATEST_EXPIRY,
  PLAYER_MESSAGE_MAX,
  playerAppealRequestSchema,
  policyPatchSchema,
  putDeviceFormatsRequestSchema,
  putPublisherRequestSchema,
  putReasonsRequestSchema,
  RFC3339_PATTERN,
  revokeBanRequestSchema,
  TRUST_SOURCES_MAX,
  updatePersonRequestSchema,
} from '../model/requests';
import {
  actorSchema,
  apiKeyListSchema,
  apiKeySchema,
  appealCreationSchema,
  appealListSchema,
  appealSchema,
  appealStatsSchema,
  appealSubjectSchema,
  auditEventSchema,
  auditListSchema,
  banCreationResultSchema,
  banListSchema,
  bannedDeviceListSchema,
  bannedDeviceSchema,
  catalogueReasonResponseSchema,
  conflictHolderSchema,
  deliveryListSchema,
  deliverySchema,
  deviceDataSchema,
  deviceFormatsSchema,
  directoryEntrySchema,
  directorySchema,
  dsaStatementPageSchema,
  dsaStatementSchema,
  enforcementBatchSchema,
  enforcementSchema,
  enforcementSnapshotSchema,
  erasureSchema,
  errorEnvelopeSchema,
  expiringBanListSchema,
  exportedAppealSchema,
  exportedBanSchema,
  exportedKeySchema,
  exportFileSchema,
  exportJobSchema,
  exportJobStartedSchema,
  exportPageSchema,
  feedEventSchema,
  feedPageSchema,
  fieldIssueSchema,
  gamesUsedSchema,
  globalDeviceSchema,
  healthSchema,
  invitedPersonSchema,
  listedApiKeySchema,
  listedBanSchema,
  listedWebhookSchema,
  newApiKeySchema,
  newWebhookSchema,
  openApiDocumentSchema,
  personListSchema,
  personSchema,
  playerAppealCreationSchema,
  playerAppealSchema,
  playerLinkCreationSchema,
  playerPageSchema,
  playerRestrictionSchema,
  policyReachSchema,
  policySchema,
  publisherProfileSchema,
  reasonCatalogueSchema,
  reputationSchema,
  revokedBanSchema,
  snapshotBanSchema,
  transparencyReportSchema,
  trustSchema,
  webhookHealthSchema,
  webhookListSchema,
  webhookSchema,
  webhookTestSchema,
} from '../model/responses';
import { CONTROL_CHARACTERS, FORMAT_CHARACTERS, INVISIBLE_CHARACTERS } from '../model/unicode-ranges';
import { type RequestSpec, type Route, routes } from '../routes';
import {
  AUDIT_EVENT_PREFIX,
  appealQueuePartition,
  auditActorPrefix,
  bannedDevicesPartition,
  expiringBansPartition,
  publisherPartition,
} from '../storage/keys';
import { errorExamples, type OperationDocBase as OperationDoc, operations, type Tag } from './operations';

/**
 * The OpenAPI 3.1 description of the API, generated from the route table (lib/routes.ts: paths,
 * methods, what each validates), each operation's documentation and examples (lib/openapi/operations.ts)
 * and the zod schemas (lib/model/): nothing about a path, parameter or
 * body is written here. `npm run openapi` writes it to docs/openapi.json, which `GET /openapi.json`
 * serves and the integration suite validates every response against.
 */

export const OPENAPI_FILE = 'docs/openapi.json';

type JsonSchema = Record<string, unknown>;

/**
 * The server's text patterns with their `\p{...}` classes written out (lib/model/unicode-ranges.ts),
 * as the document states them: many of its readers take no property escape.
 */
const PLAYER_MESSAGE_DOCUMENTED_PATTERN = oneLinePattern(CONTROL_CHARACTERS);
const MULTILINE_TEXT_DOCUMENTED_PATTERN = paragraphsPattern(CONTROL_CHARACTERS);
const DISPLAY_NAME_DOCUMENTED_PATTERN = displayNamePattern(
  INVISIBLE_CHARACTERS,
  `${CONTROL_CHARACTERS}${FORMAT_CHARACTERS}\\u2028\\u2029\\uD800-\\uDFFF`,
);

/** Named schemas: request bodies are rendered as zod's input, responses as its output. */
const requestComponents = new Map<z.ZodMiniType, string>([
  [createBanRequestSchema, 'CreateBanRequest'],
  [exportJobRequestSchema, 'ExportJobRequest'],
  [policyPatchSchema, 'PolicyPatch'],
  [putReasonsRequestSchema, 'PutReasonsRequest'],
  [putDeviceFormatsRequestSchema, 'PutDeviceFormatsRequest'],
  [putPublisherRequestSchema, 'PutPublisherRequest'],
  [catalogueReasonSchema, 'CatalogueReasonRequest'],
  [revokeBanRequestSchema, 'RevokeBanRequest'],
  [enforcementBatchRequestSchema, 'EnforcementBatchRequest'],
  [createKeyRequestSchema, 'CreateKeyRequest'],
  [invitePersonRequestSchema, 'InvitePersonRequest'],
  [updatePersonRequestSchema, 'UpdatePersonRequest'],
  [createWebhookRequestSchema, 'CreateWebhookRequest'],
  [createAppealRequestSchema, 'CreateAppealRequest'],
  [createPlayerLinkRequestSchema, 'CreatePlayerLinkRequest'],
  [playerAppealRequestSchema, 'PlayerAppealRequest'],
  [appealDecisionRequestSchema, 'AppealDecisionRequest'],
  [appealClaimRequestSchema, 'AppealClaimRequest'],
  [importRequestSchema, 'ImportRequest'],
  [importRowSchema, 'ImportRow'],
]);
const responseComponents = new Map<z.ZodMiniType, string>([
  [healthSchema, 'Health'],
  [policySchema, 'Policy'],
  [policyReachSchema, 'PolicyReach'],
  [reasonCatalogueSchema, 'ReasonCatalogue'],
  [publisherProfileSchema, 'PublisherProfile'],
  [directorySchema, 'Directory'],
  [directoryEntrySchema, 'DirectoryEntry'],
  [catalogueReasonResponseSchema, 'CatalogueReason'],
  [banCreationResultSchema, 'BanCreationResult'],
  [importResultSchema, 'ImportResult'],
  [importRowResultSchema, 'ImportRowResult'],
  [listedBanSchema, 'ListedBan'],
  [banListSchema, 'BanList'],
  [revokedBanSchema, 'RevokedBan'],
  [enforcementSchema, 'Enforcement'],
  [reputationSchema, 'Reputation'],
  [enforcementBatchSchema, 'EnforcementBatch'],
  [fieldIssueSchema, 'FieldIssue'],
  [errorEnvelopeSchema, 'Error'],
  [openApiDocumentSchema, 'OpenApiDocument'],
  [apiKeySchema, 'ApiKey'],
  [apiKeyListSchema, 'ApiKeyList'],
  [listedApiKeySchema, 'ListedApiKey'],
  [newApiKeySchema, 'NewApiKey'],
  [personSchema, 'Person'],
  [personListSchema, 'PersonList'],
  [invitedPersonSchema, 'InvitedPerson'],
  [actorSchema, 'Actor'],
  [conflictHolderSchema, 'ConflictHolder'],
  [auditEventSchema, 'AuditEvent'],
  [auditListSchema, 'AuditList'],
  [erasureSchema, 'Erasure'],
  [feedEventSchema, 'FeedEvent'],
  [feedPageSchema, 'FeedPage'],
  [enforcementSnapshotSchema, 'EnforcementSnapshot'],
  [snapshotBanSchema, 'SnapshotBan'],
  [webhookListSchema, 'WebhookList'],
  [webhookHealthSchema, 'WebhookHealth'],
  // The webhook as listed (with its health): what a client calls a webhook.
  [listedWebhookSchema, 'Webhook'],
  [webhookTestSchema, 'WebhookTest'],
  [newWebhookSchema, 'NewWebhook'],
  [deliverySchema, 'Delivery'],
  [deliveryListSchema, 'DeliveryList'],
  [appealSchema, 'Appeal'],
  [appealListSchema, 'AppealList'],
  [bannedDeviceListSchema, 'BannedDeviceList'],
  [gamesUsedSchema, 'GamesUsed'],
  [dsaStatementPageSchema, 'DsaStatementPage'],
  [dsaStatementSchema, 'DsaStatement'],
  [deviceFormatsSchema, 'DeviceFormats'],
  [expiringBanListSchema, 'ExpiringBanList'],
  [bannedDeviceSchema, 'BannedDevice'],
  [globalDeviceSchema, 'GlobalDevice'],
  [appealCreationSchema, 'AppealCreation'],
  [appealStatsSchema, 'AppealStats'],
  [appealSubjectSchema, 'AppealSubject'],
  [playerLinkCreationSchema, 'PlayerLinkCreation'],
  [playerAppealSchema, 'PlayerAppeal'],
  [playerRestrictionSchema, 'PlayerRestriction'],
  [playerPageSchema, 'PlayerPage'],
  [playerAppealCreationSchema, 'PlayerAppealCreation'],
  [transparencyReportSchema, 'TransparencyReport'],
  [exportPageSchema, 'ExportPage'],
  [exportedBanSchema, 'ExportedBan'],
  [exportedAppealSchema, 'ExportedAppeal'],
  [exportedKeySchema, 'ExportedKey'],
  [trustSchema, 'Trust'],
  [webhookSchema, 'ExportedWebhook'],
  [deviceDataSchema, 'DeviceData'],
  [exportJobStartedSchema, 'ExportJobStarted'],
  [exportJobSchema, 'ExportJob'],
  [exportFileSchema, 'ExportFile'],
]);

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const TARGET = 'draft-2020-12';

/** zod's JSON Schema without the keys that only make sense for a standalone document. */
const bare = (schema: JsonSchema): JsonSchema => {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
};

const replace = (target: JsonSchema, replacement: JsonSchema) => {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, replacement);
};

/**
 * What JSON Schema cannot derive from a zod schema: checks written as code (a transform, a custom
 * check) are described here, next to the schema they describe.
 */
/** The schema an optional or nullable wraps. */
const innerOf = (schema: $ZodType): $ZodType =>
  (schema._zod.def as unknown as { innerType: $ZodType }).innerType;

/** A list of publisher ids in `global_sources`: distinct, at most TRUST_SOURCES_MAX. */
const publisherIdList = {
  type: 'array',
  items: { type: 'string', pattern: '^[a-z0-9._-]{1,64}$' },
  maxItems: TRUST_SOURCES_MAX,
  uniqueItems: true,
};

const described = new Map<$ZodType, JsonSchema>([
  [
    importRequestSchema.shape.rows,
    {
      type: 'array',
      items: { $ref: '#/components/schemas/ImportRow' },
      minItems: 1,
      maxItems: IMPORT_MAX_ROWS,
      description:
        `1-${IMPORT_MAX_ROWS} rows, each checked on its own (ImportRow): a row that is not valid is ` +
        'answered `refused` with its error, and the request goes on with the others.',
    },
  ],
  [
    importInstantSchema,
    {
      type: 'string',
      format: 'date-time',
      pattern: RFC3339_PATTERN,
      description:
        'RFC 3339 date-time with an offset (`Z` or `±hh:mm`), stored and returned as UTC ' +
        '`YYYY-MM-DDTHH:mm:ss.sssZ`. `created_at` and `revoked_at` from 1990-01-01 and not in the ' +
        'future; `expires_at` later than `created_at` (it may be past: the ban has ended).',
      examples: ['2019-03-04T12:00:00Z'],
    },
  ],
  [
    globalSourcesSchema,
    {
      description:
        'Whose global bans count: `"all"` (everyone\'s), `{"only": [ids]}` (only these ' +
        'publishers\'), or `{"except": [ids]}` (everyone\'s but these). At most ' +
        `${TRUST_SOURCES_MAX} publisher ids, none repeated; your own id is always trusted. A ` +
        'bad value is a 400 naming it: `global_sources`, `global_sources.only.3`, ...',
      oneOf: [
        { type: 'string', const: 'all' },
        {
          type: 'object',
          properties: { only: publisherIdList },
          required: ['only'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { except: publisherIdList },
          required: ['except'],
          additionalProperties: false,
        },
      ],
      examples: ['all', { except: ['other-studio'] }],
    },
  ],
  [
    innerOf(innerOf(createBanRequestSchema.shape.expires_at)),
    {
      type: 'string',
      format: 'date-time',
      pattern: RFC3339_PATTERN,
      description:
        'RFC 3339 date-time with an offset (`Z` or `±hh:mm`), later than now and at most ' +
        `${LATEST_EXPIRY} in UTC; null or absent makes it permanent. Narrower than RFC 3339: no ` +
        'leap second (`:60`) and at most 9 fraction digits. Stored and returned as UTC ' +
        '`YYYY-MM-DDTHH:mm:ss.sssZ`.',
      examples: ['2030-01-01T00:00:00Z'],
    },
  ],
  [
    innerOf(appealDecisionRequestSchema.shape.expires_at),
    {
      type: 'string',
      format: 'date-time',
      pattern: RFC3339_PATTERN,
      description:
        "For the outcome `shortened` only, and then required: the ban's new expiry, an RFC 3339 " +
        "date-time with an offset, later than now and earlier than the ban's current expiry (any " +
        "time in the future for a permanent ban). Never null. The same format as a ban's `expires_at`.",
      examples: ['2030-01-01T00:00:00Z'],
    },
  ],
  [
    innerOf(innerOf(createBanRequestSchema.shape.details)),
    {
      type: 'object',
      // Said explicitly, so that client generators type it as open rather than as `{}`.
      additionalProperties: true,
      description:
        `Arbitrary JSON metadata stored with the ban (an object, at most ${DETAILS_MAX_BYTES / 1024} ` +
        `KiB serialised and ${DETAILS_MAX_DEPTH} levels deep); null or absent means none. Returned ` +
        'as `details_json`, to its owner only.',
    },
  ],
  [
    innerOf(createBanRequestSchema.shape.player_message),
    {
      type: 'string',
      minLength: 1,
      maxLength: PLAYER_MESSAGE_MAX,
      pattern: PLAYER_MESSAGE_DOCUMENTED_PATTERN,
      description:
        `What a game may show the player, as it is: 1-${PLAYER_MESSAGE_MAX} characters (code points) of ` +
        'plain text, with no control characters (newlines included) or bidirectional overrides, and ' +
        'not only spaces. Returned as `player_message` to every caller who sees the ban: it is ' +
        'written for players, unlike `details`. Erasing the device removes it.',
      examples: ['You are muted in chat for 24 hours for abusive messages.'],
    },
  ],
  [
    putPublisherRequestSchema.shape.display_name,
    {
      type: 'string',
      minLength: 1,
      maxLength: DISPLAY_NAME_MAX,
      pattern: DISPLAY_NAME_DOCUMENTED_PATTERN,
      description:
        `The name other publishers see beside yours in the directory, stored as sent: 1-${DISPLAY_NAME_MAX} ` +
        'characters (code points), with no control characters (tabs and newlines included), no format ' +
        'characters (bidirectional marks, overrides and isolates, zero-width spaces, the byte order ' +
        'mark; the zero-width joiner and non-joiner are allowed), no line or paragraph separators, ' +
        'and a character that shows at either end: no space, combining mark, variation selector, ' +
        'joiner, Hangul filler or blank Braille pattern there.',
      examples: ['Acme Games'],
    },
  ],
  [
    enforcementBatchRequestSchema.shape.device_ids._zod.def.element,
    {
      // No pattern: the server takes any value here and answers an invalid one in its entry.
      type: 'string',
      description:
        `A device id (matching \`${z.toJSONSchema(deviceIdSchema).pattern}\`). Each is checked on its own: an ` +
        'invalid one gets an error entry in `results` instead of failing the request.',
    },
  ],
]);

// A refined schema (`.superRefine`) is a child of the unrefined one, and zod renders both: the
// description covers the whole chain.
for (const [schema, patch] of [...described]) {
  for (let parent = schema._zod.parent; parent; parent = parent._zod.parent) described.set(parent, patch);
}

/**
 * The server's text patterns use Unicode property escapes (`\p{Cc}`), which many readers of the
 * document do not take: it states each with the classes written out (lib/model/unicode-ranges.ts).
 * test/openapi/patterns.test.ts holds each pair to the same answers over every code point.
 */
const documentedPatterns = new Map([
  [PLAYER_MESSAGE_PATTERN, PLAYER_MESSAGE_DOCUMENTED_PATTERN],
  [MULTILINE_TEXT_PATTERN, MULTILINE_TEXT_DOCUMENTED_PATTERN],
  [DISPLAY_NAME_PATTERN, DISPLAY_NAME_DOCUMENTED_PATTERN],
]);

/** A decision's `expires_at` goes with the outcome `shortened`, and only with it (lib/domain/appeals.ts). */
const decisionExpiry = {
  if: { properties: { outcome: { const: 'shortened' } }, required: ['outcome'] },
  // `properties` named again where `required` is, as linters ask of every schema with `required`.
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's keyword, never awaited
  then: { properties: { expires_at: {} }, required: ['expires_at'] },
  else: { not: { properties: { expires_at: {} }, required: ['expires_at'] } },
};

const override = (ctx: { zodSchema: $ZodType; jsonSchema: JsonSchema }) => {
  const patch = described.get(ctx.zodSchema);
  if (patch) return replace(ctx.jsonSchema, structuredClone(patch));
  const { pattern } = ctx.jsonSchema;
  if (typeof pattern === 'string') {
    if (/\\[pP]\{/.test(pattern) && !documentedPatterns.has(pattern))
      throw new Error(`the pattern ${pattern} needs its property escapes written out (documentedPatterns)`);
    ctx.jsonSchema.pattern = documentedPatterns.get(pattern) ?? pattern;
  }
  if (ctx.zodSchema === appealDecisionRequestSchema) Object.assign(ctx.jsonSchema, decisionExpiry);
  const def = ctx.zodSchema._zod.def;
  // A query or path value of digits that the server reads as an integer: documented as the integer
  // (with its range) that a client sends; the server refuses anything but digits.
  if (def.type === 'pipe' && 'out' in def && (def.out as $ZodType)._zod.def.type === 'number') {
    return replace(
      ctx.jsonSchema,
      bare(z.toJSONSchema(def.out as z.ZodMiniType, { target: TARGET }) as JsonSchema),
    );
  }
  // zod leaves out a default that is not of the input's type (50 for a string of digits); the
  // integer documented above takes it.
  if (def.type === 'default' && !('default' in ctx.jsonSchema) && 'defaultValue' in def) {
    ctx.jsonSchema.default = def.defaultValue;
  }
  if (def.type === 'custom' || def.type === 'transform') {
    throw new Error(`a ${def.type} schema needs a description in lib/openapi/document.ts (described)`);
  }
};

const toJsonSchema = (schema: z.ZodMiniType, io: 'input' | 'output') =>
  bare(z.toJSONSchema(schema, { target: TARGET, io, unrepresentable: 'any', override }) as JsonSchema);

const componentSchemas = (components: Map<z.ZodMiniType, string>, io: 'input' | 'output') => {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of components) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: TARGET,
    io,
    unrepresentable: 'any',
    override,
    uri: (id) => `#/components/schemas/${id}`,
  });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, bare(schema as JsonSchema)]));
};

const nameOf = (components: Map<z.ZodMiniType, string>, schema: z.ZodMiniType, where: string) => {
  const name = components.get(schema);
  if (!name) throw new Error(`${where}: give its schema a component name in lib/openapi/document.ts`);
  return name;
};

/**
 * Parameters mean the same on every route that takes them, unless an entry `<operationId>.<name>`
 * says what one means on that route.
 */
/**
 * A listing's cursor as the API returns it to `acme`, the publisher the examples are written for:
 * cursors are bound to their reader (lib/domain/cursors.ts), so an example must be a real one.
 */
const acmeCursor = (listing: string, pk: string, sk: string) => cursorOf(`${listing} ${pk}`, sk);

const parameterDocs: Record<string, { description: string; example: unknown }> = {
  'listAudit.limit': { description: 'Most events to return. Digits only.', example: 50 },
  'listAudit.cursor': {
    description: "The previous page's `next_cursor` (opaque): the events older than that page.",
    // Bound to the other parameters' examples, which are sent with it.
    example: cursorOf(
      auditReaderOf('acme', {
        actor: 'key_Qm3vX8pLr2Tz',
        device_id: 'device-7f3a9c',
        type: 'ban.revoked',
        from: '2026-03-04T00:00:00.000Z',
        to: '2026-03-05T00:00:00.000Z',
      }),
      `${auditActorPrefix('key_Qm3vX8pLr2Tz')}2026-03-04T18:20:31.512Z#evt_Qm3vX8pLr2Tz4KwB9sC1aB3d`,
    ),
  },
  'listAudit.type': { description: 'Only events of this type.', example: 'ban.revoked' },
  'listAudit.device_id': { description: 'Only events about this device.', example: 'device-7f3a9c' },
  'listAudit.actor': {
    description: 'Only what this actor did: a key by its `key_id`, or a person signed in by their `sub`.',
    example: 'key_Qm3vX8pLr2Tz',
  },
  'transparencyReport.from': {
    description: 'The first day of the period: `YYYY-MM-DD`, UTC.',
    example: '2026-03-01',
  },
  'transparencyReport.to': {
    description: `The last day of the period (included): \`YYYY-MM-DD\`, UTC; not before \`from\`, at most ${REPORT_MAX_DAYS} days in all.`,
    example: '2026-03-02',
  },
  'transparencyReport.format': {
    description: '`json` (the default) or `csv`: a header row, then one row per day and dimension.',
    example: 'json',
  },
  'listDsaStatements.from': {
    description: 'Only bans made at or after this instant: an RFC 3339 date-time with an offset.',
    example: '2026-03-01T00:00:00Z',
  },
  'listDsaStatements.to': {
    description:
      'Only bans made before this instant (an RFC 3339 date-time with an offset); later than `from`.',
    example: '2026-04-01T00:00:00Z',
  },
  'listDsaStatements.limit': {
    description: 'Most bans to read for the page (1-200). Digits only.',
    example: 100,
  },
  'listDsaStatements.cursor': {
    description:
      "The previous page's `next_cursor` (opaque), with the same `from` and `to`: the bans made before that page's.",
    // Bound to the other parameters' examples, which are sent with it (the trail's ban.created events).
    example: cursorOf(
      auditReaderOf('acme', {
        type: 'ban.created',
        from: '2026-03-01T00:00:00.000Z',
        to: '2026-04-01T00:00:00.000Z',
      }),
      `${AUDIT_EVENT_PREFIX}2026-03-03T08:45:00.000Z#evt_Qm3vX8pLr2Tz4KwB9sC1aB3d`,
    ),
  },
  'listAudit.from': {
    description:
      'Only events that happened at or after this instant: an RFC 3339 date-time with an offset (`Z` or `+hh:mm`).',
    example: '2026-03-04T00:00:00Z',
  },
  'listAudit.to': {
    description:
      'Only events that happened before this instant (an RFC 3339 date-time with an offset); later than `from`.',
    example: '2026-03-05T00:00:00Z',
  },
  'listEvents.limit': { description: 'Most events to return. Digits only.', example: 100 },
  'listEvents.cursor': {
    description:
      "The previous page's `next_cursor` (opaque, bound to the publisher and game it was returned " +
      'for): the events after that page. Absent: from the beginning of the feed. A cursor ahead of ' +
      "the feed's end (another deployment's) is a 400 `ahead_of_feed`.",
    // A cursor at the feed's start: one every deployment accepts, whatever it holds.
    example: 'ZjEucHl6MDIwUnlPSFhHLjAuMC4w',
  },
  'getEnforcementSnapshot.limit': {
    description: 'Most bans to return: 1 to 1000. Digits only. A page may hold fewer.',
    example: 500,
  },
  'getEnforcementSnapshot.cursor': {
    description:
      "The previous page's `next_cursor` (opaque, bound to the publisher and game it was returned " +
      'for): the bans after that page, with the same `feed_cursor`. Absent: a new snapshot.',
    example:
      'czEuM2xCZDBqaDktQWt2LjEuWmpFdWNIbDZNREl3VW5sUFNGaEhMak11TVM0eC5URWxXUlNOa1pYWnBZMlV0TjJZellUbGpJekF3TURBd01EQXdNREF3TURFd05ESQ',
  },
  'listKeys.limit': { description: 'Most keys to return. Digits only.', example: 50 },
  'listPublishers.limit': { description: 'Most publishers to return. Digits only.', example: 50 },
  'listPublishers.cursor': {
    description:
      "The previous page's `next_cursor` (opaque): the publishers after that page, in `publisher_id` order.",
    example: 'YWNtZQ',
  },
  'listKeys.cursor': {
    description: "The previous page's `next_cursor` (opaque): the keys after that page, in `key_id` order.",
    example: acmeCursor('keys', publisherPartition('acme'), 'key_7hTq2WmZp0Ld'),
  },
  'listWebhookDeliveries.limit': { description: 'Most deliveries to return. Digits only.', example: 50 },
  'listWebhookDeliveries.cursor': {
    description: "The previous page's `next_cursor` (opaque): the deliveries older than that page.",
    example: 'MjAyNi0wMy0wNFQwOToxMjo0MC4yMjdaI2V2dF9JSDRCN1JGN1pvMnBpSHViS1BKc3l6OTE',
  },
  'listWebhookDeliveries.status': {
    description: 'Only deliveries in this state: `pending` (still being tried), `delivered` or `failed`.',
    example: 'pending',
  },
  'listDevices.prefix': {
    description: 'The beginning of the device id: the same characters as a device id, 1-128 of them.',
    example: 'device-7f3a',
  },
  'listDevices.suffix': {
    description:
      'The end of the device id (a report quotes the tail digits): the same characters, 1-128. With `prefix`, ids that begin with one and end with the other.',
    example: '3a9c',
  },
  'listDevices.as_typed': {
    description:
      '`true`: search `prefix` exactly as typed, not as a declared device id format reads a whole platform id (`false`, the default).',
    example: 'false',
  },
  'listDevices.limit': { description: 'Most devices to return. Digits only.', example: 25 },
  'listDevices.cursor': {
    description:
      "The previous page's `next_cursor` (opaque), with the same `prefix` or `suffix`: the devices after that page.",
    example: acmeCursor('devices', bannedDevicesPartition('acme'), 'device-7f3a9c'),
  },
  'listExpiringBans.within_hours': {
    description: 'How far ahead to look, in hours from now: 1 to 168. Digits only.',
    example: 24,
  },
  'listExpiringBans.limit': { description: 'Most bans to return. Digits only.', example: 25 },
  'listExpiringBans.cursor': {
    description: "The previous page's `next_cursor` (opaque): the bans ending after that page's.",
    example: acmeCursor(
      'expiring',
      expiringBansPartition('acme'),
      '2026-11-26T12:30:38.690Z#0058293122485761',
    ),
  },
  'listAppeals.status': {
    description:
      '`open` (the queue, oldest first), `decided` (newest decision first) or `all` (both, in that order).',
    example: 'open',
  },
  'listAppeals.limit': { description: 'Most appeals to return. Digits only.', example: 50 },
  'listAppeals.cursor': {
    description: "The previous page's `next_cursor` (opaque): the appeals after that page.",
    example: acmeCursor(
      'appeals',
      appealQueuePartition('acme'),
      'OPEN#2026-03-02T09:00:00.000Z#apl_Q2x4b1ZpTm5HdGh3cE1aWl',
    ),
  },
  'exportData.limit': {
    description: 'Most items to return: 1 to 1000. Digits only. A page may hold fewer.',
    example: 500,
  },
  'exportData.cursor': {
    description:
      "The previous page's `next_cursor` (opaque, bound to the publisher and kind it was returned " +
      "for; it carries the export's `as_of`): the items after that page. Absent: a new export.",
    example: exportCursor('acme', 'bans', {
      as_of: '2026-03-04T18:20:31.512Z',
      after: 'device-7f3a9c#0058292032491009',
    }),
  },
  export_id: {
    description: 'The export job, by the `export_id` its start returned.',
    example: 'exp_Qm3vX8pLr2Tz4KwB9sC1aE',
  },
  kind: {
    description:
      'What to export: `bans`, `appeals`, `audit`, `policy`, `trust`, `reasons`, `webhooks` or `keys`.',
    example: 'bans',
  },
  'listAppeals.ban_id': { description: 'Only the appeal of this ban.', example: 1042 },
  'listAppeals.device_id': { description: 'Only appeals about this device.', example: 'device-7f3a9c' },
  appeal_id: {
    description: 'The appeal, by the `appeal_id` its filing returned.',
    example: 'apl_Q2x4b1ZpTm5HdGh3cE1aWl',
  },
  webhook_id: {
    description: 'The webhook, by the `webhook_id` its creation returned.',
    example: 'wh_q2KpV5gziZvdbeOf',
  },
  device_id: {
    description: 'The device (as sent when the ban was made; percent-encode it).',
    example: 'device-7f3a9c',
  },
  ban_id: { description: 'The ban, by the `ban_id` its creation returned. Digits only.', example: 1042 },
  key_id: {
    description: 'The key, by the public `key_id` its creation returned.',
    example: 'key_7hTq2WmZp0Ld',
  },
  person_id: {
    description: 'The person, by the `person_id` the listing or the invitation answered.',
    example: '2d7e9b10-4a6c-4f3e-8d21-9c8b7a6f5e4d',
  },
  status: { description: 'Which bans to list: `active`, `inactive` or `all`.', example: 'all' },
  limit: {
    description:
      'Most bans to return. Digits only (`1e3`, `0x10`, `5.0` are refused); out of range is a 400.',
    example: 50,
  },
  cursor: {
    description:
      "The previous page's `next_cursor`: only bans with a lower `ban_id` are returned. Digits only.",
    example: 1042,
  },
  type: { description: 'Only bans of this type; absent means both.', example: 'cheat' },
  locale: {
    description:
      "The language to read the bans' `player_message` and statement in (a language tag, any case): " +
      'tried first, then `Accept-Language`; a ban without it reads in its own language ' +
      '(docs/api.md#languages).',
    example: 'de',
  },
  'Accept-Language': {
    description:
      "The languages to read the bans' texts in, by q-value (RFC 9110): each range tried whole, then " +
      'shortened (`de-AT`, then `de`), after the `locale` parameter; malformed ranges are ignored, never refused.',
    example: 'de-AT,de;q=0.9,en;q=0.5',
  },
  'X-Game-Id': {
    description: 'The game the request is for: it scopes `game` bans and idempotency keys.',
    example: 'space-raiders',
  },
};

const parameter = (
  id: string,
  name: string,
  location: 'path' | 'query' | 'header',
  schema: z.ZodMiniType,
  required: boolean,
) => {
  const docs = parameterDocs[`${id}.${name}`] ?? parameterDocs[name];
  if (!docs)
    throw new Error(`parameter ${name} needs a description in lib/openapi/document.ts (parameterDocs)`);
  return {
    name,
    in: location,
    required,
    description: docs.description,
    schema: toJsonSchema(schema, 'input'),
    example: docs.example,
  };
};

const shapeOf = (schema: z.ZodMiniType, where: string) => {
  if (schema._zod.def.type !== 'object') throw new Error(`${where} must be a zod object`);
  return (schema as z.ZodMiniObject).shape as Record<string, z.ZodMiniType>;
};

const parameters = (id: string, op: RequestSpec) => {
  const params = [];
  if (op.path) {
    for (const [name, schema] of Object.entries(shapeOf(op.path, `${id} path`))) {
      params.push(parameter(id, name, 'path', schema, true));
    }
  }
  if (op.game) params.push(parameter(id, 'X-Game-Id', 'header', gameHeaderSchema.shape['x-game-id'], true));
  if (op.query) {
    const required = new Set((toJsonSchema(op.query, 'input').required as string[] | undefined) ?? []);
    const shape = shapeOf(op.query, `${id} query`);
    for (const [name, schema] of Object.entries(shape)) {
      params.push(parameter(id, name, 'query', schema, required.has(name)));
    }
    // An answer read in a language takes the header too (functions/*: wantedLocales).
    if (shape.locale) params.push(parameter(id, 'Accept-Language', 'header', z.string(), false));
  }
  return params;
};

const errorResponseNames = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'CursorExpired',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'RateLimited',
  500: 'InternalError',
  503: 'ServiceUnavailable',
} as const;
type DocumentedErrorStatus = keyof typeof errorResponseNames;

/** When each error code is answered: the README's error table. */
const errorWhen: Record<ErrorCode, string> = {
  invalid_json: 'the body is not parseable JSON (or is empty where one is required)',
  invalid_request:
    'a field, header, path or query value fails validation, or the query has an unknown or repeated ' +
    'parameter; `details` names each field and its issue',
  unauthorized:
    '`Authorization` is missing, not `Bearer <key>`, or the key is unknown or revoked; on the player ' +
    "page's routes, `X-Player-Link` is missing or the link is unknown, altered or ended",
  forbidden:
    "the key is valid but lacks the operation's scope, or is bound to other games than `X-Game-Id` " +
    '(or, for an erasure, to games at all), or its publisher is not on the usage plan',
  not_found: 'the resource does not exist, or belongs to another publisher',
  conflict: "a publisher's limit is reached (its 100 live keys): revoke one first",
  cursor_expired:
    'the feed cursor points before events past the retention (`EVENT_RETENTION_DAYS`, 30 days by ' +
    'default), which are gone: resync from `GET /v1/enforcement/snapshot` and follow its `feed_cursor`',
  method_not_allowed: 'the path exists but not with this method (answered by the gateway, with `Allow`)',
  payload_too_large: `the body is over ${MAX_BODY_BYTES / 1024} KiB`,
  unsupported_media_type: 'a body is sent without a JSON `Content-Type`',
  rate_limited: "the gateway throttled the request: the route's limit, or the caller's publisher's own",
  internal_error: 'a bug: the message says nothing internal, the log has the details',
  service_unavailable:
    'DynamoDB was throttled or unavailable after the SDK retries (also while checking the key)',
};

const codesFor = (status: number) =>
  (Object.entries(errorStatus) as [ErrorCode, number][])
    .filter(([, s]) => s === status)
    .map(([code]) => code);

const errorHeaders: Partial<Record<DocumentedErrorStatus, Record<string, { $ref: string }>>> = {
  401: { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } },
  429: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
  503: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
};

const requestIdHeader = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
/** What an answer read in the caller's language says of it (lib/http/languages.ts). */
const languageResponseHeaders = {
  Vary: { $ref: '#/components/headers/Vary' },
  'Content-Language': { $ref: '#/components/headers/Content-Language' },
};

const errorResponse = (status: DocumentedErrorStatus) => {
  const codes = codesFor(status);
  return {
    description: codes.map((code) => `\`${code}\`: ${errorWhen[code]}.`).join(' '),
    headers: { ...requestIdHeader, ...errorHeaders[status] },
    content: {
      'application/json': {
        // The envelope, with the codes this status can carry.
        schema: {
          allOf: [
            schemaRef('Error'),
            {
              type: 'object',
              properties: { error: { type: 'object', properties: { code: { enum: codes } } } },
            },
          ],
        },
        examples: Object.fromEntries(
          codes.map((code) => [code, { summary: code, value: errorExamples[code] }]),
        ),
      },
    },
  };
};

/** The error statuses an operation can answer, from what it takes and where it runs. */
const errorStatuses = (route: Route, doc: OperationDoc): DocumentedErrorStatus[] => {
  const statuses: DocumentedErrorStatus[] = [400]; // every route refuses unknown query parameters
  if (route.auth) statuses.push(401, 403);
  // A player page link: unknown or ended (401); one that does not let the player appeal (403).
  if (route.request.playerLink) statuses.push(401, 403);
  if (doc.notFound) statuses.push(404);
  if (doc.conflict) statuses.push(409);
  if (doc.expires) statuses.push(410);
  if (route.request.body) statuses.push(413, 415);
  // 503 on every route: any function may fail to answer in time (the gateway's own 503).
  statuses.push(429, 500, 503);
  return statuses;
};

const pathItemOperation = (route: Route, doc: OperationDoc) => {
  const op = route.request;
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(doc.responses)) {
    // No schema: no body (204), so no `content` either.
    if (response.schema === undefined) {
      responses[status] = { description: response.description, headers: requestIdHeader };
      continue;
    }
    const localised = op.query !== undefined && shapeOf(op.query, `${route.id} query`).locale !== undefined;
    responses[status] = {
      description: response.description,
      headers: localised ? { ...requestIdHeader, ...languageResponseHeaders } : requestIdHeader,
      content: {
        'application/json': {
          schema: schemaRef(nameOf(responseComponents, response.schema, `${route.id} ${status}`)),
          example: response.example,
        },
        ...(response.csv === undefined
          ? {}
          : { 'text/csv': { schema: { type: 'string' }, example: response.csv } }),
      },
    };
  }
  for (const status of errorStatuses(route, doc)) {
    responses[status] = { $ref: `#/components/responses/${errorResponseNames[status]}` };
  }
  const params = parameters(route.id, op);
  return {
    operationId: route.id,
    summary: doc.summary,
    description: route.scope
      ? `${doc.description}\n\nNeeds a key with the ${scopesOf(route.scope)
          .map((scope) => `\`${scope}\``)
          .join(' or ')} scope.`
      : doc.description,
    tags: [doc.tag],
    // Whether a client may repeat the request (lib/routes.ts RetryRule): the client's method table
    // is generated from it (console/generate-types.ts).
    'x-retry': route.retry,
    ...(route.auth ? {} : { security: route.request.playerLink ? [{ playerLink: [] }] : [] }),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: schemaRef(nameOf(requestComponents, op.body, `${route.id} body`)),
                example: doc.request,
              },
            },
          },
        }
      : {}),
    responses,
  };
};

const tags: Record<Tag, string> = {
  Health: 'Liveness.',
  Policy:
    "The caller's policy. A `game` ban applies when `enforce_game`; a `publisher` ban when " +
    '`enforce_publisher`; a `global` ban of type T when `enforce_global` and `enforce_T_global`. ' +
    'The `rep_include_*` flags pick the scopes whose bans count toward reputation.',
  Bans:
    'Bans on devices. A listing shows the bans the caller can see on the device: its own `game` bans ' +
    'for `X-Game-Id`, its own `publisher` bans (any game), and the `global` bans of every publisher, ' +
    "with `details_json` null on another publisher's ban. A ban is active while `revoked_at` is null " +
    'and `expires_at` is null or later than now. Items come newest first (descending `ban_id`); to ' +
    "page, pass the response's `next_cursor` as `cursor` until it is null. `counts` cover every " +
    'matching ban on the device, whatever the page and the `status` filter (`active + inactive = total`).',
  Enforcement: 'The policy applied: is a device restricted in this game, why, and its reputation (0 to 100).',
  Events:
    'The change feed: every change the caller can see for `X-Game-Id` (the bans a listing would show, ' +
    'and its own policy), oldest first, each exactly once from any cursor. The same items are what ' +
    'webhooks receive.',
  Webhooks:
    "Where your publisher's events are POSTed as they happen: each change feed item as the JSON body, " +
    'with the Standard Webhooks headers `webhook-id` (the event id, the same on every retry: ' +
    'deduplicate by it), `webhook-timestamp` (seconds since the epoch) and `webhook-signature` ' +
    '(`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the ' +
    "bytes after `whsec_` of the webhook's secret, base64-decoded; any Standard Webhooks library " +
    'verifies it). A webhook receives the events it asks for: its own changes (`game` bans only of ' +
    "its `games`, when set) and every publisher's `global` bans. Any answer but a 2xx within 10 s " +
    'is retried with exponential backoff and jitter for at least 24 hours, then the delivery is ' +
    '`failed`. Redirects are not followed, and a URL whose name resolves to a private, loopback or ' +
    'link-local address is refused.',
  Export:
    'Everything your publisher holds, kind by kind, in pages that make one consistent listing at the ' +
    "first page's `as_of`, all of it about one device (a data subject's request), and export jobs: " +
    'the service writes it all into files to download, for exports too large to page through. Needs ' +
    '`data:export` and a key for every game; each export is recorded in the audit trail (`data.exported`).',
  Audit:
    "What your publisher's keys changed, newest first: one event per change that took effect (a " +
    'repeated request adds none), with the key that made it. Never a secret, never ban details.',
  Appeals:
    'A player contests a ban: a game server or support site files the appeal (`appeals:write`) and the ' +
    "ban's owner decides it (`appeals:decide`). Each publisher appeals a ban once; an overturn ends it for everyone. What the player is shown " +
    '(`player_message`, `expires_at`, `appealable`, `appeal`) is on the ban in every listing and enforcement answer.',
  Keys: "Your publisher's API keys: least-privilege keys for each server or tool, listed without secrets, revoked at once.",
  People:
    "Your publisher's people, who sign in to the console (`people:manage`: admins): listed, invited, " +
    'disabled, re-enabled, given another role; each change audited, and never one that leaves no enabled admin.',
  Player:
    "The player's page: a link a game server mints for one device in one game, and the page's reads " +
    'and appeals through it (no API key; `X-Player-Link`). docs/player-rights.md.',
  Documentation: 'This description of the API.',
};

const DESCRIPTION = `Game publishers record bans against devices (\`cheat\` or \`social\`, scoped to a \`game\`, the whole \`publisher\`, or \`global\`), list the bans of a device, keep a per-publisher policy of which scopes they enforce and which count toward reputation, and ask whether a device is restricted.

**Authentication.** Every operation except \`GET /health\` and \`GET /openapi.json\` takes \`Authorization: Bearer <key>\` (scheme case-insensitive, one space). The publisher always comes from the key. The deployed API caches a key check for up to 300 s, so a revoked key may keep working that long.

**Scopes.** A key holds scopes (\`bans:read\`, \`bans:write\`, \`policy:read\`, \`policy:write\`, \`keys:manage\`, \`audit:read\`) and may be bound to games; each operation names the scope it needs. A key without the scope, or naming a game outside its binding in \`X-Game-Id\`, gets \`403 forbidden\` saying what is missing. A key made without a scope list holds every scope and every game. An expired key is a 401.

**Games.** The ban, enforcement and change feed operations also take \`X-Game-Id\`.

**Bodies** are JSON (\`Content-Type: application/json\`), at most ${MAX_BODY_BYTES / 1024} KiB, and strict: an unknown field is a 400. Every response carries \`X-Request-Id\`.

**Errors** share one envelope, \`{"error": {"code", "message", "details"?}, "request_id"}\`, whose \`code\` says what happened; \`details\` names each invalid field. Besides the responses listed per operation, the gateway answers an unknown path \`404 not_found\` and a known path with another method \`405 method_not_allowed\` (with \`Allow\`), in the same envelope.`;

export const buildOpenApiDocument = () => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase()] = pathItemOperation(route, operations[route.id]);
    paths[route.path] = item;
  }
  const errorResponses = Object.fromEntries(
    (Object.entries(errorResponseNames) as [string, string][]).map(([status, name]) => [
      name,
      errorResponse(Number(status) as DocumentedErrorStatus),
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Device ban service',
      version: packageJson.version,
      summary: 'Bans on devices, per-publisher enforcement policy, and enforcement answers.',
      description: DESCRIPTION,
    },
    servers: [
      {
        url: 'https://{restApiId}.execute-api.{region}.amazonaws.com/{stage}',
        description: 'A deployed stage (`npx cdk deploy` prints its URL).',
        variables: {
          restApiId: { default: 'abc123defg', description: 'The REST API id.' },
          region: { default: 'us-east-1' },
          stage: { default: 'dev', description: 'The stage (`-c stage=<name>`).' },
        },
      },
      { url: 'http://127.0.0.1:3000', description: 'The local API (`npm start`).' },
    ],
    security: [{ bearerAuth: [] }],
    tags: (Object.entries(tags) as [Tag, string][]).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: {
        ...componentSchemas(requestComponents, 'input'),
        ...componentSchemas(responseComponents, 'output'),
      },
      responses: errorResponses,
      headers: {
        'X-Request-Id': {
          description: 'The request id (the API Gateway request id); quote it when reporting a problem.',
          required: true,
          schema: { type: 'string' },
        },
        'Retry-After': {
          description: 'Seconds to wait before retrying.',
          required: true,
          schema: { type: 'integer', minimum: 0 },
        },
        Vary: {
          description: "Always `Accept-Language`: the header chooses the language of the bans' texts.",
          required: true,
          schema: { type: 'string', const: 'Accept-Language' },
        },
        'Content-Language': {
          description:
            "The language every ban of the answer reads in, when they all read in one (each ban's `message_locale`); absent otherwise.",
          required: false,
          schema: { type: 'string' },
        },
        'WWW-Authenticate': {
          description: "`Bearer`; on the player page's routes, `PlayerLink`.",
          required: true,
          schema: { type: 'string', enum: ['Bearer', 'PlayerLink'] },
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'bsk_ followed by 43 base64url characters',
          description: 'An API key, made by the operator with `npm run keys -- create --publisher <id>`.',
        },
        playerLink: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Player-Link',
          description:
            "A player page link's secret (bpl_ followed by 43 base64url characters), as `POST /v1/player-links` " +
            "made it: the page reads it from its address's fragment.",
        },
      },
    },
  };
};

/** The committed file's exact text: two-space JSON and a final newline. */
export const serializeOpenApiDocument = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;
