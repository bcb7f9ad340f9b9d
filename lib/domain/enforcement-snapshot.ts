import { createHash } from 'node:crypto';
import * as clock from '../clock';
import { mapWithConcurrency } from '../concurrency';
import type { SnapshotQuery } from '../model/requests';
import type { EnforcementSnapshot, Policy, SnapshotBan } from '../model/responses';
import {
  GLOBAL_FEED_PARTITION,
  gameFeedPartition,
  LIVE_BAN_PREFIX,
  publisherFeedPartition,
} from '../storage/keys';
import type { Ban } from './ban-record';
import { deviceGlobalBans, enforcedAmong, needsQuorumContext, toListedBan } from './bans';
import { currentDeploymentId } from './deployment';
import { InvalidInputError } from './errors';
import { feedHeadCursor, QUORUM_READ_CONCURRENCY } from './feed';
import { readLiveSet } from './live-set';
import { getPolicy } from './policy';

/**
 * `GET /v1/enforcement/snapshot`: every ban that may restrict a device for (publisher, game) now,
 * whatever the policy enforces today, in pages, from the live sets (lib/domain/live-set.ts) of the
 * reader's three feed partitions, so a game server's mirror can start without replaying the feed.
 * Invariant: `feed_cursor` is the feed's head taken before any live set is read, so a reader that
 * takes every page, then replays the feed from it, ends exact whatever raced the snapshot. The
 * reasons: docs/data-model.md#the-enforcement-snapshot.
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

/** The index of the global partition in readerPartitions. */
const GLOBAL = 2;

/** The device of a live set's sort key, `LIVE#<device_id>#<ban id>` (a device id holds no `#`). */
const deviceOfLiveKey = (sk: string) => sk.slice(LIVE_BAN_PREFIX.length, sk.lastIndexOf('#'));

/**
 * `enforced` for each ban of a page, as the enforcement answer decides it. A ban whose quorum
 * needs the device's other global bans (needsQuorumContext: only under a global_quorum above 1)
 * is judged beside the device's global bans on this page when the page holds all of them, else
 * beside those stored (one Query of the device, at most two devices a page: the first and last).
 */
const judgeSnapshotBans = async (
  policy: Policy,
  bans: readonly Ban[],
  partial: ReadonlySet<string>,
  now: string,
): Promise<boolean[]> => {
  const onPage = new Map<string, Ban[]>();
  for (const ban of bans)
    if (ban.scope === 'global') onPage.set(ban.device_id, [...(onPage.get(ban.device_id) ?? []), ban]);
  const needs = bans.map((ban) => needsQuorumContext(policy, ban, now));
  const toRead = [
    ...new Set(bans.filter((ban, i) => needs[i] && partial.has(ban.device_id)).map((b) => b.device_id)),
  ];
  const read = await mapWithConcurrency(toRead, QUORUM_READ_CONCURRENCY, deviceGlobalBans);
  const stored = new Map(toRead.map((device, i) => [device, read[i] ?? []]));
  return bans.map((ban, i) =>
    enforcedAmong(
      policy,
      ban,
      needs[i] ? (stored.get(ban.device_id) ?? onPage.get(ban.device_id) ?? []) : [],
      now,
    ),
  );
};

/**
 * One page of the snapshot: on the first, the feed's head, then (with the policy and the deployment
 * id, at once: lib/domain/deployment.ts) the live sets from the start of the first partition; on
 * later ones, from the cursor. Each partition
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
  const [policy, deploymentId, from] = await Promise.all([
    getPolicy(publisherId),
    currentDeploymentId(),
    resumed ??
      feedHeadCursor(publisherId, gameId).then(
        (feedCursor): Position => ({ feedCursor, partition: 0, after: undefined }),
      ),
  ]);
  const now = new Date(clock.now()).toISOString();
  const bans: Ban[] = [];
  let { partition, after } = from;
  let read = 0;
  // The global partition's live set is in device order: a device read wholly on this page has all
  // its active global bans here. Only the first one (when the page resumed inside it) and the last
  // one (when the page stopped inside it) may hold more elsewhere.
  const partial = new Set<string>();
  if (partition === GLOBAL && after !== undefined) partial.add(deviceOfLiveKey(after));
  while (partition < partitions.length && bans.length < query.limit && read < MAX_READ_PER_PAGE) {
    const want = Math.min(query.limit - bans.length, MAX_READ_PER_PAGE - read);
    const page = await readLiveSet(partitions[partition] as string, after, want, now);
    read += Math.max(page.read, 1);
    bans.push(...page.bans);
    if (page.more) after = page.lastKey;
    else {
      partition += 1;
      after = undefined;
    }
  }
  if (partition === GLOBAL && after !== undefined) partial.add(deviceOfLiveKey(after));
  const enforced = await judgeSnapshotBans(policy, bans, partial, now);
  const items: SnapshotBan[] = bans.map((ban, i) => ({
    device_id: ban.device_id,
    ...toListedBan(ban, policy, enforced[i] ?? false),
  }));
  return {
    game_id: gameId,
    policy,
    feed_cursor: from.feedCursor,
    deployment_id: deploymentId,
    items,
    next_cursor:
      partition < partitions.length
        ? encodeSnapshotCursor(publisherId, gameId, { feedCursor: from.feedCursor, partition, after })
        : null,
  };
};
