import { createHash } from 'node:crypto';
import type { SnapshotQuery } from '../model/requests';
import type { EnforcementSnapshot, SnapshotBan } from '../model/responses';
import {
  GLOBAL_FEED_PARTITION,
  gameFeedPartition,
  LIVE_BAN_PREFIX,
  publisherFeedPartition,
} from '../storage/keys';
import { toListedBan } from './bans';
import { InvalidInputError } from './errors';
import { feedHeadCursor } from './feed';
import { readLiveSet } from './live-set';
import { getPolicy } from './policy';

/**
 * `GET /v1/enforcement/snapshot`: every ban that may restrict a device for (publisher, game) now,
 * in pages, so a game server's mirror can start without replaying the whole feed. The bans are the
 * live sets (lib/domain/live-set.ts) of the three feed partitions the feed's reader reads, in that
 * order: the caller's `publisher` bans, its `game` bans of this game, every publisher's `global`
 * bans. That is exactly what visibleBans shows a listing, of every type and scope, whatever the
 * caller's policy enforces today (a later `policy.updated` may turn a scope on).
 *
 * `feed_cursor` is the feed's head (consistent reads) taken before the first page reads any live
 * set, and carried by every page's cursor. The dispatcher changes a partition's live set before it
 * appends the same events, so each event at or before that head is already in what every page
 * reads, and each one after it is in the feed from `feed_cursor` on. Each event sets a ban's whole
 * state (created and updated: the ban; revoked and erased: gone), so a reader that takes every
 * page, then replays the feed from `feed_cursor` (created/updated → put, revoked/erased → delete),
 * ends exact whatever raced the snapshot: a change it read early is repeated, never missed.
 */

const readerPartitions = (publisherId: string, gameId: string) =>
  [
    publisherFeedPartition(publisherId),
    gameFeedPartition(publisherId, gameId),
    GLOBAL_FEED_PARTITION,
  ] as const;

/** Live items read at most per page (bans and tombstones): a page of tombstones ends early, with a cursor. */
const MAX_READ_PER_PAGE = 2_000;

interface Position {
  feedCursor: string;
  /** Index into readerPartitions. */
  partition: number;
  /** The last sort key read in that partition; undefined: from its start. */
  after: string | undefined;
}

/** Binds a cursor to its reader (publisher and game), as the feed's cursors are. */
const readerTag = (publisherId: string, gameId: string) =>
  createHash('sha256').update(`snapshot\n${publisherId}\n${gameId}`).digest('base64url').slice(0, 12);

const CURSOR = /^s1\.([A-Za-z0-9_-]{12})\.([0-2])\.([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]*)$/;

export const encodeSnapshotCursor = (publisherId: string, gameId: string, at: Position): string =>
  Buffer.from(
    [
      's1',
      readerTag(publisherId, gameId),
      String(at.partition),
      at.feedCursor,
      at.after === undefined ? '' : Buffer.from(at.after).toString('base64url'),
    ].join('.'),
  ).toString('base64url');

export const decodeSnapshotCursor = (publisherId: string, gameId: string, cursor: string): Position => {
  const invalid = () => new InvalidInputError('cursor', 'invalid', 'must be a next_cursor this API returned');
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw invalid();
  if (match[1] !== readerTag(publisherId, gameId))
    throw new InvalidInputError('cursor', 'invalid', 'was returned to another publisher or for another game');
  const after = match[4] ? Buffer.from(match[4], 'base64url').toString() : undefined;
  if (after !== undefined && !after.startsWith(LIVE_BAN_PREFIX)) throw invalid();
  return { feedCursor: match[3] as string, partition: Number(match[2]), after };
};

/**
 * One page of the snapshot: on the first, the feed's head, then (with the policy, at once) the
 * live sets from the start of the first partition; on later ones, from the cursor. Each partition
 * is read in key order with Queries of at most what the page still lacks, until the page is full,
 * the last partition ends, or MAX_READ_PER_PAGE items were read.
 */
export const readEnforcementSnapshot = async (
  publisherId: string,
  gameId: string,
  query: SnapshotQuery,
): Promise<EnforcementSnapshot> => {
  const partitions = readerPartitions(publisherId, gameId);
  // A bad cursor is refused before any read starts.
  const resumed =
    query.cursor === undefined ? undefined : decodeSnapshotCursor(publisherId, gameId, query.cursor);
  const [policy, from] = await Promise.all([
    getPolicy(publisherId),
    resumed ??
      feedHeadCursor(publisherId, gameId).then(
        (feedCursor): Position => ({ feedCursor, partition: 0, after: undefined }),
      ),
  ]);
  const now = new Date().toISOString();
  const items: SnapshotBan[] = [];
  let { partition, after } = from;
  let read = 0;
  while (partition < partitions.length && items.length < query.limit && read < MAX_READ_PER_PAGE) {
    const want = Math.min(query.limit - items.length, MAX_READ_PER_PAGE - read);
    const page = await readLiveSet(partitions[partition] as string, after, want, now);
    read += Math.max(page.read, 1);
    for (const ban of page.bans) items.push({ device_id: ban.device_id, ...toListedBan(ban, policy, now) });
    if (page.more) after = page.lastKey;
    else {
      partition += 1;
      after = undefined;
    }
  }
  return {
    game_id: gameId,
    policy,
    feed_cursor: from.feedCursor,
    items,
    next_cursor:
      partition < partitions.length
        ? encodeSnapshotCursor(publisherId, gameId, { feedCursor: from.feedCursor, partition, after })
        : null,
  };
};
