import { judgeBans, type RuleBan } from '@kernel/policy-rules';
import * as clock from '../clock';
import type { PolicyPatch } from '../model/requests';
import type { Policy, PolicyReach } from '../model/responses';
import { GLOBAL_FEED_PARTITION, gameFeedPartition, publisherFeedPartition } from '../storage/keys';
import { type LiveRuleBan, liveRuleBans } from './live-set-copy';
import { getPolicy } from './policy';

/**
 * `POST /v1/policy/preview`: how many devices a policy draft (a PolicyPatch, as `PUT /v1/policy`
 * takes it) would restrict or stop restricting in one game, against the policy in force. It takes
 * the snapshot's three live sets (lib/domain/live-set.ts: the publisher's bans, the game's, every
 * global ban) from this process's copies of them, caught up on the feed first
 * (lib/domain/live-set-copy.ts: every event appended before the preview began counts; a first
 * preview reads them whole), and judges each device's bans with the kernel's rules under both
 * policies, as enforcement does: no per-device read, nothing written. Per game, because games are
 * not known in advance (any X-Game-Id is one): publisher and global bans apply in every game, so
 * only game bans make games differ.
 */

type Change = { become_restricted: number; no_longer_restricted: number };
const noChange = (): Change => ({ become_restricted: 0, no_longer_restricted: 0 });

/** Counts one device's change of one restriction (before → after). */
const count = (change: Change, before: boolean, after: boolean) => {
  if (!before && after) change.become_restricted += 1;
  if (before && !after) change.no_longer_restricted += 1;
};

/** Whether the policy restricts the device, per type, judged over all its bans at once (the quorum). */
const restrictions = (policy: Policy, bans: readonly RuleBan[], now: string) => {
  const verdicts = judgeBans(policy, bans, now);
  const restricted = { cheat: false, social: false };
  bans.forEach((ban, i) => {
    if (verdicts[i]?.applies) restricted[ban.ban_type] = true;
  });
  return restricted;
};

export const previewPolicyReach = async (
  publisherId: string,
  gameId: string,
  draft: PolicyPatch,
): Promise<PolicyReach> => {
  const [current, ...partitions] = await Promise.all([
    getPolicy(publisherId),
    liveRuleBans(publisherFeedPartition(publisherId)),
    liveRuleBans(gameFeedPartition(publisherId, gameId)),
    liveRuleBans(GLOBAL_FEED_PARTITION),
  ]);
  const drafted: Policy = { ...current, ...draft };
  const now = new Date(clock.now()).toISOString();
  const byDevice = new Map<string, LiveRuleBan[]>();
  for (const bans of partitions)
    for (const ban of bans) {
      if (ban.expires_at !== null && ban.expires_at <= now) continue;
      const list = byDevice.get(ban.device_id);
      if (list) list.push(ban);
      else byDevice.set(ban.device_id, [ban]);
    }
  const reach = { cheat: noChange(), social: noChange(), any: noChange() };
  for (const bans of byDevice.values()) {
    const before = restrictions(current, bans, now);
    const after = restrictions(drafted, bans, now);
    count(reach.cheat, before.cheat, after.cheat);
    count(reach.social, before.social, after.social);
    count(reach.any, before.cheat || before.social, after.cheat || after.social);
  }
  return {
    game_id: gameId,
    evaluated_at: now,
    policy_updated_at: current.updated_at,
    devices_with_bans: byDevice.size,
    ...reach,
  };
};
