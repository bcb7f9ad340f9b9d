import type { components } from './api-types.js';

/**
 * What the mirror and the relay each keep of a game: the policy and every device's bans, kept by
 * applying the feed's events in order. One set of rules, so the relay serves the copy a mirror
 * built from the service would hold.
 */

type Schemas = components['schemas'];
type Policy = Schemas['Policy'];
type FeedEvent = Schemas['FeedEvent'];
/** A ban as a feed event carries it: as listings show it, `enforced` included. */
export type EventBan = Extract<FeedEvent, { ban: unknown }>['ban'];

export interface CopiedBan {
  device_id: string;
  ban_id: number;
  appeal: Schemas['SnapshotBan']['appeal'];
}

export interface BanCopy<B extends CopiedBan> {
  /** Null only before the relay's first snapshot. */
  policy: Policy | null;
  /** Device id → ban id → ban. */
  devices: Map<string, Map<number, B>>;
  count: number;
}

export const putBan = <B extends CopiedBan>(copy: BanCopy<B>, ban: B) => {
  const bans = copy.devices.get(ban.device_id) ?? new Map<number, B>();
  copy.devices.set(ban.device_id, bans);
  if (!bans.has(ban.ban_id)) copy.count += 1;
  bans.set(ban.ban_id, ban);
};

export const dropBan = <B extends CopiedBan>(copy: BanCopy<B>, deviceId: string, banId: number) => {
  const bans = copy.devices.get(deviceId);
  if (!bans?.delete(banId)) return;
  copy.count -= 1;
  if (bans.size === 0) copy.devices.delete(deviceId);
};

/**
 * One feed event applied to the copy; `keep` makes the copy's ban of an event's. Replaying an event
 * the snapshot already reflects leaves the same state (a create or update puts the ban as it was
 * then, a later event of the same ban follows it in the feed), so replay from a cursor taken
 * before the snapshot ends exact.
 */
export const applyEvent = <B extends CopiedBan>(
  copy: BanCopy<B>,
  event: FeedEvent,
  keep: (deviceId: string, ban: EventBan) => B,
) => {
  if (event.type === 'policy.updated') {
    copy.policy = event.policy;
    return;
  }
  if (event.type === 'appeal.created' || event.type === 'appeal.decided') {
    const { appeal } = event;
    const ban = copy.devices.get(event.device_id)?.get(appeal.ban_id);
    if (ban)
      putBan(copy, {
        ...ban,
        appeal: { appeal_id: appeal.appeal_id, status: appeal.status, outcome: appeal.outcome },
      });
    return;
  }
  const { ban } = event;
  if (event.type === 'ban.revoked' || event.type === 'ban.erased' || ban.revoked_at !== null)
    dropBan(copy, event.device_id, ban.ban_id);
  else putBan(copy, keep(event.device_id, ban));
};
