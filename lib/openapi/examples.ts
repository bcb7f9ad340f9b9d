import type * as z from 'zod/mini';
import type { ErrorCode } from '../model/error-codes';
import { defaultPolicyFlags } from '../model/policy-flags';
import type {
  BanCreationResult,
  Enforcement,
  errorEnvelopeSchema,
  ListedBan,
  Policy,
} from '../model/responses';
import type { OperationDocsById, OperationsById } from './operation-docs';

/**
 * Realistic examples for docs/openapi.json. Only the generator imports this file, so none of it
 * reaches a Lambda bundle. The types come from each operation's schemas (its responses in
 * lib/http/operation-docs.ts, its body in lib/http/operations.ts): an example that does not fit its
 * schema, or a documented status without one, does not compile (and the lint checks them against
 * the generated document too).
 */

type ExamplesOf<Doc, Op> = Doc extends { responses: infer R }
  ? {
      responses: {
        [S in keyof R]: R[S] extends { schema: infer Sc extends z.ZodMiniType } ? z.output<Sc> : never;
      };
    } & (Op extends { body: infer B extends z.ZodMiniType } ? { request: z.input<B> } : unknown)
  : never;

type OperationExamples = {
  [Id in keyof OperationDocsById]: ExamplesOf<OperationDocsById[Id], OperationsById[Id]>;
};

const UPDATED_AT = '2026-03-02T10:15:00.000Z';
const NOW = '2026-03-04T18:20:31.512Z';
const DEVICE = 'device-7f3a9c';
const GAME = 'space-raiders';

const policy: Policy = { publisher_id: 'acme', ...defaultPolicyFlags, updated_at: UPDATED_AT };

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

const counts = (active: number, expired: number) => ({ active, expired });

const enforcement: Enforcement = {
  device_id: DEVICE,
  game_id: GAME,
  evaluated_at: NOW,
  restricted: { cheat: true, social: true },
  bans: [
    { ...cheatBan, rule: ['enforce_global', 'enforce_cheat_global'] },
    { ...socialBan, rule: ['enforce_game'] },
  ],
  // 100 - 40 (active global cheat) - 15 (active game social) - 5 (expired game social) = 40
  reputation: {
    score: 40,
    included_scopes: ['game', 'publisher', 'global'],
    counts: {
      cheat: { game: counts(0, 0), publisher: counts(0, 0), global: counts(1, 0) },
      social: { game: counts(1, 1), publisher: counts(0, 0), global: counts(0, 0) },
    },
    weights: { cheat: { active: 40, expired: 10 }, social: { active: 15, expired: 5 } },
  },
  policy_updated_at: UPDATED_AT,
};

export const operationExamples: OperationExamples = {
  health: { responses: { 200: { ok: true } } },
  getPolicy: { responses: { 200: policy } },
  updatePolicy: {
    request: { enforce_social_global: true },
    responses: { 200: { ...policy, enforce_social_global: true, updated_at: NOW } },
  },
  createBan: {
    request: {
      device_id: DEVICE,
      ban_type: 'cheat',
      scope: 'global',
      reason_code: 'aimbot',
      expires_at: '2030-01-01T00:00:00Z',
      details: { match_id: 'm-20260304-77', detector: 'anticheat-v5' },
      idempotency_key: 'report-991',
    },
    responses: { 201: created, 200: { ...created, status: 'idempotent_ok' } },
  },
  listSocialBans: {
    responses: {
      200: {
        device_id: DEVICE,
        status: 'all',
        counts: { active: 1, inactive: 1, total: 2 },
        items: [socialBan, expiredBan],
        next_cursor: null,
      },
    },
  },
  listCheatBans: {
    responses: {
      200: {
        device_id: DEVICE,
        status: 'active',
        counts: { active: 1, inactive: 0, total: 1 },
        items: [cheatBan],
        next_cursor: null,
      },
    },
  },
  listBans: {
    responses: {
      200: {
        device_id: DEVICE,
        status: 'active',
        counts: { active: 2, inactive: 1, total: 3 },
        // A page of one (limit=1): the next page starts below ban 1077.
        items: [cheatBan],
        next_cursor: 1077,
      },
    },
  },
  revokeBan: {
    request: { reason_code: 'appeal_upheld' },
    responses: {
      200: { ...socialBan, revoked_at: NOW, enforced: false, revoke_reason_code: 'appeal_upheld' },
    },
  },
  getEnforcement: { responses: { 200: enforcement } },
  getEnforcementBatch: {
    request: { device_ids: [DEVICE, 'bad id'] },
    responses: {
      200: {
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
      },
    },
  },
  openapi: {
    responses: {
      200: { openapi: '3.1.0', info: { title: 'Device ban service', version: '1.0.0' }, paths: {} },
    },
  },
};

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

export const errorExamples: Record<ErrorCode, ErrorEnvelope> = {
  invalid_json: envelope('invalid_json', 'The request body is not valid JSON'),
  invalid_request: envelope('invalid_request', 'limit must be between 1 and 200', [
    { field: 'limit', issue: 'too_big' },
  ]),
  unauthorized: envelope('unauthorized', 'A valid API key is required'),
  forbidden: envelope('forbidden', 'This key may not call this operation'),
  not_found: envelope('not_found', 'No such ban on this device'),
  method_not_allowed: envelope('method_not_allowed', 'DELETE is not allowed on /v1/policy; use GET, PUT'),
  payload_too_large: envelope('payload_too_large', 'The request body must be at most 65536 bytes'),
  unsupported_media_type: envelope('unsupported_media_type', 'Content-Type must be application/json'),
  rate_limited: envelope('rate_limited', 'Too many requests; retry shortly'),
  internal_error: envelope('internal_error', 'An internal error occurred'),
  service_unavailable: envelope(
    'service_unavailable',
    'The service is temporarily unavailable; retry shortly',
  ),
};
