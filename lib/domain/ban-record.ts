import * as z from 'zod/mini';
import { banScopes, banTypes } from '../model/requests';
import { banKey } from '../storage/keys';
import { IntegrityError } from './errors';

/**
 * The ban entity as stored: its one type, and the mapping to and from its item
 * (`DEVICE#<device_id>` / `BAN#<ban_id>`, lib/storage/keys.ts).
 */

const timestamp = () => z.string();
/** Who made or revoked it (the audit trail's actor); absent on bans from before the audit. */
const actor = () => z.object({ key_id: z.nullable(z.string()), name: z.string() });

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
    created_at: timestamp(),
    expires_at: z.nullable(timestamp()),
    revoked_at: z.nullable(timestamp()),
    /** Why the owner revoked it; absent until then. */
    revoke_reason_code: z.optional(z.string()),
    created_by: z.optional(actor()),
    revoked_by: z.optional(actor()),
    /** The idempotency key it was made with, so erasure can find the record holding its copy. */
    idempotency_key: z.optional(z.string()),
  }))();

export type Ban = z.output<typeof banRecordSchema>;

export const banFromItem = (item: Record<string, unknown> | undefined): Ban => {
  const parsed = banRecordSchema.safeParse(item);
  if (!parsed.success) {
    throw new IntegrityError(`stored ban is malformed: ${parsed.error.issues[0]?.path.join('.') ?? ''}`);
  }
  return parsed.data;
};

export const banToItem = (ban: Ban) => ({ ...banKey(ban.device_id, ban.ban_id), ...ban });
