import { defaultPolicyFlags } from '@kernel/policy-flags';
import { defaultPolicyTrust, QUORUM_MAX, TRUST_SOURCES_MAX } from '@kernel/policy-trust';
import { EEA_COUNTRIES } from '@kernel/statement-of-reasons';
import { REPORT_MAX_DAYS, type ReportModeratorRow, restrictionDimensions } from '@kernel/transparency';
import type * as z from 'zod/mini';
import { exportCursor } from '../domain/exports';
import { allowedMethods, gatewayAnswers, methodNotAllowed } from '../http/gateway-answers';
import type { ErrorCode } from '../model/error-codes';
import { importResultSchema } from '../model/imports';
import {
  type ApiKey,
  type Appeal,
  apiKeyListSchema,
  apiKeySchema,
  appealCreationSchema,
  appealListSchema,
  appealSchema,
  appealStatsSchema,
  auditListSchema,
  type BanCreationResult,
  banCreationResultSchema,
  banListSchema,
  bannedDeviceListSchema,
  type Delivery,
  type DeviceFormats,
  deliveryListSchema,
  deviceDataSchema,
  deviceFormatsSchema,
  directorySchema,
  dsaStatementPageSchema,
  type Enforcement,
  enforcementBatchSchema,
  enforcementSchema,
  enforcementSnapshotSchema,
  erasureSchema,
  type errorEnvelopeSchema,
  expiringBanListSchema,
  exportJobSchema,
  exportJobStartedSchema,
  exportPageSchema,
  type FeedEvent,
  feedPageSchema,
  gamesUsedSchema,
  healthSchema,
  invitedPersonSchema,
  type ListedBan,
  newApiKeySchema,
  newWebhookSchema,
  openApiDocumentSchema,
  type PersonView,
  type PlayerAppeal,
  type Policy,
  personListSchema,
  personSchema,
  playerAppealCreationSchema,
  playerLinkCreationSchema,
  playerPageSchema,
  policyReachSchema,
  policySchema,
  publisherProfileSchema,
  type ReasonCatalogue,
  reasonCatalogueSchema,
  revokedBanSchema,
  transparencyReportSchema,
  type Webhook,
  webhookListSchema,
  webhookTestSchema,
} from '../model/responses';
import type { RouteId, routes } from '../routes';

/**
 * Each operation's documentation in one place: its summary, tag and description, its success
 * responses (schema, description and a realistic example) and its request example. The route table
 * (lib/routes.ts) holds the half the handlers run. Only the OpenAPI generator imports this module,
 * so none of it reaches a Lambda bundle.
 *
 * Typed so that a route without its entry, an example that does not fit its schema, or a body
 * without a request example does not compile (and the lint checks the generated document too).
 */

export type Tag =
  | 'Health'
  | 'Policy'
  | 'Bans'
  | 'Enforcement'
  | 'Events'
  | 'Webhooks'
  | 'Keys'
  | 'People'
  | 'Audit'
  | 'Export'
  | 'Appeals'
  | 'Player'
  | 'Documentation';

/**
 * A success response: a JSON body (its schema and an example; `csv`, an example of the same as
 * CSV when the operation can answer that too), or none at all (204).
 */
export type ResponseDoc =
  | {
      readonly description: string;
      readonly schema: z.ZodMiniType;
      readonly example: unknown;
      readonly csv?: string;
    }
  | { readonly description: string; readonly schema?: never; readonly example?: never };

/** A success response, its example checked against its schema. */
const response = <S extends z.ZodMiniType>(schema: S, description: string, example: z.output<S>) =>
  ({ schema, description, example }) satisfies ResponseDoc;

/** A success response without a body (204 No Content). */
const noContent = (description: string) => ({ description }) satisfies ResponseDoc;

type RouteById<Id extends RouteId> = Extract<(typeof routes)[number], { id: Id }>;
type BodyOf<Id extends RouteId> = RouteById<Id>['request'] extends { body: infer B extends z.ZodMiniType }
  ? B
  : undefined;

/** What the generator reads of any operation. */
export interface OperationDocBase {
  /** One line: the operation's name in generated clients' docs. */
  readonly summary: string;
  readonly tag: Tag;
  readonly description: string;
  /** Success responses by status code. Error responses are derived from the route's inputs. */
  readonly responses: Readonly<Record<number, ResponseDoc>>;
  /** Whether the operation answers 404 not_found for a resource that does not exist. */
  readonly notFound?: true;
  /** Whether the operation answers 409 conflict when a publisher's limit is reached. */
  readonly conflict?: true;
  /** Whether the operation answers 410 cursor_expired for a cursor past the retention (the feed). */
  readonly expires?: true;
  /** The request body's example: required exactly when the route takes a body, and of its type. */
  readonly request?: unknown;
}

type OperationDoc<Id extends RouteId> = OperationDocBase &
  (BodyOf<Id> extends z.ZodMiniType
    ? { readonly request: z.input<BodyOf<Id>> }
    : { readonly request?: never });

const UPDATED_AT = '2026-03-02T10:15:00.000Z';
const NOW = '2026-03-04T18:20:31.512Z';
const DEVICE = 'device-7f3a9c';
const GAME = 'space-raiders';
const DEPLOYMENT_ID = 'dep_Vq7Lx2Nc9RtK4mWz8HbJ3s';

const policy: Policy = {
  publisher_id: 'acme',
  ...defaultPolicyFlags,
  ...defaultPolicyTrust,
  updated_at: UPDATED_AT,
};

const reasonCatalogue: ReasonCatalogue = {
  reasons: [
    {
      code: 'aimbot',
      label: 'Aimbot or other aim assistance',
      ban_type: 'cheat',
      scope: 'global',
      duration_seconds: null,
      player_message: 'This device is banned for using cheat software.',
    },
    {
      code: 'chat.abuse',
      label: 'Abusive chat',
      ban_type: 'social',
      scope: 'game',
      duration_seconds: 604_800,
      player_message: 'You are muted in chat for 7 days for abusive messages.',
      translations: {
        de: {
          label: 'Beleidigender Chat',
          player_message: 'Du bist 7 Tage lang im Chat stummgeschaltet, weil du andere beleidigt hast.',
        },
      },
    },
  ],
  strict_reasons: true,
  default_locale: 'en',
  updated_at: NOW,
};

const deviceFormats: DeviceFormats = {
  formats: [
    { platform: 'steam', prefix: 'steam:' },
    { platform: 'xbox', prefix: 'xbl:' },
  ],
  updated_at: NOW,
};

const appealOpen: Appeal = {
  appeal_id: 'apl_Q2x4b1ZpTm5HdGh3cE1aWl',
  status: 'open',
  device_id: DEVICE,
  ban_id: 1042,
  ban_publisher_id: 'acme',
  filed_by: { publisher_id: 'acme', game_id: GAME },
  player_link_id: null,
  message: 'I was not cheating: my brother used my account that evening.',
  contact: 'player@example.com',
  created_at: '2026-03-02T09:00:00.000Z',
  decision: null,
  erased_at: null,
  claimed_by: null,
  claimed_until: null,
};

const playerSecret = 'bpl_3kq9Tz0mWcR7vXy2LpB5nHd8sFg1JaQe4uKo6iYt0rM';

const playerAppeal: PlayerAppeal = {
  appeal_id: appealOpen.appeal_id,
  status: 'open',
  created_at: '2026-03-04T18:20:31.512Z',
  outcome: null,
  decided_at: null,
  player_message: null,
  expires_at: null,
};

const appealClaimed: Appeal = {
  ...appealOpen,
  claimed_by: {
    type: 'user',
    sub: '8f2c41e0-3b1a-4d7e-9c55-2a6f0d9e7b13',
    email: 'sam@acme.example',
    role: 'moderator',
  },
  claimed_until: '2026-03-04T18:35:31.512Z',
};

const appealDecided: Appeal = {
  ...appealOpen,
  status: 'decided',
  decision: {
    outcome: 'overturned',
    note: 'Account shared: the owner proved the match was played from another device.',
    player_message: 'Your appeal was accepted and the ban was lifted.',
    expires_at: null,
    decided_at: NOW,
    decided_by: {
      type: 'user',
      sub: '8f2c41e0-3b1a-4d7e-9c55-2a6f0d9e7b13',
      email: 'sam@acme.example',
      role: 'moderator',
    },
    applied_at: NOW,
  },
};

/** A statement of reasons as a ban made by a key (a program) with the defaults carries it. */
const statementOf = (
  ban_type: 'cheat' | 'social',
  reason: string,
  facts?: string,
): NonNullable<ListedBan['statement']> => ({
  ground: 'terms',
  terms_clause: reason,
  terms_url: null,
  legal_ground: null,
  illegal_explanation: null,
  facts: facts ?? `This device received a ${ban_type} ban for ${reason}.`,
  automated_detection: true,
  automated_decision: 'fully',
  source: 'own_initiative',
  territorial_scope: [...EEA_COUNTRIES],
  category: 'other_violation_tc',
});

const socialBan: ListedBan = {
  ban_id: 1042,
  ban_type: 'social',
  scope: 'game',
  publisher_id: 'acme',
  game_id: GAME,
  reason_code: 'chat.toxicity',
  details_json: { report_id: 'r-5521', reports: 3 },
  created_at: '2026-03-01T21:04:11.093Z',
  expires_at: '2026-04-01T00:00:00.000Z',
  revoked_at: null,
  revoke_reason_code: null,
  player_message: 'You are muted in chat until 1 April for repeated abuse reported by other players.',
  appealable: true,
  statement: {
    ...statementOf('social', 'Community rules, 2.1: no abuse of other players'),
    terms_url: 'https://acme.example/community-rules#2.1',
    facts: 'You are muted in chat until 1 April for repeated abuse reported by other players.',
    automated_detection: false,
    automated_decision: 'not',
    source: 'notice',
    category: 'illegal_or_harmful_speech',
  },
  message_locale: 'en',
  translations: {
    de: {
      player_message:
        'Du bist bis zum 1. April im Chat stummgeschaltet, weil andere Spieler wiederholte Beleidigungen gemeldet haben.',
    },
  },
  appeal: null,
  created_by: { type: 'key', key_id: 'key_Qm3vX8pLr2Tz', name: 'moderation tool' },
  enforced: true,
};

/** Another publisher's global ban: its metadata is private to its owner. */
const cheatBan: ListedBan = {
  ban_id: 1077,
  ban_type: 'cheat',
  scope: 'global',
  publisher_id: 'other-studio',
  game_id: null,
  reason_code: 'aimbot',
  details_json: null,
  created_at: '2026-03-03T08:45:00.000Z',
  expires_at: null,
  revoked_at: null,
  revoke_reason_code: null,
  player_message: 'This device is banned for using cheat software.',
  appealable: false,
  statement: statementOf(
    'cheat',
    'Terms of service, 7.3: no cheat software',
    'Our anti-cheat found aim-assistance software running with the game on this device.',
  ),
  message_locale: 'en',
  // Another publisher's: its translations are its owner's to read (this answer read them already).
  translations: null,
  appeal: null,
  created_by: null,
  enforced: true,
};

const expiredBan: ListedBan = {
  ...socialBan,
  ban_id: 998,
  reason_code: 'chat.spam',
  details_json: null,
  created_at: '2026-01-10T12:00:00.000Z',
  expires_at: '2026-01-17T12:00:00.000Z',
  enforced: false,
};

const created: BanCreationResult = {
  ban_id: 1078,
  device_id: DEVICE,
  ban_type: 'cheat',
  scope: 'global',
  publisher_id: 'acme',
  game_id: GAME,
  status: 'created',
};

const adminPerson: PersonView = {
  person_id: '6f1c2a4e-8b3d-4c5e-9f70-1a2b3c4d5e6f',
  email: 'alex@example.com',
  role: 'admin',
  enabled: true,
  status: 'active',
  created_at: '2026-01-05T09:00:00.000Z',
  last_sign_in_at: '2026-03-02T08:41:12.000Z',
};
const moderatorPerson: PersonView = {
  person_id: '2d7e9b10-4a6c-4f3e-8d21-9c8b7a6f5e4d',
  email: 'sam@example.com',
  role: 'moderator',
  enabled: true,
  status: 'active',
  created_at: '2026-02-11T14:20:05.000Z',
  last_sign_in_at: '2026-03-01T17:03:44.000Z',
};

const serverKey: ApiKey = {
  key_id: 'key_7hTq2WmZp0Ld',
  name: 'eu game servers',
  scopes: ['bans:read', 'bans:write'],
  games: [GAME],
  created_at: '2026-03-02T10:20:00.000Z',
  expires_at: '2027-06-30T00:00:00.000Z',
  revoked_at: null,
  created_by: {
    type: 'user',
    sub: '3f2a9c1e-7b41-4d0e-9a55-0c1d2e3f4a5b',
    email: 'alice@acme.example',
    role: 'admin',
  },
  last4: 'Xq-Y',
};

const counts = (active: number, expired: number) => ({ active, expired });

const enforcement: Enforcement = {
  device_id: DEVICE,
  game_id: GAME,
  evaluated_at: NOW,
  restricted: { cheat: true, social: true },
  bans: [
    { ...cheatBan, rule: ['enforce_global', 'enforce_cheat_global'] },
    { ...socialBan, translations: null, rule: ['enforce_game'] },
  ],
  // The default policy does not enforce global social bans: listed with why.
  not_enforced: [
    {
      ban_id: 1081,
      publisher_id: 'other-studio',
      ban_type: 'social',
      scope: 'global',
      because: 'policy',
      have: null,
      need: null,
      explanation: 'your policy does not enforce this type and scope',
    },
  ],
  // 100 - 40 (active global cheat) - 15 (active game social) - 5 (expired game social)
  //     - 15 (active global social: counted, though not enforced) = 25
  reputation: {
    score: 25,
    included_scopes: ['game', 'publisher', 'global'],
    counts: {
      cheat: { game: counts(0, 0), publisher: counts(0, 0), global: counts(1, 0) },
      social: { game: counts(1, 1), publisher: counts(0, 0), global: counts(1, 0) },
    },
    weights: { cheat: { active: 40, expired: 10 }, social: { active: 15, expired: 5 } },
  },
  policy_updated_at: UPDATED_AT,
};

/** The feed as `acme` reads it for space-raiders: each kind of event, oldest first. */
const feedEvents: FeedEvent[] = [
  {
    event_id: 'evt_FE35Da4ok9up1y4sNDIo5PnI',
    type: 'ban.created',
    occurred_at: socialBan.created_at,
    device_id: DEVICE,
    ban: socialBan,
  },
  {
    event_id: 'evt_7hTq2WmZp0LdVb1Ny8HcTu3J',
    type: 'policy.updated',
    occurred_at: UPDATED_AT,
    device_id: null,
    policy,
  },
  {
    event_id: 'evt_tXgEVcbDTOrnOAzR4uwIKIHG',
    type: 'ban.created',
    occurred_at: cheatBan.created_at,
    device_id: DEVICE,
    ban: cheatBan,
  },
  {
    event_id: 'evt_IH4B7RF7Zo2piHubKPJsyz91',
    type: 'ban.revoked',
    occurred_at: '2026-03-04T09:12:40.227Z',
    device_id: 'device-2b81e0',
    ban: {
      ban_id: 1065,
      ban_type: 'cheat',
      scope: 'publisher',
      publisher_id: 'acme',
      game_id: null,
      reason_code: 'speedhack',
      details_json: { match_id: 'm-20260303-12' },
      created_at: '2026-03-03T19:30:02.511Z',
      expires_at: null,
      revoked_at: '2026-03-04T09:12:40.227Z',
      revoke_reason_code: 'false_positive',
      player_message: null,
      appealable: true,
      statement: statementOf('cheat', 'speedhack'),
      message_locale: 'en',
      translations: null,
      appeal: null,
      created_by: null,
      enforced: false,
    },
  },
  {
    event_id: 'evt_iyUo5tNyYfSxs9WaetqOfZz6',
    type: 'ban.erased',
    occurred_at: NOW,
    device_id: 'device-91cc04',
    // What was erased is gone: no details, and enforced nowhere.
    ban: {
      ban_id: 1019,
      ban_type: 'social',
      scope: 'publisher',
      publisher_id: 'acme',
      game_id: null,
      reason_code: 'chat.harassment',
      details_json: null,
      created_at: '2026-02-20T16:41:09.804Z',
      expires_at: null,
      revoked_at: null,
      revoke_reason_code: null,
      player_message: null,
      appealable: true,
      statement: null,
      message_locale: 'en',
      translations: null,
      appeal: null,
      created_by: null,
      enforced: false,
    },
  },
];

const WEBHOOK_URL = 'https://hooks.acme.example/device-bans';

const moderationWebhook: Webhook = {
  webhook_id: 'wh_q2KpV5gziZvdbeOf',
  url: WEBHOOK_URL,
  events: ['ban.created', 'ban.revoked', 'ban.erased'],
  games: [GAME],
  created_at: '2026-03-02T11:00:00.000Z',
};

const deliveries: Delivery[] = [
  {
    event_id: 'evt_iyUo5tNyYfSxs9WaetqOfZz6',
    type: 'ban.erased',
    occurred_at: NOW,
    device_id: DEVICE,
    ban_id: 57745192005633,
    status: 'pending',
    attempts: 2,
    last_attempt_at: '2026-03-04T18:21:05.880Z',
    last_status: 503,
    last_error: 'http status 503',
    next_attempt_at: '2026-03-04T18:21:52.310Z',
    delivered_at: null,
  },
  {
    event_id: 'evt_IH4B7RF7Zo2piHubKPJsyz91',
    type: 'ban.revoked',
    occurred_at: '2026-03-04T09:12:40.227Z',
    device_id: DEVICE,
    ban_id: 57745190441217,
    status: 'delivered',
    attempts: 1,
    last_attempt_at: '2026-03-04T09:12:41.064Z',
    last_status: 200,
    last_error: null,
    next_attempt_at: null,
    delivered_at: '2026-03-04T09:12:41.302Z',
  },
];

/** The transparency report's example: two days, a few bans and appeals. */
const reportCounts = (
  restrictions: Partial<Record<string, number>>,
  revocations: number,
  appeals: { received: number; decided: number; upheld: number; overturned: number; shortened: number },
  times: { median: number | null; p90: number | null },
  byReason: Record<string, number>,
  byModerator: readonly ReportModeratorRow[],
) => {
  const dimension = <V extends readonly string[]>(name: string, values: V) =>
    Object.fromEntries(values.map((value) => [value, restrictions[`${name}_${value}`] ?? 0])) as Record<
      V[number],
      number
    >;
  return {
    restrictions: {
      total: restrictions.total ?? 0,
      by_type: dimension('type', restrictionDimensions.type),
      by_scope: dimension('scope', restrictionDimensions.scope),
      by_ground: dimension('ground', restrictionDimensions.ground),
      by_category: dimension('category', restrictionDimensions.category),
      by_automated_detection: dimension('automated_detection', restrictionDimensions.automated_detection),
      by_automated_decision: dimension('automated_decision', restrictionDimensions.automated_decision),
      by_reason: byReason,
    },
    revocations,
    appeals: {
      ...appeals,
      median_seconds_to_decision: times.median,
      p90_seconds_to_decision: times.p90,
      by_moderator: [...byModerator],
    },
  };
};
const reportModerator: ReportModeratorRow = {
  moderator: { type: 'user', id: '8f2c41e0-3b1a-4d7e-9c55-2a6f0d9e7b13' },
  decided: 1,
  upheld: 0,
  overturned: 1,
  shortened: 0,
};
const reportFirstDay = reportCounts(
  {
    total: 3,
    type_cheat: 2,
    type_social: 1,
    scope_game: 1,
    scope_publisher: 1,
    scope_global: 1,
    ground_terms: 3,
    category_other_violation_tc: 2,
    category_illegal_or_harmful_speech: 1,
    automated_detection_true: 2,
    automated_detection_false: 1,
    automated_decision_fully: 2,
    automated_decision_not: 1,
  },
  0,
  { received: 1, decided: 0, upheld: 0, overturned: 0, shortened: 0 },
  { median: null, p90: null },
  { aimbot: 2, hate_speech: 1 },
  [],
);
const reportSecondDay = reportCounts(
  {
    total: 1,
    type_cheat: 1,
    scope_global: 1,
    ground_illegal: 1,
    category_scams_and_fraud: 1,
    automated_detection_false: 1,
    automated_decision_partially: 1,
  },
  1,
  { received: 0, decided: 1, upheld: 0, overturned: 1, shortened: 0 },
  { median: 5280, p90: 5280 },
  { fraud: 1 },
  [reportModerator],
);
const reportExample = {
  publisher_id: 'acme',
  from: '2026-03-01',
  to: '2026-03-02',
  days: 2,
  ...reportCounts(
    {
      total: 4,
      type_cheat: 3,
      type_social: 1,
      scope_game: 1,
      scope_publisher: 1,
      scope_global: 2,
      ground_terms: 3,
      ground_illegal: 1,
      category_other_violation_tc: 2,
      category_illegal_or_harmful_speech: 1,
      category_scams_and_fraud: 1,
      automated_detection_true: 2,
      automated_detection_false: 2,
      automated_decision_fully: 2,
      automated_decision_partially: 1,
      automated_decision_not: 1,
    },
    1,
    { received: 1, decided: 1, upheld: 0, overturned: 1, shortened: 0 },
    { median: 5280, p90: 5280 },
    { aimbot: 2, fraud: 1, hate_speech: 1 },
    [reportModerator],
  ),
  by_day: [
    { day: '2026-03-01', ...reportFirstDay },
    { day: '2026-03-02', ...reportSecondDay },
  ],
  computed_at: '2026-03-03T09:00:00.000Z',
};

export const operations = {
  health: {
    summary: 'Liveness check for load balancers',
    tag: 'Health',
    description: 'For load balancer checks: no authentication and no database call.',
    responses: {
      200: response(healthSchema, 'The service is running.', { ok: true }),
    },
  },

  getPolicy: {
    summary: "Read the caller's policy",
    tag: 'Policy',
    description:
      "The caller's policy: which ban scopes it enforces and which count toward reputation, and " +
      'whose global bans it trusts: `global_sources` (`"all"`, `{"only": [ids]}` or ' +
      '`{"except": [ids]}`) and `global_quorum` (how many distinct trusted publishers must hold an ' +
      'active global ban of a type before any of them applies), and the same pair for reputation ' +
      '(`rep_global_sources`, `rep_global_quorum`). A new publisher starts with every flag true ' +
      'except `enforce_social_global`, and `"all"` and 1 for trust, which apply every global ban alone.',
    responses: {
      200: response(policySchema, 'The full policy.', policy),
    },
  },

  updatePolicy: {
    summary: "Change some of the caller's policy flags",
    tag: 'Policy',
    description:
      'Send any subset of the eight flags and the four trust settings: only those change, ' +
      'atomically, so concurrent updates of different settings all take effect. `{}` changes ' +
      'nothing but `updated_at`. Unknown fields are a 400. `global_sources` and `rep_global_sources` ' +
      `are \`"all"\`, \`{"only": [ids]}\` or \`{"except": [ids]}\`: at most ${TRUST_SOURCES_MAX} ` +
      'publisher ids (1-64 characters of a-z 0-9 . _ -), none repeated (`duplicate`); your own id ' +
      'may be listed and is always trusted anyway. `global_quorum` and `rep_global_quorum` are ' +
      `whole numbers from 1 to ${QUORUM_MAX}. A bad value is a 400 naming it ` +
      '(`global_sources.only.3`) and changes nothing. A key bound to games is refused (403): the ' +
      'policy applies in every game.',
    request: { enforce_social_global: true, global_sources: { except: ['other-studio'] }, global_quorum: 2 },
    responses: {
      200: response(policySchema, 'The full policy after the update, with a new `updated_at`.', {
        ...policy,
        enforce_social_global: true,
        global_sources: { except: ['other-studio'] },
        global_quorum: 2,
        updated_at: NOW,
      }),
    },
  },

  previewPolicy: {
    summary: 'How many devices a policy change would restrict or free',
    tag: 'Policy',
    description:
      'The reach of a policy draft in the game of `X-Game-Id`, before saving it: send the body ' +
      '`PUT /v1/policy` would take (validated the same way: a bad value is a 400 naming it); nothing ' +
      'is saved. For each ban type, and for either type (`any`), the devices the draft would make ' +
      'restricted (`become_restricted`) and those it would stop restricting (`no_longer_restricted`), ' +
      "against the policy in force, judged as enforcement judges them (the trust settings' sources " +
      'and quorum included) over every ban in force that may restrict a device in this game: the ' +
      "publisher's game bans of this game, its publisher bans and every global ban. Publisher and " +
      'global bans apply in every game, so the counts differ between games only by their game bans. ' +
      'A key bound to games may ask for its games.',
    request: { enforce_social_global: true, global_quorum: 2 },
    responses: {
      200: response(policyReachSchema, 'The devices whose restriction the draft would change.', {
        game_id: 'game-1',
        evaluated_at: NOW,
        policy_updated_at: NOW,
        devices_with_bans: 1204,
        cheat: { become_restricted: 0, no_longer_restricted: 37 },
        social: { become_restricted: 112, no_longer_restricted: 4 },
        any: { become_restricted: 109, no_longer_restricted: 35 },
      }),
    },
  },

  getReasons: {
    summary: "Read the caller's reason catalogue",
    tag: 'Policy',
    description:
      "The reasons the publisher's moderators pick from when they make a ban, each with the ban it " +
      'fills in (type, scope, duration, player message), and whether `strict_reasons` refuses any ' +
      'other `reason_code`. Needs `policy:read` or `bans:write`. A publisher that never wrote one ' +
      'has `{"reasons": [], "strict_reasons": false, "updated_at": null}`.',
    responses: {
      200: response(reasonCatalogueSchema, 'The catalogue.', reasonCatalogue),
    },
  },

  putReasons: {
    summary: "Replace the caller's reason catalogue",
    tag: 'Policy',
    description:
      'Replaces the whole catalogue: at most 100 reasons, codes unique and following the rule of a ' +
      "ban's `reason_code`, labels of 1-80 characters, `duration_seconds` a positive whole number of " +
      "at most 10 years (null: permanent), `player_message` the rule of a ban's. With " +
      '`strict_reasons` on, `POST /v1/bans` refuses a `reason_code` not in it (400 naming ' +
      '`reason_code`); a repeated idempotency key still answers its original ban. Recorded in the ' +
      'audit trail as `reasons.updated`; not in the change feed (it changes no enforcement). Bad ' +
      'input is a 400 naming the field (`reasons.3.code`) and changes nothing. A key bound to games ' +
      'is refused (403): strict reasons hold the bans of every game.',
    request: {
      reasons: reasonCatalogue.reasons,
      strict_reasons: true,
    },
    responses: {
      200: response(
        reasonCatalogueSchema,
        'The catalogue as stored, with a new `updated_at`.',
        reasonCatalogue,
      ),
    },
  },

  getDeviceFormats: {
    summary: 'Read the device id formats your publisher declares',
    tag: 'Policy',
    description:
      'The platforms your device ids are made from and the prefix each carries, which the device ' +
      'search (`GET /v1/devices`) reads to find a bare platform id a report quotes. Needs ' +
      '`policy:read` or `bans:read`. A publisher that never declared any has ' +
      '`{"formats": [], "updated_at": null}`.',
    responses: {
      200: response(deviceFormatsSchema, 'The declared formats.', deviceFormats),
    },
  },

  putDeviceFormats: {
    summary: 'Declare the device id formats your publisher uses',
    tag: 'Policy',
    description:
      'Replaces the whole list: at most one format per platform (`steam`: a SteamID64, or ' +
      '`STEAM_X:Y:Z` read as its SteamID64; `xbox`: a XUID in decimal; `epic`: an Epic account id, ' +
      '32 hex digits, read in lower case), each with the `prefix` your device ids of that platform ' +
      'carry: 1-32 device-id characters ending in one of `: _ @ . = -`. A device search whose ' +
      '`prefix` is a whole platform id of a declared format then searches your spelling of it ' +
      '(`76561198000000001` → `steam:76561198000000001`) and says so in `normalised`. Changes no ' +
      'ban and no enforcement. Recorded in the audit trail as `device_formats.updated` (the formats ' +
      'after); not in the change feed. Bad input is a 400 naming the field (`formats.1.prefix`) and ' +
      "changes nothing. A key bound to games is refused (403): the formats are the whole publisher's.",
    request: { formats: deviceFormats.formats },
    responses: {
      200: response(deviceFormatsSchema, 'The formats as stored, with a new `updated_at`.', deviceFormats),
    },
  },

  listDsaStatements: {
    summary: 'Export your bans as statements for the DSA Transparency Database',
    tag: 'Audit',
    description:
      'Each ban your publisher made in the period (`from` <= made < `to`), newest first, as one ' +
      "statement in the JSON the Commission's DSA Transparency Database API takes (Art. 24(5)): " +
      "what a submitter POSTs to its statements endpoint with your platform's token (docs/player-rights.md). " +
      'Made from the ban as it is now and its statement of reasons: `decision_provision` ' +
      '(`PARTIAL` for a social ban or a game ban, else `TOTAL`; `SUSPENSION` when it ends, with ' +
      '`end_date_service_restriction`, else `TERMINATION`), the ground (`terms`: ' +
      '`DECISION_GROUND_INCOMPATIBLE_CONTENT` with the clause, the facts as its explanation, cut to ' +
      "2,000 characters, and the clause's address; `illegal`: the law and its explanation), " +
      '`content_type` (`CONTENT_TYPE_TEXT` for chat, else `CONTENT_TYPE_OTHER`), `category`, ' +
      '`territorial_scope`, `content_date` and `application_date` (the day it was made, UTC, ' +
      '`Y-m-d`), `decision_facts`, `source_type`, `automated_detection`, `automated_decision` and ' +
      '`puid` (`ban-<ban_id>`). The bans are found through the audit trail: an erased ban has no ' +
      'statement left and is counted in `not_exported`. Needs `audit:read` and a key for every game. ' +
      'Page with `next_cursor` until it is null; a page may hold fewer than `limit` statements.',
    responses: {
      200: response(dsaStatementPageSchema, 'A page of statements.', {
        items: [
          {
            decision_provision: 'DECISION_PROVISION_TOTAL_TERMINATION',
            decision_ground: 'DECISION_GROUND_INCOMPATIBLE_CONTENT',
            incompatible_content_ground: 'Terms of service, 7.3: no cheat software',
            incompatible_content_explanation:
              'Our anti-cheat found aim-assistance software running with the game on this device.',
            decision_ground_reference_url: 'https://acme.example/terms#7.3',
            content_type: ['CONTENT_TYPE_OTHER'],
            content_type_other: 'Conduct in an online game',
            category: 'STATEMENT_CATEGORY_OTHER_VIOLATION_TC',
            territorial_scope: [...EEA_COUNTRIES],
            content_date: '2026-03-03',
            application_date: '2026-03-03',
            decision_facts:
              'Our anti-cheat found aim-assistance software running with the game on this device.',
            source_type: 'SOURCE_VOLUNTARY',
            automated_detection: 'Yes',
            automated_decision: 'AUTOMATED_DECISION_FULLY',
            puid: 'ban-1077',
          },
        ],
        not_exported: 0,
        next_cursor: null,
      }),
    },
  },

  putPublisher: {
    summary: "Set the caller's name in the directory of publishers",
    tag: 'Policy',
    description:
      'Sets the name every publisher sees beside your global bans in `GET /v1/publishers`. ' +
      '`display_name`: 1-64 characters (code points: an emoji is one), stored exactly as sent, with ' +
      'no control characters (tabs and newlines included), no format characters (bidirectional ' +
      'marks, overrides and isolates, zero-width spaces, the byte order mark; the zero-width joiner ' +
      'and non-joiner are allowed), no line or paragraph separators, and a character that shows at ' +
      'either end (no space, combining mark, variation selector, joiner, Hangul filler or blank ' +
      'Braille pattern there); anything else is a 400 naming `display_name`, and changes nothing. A ' +
      "name that looks like another publisher's (the same Unicode TS #39 confusable skeleton: " +
      '"Dev Games" with a Cyrillic а, or with letters joined) is a 409 `conflict`, and changes ' +
      'nothing; the directory shows every name beside its publisher id. A name set before your ' +
      'first global ban shows once the directory lists you. Recorded in the audit trail as ' +
      '`publisher.updated` (the name before and after); not in the change feed. A key bound to ' +
      "games is refused (403): the name is the whole publisher's.",
    conflict: true,
    request: { display_name: 'Acme Games' },
    responses: {
      200: response(publisherProfileSchema, 'The name as stored, with a new `updated_at`.', {
        publisher_id: 'acme',
        display_name: 'Acme Games',
        updated_at: NOW,
      }),
    },
  },

  listPublishers: {
    summary: 'List the publishers that make global bans, with their track record',
    tag: 'Policy',
    description:
      'Every publisher that has made a global ban, in `publisher_id` order: its `display_name` (null ' +
      'until it sets one), `active_global_bans` (not revoked, not erased, not expired: to the second ' +
      'for bans lasting at most 6 hours, counted to the end of the hour or UTC day they end in for ' +
      'longer ones), `global_bans` (every one it made, erased ones included), `revoked_within_30_days` ' +
      '(revoked by it, or on an appeal it decided, within 30 days of being made), and ' +
      '`revoked_within_30_days_share`: of its `global_bans_past_30_days` (bans whose 30 days are over, ' +
      'counted from the UTC day after), the share revoked within them, null while there is none. ' +
      'Erasing a ban (a privacy deletion) ends it but is not a revocation. Counted as the change feed ' +
      'is written, so a ban shows here a moment after it is made. Any key may read it. Page with ' +
      '`next_cursor` until it is null.',
    responses: {
      200: response(directorySchema, 'A page of the directory.', {
        items: [
          {
            publisher_id: 'acme',
            display_name: 'Acme Games',
            active_global_bans: 1312,
            global_bans: 1480,
            revoked_within_30_days: 21,
            global_bans_past_30_days: 1203,
            revoked_within_30_days_share: 0.0158,
            first_global_ban_at: '2026-01-05T09:12:44.120Z',
            last_global_ban_at: NOW,
          },
          {
            publisher_id: 'blue-harbor',
            display_name: null,
            active_global_bans: 3,
            global_bans: 4,
            revoked_within_30_days: 1,
            global_bans_past_30_days: 0,
            revoked_within_30_days_share: null,
            first_global_ban_at: UPDATED_AT,
            last_global_ban_at: UPDATED_AT,
          },
        ],
        next_cursor: null,
      }),
    },
  },

  createBan: {
    summary: 'Record a ban against a device',
    tag: 'Bans',
    description:
      'Records a ban for the game named by `X-Game-Id`. With an `idempotency_key`, a repeat (same ' +
      'publisher, game and key) returns the original ban exactly as first created, whatever the new ' +
      'body says, and any number of concurrent requests with one key make exactly one ban. The body ' +
      'is strict: an unknown field (such as a misspelt `expire_at`) is a 400. With the reason ' +
      "catalogue's `strict_reasons` on (`PUT /v1/reasons`), a `reason_code` not in it is a 400 naming " +
      '`reason_code` (a repeated idempotency key still answers its original ban). When your own ' +
      'active ban (not revoked, not expired) of the same device, `ban_type`, `scope` and ' +
      '`reason_code` (and game, for a `game` ban) is in force already, the answer is 200 with that ban ' +
      'and `status: "already_active"` (its `reason_code`, `created_at` and `expires_at` too, whatever ' +
      'expiry was asked) and nothing is written; `allow_duplicate: true` makes a second ban anyway. ' +
      "Another publisher's ban never counts, and is never revealed. It is a check, not a lock: two " +
      'such creates arriving at the same instant may both make a ban. Every ban carries a ' +
      '`statement` of reasons (Digital Services Act, Art. 17): the fields `statement` gives, over ' +
      'those of the catalogue reason of `reason_code`, over the defaults (ground `terms` with the ' +
      'reason as the clause; the facts the `player_message`, else a sentence naming the reason; a ' +
      "key's ban detected and decided by automated means (`automated_decision: fully`), a person's " +
      'by hand (`not`); `own_initiative`; every EEA country; `other_violation_tc`). Ground `illegal` ' +
      'needs `legal_ground` and `illegal_explanation`; the fields of the other ground are a 400.',
    request: {
      device_id: DEVICE,
      ban_type: 'cheat',
      scope: 'global',
      reason_code: 'aimbot',
      expires_at: '2030-01-01T00:00:00Z',
      details: { match_id: 'm-20260304-77', detector: 'anticheat-v5' },
      player_message: 'This device is banned for using cheat software.',
      appealable: true,
      idempotency_key: 'report-991',
      statement: {
        terms_clause: 'Terms of service, 7.3: no cheat software',
        terms_url: 'https://acme.example/terms#7.3',
        facts: 'Our anti-cheat found aim-assistance software running with the game on this device.',
      },
    },
    responses: {
      201: response(banCreationResultSchema, 'A new ban was recorded.', created),
      200: response(
        banCreationResultSchema,
        'The idempotency key was used before: the original ban, unchanged (`idempotent_ok`). Or the same ban is in force already (`already_active`, with its `reason_code`, `created_at` and `expires_at`): nothing was written.',
        { ...created, status: 'idempotent_ok' },
      ),
    },
  },

  importBans: {
    summary: 'Import bans with their history',
    tag: 'Bans',
    description:
      'Imports up to 500 bans from another system (a migration), each row a ban as `POST /v1/bans` takes ' +
      'it plus its own `external_id` (your id of it) and its history: `created_at` (required, from ' +
      '1990-01-01 and not in the future), `expires_at` (may be past: the ban has ended) and ' +
      '`revoked_at` with `revoke_reason_code`. Needs the scope `bans:import`. A row without `game_id` ' +
      'is of the game `X-Game-Id` names. Each row is checked on its own: a bad one is `refused` with ' +
      'its `error` (field, issue, message) and nothing is stored for it, while the others go on; only a ' +
      'body that is not this shape (no rows, over 500, a bad `batch_id`) is a 400. An `external_id` ' +
      'imported before answers `already_imported` (the same content) or `changed` with ' +
      '`changed_fields` (nothing is applied: the first import stands). A repeat of the same ' +
      '`batch_id` answers its rows `created` again with the same ban ids, so a batch whose answer was ' +
      'lost is safe to send again; other rows under a `batch_id` already used are a 409 `conflict`, ' +
      'and nothing is stored. An imported ban is a ban like any other (listings, enforcement, ' +
      "the feed's `ban.created`, and `ban.revoked` for a revoked one); its id sorts by `created_at`. " +
      "A row may carry `appeals` as `GET /v1/exports/bans` writes them: the ban owner's own appeal " +
      'is made an appeal of the imported ban (filed and decided by your key, with its times, texts and ' +
      'decision, in your queue); one another publisher filed is not imported. ' +
      'Webhooks get one `bans.imported` event per batch instead of an event per ban or appeal. `dry_run: true` ' +
      'checks and looks up every row and writes nothing (a new row answers `created` with `ban_id` null). ' +
      'The body may be up to 1 MiB (other routes: 64 KiB). ' +
      'An import runs at most 1,000 rows (`IMPORT_BACKLOG_ROWS`) ahead of its events, so the bans you make ' +
      'meanwhile reach the feed at once: a batch sent while more of your rows than that still wait for ' +
      'theirs is a 429 `rate_limited` with `Retry-After`, and nothing of it is stored (a dry run never waits). ' +
      'The rules: docs/import-export.md.',
    conflict: true,
    request: {
      batch_id: 'legacy-2019:1',
      rows: [
        {
          external_id: 'legacy:4711',
          device_id: 'steam:76561197960287930',
          ban_type: 'cheat',
          scope: 'game',
          reason_code: 'aimbot',
          created_at: '2019-03-04T12:00:00Z',
          expires_at: null,
          player_message: 'This device is banned for using cheat software.',
        },
        {
          external_id: 'legacy:4712',
          device_id: 'steam:76561197960287931',
          ban_type: 'social',
          scope: 'game',
          reason_code: 'harassment',
          created_at: '2019-03-05T08:30:00Z',
          expires_at: '2019-04-05T08:30:00Z',
          revoked_at: '2019-03-06T10:00:00Z',
          revoke_reason_code: 'appeal_granted',
        },
        {
          external_id: 'legacy:4713',
          device_id: 'steam:76561197960287932',
          ban_type: 'cheat',
          scope: 'game',
          reason_code: 'wallhack',
          created_at: '2031-01-01T00:00:00Z',
        },
      ],
    },
    responses: {
      200: response(importResultSchema, 'What became of each row, in their order.', {
        batch_id: 'legacy-2019:1',
        dry_run: false,
        counts: { created: 1, already_imported: 1, changed: 0, refused: 1 },
        rows: [
          {
            index: 0,
            external_id: 'legacy:4711',
            status: 'created',
            ban_id: 42_107_023_851_520,
            device_id: 'steam:76561197960287930',
          },
          {
            index: 1,
            external_id: 'legacy:4712',
            status: 'already_imported',
            ban_id: 42_107_023_884_288,
            device_id: 'steam:76561197960287931',
          },
          {
            index: 2,
            external_id: 'legacy:4713',
            status: 'refused',
            ban_id: null,
            device_id: 'steam:76561197960287932',
            error: { field: 'created_at', issue: 'in_future', message: 'must not be in the future' },
          },
        ],
      }),
    },
  },

  listSocialBans: {
    summary: 'List the social bans of a device that the caller can see',
    tag: 'Bans',
    description:
      'The social bans of the device that the caller can see, newest first. Visibility, paging and `counts` are described under the Bans tag.',
    responses: {
      200: response(banListSchema, 'One page of social bans.', {
        device_id: DEVICE,
        status: 'all',
        counts: { active: 1, inactive: 1, total: 2 },
        items: [socialBan, expiredBan],
        next_cursor: null,
      }),
    },
  },

  listCheatBans: {
    summary: 'List the cheat bans of a device that the caller can see',
    tag: 'Bans',
    description:
      'The cheat bans of the device that the caller can see, newest first. Visibility, paging and `counts` are described under the Bans tag.',
    responses: {
      200: response(banListSchema, 'One page of cheat bans.', {
        device_id: DEVICE,
        status: 'active',
        counts: { active: 1, inactive: 0, total: 1 },
        items: [cheatBan],
        next_cursor: null,
      }),
    },
  },

  listBans: {
    summary: 'List the bans of every type (or of one, with ?type=) of a device that the caller can see',
    tag: 'Bans',
    description:
      'The bans of every type (or of one, with `type`) of the device that the caller can see, newest first. Visibility, paging and `counts` are described under the Bans tag.',
    responses: {
      200: response(banListSchema, 'One page of bans.', {
        device_id: DEVICE,
        status: 'active',
        counts: { active: 2, inactive: 1, total: 3 },
        // A page of one (limit=1): the next page starts below the cheat ban.
        items: [cheatBan],
        next_cursor: cheatBan.ban_id,
      }),
    },
  },

  revokeBan: {
    summary: 'Revoke one of your own bans',
    tag: 'Bans',
    description:
      'Undoes a wrong ban: sets `revoked_at` and `revoke_reason_code` and makes it inactive for ' +
      'everyone at once; it stays in history. Only the publisher that made the ban may revoke it, ' +
      'and a `game` ban only through its own game (`X-Game-Id`): otherwise it is a 404, as for a ban ' +
      'that does not exist. Revoking again returns the ban unchanged.',
    notFound: true,
    request: { reason_code: 'appeal_upheld' },
    responses: {
      200: response(revokedBanSchema, 'The revoked ban.', {
        ...socialBan,
        revoked_at: NOW,
        enforced: false,
        revoke_reason_code: 'appeal_upheld',
      }),
    },
  },

  getEnforcement: {
    summary: 'Whether a device is restricted in this game under your policy, why, and its reputation',
    tag: 'Enforcement',
    description:
      'One call at login or matchmaking. `bans` holds the active bans that apply under your policy, ' +
      'each with `rule`: the policy flags that make it apply. A `game` ban applies when ' +
      '`enforce_game`; a `publisher` ban when `enforce_publisher`; a `global` ban of type T when ' +
      "`enforce_global` and `enforce_T_global`, and, for another publisher's, when your " +
      '`global_sources` trust it and at least `global_quorum` distinct trusted publishers hold an ' +
      'active global ban of type T on the device (yours count too; your own global ban applies ' +
      'alone). `not_enforced` lists every other active ban of the device and why it does not ' +
      'apply: `policy`, `untrusted_source`, or `quorum` with `have` of `need`, and an ' +
      '`explanation` in words. `reputation.score` is max(0, 100 - sum of count x weight) over the ' +
      'scopes your `rep_include_*` flags include, global bans as `rep_global_sources` and ' +
      '`rep_global_quorum` allow. One policy read and one Query of the device, whatever the settings.',
    responses: {
      200: response(
        enforcementSchema,
        'Whether the device is restricted, why, and its reputation.',
        enforcement,
      ),
    },
  },

  getEnforcementBatch: {
    summary: 'The enforcement answer for up to 100 devices (a lobby) at once',
    tag: 'Enforcement',
    description:
      'The enforcement answer for 1 to 100 devices (a lobby), in request order. The ids are strings: ' +
      'a string that is not a valid id gets an error entry of its own without failing the others.',
    request: { device_ids: [DEVICE, 'bad id'] },
    responses: {
      200: response(enforcementBatchSchema, 'One result per requested id, in request order.', {
        game_id: GAME,
        evaluated_at: NOW,
        policy_updated_at: UPDATED_AT,
        results: [
          enforcement,
          {
            device_id: 'bad id',
            error: {
              code: 'invalid_request',
              message: 'device_ids.1 must be 1-128 characters of A-Z a-z 0-9 . _ ~ : @ + = -',
              details: [{ field: 'device_ids.1', issue: 'invalid_format' }],
            },
          },
        ],
      }),
    },
  },

  getEnforcementSnapshot: {
    summary: 'Every ban that can restrict a device in this game now, in pages, and a feed cursor',
    tag: 'Enforcement',
    description:
      'For a game server that keeps its own copy of what enforcement needs: every active ban (not ' +
      'revoked, not expired) the caller can see from `X-Game-Id` (its `game` bans of this game, its ' +
      "`publisher` bans, every publisher's `global` bans), of every type and scope whatever the " +
      'policy enforces today (a later `policy.updated` may turn a scope on), each with its ' +
      '`device_id` and as a listing shows it (`enforced` under the policy now; `created_by` null, as ' +
      "in the feed), and the caller's `policy`. `feed_cursor`, the same on every page, is a " +
      '`GET /v1/events` cursor taken before the first page was read: take every page (pass ' +
      '`next_cursor` until it is null; a page may hold fewer than `limit`), then read the feed from ' +
      '`feed_cursor` and apply each event (`ban.created`, `ban.updated`: put the ban; `ban.revoked`, ' +
      '`ban.erased`: remove it; `policy.updated`: the new policy): the copy is then exact, whatever ' +
      'was written while the snapshot was read. `deployment_id` names the store the snapshot was ' +
      "read from, as the feed's pages do: keep it with the copy, and resync from a new snapshot " +
      'when the feed answers another. A cursor is bound to the publisher and game it was ' +
      "returned for: another's is a 400.",
    responses: {
      200: response(enforcementSnapshotSchema, 'A page of live bans, the policy, and the feed cursor.', {
        game_id: GAME,
        policy,
        feed_cursor: 'ZjEucHl6MDIwUnlPSFhHLjMuMS4x',
        deployment_id: DEPLOYMENT_ID,
        items: [
          { device_id: DEVICE, ...socialBan, created_by: null },
          { device_id: 'device-19c2e0', ...cheatBan },
        ],
        next_cursor: null,
      }),
    },
  },

  createKey: {
    summary: 'Make a key for your publisher, with some of your own scopes and games',
    tag: 'Keys',
    description:
      "Makes a key for the caller's publisher and answers its secret `api_key`, shown this once (only " +
      'its hash is stored). A key never grants more than the calling key holds: a scope it lacks, or, ' +
      'when the calling key is bound to games, a game outside them (or every game, by leaving out ' +
      '`games`), or, when it expires, a later `expires_at` (or none), is a 400 naming the field, and ' +
      'nothing is made. Without `games` the key may name any ' +
      'game; without `expires_at` it does not expire. A publisher holds at most 100 live (unrevoked) ' +
      'keys: past that, a 409 `conflict` until one is revoked.',
    conflict: true,
    request: {
      name: 'eu game servers',
      scopes: ['bans:read', 'bans:write'],
      games: [GAME],
      expires_at: '2027-06-30T00:00:00Z',
    },
    responses: {
      201: response(newApiKeySchema, 'The new key, with its secret.', {
        key_id: serverKey.key_id,
        api_key: 'bsk_0dGm4Qe7xW2sKp9LrVb1Ny8HcTu3Jf6ZaEo5Ii_Xq-Y',
        name: serverKey.name,
        scopes: serverKey.scopes,
        games: serverKey.games,
        created_at: serverKey.created_at,
        expires_at: serverKey.expires_at,
      }),
    },
  },

  listKeys: {
    summary: "List your publisher's keys, without their secrets",
    tag: 'Keys',
    description:
      "The caller's publisher's keys in `key_id` order, revoked ones included, each with its last 4 " +
      'characters to tell it apart (null for keys made before they were kept) and who made it ' +
      '(`created_by`: a key, the operator, or a person; null for keys made before it was recorded); ' +
      'never a secret, and when it was last used (`last_used_at`: to within 10 minutes, since the ' +
      'authorizer notes a use at most every 5 minutes per key and a deployed gateway caches its answer ' +
      'for 300 s; null when it has not been used since this was kept). Page with `next_cursor` until it is null.',
    responses: {
      200: response(apiKeyListSchema, "The publisher's keys.", {
        items: [
          {
            key_id: 'key_Qm3vX8pLr2Tz',
            name: 'operations',
            scopes: ['bans:read', 'bans:write', 'policy:read', 'policy:write', 'keys:manage', 'audit:read'],
            games: null,
            created_at: '2026-01-05T09:00:00.000Z',
            created_by: { type: 'key', key_id: null, name: 'operator' },
            expires_at: null,
            revoked_at: null,
            last4: 'k9Qa',
            last_used_at: '2026-03-02T08:40:00.000Z',
          },
          { ...serverKey, last_used_at: null },
        ],
        next_cursor: null,
      }),
    },
  },

  listPeople: {
    summary: "List your publisher's people",
    tag: 'People',
    description:
      "The people who sign in to the console for the caller's publisher, by email: role, whether they may " +
      'sign in (`enabled`), `invited` until their first sign-in, and their last sign-in where the provider ' +
      'tells it (the local provider; null on Cognito). A deployment whose people sign in at its own ' +
      'identity provider manages them there: 404.',
    notFound: true,
    responses: {
      200: response(personListSchema, "The publisher's people.", { items: [adminPerson, moderatorPerson] }),
    },
  },

  invitePerson: {
    summary: 'Invite a person to your publisher, with a role',
    tag: 'People',
    description:
      'Makes an account for the email with the role (`viewer`, `moderator` or `admin`) and sends the ' +
      'invitation: deployed, Cognito emails a temporary password, changed at the first sign-in (with a ' +
      'second factor set up); locally, `temporary_password` is the password, shown this once. An email ' +
      'that already has an account, with any publisher, is a 409 `conflict`. Audited as `person.invited`.',
    notFound: true,
    conflict: true,
    request: { email: 'sam@example.com', role: 'moderator' },
    responses: {
      201: response(invitedPersonSchema, 'The invited person.', {
        ...moderatorPerson,
        status: 'invited',
        last_sign_in_at: null,
        temporary_password: null,
      }),
    },
  },

  updatePerson: {
    summary: "Change a person's role, or disable or re-enable them",
    tag: 'People',
    description:
      'Changes only what is sent: `role`, and `enabled` (false: they cannot sign in, and their session is ' +
      'not renewed). It holds from their next sign-in or token renewal: a token already issued works ' +
      'until it expires (at most 15 minutes, plus up to 300 s of the authorizer cache). A change that ' +
      'would leave the publisher without an enabled admin is a 409 `conflict`, and nothing changes. ' +
      "Another publisher's person is a 404. A request that changes nothing answers the person and records " +
      'nothing; any other is audited as `person.updated`, before and after.',
    notFound: true,
    conflict: true,
    request: { enabled: false },
    responses: {
      200: response(personSchema, 'The person, as they are now.', { ...moderatorPerson, enabled: false }),
    },
  },

  revokeKey: {
    summary: "Revoke one of your publisher's keys",
    tag: 'Keys',
    description:
      'Revokes the key at once (a deployed API may accept it for up to its authorizer cache time, ' +
      "300 s by default). Another publisher's key id is a 404, as an unknown one. A key may revoke " +
      'itself, and any key holding no scope or game it lacks itself; a key holding more is a 403 naming ' +
      'what the caller lacks. Revoking again answers the key with its first `revoked_at`.',
    notFound: true,
    responses: {
      200: response(apiKeySchema, 'The revoked key.', { ...serverKey, revoked_at: NOW }),
    },
  },

  listAudit: {
    summary: "Read your publisher's audit trail",
    tag: 'Audit',
    description:
      "The caller's own publisher's events, newest first: `ban.created`, `ban.revoked`, `policy.updated` " +
      '(the eight flags before and after), `key.created`, `key.revoked`, `device.erased` (a count, not the ' +
      "bans), `webhook.created`, `webhook.deleted` (by the URL's origin, never the secret), `webhook.tested` (a test event sent, and its `test_event_id`), `reasons.updated` (the catalogue's codes and `strict_reasons` after it), `publisher.updated` (the directory name before and after), `data.exported` (an export read: its `kind` and `as_of`, and the `device_id` of a device's data). Each names its `actor`: the key that made the change (its id and name then), or the " +
      "operator's keys tool (`key_id` null). Every change that took effect has exactly one event; a " +
      'repeated request (an idempotency key, a second revoke) adds none. Filter by `actor`, `device_id`, ' +
      '`type` and a time range (`from` <= occurred_at < `to`), in any combination; page with `next_cursor` ' +
      'until it is null. A cursor holds its filters: sent with other filters it is a 400. With a filter ' +
      'that matches few events a page may hold fewer than `limit` items and still have a `next_cursor`.',
    responses: {
      200: response(auditListSchema, 'A page of events.', {
        items: [
          {
            type: 'ban.revoked',
            event_id: 'evt_Qm3vX8pLr2Tz4KwB9sC1aEo5',
            occurred_at: NOW,
            actor: { type: 'key', key_id: 'key_Qm3vX8pLr2Tz', name: 'moderation tool' },
            device_id: DEVICE,
            ban_id: socialBan.ban_id,
            ban_type: socialBan.ban_type,
            scope: socialBan.scope,
            game_id: GAME,
            reason_code: socialBan.reason_code,
            revoke_reason_code: 'appeal.accepted',
          },
          {
            type: 'policy.updated',
            event_id: 'evt_7hTq2WmZp0LdVb1Ny8HcTu3J',
            occurred_at: UPDATED_AT,
            actor: { type: 'key', key_id: 'key_Qm3vX8pLr2Tz', name: 'moderation tool' },
            before: { ...defaultPolicyFlags, ...defaultPolicyTrust, enforce_global: false },
            after: { ...defaultPolicyFlags, ...defaultPolicyTrust },
          },
        ],
        next_cursor: 'MjAyNi0wMy0wMlQxMDoxNTowMC4wMDBaI2V2dF83aFRxMldtWnAwTGRWYjFOeThIY1R1M0o',
      }),
    },
  },

  eraseDevice: {
    summary: "Erase your publisher's bans on a device",
    tag: 'Bans',
    description:
      "Deletes every ban the caller's publisher owns on the device, whatever its scope or game, and the " +
      "idempotency records holding copies of them; other publishers' bans stay. The audit keeps one " +
      '`device.erased` event with the count. Safe to retry: a retry after a failure finishes the erasure ' +
      'and answers the whole count (0 if the failed attempt had in fact finished: the audit has the ' +
      'count); concurrent erasures of one device are one erasure, with one event. Once done, erasing ' +
      'again answers 0 and records nothing. A key bound to games is refused (403): erasure covers ' +
      "every game. A later request that repeats an erased ban's idempotency key makes a new ban.",
    responses: {
      200: response(erasureSchema, 'What was erased.', { device_id: DEVICE, erased_bans: 3 }),
    },
  },

  listDevices: {
    summary: 'Find the devices you have banned by the start or the end of their id',
    tag: 'Bans',
    description:
      'The devices your publisher has ever banned (whatever their bans are now: revoked and expired ' +
      'ones count) whose id begins with `prefix`, in id order, or ends with `suffix` (both: both hold), in ' +
      'order of the id read backwards, with when you first and last banned each ' +
      "and in which games. For a report that names part of an id; the device's bans are then its " +
      "listing's answer. Without either, every such device. A key bound to games finds the devices " +
      'banned in its games and sees only those games. Erasing a device removes it. Devices banned ' +
      'before this index existed (2026-11-26) are found once banned again, and by `suffix` only if ' +
      'banned after 2026-11-28. The first page of a `prefix` search also lists in `others_global` the ' +
      "devices beginning with it that only other publishers' global bans in force name. A `prefix` " +
      'that is a whole platform id of a format your publisher declares (`PUT /v1/device-formats`) ' +
      'is searched as your spelling of it, and `normalised` names what was typed and what was ' +
      'searched; `as_typed=true` searches it as typed. A suffix is never read that way.',
    responses: {
      200: response(bannedDeviceListSchema, 'A page of devices.', {
        items: [
          {
            device_id: DEVICE,
            first_banned_at: '2026-03-01T12:00:00.000Z',
            last_banned_at: NOW,
            games: ['game-1', 'game-2'],
          },
        ],
        next_cursor: null,
        others_global: [{ device_id: `${DEVICE}-b`, publishers: ['globex'] }],
      }),
    },
  },

  listGames: {
    summary: 'List the games you have made bans in',
    tag: 'Bans',
    description:
      'Every game your publisher has made a ban in (the `X-Game-Id` of the create, whatever its ' +
      'scope), in id order, so a game id nothing was ever banned in (a typo) can be told from a ' +
      "clean device's empty answer. A game stays listed once used. Filled in from each new ban's " +
      'event, so a ban made a moment ago may not show yet; bans made before this listing existed ' +
      '(2026-11-28) count once a ban is made in their game again. A key bound to games sees those ' +
      'of its games that are listed.',
    responses: {
      200: response(gamesUsedSchema, 'The games, in id order.', { games: ['game-1', 'game-2'] }),
    },
  },

  listExpiringBans: {
    summary: 'List your bans in force that end within the next hours, soonest first',
    tag: 'Bans',
    description:
      'Your bans (any type and scope) that are in force now and end within the next `within_hours` ' +
      '(1 to 168, default 24), soonest first: the device, the ban, the game it was made in and who ' +
      'made it. Revoked bans are not listed; a ban an appeal shortened is listed at its new end. A ' +
      'key bound to games sees the bans made in its games. A page may hold fewer than `limit` bans ' +
      'when entries it read were revoked meanwhile; page with `next_cursor` until it is null. Bans ' +
      'made before this listing existed (2026-11-26) are not in it.',
    responses: {
      200: response(expiringBanListSchema, 'A page of bans, soonest end first.', {
        items: [
          {
            device_id: DEVICE,
            ban_id: 58292032491009,
            ban_type: 'social',
            scope: 'game',
            game_id: 'game-1',
            reason_code: 'chat.spam',
            created_at: '2026-03-01T12:00:00.000Z',
            expires_at: '2026-03-02T12:00:00.000Z',
            created_by: { type: 'key', key_id: 'key_Qm3vX8pLr2Tz', name: 'moderation tool' },
          },
        ],
        next_cursor: null,
      }),
    },
  },

  listEvents: {
    summary: 'Read the change feed: what changed that you can see, oldest first',
    tag: 'Events',
    description:
      'The changes the caller can see for `X-Game-Id`, oldest first: `ban.created`, `ban.revoked` and ' +
      '`ban.erased` (with `device_id` and the ban as a listing shows it: your own `game` bans for this ' +
      "game, your `publisher` bans, and every publisher's `global` bans, with `details_json` null on " +
      "another publisher's; an erased ban has `details_json` null and `enforced` false), and " +
      '`policy.updated` (with `device_id` null and your policy as it is after the change), and the ' +
      '`appeal.created` and `appeal.decided` events of the appeals of your bans and of those you filed ' +
      "(a key bound to games: as owner, of its games' `game` bans; as filer, those filed from its games). Start " +
      'without `cursor`, then pass the last `next_cursor`: it is always present, and a page with no ' +
      'items means you are caught up (ask again later with the same cursor). From any cursor each ' +
      'event comes exactly once. A cursor is bound to the publisher and game it was returned for: ' +
      "another's is a 400. A cursor ahead of the feed's end (a state from another deployment, see " +
      '`deployment_id`, or a store restored from an older backup) is a 400 with `cursor` issue ' +
      '`ahead_of_feed`: resync from `GET /v1/enforcement/snapshot`. `delay_ms` is how far the feed ' +
      'itself is behind the writes: how long the newest event the page reaches waited between its ' +
      'change and its append to the feed (null while none of your partitions holds an event). ' +
      'Events are kept for the ' +
      'retention (`EVENT_RETENTION_DAYS`, 30 days by ' +
      'default), then are gone: a cursor that points before a gone event is a 410 `cursor_expired` ' +
      '(resync from `GET /v1/enforcement/snapshot` and read on from its `feed_cursor`); without ' +
      '`cursor` the feed starts at the oldest event kept, never a 410. A new event may show up to ' +
      'a second after it is in the feed (pages are shared between polls for a second).',
    expires: true,
    responses: {
      200: response(feedPageSchema, 'A page of events, oldest first, and where to read on from.', {
        items: feedEvents,
        next_cursor: 'ZjEucHl6MDIwUnlPSFhHLjMuMS4x',
        deployment_id: DEPLOYMENT_ID,
        delay_ms: 840,
      }),
    },
  },

  createWebhook: {
    summary: 'Register a webhook: an https URL your events are POSTed to',
    tag: 'Webhooks',
    description:
      "Registers a URL that receives the caller's events (the change feed's items, see the Webhooks " +
      'tag), and answers its signing `secret` (`whsec_…`), shown this once. The URL must be `https` ' +
      '(and not a private, loopback or link-local address): otherwise a 400 with `url` issue ' +
      '`not_allowed`. The local server (`npm start`) also accepts `http://127.0.0.1` and ' +
      '`http://localhost` for development. `events` defaults to all four; `games` limits the `game` ' +
      'bans sent to those games (absent: every game). A publisher has at most 10 webhooks: an 11th ' +
      'is a 400 with `url` issue `limit_reached`. A webhook is a standing read: its events need ' +
      '`bans:read` (ban events) and `policy:read` (`policy.updated`), else a 400 with `events` issue ' +
      '`not_held`; a key bound to games must name games, all its own, else a 400 with `games` issue ' +
      '`not_held`. Audited as `webhook.created`.',
    request: {
      url: WEBHOOK_URL,
      events: ['ban.created', 'ban.revoked', 'ban.erased'],
      games: [GAME],
    },
    responses: {
      201: response(newWebhookSchema, 'The new webhook, with its signing secret.', {
        ...moderationWebhook,
        secret: 'whsec_q8nMgRWh+5g9FhaS9TFaO6/g2J55m+QhLHzC3yIrmWc=',
      }),
    },
  },

  listWebhooks: {
    summary: "List your publisher's webhooks, without their secrets",
    tag: 'Webhooks',
    description:
      "Every webhook of the caller's publisher, oldest first; never a secret. Each with its `health`: " +
      'how its latest delivery attempt ended (`last_attempt_at`, `last_outcome` `delivered` or ' +
      '`failed`, `last_status`, `last_error`), when one last got a 2xx (`last_delivered_at`), and ' +
      '`failures_24h`, the attempts that failed in the current hour and the 23 before it (each ' +
      'retry is an attempt). A key bound to games lists the webhooks within its games.',
    responses: {
      200: response(webhookListSchema, "The publisher's webhooks.", {
        items: [
          {
            ...moderationWebhook,
            health: {
              last_attempt_at: '2026-03-04T18:21:05.912Z',
              last_outcome: 'failed',
              last_status: 503,
              last_error: 'http status 503',
              last_delivered_at: '2026-03-04T09:12:41.302Z',
              failures_24h: 2,
            },
          },
          {
            webhook_id: 'wh_sIhJzNXpmo3pZtJR',
            url: 'https://ops.acme.example/hooks/policy',
            events: ['policy.updated'],
            games: null,
            created_at: '2026-03-03T14:27:19.046Z',
            health: {
              last_attempt_at: null,
              last_outcome: null,
              last_status: null,
              last_error: null,
              last_delivered_at: null,
              failures_24h: 0,
            },
          },
        ],
      }),
    },
  },

  deleteWebhook: {
    summary: "Delete one of your publisher's webhooks",
    tag: 'Webhooks',
    description:
      'Deletes the webhook at once: nothing more is sent to it, including retries of deliveries still ' +
      "pending. Another publisher's webhook id is a 404, as an unknown one (or one already deleted).",
    notFound: true,
    responses: {
      204: noContent('The webhook is deleted. No body.'),
    },
  },

  listWebhookDeliveries: {
    summary: "List a webhook's deliveries and how each went",
    tag: 'Webhooks',
    description:
      'One delivery per event sent to the webhook, newest event first: `pending` (being tried; ' +
      '`next_attempt_at` says when again), `delivered` (a 2xx answer) or `failed` (retried for at ' +
      'least 24 hours without one; the feed still has the event). `last_status` and `last_error` tell how the ' +
      'last attempt went. `status` keeps the deliveries in one state (what is failing now: ' +
      '`status=pending`). A page may hold fewer than `limit` after 1,000 deliveries read, and ' +
      '`next_cursor` goes on from there. Page with `next_cursor` until it is null. A settled ' +
      "delivery is kept for the events' retention (`EVENT_RETENTION_DAYS`, 30 days by default), then " +
      'is gone from the listing. ' +
      "Another publisher's webhook id is a 404, as an unknown one.",
    notFound: true,
    responses: {
      200: response(deliveryListSchema, 'A page of deliveries, newest first.', {
        items: deliveries,
        // A page of two (limit=2): the next page starts below the second.
        next_cursor: 'MjAyNi0wMy0wNFQwOToxMjo0MC4yMjdaI2V2dF9JSDRCN1JGN1pvMnBpSHViS1BKc3l6OTE',
      }),
    },
  },

  testWebhook: {
    summary: 'Send a test event to one of your webhooks',
    tag: 'Webhooks',
    description:
      'Queues one `webhook.test` event to this webhook only, delivered like every event: signed with ' +
      "the webhook's secret, retried the same way, listed among its deliveries (`status` `pending` " +
      'now) and counted in its `health`. The body is `{event_id, type: "webhook.test", occurred_at, ' +
      'device_id: null, publisher_id, webhook_id}`: no ban. Not in the change feed; audited as ' +
      '`webhook.tested` (its `test_event_id` is this `event_id`); each call sends a new event. A key bound to games tests only the ' +
      "webhooks within its games. Another publisher's webhook id is a 404, as an unknown or deleted one.",
    notFound: true,
    responses: {
      202: response(webhookTestSchema, 'The test delivery, queued: follow it in the deliveries listing.', {
        webhook_id: 'wh_q2KpV5gziZvdbeOf',
        event_id: 'evt_Tq0CUMGxTqRrz6pWcAX2MsVb',
        type: 'webhook.test',
        device_id: null,
        ban_id: null,
        occurred_at: NOW,
        status: 'pending',
        attempts: 0,
        last_attempt_at: null,
        last_status: null,
        last_error: null,
        next_attempt_at: NOW,
        delivered_at: null,
      }),
    },
  },

  createAppeal: {
    summary: "File a player's appeal of a ban enforced against their device",
    tag: 'Appeals',
    description:
      "A game server or support site files on the player's behalf, from the game they play (`X-Game-Id`). " +
      'Only a ban the caller can see, that is active and enforced against the device in that game under ' +
      'its policy, and that was made `appealable`, can be appealed (else a 409 saying which); a ban it ' +
      'cannot see is a 404. Each publisher appeals a ban once (from any of its games): its second appeal ' +
      "is a 409 naming its first, and another publisher's appeal never stops it filing its own. A repeat " +
      'of the same appeal (the same `idempotency_key`, or without one the same words from the same game) ' +
      "answers 200 with the appeal as it is now. The appeal belongs to the ban's owner, who decides it; " +
      'the filer follows it with `GET /v1/appeals/{appeal_id}`, the feed or webhooks.',
    notFound: true,
    conflict: true,
    request: {
      device_id: DEVICE,
      ban_id: 1042,
      message: 'I was not cheating: my brother used my account that evening.',
      contact: 'player@example.com',
      idempotency_key: 'support-ticket-88121',
    },
    responses: {
      201: response(appealCreationSchema, 'The appeal, filed now.', { ...appealOpen, result: 'created' }),
      200: response(appealCreationSchema, 'The appeal filed earlier by the same request.', {
        ...appealOpen,
        result: 'idempotent_ok',
      }),
    },
  },

  listAppeals: {
    summary: "Your bans' appeals: the open queue, oldest first",
    tag: 'Appeals',
    description:
      'The appeals of your bans: `status=open` (the default) oldest first, `decided` newest decision ' +
      'first, `all` the open ones then the decided ones. `ban_id` and `device_id` narrow it; with them a ' +
      'page may hold fewer than `limit` after 1,000 appeals read, and `next_cursor` goes on from there. ' +
      'Page with `next_cursor` until it is null. A key bound to games is refused (the queue spans every game).',
    responses: {
      200: response(appealListSchema, 'A page of appeals.', { items: [appealOpen], next_cursor: null }),
    },
  },

  appealStats: {
    summary: 'How your appeals queue is doing',
    tag: 'Appeals',
    description:
      "Open appeals and the oldest one's age, and over the last 30 days (UTC days, today included) the " +
      'decisions by outcome and the median and 90th percentile time from filing to decision (nearest ' +
      'rank, in seconds; null without decisions). Each complete day is read once, then kept as a rollup: ' +
      "a call reads the open queue, the rollups and today's decisions, never every appeal.",
    responses: {
      200: response(appealStatsSchema, 'The numbers.', {
        open: 12,
        oldest_open_at: '2026-03-02T09:00:00.000Z',
        oldest_open_age_seconds: 206431,
        window_days: 30,
        decided: 57,
        outcomes: { upheld: 41, overturned: 11, shortened: 5 },
        time_to_decision_seconds: { median: 14400, p90: 86400 },
        computed_at: NOW,
      }),
    },
  },

  getAppeal: {
    summary: 'One appeal',
    tag: 'Appeals',
    description:
      "The ban's owner sees all of it, with `appeals:decide`; the publisher that filed it sees its status, " +
      'outcome and what the player is shown, with `decision.note` and `decision.decided_by` null. A key with ' +
      '`appeals:write` alone reads only the appeals its publisher filed, in that view, even of its own ' +
      "publisher's bans. Anyone else's appeal is a 404, as an unknown id. After an erasure of the device, " +
      '`message` and `contact` are null.',
    notFound: true,
    responses: { 200: response(appealSchema, 'The appeal.', appealDecided) },
  },

  decideAppeal: {
    summary: 'Decide an appeal of one of your bans',
    tag: 'Appeals',
    description:
      '`upheld` keeps the ban; `overturned` revokes it as a revoke does (`revoke_reason_code` ' +
      '`appeal_overturned`); `shortened` moves its expiry to `expires_at`, which must be in the future ' +
      "and earlier than the ban's expiry. `player_message` replaces what the player is shown; `note` " +
      'stays yours. An appeal is decided once: another decision is a 409; the same decision again ' +
      'answers 200 and finishes anything a fault left undone (until then `decision.applied_at` is null). ' +
      'A decision on a ban revoked or erased meanwhile is recorded and changes nothing more (`shortened` ' +
      'is then a 409: there is no expiry left to move).',
    notFound: true,
    conflict: true,
    request: {
      outcome: 'overturned',
      note: 'Account shared: the owner proved the match was played from another device.',
      player_message: 'Your appeal was accepted and the ban was lifted.',
    },
    responses: { 200: response(appealSchema, 'The decided appeal.', appealDecided) },
  },

  claimAppeal: {
    summary: 'Claim an open appeal for a while, so that no one else works it',
    tag: 'Appeals',
    description:
      'Holds the appeal for `duration_seconds` (60 to 3600; 900 when absent): the queue and the appeal ' +
      'show `claimed_by` and `claimed_until`, and until then a decision by anyone else is a 409. Claiming ' +
      "it again renews your claim. Another's claim in force is a 409 whose `error.holder` names them and " +
      'its end; `take_over: true` takes it from them, for a caller holding `keys:manage` (an admin; else ' +
      '403). A decided appeal is a 409 naming who decided it and when. A claim that ends reads as none. ' +
      'Each new claim and take-over is in the audit trail (`appeal.claimed`).',
    notFound: true,
    conflict: true,
    request: { duration_seconds: 900 },
    responses: { 200: response(appealSchema, 'The appeal, claimed by you.', appealClaimed) },
  },

  releaseAppealClaim: {
    summary: 'Release your claim on an appeal',
    tag: 'Appeals',
    description:
      'Ends your claim at once (audited, `appeal.released`), so that another moderator may take the ' +
      "appeal; with `keys:manage` (an admin) anyone's. Another's claim without that scope is a 409 " +
      'naming them. An appeal with no claim in force (never claimed, ended, decided) answers 200 as it is.',
    notFound: true,
    conflict: true,
    responses: { 200: response(appealSchema, 'The appeal, with no claim in force.', appealOpen) },
  },

  createPlayerLink: {
    summary: "A link to the player's page for one device in your game",
    tag: 'Player',
    description:
      'A game server (or support site) mints it for the player in front of it: the page at `path` ' +
      "(on the API's own origin, beside the console) shows that device's restrictions in force in this " +
      'game (`X-Game-Id`) under your policy, each with its statement of reasons and end, and, with ' +
      '`appeal: true` (the key needs `appeals:write` too), lets the player appeal each once. The link ' +
      'reaches that device in that game and nothing else, for `expires_in_seconds` (an hour by default, ' +
      'from 60 to 86,400). `secret` is shown this once (the table keeps its SHA-256): it rides in the ' +
      "address's fragment, which no server, log or Referer sees. Nothing about the device is read: a " +
      'device with no restriction gets a page that says so.',
    request: { device_id: DEVICE, expires_in_seconds: 3600 },
    responses: {
      201: response(playerLinkCreationSchema, 'The link, made now.', {
        link_id: 'pl_5d0c2b8e1f7a93c4d6e2',
        secret: playerSecret,
        path: `/player/#${playerSecret}`,
        device_id: DEVICE,
        game_id: GAME,
        appeal: false,
        expires_at: '2026-03-04T19:20:31.512Z',
      }),
    },
  },

  getPlayerPage: {
    summary: "The player's page: their restrictions in this game and why",
    tag: 'Player',
    description:
      "What the player's page shows, for the link in `X-Player-Link` (no API key): the restrictions " +
      "in force on the link's device in the link's game under its publisher's policy, and those the " +
      "publisher's appeals concern (a ban lifted on appeal shows its outcome, `in_force: false`). Each " +
      "with its statement of reasons, message, end and appeal; never the ban's owner, reason code, " +
      'details or creator. An unknown, altered or ended link is a 401, whichever it is.',
    responses: {
      200: response(playerPageSchema, "The link's page.", {
        device_id: DEVICE,
        game_id: GAME,
        link_expires_at: '2026-03-04T19:20:31.512Z',
        can_appeal: true,
        evaluated_at: NOW,
        restrictions: [
          {
            ban_id: socialBan.ban_id,
            ban_type: socialBan.ban_type,
            scope: socialBan.scope,
            created_at: socialBan.created_at,
            expires_at: socialBan.expires_at,
            in_force: true,
            message_locale: 'en',
            player_message: socialBan.player_message,
            statement: socialBan.statement,
            can_appeal: false,
            appeal: playerAppeal,
          },
        ],
      }),
    },
  },

  filePlayerAppeal: {
    summary: 'The player appeals one of their restrictions',
    tag: 'Player',
    description:
      'Filed by the player from their page, through a link made with `appeal: true` (else a 403): as ' +
      "the link's publisher from the link's game, for a ban the page shows as `can_appeal`, recorded as " +
      'filed through the link (`player_link_id` on the appeal; the audit names the key that minted it). ' +
      'One appeal per ban: the same link filing again answers its first appeal (200, `idempotent_ok`) ' +
      'and files nothing; a ban appealed already, or not appealable, is a 409, one the page does not ' +
      'show a 404.',
    notFound: true,
    conflict: true,
    request: {
      ban_id: 1042,
      message: 'I was not cheating: my brother used my account that evening.',
      contact: 'player@example.com',
    },
    responses: {
      201: response(playerAppealCreationSchema, 'The appeal, filed now.', {
        result: 'created',
        appeal: playerAppeal,
      }),
      200: response(playerAppealCreationSchema, 'The appeal this link filed before.', {
        result: 'idempotent_ok',
        appeal: playerAppeal,
      }),
    },
  },

  openapi: {
    summary: 'This API described in OpenAPI 3.1',
    tag: 'Documentation',
    description: 'This document: OpenAPI 3.1, generated from the same schemas the handlers validate with.',
    responses: {
      200: response(openApiDocumentSchema, 'The OpenAPI document.', {
        openapi: '3.1.0',
        info: { title: 'Device ban service', version: '1.0.0' },
        paths: {},
      }),
    },
  },

  transparencyReport: {
    summary: 'Your transparency report for a period (DSA Art. 15 and 24)',
    tag: 'Audit',
    description:
      'The restrictions (bans) your publisher made in the days `from` to `to` (UTC, both included, ' +
      `at most ${REPORT_MAX_DAYS} days; else a 400 naming \`to\`), counted by type, scope, ground, ` +
      "category, automated detection and automated decision (from each ban's statement of reasons, as " +
      'made) and reason code (`by_reason`: the codes with bans only), the bans revoked, and the appeals ' +
      'of your bans received and decided, by outcome and by moderator (`by_moderator`: who decided, a ' +
      "person's subject or a key's id, with their outcomes; most decisions first), with " +
      'the median and 90th percentile of the seconds from filing to decision (nearest rank over the ' +
      'decisions of the period; null without any; exact below 1,000 seconds, beyond rounded up to three ' +
      'significant digits: at most 1% high). Each of them again for every day in `by_day`. A ban counts ' +
      'on the day it was made, a revocation on the day it was revoked, an appeal on the day it was filed ' +
      'and the day it was decided; an erasure takes nothing away. Read from daily counts the service ' +
      'keeps as changes happen (seconds behind them), never from the bans. `format=csv`, or without ' +
      '`format` an `Accept` that prefers `text/csv` over `application/json`, answers `text/csv` ' +
      '(without `format` the answer carries `Vary: Accept`): a header row `day,dimension,value,count`, one row per day and (dimension, value) in ' +
      'day order, then the same rows for the whole period with `day` `total` (a null percentile: an ' +
      'empty count); reasons are rows `reason,<code>`, moderators rows `moderator_<decided|upheld|' +
      'overturned|shortened>,<user:sub|key:key_id>`, only those with counts. Needs `audit:read` and a ' +
      'key for every game.',
    responses: {
      200: {
        ...response(
          transparencyReportSchema,
          'The report: JSON, or CSV (`format=csv`, or `Accept: text/csv`).',
          reportExample,
        ),
        csv: [
          'day,dimension,value,count',
          '2026-03-01,restrictions,total,3',
          '2026-03-01,type,cheat,2',
          '2026-03-01,type,social,1',
          '…',
          'total,time_to_decision_seconds,median,5280',
          'total,time_to_decision_seconds,p90,5280',
          'total,reason,aimbot,2',
          'total,reason,fraud,1',
          'total,reason,hate_speech,1',
          'total,moderator_decided,user:8f2c41e0-3b1a-4d7e-9c55-2a6f0d9e7b13,1',
          'total,moderator_upheld,user:8f2c41e0-3b1a-4d7e-9c55-2a6f0d9e7b13,0',
          'total,moderator_overturned,user:8f2c41e0-3b1a-4d7e-9c55-2a6f0d9e7b13,1',
          'total,moderator_shortened,user:8f2c41e0-3b1a-4d7e-9c55-2a6f0d9e7b13,0',
          '',
        ].join('\r\n'),
      },
    },
  },

  exportData: {
    summary: 'Export everything your publisher holds of one kind, in pages',
    tag: 'Export',
    description:
      'One kind of what your publisher holds, in a stable order, in pages of `limit` items (1 to 1000, ' +
      'default 500): `bans` (every ban you made, revoked and expired ones too, each as an import row of ' +
      '`POST /v1/imports` with its `ban_id`, `updated_at` and `previous_expires_at` if its expiry moved, ' +
      "and its `appeals` as you see them; `external_id` is the imported ban's own, else `ban:<ban_id>`), " +
      "`appeals` (those of your bans, then those you filed on others' bans), `audit` (your trail, oldest " +
      "first), `policy`, `trust` (the policy's trust settings), `reasons` (one item each: what their GET " +
      'answers), `webhooks` (never a secret) and `keys` (never a secret, a hash or its last characters). ' +
      'The first page (no `cursor`) fixes `as_of`, now: every page lists only what was made before it, so ' +
      'an export read while changes go on lists each item that existed then exactly once and nothing ' +
      'newer; an item changed since is read as it is now. Page with `next_cursor` (it carries `as_of`) ' +
      'until it is null; a cursor of another kind or publisher is a 400. The first page records ' +
      '`data.exported` in your audit trail, once per export. Needs `data:export` and a key for every game.',
    responses: {
      200: response(exportPageSchema, 'A page of the kind asked for.', {
        kind: 'bans',
        as_of: NOW,
        items: [
          {
            external_id: 'ban:1042',
            device_id: DEVICE,
            ban_type: 'social',
            scope: 'game',
            reason_code: 'chat.toxicity',
            game_id: GAME,
            created_at: '2026-03-01T21:04:11.093Z',
            expires_at: '2026-04-01T00:00:00.000Z',
            revoked_at: null,
            details: { report_id: 'r-5521', reports: 3 },
            player_message:
              'You are muted in chat until 1 April for repeated abuse reported by other players.',
            statement: {
              ground: 'terms',
              terms_clause: 'Community rules, 2.1: no abuse of other players',
              terms_url: 'https://acme.example/community-rules#2.1',
              facts: 'You are muted in chat until 1 April for repeated abuse reported by other players.',
              automated_detection: false,
              automated_decision: 'not',
              source: 'notice',
              category: 'illegal_or_harmful_speech',
            },
            ban_id: 1042,
            appeals: [
              {
                ...appealOpen,
                created_by: { type: 'key', key_id: 'key_Qm3vX8pLr2Tz', name: 'support site' },
              },
            ],
          },
        ],
        next_cursor: exportCursor('acme', 'bans', { as_of: NOW, after: `${DEVICE}#0000000000001042` }),
      }),
    },
  },

  deviceData: {
    summary: 'Everything your publisher holds on one device (a data subject request)',
    tag: 'Export',
    description:
      'What a player may ask for under GDPR Art. 15: your bans on the device, whole (as the `bans` ' +
      "export holds them, with their history and appeals), the appeals you filed on other publishers' " +
      'bans there (as a filer sees them), and the events of your audit trail about the device, oldest ' +
      "first. Another publisher's call shows only what it holds. Recorded in your audit trail as " +
      '`data.exported` of kind `device`. Needs `data:export` and a key for every game.',
    responses: {
      200: response(deviceDataSchema, 'What your publisher holds on the device.', {
        device_id: DEVICE,
        as_of: NOW,
        bans: [
          {
            external_id: 'ban:1042',
            device_id: DEVICE,
            ban_type: 'social',
            scope: 'game',
            reason_code: 'chat.toxicity',
            game_id: GAME,
            created_at: '2026-03-01T21:04:11.093Z',
            expires_at: '2026-04-01T00:00:00.000Z',
            revoked_at: '2026-03-04T18:20:31.512Z',
            revoke_reason_code: 'appeal.accepted',
            ban_id: 1042,
            appeals: [
              {
                ...appealDecided,
                created_by: { type: 'key', key_id: 'key_Qm3vX8pLr2Tz', name: 'support site' },
              },
            ],
          },
        ],
        appeals_filed: [],
        audit: [
          {
            type: 'ban.created',
            event_id: 'evt_Qm3vX8pLr2Tz4KwB9sC1aEo5',
            occurred_at: '2026-03-01T21:04:11.093Z',
            actor: { type: 'key', key_id: 'key_Qm3vX8pLr2Tz', name: 'moderation tool' },
            device_id: DEVICE,
            ban_id: 1042,
            ban_type: 'social',
            scope: 'game',
            game_id: GAME,
            reason_code: 'chat.toxicity',
            expires_at: '2026-04-01T00:00:00.000Z',
          },
        ],
      }),
    },
  },
  startExportJob: {
    summary: 'Start an export job: the service writes your data into files to download',
    tag: 'Export',
    description:
      'For exports too large to page through: the service reads every kind asked for (`kinds`, each ' +
      'once; default all of them, in the order of `GET /v1/exports/{kind}`) as the paged export does, ' +
      'at one `as_of` (now), and writes each kind into part files of JSON lines, one item a line, ' +
      'exactly as the pages list them (at most 100,000 lines or about 50 MB a part). Answers at once ' +
      "with the job's `export_id`; follow it with `GET /v1/export-jobs/{export_id}` until `status` is " +
      '`done`. The job and its files are kept 7 days. Recorded in your audit trail as `data.exported` ' +
      'of kind `job` with the `export_id`. A repeat starts another job. Needs `data:export` and a key ' +
      'for every game.',
    request: { kinds: ['bans', 'appeals'] },
    responses: {
      202: response(exportJobStartedSchema, 'The job, started.', {
        export_id: 'exp_Qm3vX8pLr2Tz4KwB9sC1aE',
        status: 'running',
        kinds: ['bans', 'appeals'],
        as_of: NOW,
        created_at: NOW,
      }),
    },
  },

  getExportJob: {
    summary: 'An export job: its state and, once done, where to download its files',
    tag: 'Export',
    description:
      "The job `POST /v1/export-jobs` started (only your own: another publisher's `export_id` is a " +
      '404): `running` while it writes, `done` when every file is written, `failed` (with `error`) if ' +
      'it could not be; start another then. `files` lists the parts written so far, kind by kind in the ' +
      'order of `kinds`, part by part; once `done`, each has a `url` to download it with a plain GET (no ' +
      'key), good for 15 minutes (`url_expires_at`): ask again for fresh ones. A kind with nothing in it ' +
      'is one empty part. Each line of a file is one item as `GET /v1/exports/{kind}` lists it, at the ' +
      "job's `as_of`. Needs `data:export` and a key for every game.",
    notFound: true,
    responses: {
      200: response(exportJobSchema, 'The job.', {
        export_id: 'exp_Qm3vX8pLr2Tz4KwB9sC1aE',
        status: 'done',
        kinds: ['bans', 'appeals'],
        as_of: NOW,
        created_at: NOW,
        finished_at: '2026-03-04T18:24:02.118Z',
        files: [
          {
            kind: 'bans',
            part: 1,
            items: 100000,
            bytes: 48210733,
            url: 'https://exports.s3.eu-west-1.amazonaws.com/acme/exp_Qm3vX8pLr2Tz4KwB9sC1aE/bans-00001.jsonl?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature=8c1f…',
            url_expires_at: '2026-03-04T18:41:12.004Z',
          },
          {
            kind: 'bans',
            part: 2,
            items: 23417,
            bytes: 11302550,
            url: 'https://exports.s3.eu-west-1.amazonaws.com/acme/exp_Qm3vX8pLr2Tz4KwB9sC1aE/bans-00002.jsonl?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature=51d0…',
            url_expires_at: '2026-03-04T18:41:12.004Z',
          },
          {
            kind: 'appeals',
            part: 1,
            items: 312,
            bytes: 402117,
            url: 'https://exports.s3.eu-west-1.amazonaws.com/acme/exp_Qm3vX8pLr2Tz4KwB9sC1aE/appeals-00001.jsonl?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature=e7a2…',
            url_expires_at: '2026-03-04T18:41:12.004Z',
          },
        ],
      }),
    },
  },
} as const satisfies { [Id in RouteId]: OperationDoc<Id> };

type ErrorEnvelope = z.output<typeof errorEnvelopeSchema>;
const REQUEST_ID = '0d6a2c1e-93f4-4b8e-a7c2-5f1e9b3d7a60';

const envelope = (
  code: ErrorCode,
  message: string,
  details?: ErrorEnvelope['error']['details'],
): ErrorEnvelope => ({
  error: { code, message, ...(details ? { details } : {}) },
  request_id: REQUEST_ID,
});

const fromGateway = (answer: { code: ErrorCode; message: string }) => envelope(answer.code, answer.message);

/** One example per error code; those the gateway answers are its own words. */
export const errorExamples: Record<ErrorCode, ErrorEnvelope> = {
  invalid_json: envelope('invalid_json', 'The request body is not valid JSON'),
  invalid_request: envelope('invalid_request', 'limit must be between 1 and 200', [
    { field: 'limit', issue: 'too_big' },
  ]),
  unauthorized: fromGateway(gatewayAnswers.unauthorized),
  forbidden: fromGateway(gatewayAnswers.forbidden),
  not_found: envelope('not_found', 'No such ban on this device'),
  conflict: envelope('conflict', 'This publisher already has 100 live keys: revoke one first'),
  cursor_expired: envelope(
    'cursor_expired',
    'The cursor points before events that are past the retention and gone: resync from GET /v1/enforcement/snapshot, then follow the feed from the cursor it gives',
  ),
  method_not_allowed: fromGateway(methodNotAllowed('DELETE', '/v1/policy', allowedMethods(['GET', 'PUT']))),
  payload_too_large: envelope('payload_too_large', 'The request body must be at most 65536 bytes'),
  unsupported_media_type: fromGateway(gatewayAnswers.unsupportedMediaType),
  rate_limited: fromGateway(gatewayAnswers.throttled),
  internal_error: envelope('internal_error', 'An internal error occurred'),
  service_unavailable: fromGateway(gatewayAnswers.authorizerUnavailable),
};
