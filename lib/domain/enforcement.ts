import { decideDevice, reputation, ruleFor } from '@kernel/policy-rules';
import * as clock from '../clock';
import { mapWithConcurrency } from '../concurrency';
import { deviceIdSchema } from '../model/requests';
import type { Enforcement, EnforcementBatch, Policy } from '../model/responses';
import type { Ban } from './ban-record';
import { toListedBan, visibleBans } from './bans';
import { getPolicy } from './policy';

/**
 * "Is this device restricted in this game, and why": the caller's policy (its flags and its trust
 * settings) applied to the bans the caller can see, which hold every global ban of the device, so
 * the quorum needs nothing more. One policy read plus one device query (per storage page), done in
 * parallel, whatever the trust settings.
 */

/** Device queries in flight at once for a batch: enough to hide latency, few enough to stay polite to DynamoDB. */
export const BATCH_CONCURRENCY = 10;

const evaluate = (
  policy: Policy,
  gameId: string,
  deviceId: string,
  bans: readonly Ban[],
  now: string,
  wanted: readonly string[],
): Enforcement => {
  // Judged over every visible ban of the device: a quorum is a property of the device.
  const { applying, restricted, not_enforced } = decideDevice(policy, bans, now);
  return {
    device_id: deviceId,
    game_id: gameId,
    evaluated_at: now,
    restricted,
    // The picked language only: the translations themselves are the listings' (bytes on the hot path).
    bans: applying.map((ban) => ({
      ...toListedBan(ban, policy, true, { wanted, translations: false }),
      rule: ruleFor(ban),
    })),
    not_enforced,
    reputation: reputation(policy, bans, now),
    policy_updated_at: policy.updated_at,
  };
};

export const getDeviceEnforcement = async (
  publisherId: string,
  gameId: string,
  deviceId: string,
  wanted: readonly string[] = [],
): Promise<Enforcement> => {
  const [policy, bans] = await Promise.all([
    getPolicy(publisherId),
    visibleBans(publisherId, gameId, deviceId),
  ]);
  return evaluate(policy, gameId, deviceId, bans, new Date(clock.now()).toISOString(), wanted);
};

/**
 * The same answer for each device of a lobby, in request order. An invalid id gets an error entry
 * of its own instead of failing the batch; a repeated id is read once.
 */
export const getEnforcementBatch = async (
  publisherId: string,
  gameId: string,
  deviceIds: readonly string[],
  wanted: readonly string[] = [],
): Promise<EnforcementBatch> => {
  const checked = deviceIds.map((value, index) => ({
    value,
    index,
    parsed: deviceIdSchema.safeParse(value),
  }));
  const valid = [...new Set(checked.flatMap((c) => (c.parsed.success ? [c.parsed.data] : [])))];
  const [policy, banLists] = await Promise.all([
    getPolicy(publisherId),
    mapWithConcurrency(valid, BATCH_CONCURRENCY, (deviceId) => visibleBans(publisherId, gameId, deviceId)),
  ]);
  const bansOf = new Map(valid.map((deviceId, i) => [deviceId, banLists[i] as Ban[]]));
  const now = new Date(clock.now()).toISOString();
  return {
    game_id: gameId,
    evaluated_at: now,
    policy_updated_at: policy.updated_at,
    results: checked.map(({ value, index, parsed }) => {
      if (parsed.success)
        return evaluate(policy, gameId, parsed.data, bansOf.get(parsed.data) ?? [], now, wanted);
      const field = `device_ids.${index}`;
      return {
        device_id: value,
        error: {
          code: 'invalid_request' as const,
          message: `${field} ${parsed.error.issues[0]?.message ?? 'is invalid'}`,
          details: [{ field, issue: 'invalid_format' }],
        },
      };
    }),
  };
};
