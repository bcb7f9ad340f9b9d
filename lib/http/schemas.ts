import * as z from 'zod';
import { type ErrorCode, errorStatus } from './errors';

/**
 * Request and response schemas: the only place the API's shapes are written down. Types are
 * inferred from them (z.infer), and the OpenAPI description is generated from them.
 *
 * The character rules keep '#' out of every id, so the storage keys built from them
 * (e.g. `IDEM#<publisher>#<game>#<key>`) cannot collide.
 */

const pattern = (re: RegExp, description: string) => z.string().regex(re, { message: description });

export const deviceIdSchema = pattern(
  /^[A-Za-z0-9._~:@+=-]{1,128}$/,
  'must be 1-128 characters of A-Z a-z 0-9 . _ ~ : @ + = -',
);
export const gameIdSchema = pattern(
  /^[A-Za-z0-9._~:-]{1,64}$/,
  'must be 1-64 characters of A-Z a-z 0-9 . _ ~ : -',
);
export const publisherIdSchema = pattern(/^[a-z0-9._-]{1,64}$/, 'must be 1-64 characters of a-z 0-9 . _ -');
export const reasonCodeSchema = pattern(
  /^[A-Za-z0-9._:-]{1,64}$/,
  'must be 1-64 characters of A-Z a-z 0-9 . _ : -',
);
export const idempotencyKeySchema = pattern(
  /^[\x20-\x7E]{1,255}$/,
  'must be 1-255 printable ASCII characters',
);

export const banTypes = ['cheat', 'social'] as const;
export const banScopes = ['game', 'publisher', 'global'] as const;
export const banTypeSchema = z.enum(banTypes);
export const banScopeSchema = z.enum(banScopes);

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

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

const expiresAtSchema = z
  .string()
  .transform((value, ctx) => {
    const date = parseRfc3339(value);
    if (!date) {
      ctx.addIssue({
        code: 'invalid_format',
        format: 'date-time',
        message: 'must be an RFC 3339 date-time with an offset, e.g. 2030-01-01T00:00:00Z',
      });
      return z.NEVER;
    }
    if (date.getTime() <= Date.now()) {
      ctx.addIssue({ code: 'custom', message: 'must be in the future', params: { issue: 'in_past' } });
      return z.NEVER;
    }
    return date.toISOString();
  })
  .nullable()
  .optional();

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

const detailsSchema = z
  .custom<Record<string, unknown>>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    { message: 'must be a JSON object', params: { issue: 'invalid_type' } },
  )
  .superRefine((value, ctx) => {
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
  })
  .nullable()
  .optional();

export const createBanRequestSchema = z.strictObject({
  device_id: deviceIdSchema,
  ban_type: banTypeSchema,
  scope: banScopeSchema,
  reason_code: reasonCodeSchema,
  expires_at: expiresAtSchema,
  details: detailsSchema,
  idempotency_key: idempotencyKeySchema.optional(),
});
export type CreateBanRequest = z.output<typeof createBanRequestSchema>;

export const policyFlags = [
  'enforce_game',
  'enforce_publisher',
  'enforce_global',
  'enforce_cheat_global',
  'enforce_social_global',
  'rep_include_game',
  'rep_include_publisher',
  'rep_include_global',
] as const;
export type PolicyFlag = (typeof policyFlags)[number];

const flagShape = Object.fromEntries(policyFlags.map((flag) => [flag, z.boolean()])) as Record<
  PolicyFlag,
  z.ZodBoolean
>;

export const policyPatchSchema = z.strictObject(flagShape).partial();
export type PolicyPatch = z.output<typeof policyPatchSchema>;

export const policySchema = z.strictObject({
  publisher_id: z.string(),
  ...flagShape,
  updated_at: z.string(),
});
export type Policy = z.output<typeof policySchema>;

/** Digits only: "1e3", "0x10", " 5" and "5.0" are all refused rather than coerced. */
const integerParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]{1,16}$/, { message: 'must be an integer' })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, { message: `must be between ${min} and ${max}` })
        .max(max, { message: `must be between ${min} and ${max}` }),
    );

export const banStatusFilters = ['active', 'inactive', 'all'] as const;

export const listBansQuerySchema = z.strictObject({
  status: z.enum(banStatusFilters).default('active'),
  limit: integerParam(1, 200).default(50),
  cursor: integerParam(1, Number.MAX_SAFE_INTEGER).optional(),
});
export type ListBansQuery = z.output<typeof listBansQuerySchema>;

export const listAllBansQuerySchema = listBansQuerySchema.extend({ type: banTypeSchema.optional() });
export type ListAllBansQuery = z.output<typeof listAllBansQuerySchema>;

export const devicePathSchema = z.strictObject({ device_id: deviceIdSchema });
export const banPathSchema = z.strictObject({
  device_id: deviceIdSchema,
  ban_id: integerParam(1, Number.MAX_SAFE_INTEGER),
});

export const revokeBanRequestSchema = z.strictObject({ reason_code: reasonCodeSchema });
export type RevokeBanRequest = z.output<typeof revokeBanRequestSchema>;

export const banCreationResultSchema = z.strictObject({
  ban_id: z.number().int().positive(),
  device_id: z.string(),
  ban_type: banTypeSchema,
  scope: banScopeSchema,
  publisher_id: z.string(),
  game_id: z.string(),
  status: z.enum(['created', 'idempotent_ok']),
});
export type BanCreationResult = z.output<typeof banCreationResultSchema>;

export const listedBanSchema = z.strictObject({
  ban_id: z.number().int().positive(),
  ban_type: banTypeSchema,
  scope: banScopeSchema,
  publisher_id: z.string(),
  game_id: z.string().nullable(),
  reason_code: z.string(),
  details_json: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  /** Whether the caller's policy enforces this ban now: it is active and its scope is enforced. */
  enforced: z.boolean(),
});
export type ListedBan = z.output<typeof listedBanSchema>;

export const banListSchema = z.strictObject({
  device_id: z.string(),
  status: z.enum(banStatusFilters),
  counts: z.strictObject({ active: z.number().int(), inactive: z.number().int(), total: z.number().int() }),
  items: z.array(listedBanSchema),
  next_cursor: z.number().int().positive().nullable(),
});
export type BanList = z.output<typeof banListSchema>;

export const revokedBanSchema = listedBanSchema.extend({ revoke_reason_code: z.string().nullable() });
export type RevokedBan = z.output<typeof revokedBanSchema>;

const stateCountsSchema = z.strictObject({ active: z.number().int(), expired: z.number().int() });
const scopeCountsSchema = z.strictObject({
  game: stateCountsSchema,
  publisher: stateCountsSchema,
  global: stateCountsSchema,
});
const stateWeightsSchema = z.strictObject({ active: z.number(), expired: z.number() });

export const reputationSchema = z.strictObject({
  score: z.number().int().min(0).max(100),
  included_scopes: z.array(banScopeSchema),
  counts: z.strictObject({ cheat: scopeCountsSchema, social: scopeCountsSchema }),
  weights: z.strictObject({ cheat: stateWeightsSchema, social: stateWeightsSchema }),
});

export const enforcementSchema = z.strictObject({
  device_id: z.string(),
  game_id: z.string(),
  evaluated_at: z.string(),
  restricted: z.strictObject({ cheat: z.boolean(), social: z.boolean() }),
  bans: z.array(listedBanSchema.extend({ rule: z.array(z.enum(policyFlags)) })),
  reputation: reputationSchema,
  policy_updated_at: z.string(),
});
export type Enforcement = z.output<typeof enforcementSchema>;

export const BATCH_MAX_DEVICES = 100;

/** Items are checked one by one in the domain, so one bad id fails only its own entry. */
export const enforcementBatchRequestSchema = z.strictObject({
  device_ids: z.array(z.unknown()).min(1).max(BATCH_MAX_DEVICES),
});

export const fieldIssueSchema = z.strictObject({ field: z.string(), issue: z.string() });

export const enforcementBatchSchema = z.strictObject({
  game_id: z.string(),
  evaluated_at: z.string(),
  policy_updated_at: z.string(),
  results: z.array(
    z.union([
      enforcementSchema,
      z.strictObject({
        device_id: z.unknown(),
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

export const errorCodeSchema = z.enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]]);

export const errorEnvelopeSchema = z.strictObject({
  error: z.strictObject({
    code: errorCodeSchema,
    message: z.string(),
    details: z.array(fieldIssueSchema).optional(),
  }),
  request_id: z.string(),
});

/** The game header, validated like any other input. */
export const gameHeaderSchema = z.strictObject({ 'x-game-id': gameIdSchema });
