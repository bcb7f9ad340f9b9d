import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { judgeBans, type RuleBan } from '@kernel/policy-rules';
import * as clock from '../clock';
import { banScopes, banTypes, type PolicyPatch } from '../model/requests';
import type { Policy, PolicyReach } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import {
  GLOBAL_FEED_PARTITION,
  gameFeedPartition,
  LIVE_BAN_PREFIX,
  publisherFeedPartition,
} from '../storage/keys';
import { IntegrityError } from './errors';
import { getPolicy } from './policy';

/**
 * `POST /v1/policy/preview`: how many devices a policy draft (a PolicyPatch, as `PUT /v1/policy`
 * takes it) would restrict or stop restricting in one game, against the policy in force. It reads
 * the snapshot's three live sets (lib/domain/live-set.ts: the publisher's bans, the game's, every
 * global ban) once each, in 1 MB pages with only the fields the rules read, and judges each
 * device's bans with the kernel's rules under both policies, as enforcement does: no per-device
 * read, nothing written. Per game, because games are not known in advance (any X-Game-Id is one):
 * publisher and global bans apply in every game, so only game bans make games differ.
 */

/** A live ban as the rules read it, and its device. */
type LiveRuleBan = RuleBan & { device_id: string };

const LIVE_FIELDS = ['device_id', 'scope', 'ban_type', 'publisher_id', 'revoked_at', 'expires_at'] as const;

const isTimeOrNull = (value: unknown) => value === null || typeof value === 'string';

/** The rules' fields of one projected live item, checked; undefined for a tombstone. */
const liveRuleBan = (item: Record<string, unknown>): LiveRuleBan | undefined => {
  if (item.gone === true) return undefined;
  const ban = item.ban as Record<string, unknown> | undefined;
  const ok =
    typeof ban === 'object' &&
    ban !== null &&
    typeof item.device_id === 'string' &&
    (banScopes as readonly unknown[]).includes(ban.scope) &&
    (banTypes as readonly unknown[]).includes(ban.ban_type) &&
    typeof ban.publisher_id === 'string' &&
    isTimeOrNull(ban.revoked_at) &&
    isTimeOrNull(ban.expires_at);
  if (!ok) throw new IntegrityError('stored live ban is malformed');
  return {
    device_id: item.device_id as string,
    scope: ban.scope as RuleBan['scope'],
    ban_type: ban.ban_type as RuleBan['ban_type'],
    publisher_id: ban.publisher_id as string,
    revoked_at: ban.revoked_at as string | null,
    expires_at: ban.expires_at as string | null,
  };
};

/** Every live ban of a partition (tombstones left out), with only what the rules read. */
const readLiveRuleBans = async (partition: string): Promise<LiveRuleBan[]> => {
  const bans: LiveRuleBan[] = [];
  const names = Object.fromEntries(LIVE_FIELDS.map((field) => [`#${field}`, field]));
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :live)',
      ExpressionAttributeValues: { ':pk': partition, ':live': LIVE_BAN_PREFIX },
      ExpressionAttributeNames: { ...names, '#ban': 'ban', '#gone': 'gone' },
      ProjectionExpression: [
        '#gone',
        '#device_id',
        ...LIVE_FIELDS.slice(1).map((field) => `#ban.#${field}`),
      ].join(', '),
      ConsistentRead: true,
    },
  );
  for await (const page of pages)
    for (const item of page.Items ?? []) {
      const ban = liveRuleBan(item);
      if (ban) bans.push(ban);
    }
  return bans;
};

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
    readLiveRuleBans(publisherFeedPartition(publisherId)),
    readLiveRuleBans(gameFeedPartition(publisherId, gameId)),
    readLiveRuleBans(GLOBAL_FEED_PARTITION),
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
