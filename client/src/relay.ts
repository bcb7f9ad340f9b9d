import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { decideDevice, judgeBans } from '@kernel/policy-rules';
import type { components } from './api-types.js';
import { applyEvent, dropBan, type EventBan, putBan } from './ban-copy.js';
import type { BanClient } from './client.js';
import { errorFields } from './errors.js';
import { pause } from './retry.js';

/**
 * A studio's relay: one process per region or data centre that keeps the copy of each game once,
 * by following the service as a mirror does, and serves the same `GET /v1/enforcement/snapshot`
 * and `GET /v1/events` to the studio's game servers, so an unchanged `createBanMirror` pointed at
 * it works and the service sees one poll per game per interval. Invariants: downstream cursors are
 * this relay instance's own (another's is refused, and the mirror resyncs); Node only, reaching
 * node:http and node:crypto through process.getBuiltinModule, so importing the package elsewhere
 * still works. Behaviour and figures: docs/game-servers.md#relay.
 */

type Schemas = components['schemas'];
type Policy = Schemas['Policy'];
type FeedEvent = Schemas['FeedEvent'];
type FeedPage = Schemas['FeedPage'];
type SnapshotPage = Schemas['EnforcementSnapshot'];
type SnapshotBan = SnapshotPage['items'][number];
/** A ban as the relay keeps it: without the reader-relative `enforced`, judged again when served. */
type KeptBan = Omit<SnapshotBan, 'enforced'>;

/** The upstream reads the relay makes: the client's methods of those routes (createBanClient). */
export type RelaySource = Pick<BanClient, 'getEnforcementSnapshot' | 'listEvents'>;

/**
 * Who may read through the relay: the SHA-256 hashes (hex) of the studio's own keys, so the relay
 * holds no key in plain text (`npx device-ban-relay hash-key` prints one), or a function that
 * decides for a presented key and the game it asks for.
 */
export type RelayKeys = readonly string[] | ((key: string, gameId: string) => boolean | Promise<boolean>);

export interface RelayOptions {
  /** The service: a client of this package with the studio's upstream key, or anything with its two reads. */
  client: RelaySource;
  keys: RelayKeys;
  /** The games to follow from the start, and the only ones served; absent: any game, followed on its first request. */
  games?: readonly string[];
  /** Without `games`: at most this many games followed at once (default 100); more are refused (403). */
  maxGames?: number;
  /** Between upstream feed reads per game (default 1,000 ms): one poll per game per interval. */
  intervalMs?: number;
  /**
   * Past this long since the relay last read the service to its end, downstream reads answer 503
   * (default 10,000 ms), so the mirrors behind it go stale by their own `maxLagMs` and `failMode`.
   */
  maxLagMs?: number;
  /**
   * How long a feed read at the end is held for a change (default 4,000 ms): past it, the read is
   * answered (empty) right after the relay's next upstream read, at most `intervalMs` later, so the
   * mirror's next poll, one interval on, comes just after the relay's next read and a change never
   * waits a mirror's interval on top of the relay's. At most 5 s by default, under the client's 10 s.
   */
  holdMs?: number;
  /**
   * The log of applied events downstream cursors point into: at most `events` per game (default
   * 20,000), none older than `ms` (default 24 h). A cursor before it is 410 `cursor_expired`.
   */
  retention?: { events?: number; ms?: number };
  /** Longest wait between upstream reads after errors (default 30,000 ms). */
  maxBackoffMs?: number;
  /** The clock (tests move it). */
  now?: () => number;
  /** What happened, for the relay's log. */
  onEvent?: (event: RelayEvent) => void;
}

export type RelayEvent =
  | { type: 'following'; game_id: string }
  | {
      type: 'snapshot';
      game_id: string;
      bans: number;
      reason: 'start' | 'cursor_expired' | 'cursor_refused' | 'deployment_changed';
    }
  /** One upstream read to the feed's end (once per interval per game). */
  | { type: 'caught_up'; game_id: string; applied: number }
  /** A change answered the reads held for it: how many, and how long writing every answer took. */
  | { type: 'held_answered'; game_id: string; reads: number; ms: number }
  /** The game's first caught-up read: the relay serves it from now. */
  | { type: 'ready'; game_id: string }
  | { type: 'read_failed'; game_id: string; status: number; code: string; retry_in_ms: number }
  /** The copy went past `maxLagMs`: downstream reads answer 503 until the service answers again. */
  | { type: 'stale'; game_id: string; lag_ms: number | null }
  | { type: 'recovered'; game_id: string; after_failures: number }
  /** The service refused the relay's key (401, 403): downstream reads answer 503; fix the key. */
  | { type: 'key_refused'; game_id: string; status: number; code: string; message: string };

/**
 * Where a game stands in the relay: `initializing` (no copy yet), `valid` (caught up within
 * `maxLagMs`), `interrupted` (reads failing, still within it), `stale` (past it: 503 downstream),
 * `key_refused` (the service refused the key: 503 downstream).
 */
export type RelayGameState = 'initializing' | 'valid' | 'interrupted' | 'stale' | 'key_refused';

export interface RelayGameStatus {
  state: RelayGameState;
  /** Milliseconds since the last caught-up upstream read; null before the first. */
  lag_ms: number | null;
  /** The service's last `delay_ms` (its feed's own delay behind the writes). */
  upstream_delay_ms: number | null;
  /** What downstream readers are told the deployment is. */
  deployment_id: string | null;
  /** Bans the copy holds. */
  size: number;
  /** Events in the log, and the positions it spans (first exclusive, last inclusive). */
  log: { events: number; from: number; to: number };
  held_polls: number;
  upstream_reads: number;
  failed_reads: number;
  consecutive_failures: number;
  applied_events: number;
  last_error: { status: number; code: string; message: string; at: string } | null;
}

export interface RelayStatus {
  instance_id: string;
  /** Every followed game is `valid` or `interrupted`. */
  ready: boolean;
  games: Record<string, RelayGameStatus>;
  /** Downstream requests answered since creation, by route. */
  served: { snapshot: number; events: number; refused: number };
}

export interface BanRelay {
  /** A node:http request listener serving the relay's routes (mount it in a server of your own, or use listen). */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Serves `handler` on the port (0: any free one); resolves with the port once listening. */
  listen(port: number, host?: string): Promise<{ port: number }>;
  /** Stops following, answers held reads with 503, and closes the server `listen` opened. */
  close(): Promise<void>;
  status(): RelayStatus;
  /**
   * Reads the service to its end now for a followed game (what the poll does each interval): a
   * read that starts after the call, so the relay holds every change the service made before it.
   */
  sync(gameId: string): Promise<void>;
}

const FEED_PAGE = 500;
const SNAPSHOT_PAGE = 1000;
/** Bans that ended this long ago are dropped from memory (served pages skip them already). */
const PRUNE_AFTER_MS = 60_000;
/** A served page's JSON is reused for this long while the copy is unchanged (its `enforced` follows the clock). */
const PAGE_REUSE_MS = 1_000;
const JSON_TYPE = 'application/json; charset=utf-8';
const GAME_ID = /^[A-Za-z0-9._~:-]{1,64}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

interface Problem {
  status: number;
  code: string;
  message: string;
  details?: Array<{ field: string; issue: string }>;
  headers?: Record<string, string>;
}

const invalid = (field: string, issue: string, message: string): Problem => ({
  status: 400,
  code: 'invalid_request',
  message,
  details: [{ field, issue }],
});

const unavailable = (message: string, retryAfterSeconds = 1): Problem => ({
  status: 503,
  code: 'service_unavailable',
  message,
  headers: { 'Retry-After': String(retryAfterSeconds) },
});

interface Follower {
  gameId: string;
  /** Binds cursors to the game. */
  tag: string;
  /** Bumped by each snapshot the relay takes: cursors of an earlier one are expired. */
  epoch: number;
  upstreamCursor: string | null;
  upstreamDeployment: string | null;
  upstreamDelay: number | null;
  policy: Policy | null;
  devices: Map<string, Map<number, KeptBan>>;
  /** Bans the copy holds. */
  count: number;
  /** The applied events, oldest first; the first is at position `start + 1`. */
  log: Array<{ event: FeedEvent; at: number }>;
  start: number;
  caughtUpAt: number | null;
  /** Bumped by every change of the copy or the log: cached pages of an older one are not served. */
  version: number;
  sorted: { version: number; items: Array<{ key: string; ban: KeptBan }> } | null;
  pages: Map<string, { at: number; json: string; next: number; count: number }>;
  held: Set<HeldPoll>;
  reads: number;
  failedReads: number;
  failures: number;
  appliedEvents: number;
  lastError: RelayGameStatus['last_error'];
  refused: { status: number; code: string; message: string } | null;
  ready: boolean;
  reportedStale: boolean;
  /** Settles when the first upstream read ends, either way (with the wait before the next). */
  firstRead: Promise<number>;
  syncing: Promise<number> | undefined;
  /** The read asked for by `sync()` while another was under way: it starts when that one ends. */
  following: Promise<number> | undefined;
  loop: Promise<void> | undefined;
}

interface HeldPoll {
  res: ServerResponse;
  requestId: string;
  epoch: number;
  position: number;
  limit: number;
  /** Held for `holdMs`: answered after the next upstream read (or by the timer, one interval on). */
  expired: boolean;
  timer: ReturnType<typeof setTimeout>;
}

/** The copy's ban of an event's: without the reader-relative `enforced`, judged again when served. */
const kept = (deviceId: string, { enforced: _enforced, ...ban }: EventBan): KeptBan => ({
  ...ban,
  device_id: deviceId,
});

/** Parses a header value as `Bearer <key>`; undefined if it is not one. */
const bearer = (value: string | undefined) => /^Bearer +(\S+) *$/i.exec(value ?? '')?.[1];

/** How many times a header came, whatever its letter case (node keeps one Authorization only). */
const headerCount = (req: IncomingMessage, name: string) => {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    if (req.rawHeaders[i]?.toLowerCase() === name) count += 1;
  return count;
};

/** A query parameter given as digits within [min, max], the service's way; a Problem if not. */
const integerParam = (text: string | null, fallback: number, min: number, max: number): number | Problem => {
  if (text === null) return fallback;
  if (!/^\d+$/.test(text)) return invalid('limit', 'invalid_format', 'limit must be an integer');
  const value = Number(text);
  if (value < min) return invalid('limit', 'too_small', `limit must be between ${min} and ${max}`);
  if (value > max) return invalid('limit', 'too_big', `limit must be between ${min} and ${max}`);
  return value;
};

const isProblem = (value: unknown): value is Problem =>
  typeof value === 'object' && value !== null && 'code' in value && 'status' in value;

/** Held reads answered per turn of the event loop when a change wakes them. */
const RELEASE_SLICE = 500;

/** Creates a relay. Following starts at once for `games`; `listen` or `handler` serves it. */
export const createBanRelay = (options: RelayOptions): BanRelay => {
  const crypto = process.getBuiltinModule('node:crypto');
  const { client, onEvent } = options;
  const intervalMs = options.intervalMs ?? 1_000;
  const maxLagMs = options.maxLagMs ?? 10_000;
  const holdMs = options.holdMs ?? 4_000;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const maxGames = options.maxGames ?? 100;
  const keepEvents = options.retention?.events ?? 20_000;
  const keepMs = options.retention?.ms ?? 24 * 3_600_000;
  const now = options.now ?? Date.now;
  if (!client) throw new TypeError('createBanRelay: client is required');
  const fixedGames = options.games ? new Set(options.games) : undefined;
  for (const game of fixedGames ?? [])
    if (!GAME_ID.test(game)) throw new TypeError(`createBanRelay: ${game} is not a game id`);

  const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
  const authorize = (() => {
    const { keys } = options;
    if (typeof keys === 'function') return keys;
    const hashes = new Set(keys.map((hash) => hash.toLowerCase()));
    if (hashes.size === 0) throw new TypeError('createBanRelay: keys must name at least one key hash');
    for (const hash of hashes)
      if (!SHA256_HEX.test(hash))
        throw new TypeError('createBanRelay: keys are SHA-256 hashes of the keys, 64 hex digits each');
    return (key: string) => hashes.has(sha256(key));
  })();

  const instanceId = crypto.randomBytes(9).toString('base64url');
  const stopping = new AbortController();
  const followers = new Map<string, Follower>();
  const served = { snapshot: 0, events: 0, refused: 0 };
  let server: Server | undefined;

  const report = (event: RelayEvent) => {
    try {
      onEvent?.(event);
    } catch {
      // The listener's failure is the caller's to log; the relay goes on.
    }
  };

  const lagOf = (f: Follower) => (f.caughtUpAt === null ? null : Math.max(0, now() - f.caughtUpAt));
  const stateOf = (f: Follower): RelayGameState => {
    if (f.refused) return 'key_refused';
    const lag = lagOf(f);
    if (lag === null) return 'initializing';
    if (lag > maxLagMs) return 'stale';
    return f.failures > 0 ? 'interrupted' : 'valid';
  };
  const deploymentOf = (f: Follower) => `${f.upstreamDeployment ?? 'upstream'}~relay-${instanceId}`;
  const end = (f: Follower) => f.start + f.log.length;

  /* ---------------------------------------------------------------------------------------------- */
  /* Following the service                                                                          */

  const changed = (f: Follower) => {
    f.version += 1;
    f.pages.clear();
  };

  /** Every page of a snapshot, then the copy and the log replaced (never half-read): a new epoch. */
  const resync = async (f: Follower, reason: Extract<RelayEvent, { type: 'snapshot' }>['reason']) => {
    const signal = stopping.signal;
    const bans: KeptBan[] = [];
    let page = await client.getEnforcementSnapshot(f.gameId, { limit: SNAPSHOT_PAGE }, { signal });
    const first = page;
    for (;;) {
      for (const { enforced: _enforced, ...ban } of page.items) bans.push(ban);
      if (!page.next_cursor) break;
      page = await client.getEnforcementSnapshot(
        f.gameId,
        { limit: SNAPSHOT_PAGE, cursor: page.next_cursor },
        { signal },
      );
    }
    f.policy = first.policy;
    f.upstreamCursor = first.feed_cursor;
    f.upstreamDeployment = first.deployment_id ?? null;
    f.devices = new Map();
    f.count = 0;
    for (const ban of bans) putBan(f, ban);
    // The old positions mean nothing in the new copy: every cursor of the old epoch is expired.
    f.epoch += 1;
    f.log = [];
    f.start = 0;
    changed(f);
    report({ type: 'snapshot', game_id: f.gameId, bans: bans.length, reason });
  };

  const trim = (f: Follower, at: number) => {
    let drop = Math.max(0, f.log.length - keepEvents);
    while (drop < f.log.length && (f.log[drop]?.at ?? at) < at - keepMs) drop += 1;
    if (drop === 0) return;
    f.log.splice(0, drop);
    f.start += drop;
  };

  const prune = (f: Follower, at: number) => {
    const before = new Date(at - PRUNE_AFTER_MS).toISOString();
    for (const [deviceId, bans] of f.devices)
      for (const ban of bans.values())
        if (ban.expires_at !== null && ban.expires_at < before) dropBan(f, deviceId, ban.ban_id);
  };

  /**
   * One upstream read: the feed from the relay's cursor, page after page while pages come back
   * full. A short page ends the read, so a quiet game or a single change costs one request per
   * interval; what a short page left behind (a key bound to games can get one) comes next interval.
   */
  const readUpstream = async (f: Follower) => {
    let resynced = false;
    let applied = 0;
    const again = async (reason: Parameters<typeof resync>[1], error?: unknown) => {
      // A second refusal within one read is the service's, not the cursor's: report it.
      if (resynced) throw error ?? new Error(`the service changed its deployment twice in one read`);
      resynced = true;
      await resync(f, reason);
    };
    if (f.upstreamCursor === null) await again('start');
    for (;;) {
      let page: FeedPage;
      try {
        page = await client.listEvents(
          f.gameId,
          { cursor: f.upstreamCursor ?? undefined, limit: FEED_PAGE },
          { signal: stopping.signal },
        );
      } catch (error) {
        const { status, code } = errorFields(error);
        if (status === 410 && code === 'cursor_expired') await again('cursor_expired', error);
        // A cursor the service no longer takes (another deployment's, or ahead of its feed).
        else if (status === 400 && code === 'invalid_request') await again('cursor_refused', error);
        else throw error;
        continue;
      }
      if (page.deployment_id && f.upstreamDeployment && page.deployment_id !== f.upstreamDeployment) {
        await again('deployment_changed');
        continue;
      }
      if (page.deployment_id && !f.upstreamDeployment) f.upstreamDeployment = page.deployment_id;
      const at = now();
      for (const event of page.items) {
        applyEvent(f, event, kept);
        f.log.push({ event, at });
      }
      if (page.items.length > 0) changed(f);
      applied += page.items.length;
      f.appliedEvents += page.items.length;
      f.upstreamCursor = page.next_cursor;
      if ('delay_ms' in page) f.upstreamDelay = page.delay_ms ?? null;
      if (page.items.length < FEED_PAGE) break;
    }
    return { applied, resynced };
  };

  /** One read with its bookkeeping: the wait before the next. Held reads are answered after it. */
  const attempt = async (f: Follower): Promise<number> => {
    f.reads += 1;
    const versionBefore = f.version;
    try {
      const { applied } = await readUpstream(f);
      const at = now();
      f.caughtUpAt = at;
      trim(f, at);
      prune(f, at);
      const failures = f.failures;
      f.failures = 0;
      f.refused = null;
      f.reportedStale = false;
      report({ type: 'caught_up', game_id: f.gameId, applied });
      if (!f.ready) {
        f.ready = true;
        report({ type: 'ready', game_id: f.gameId });
      } else if (failures > 0) report({ type: 'recovered', game_id: f.gameId, after_failures: failures });
      return intervalMs;
    } catch (error) {
      if (stopping.signal.aborted) return 0;
      const fields = errorFields(error);
      f.failedReads += 1;
      f.failures += 1;
      f.lastError = { ...fields, at: new Date(now()).toISOString() };
      let wait = Math.round(Math.random() * Math.min(maxBackoffMs, intervalMs * 2 ** f.failures));
      if (fields.status === 401 || fields.status === 403) {
        // Reported every time: a refused key is an operator's to fix, and the relay serves nothing meanwhile.
        f.refused = fields;
        report({ type: 'key_refused', game_id: f.gameId, ...fields });
        wait = maxBackoffMs;
      } else if (!f.reportedStale && stateOf(f) === 'stale') {
        f.reportedStale = true;
        report({ type: 'stale', game_id: f.gameId, lag_ms: lagOf(f) });
      }
      report({ type: 'read_failed', game_id: f.gameId, ...fields, retry_in_ms: wait });
      return wait;
    } finally {
      // New events, a new epoch, or a copy that can no longer be served: every held read is answered;
      // else those held long enough, now that the relay has just read the service.
      if (f.version !== versionBefore && f.held.size > 0) {
        const started = performance.now();
        const reads = f.held.size;
        void wake(f).then(() =>
          report({ type: 'held_answered', game_id: f.gameId, reads, ms: performance.now() - started }),
        );
      } else if (stateOf(f) === 'stale' || f.refused) void wake(f);
      else
        void release(
          f,
          [...f.held].filter((poll) => poll.expired),
        );
    }
  };

  /** One read at a time per game: a read asked for while one runs shares it. Resolves with the wait before the next. */
  const sync = (f: Follower) => {
    f.syncing ??= attempt(f).finally(() => {
      f.syncing = undefined;
    });
    return f.syncing;
  };
  /**
   * A read that starts after the call (the public `sync`): the one under way may have read the
   * service's end before the caller's last write. Shared by every caller meanwhile.
   */
  const syncAfterNow = (f: Follower): Promise<number> => {
    if (!f.syncing) return sync(f);
    f.following ??= f.syncing
      .catch(() => intervalMs)
      .then(() => {
        f.following = undefined;
        return stopping.signal.aborted ? intervalMs : sync(f);
      });
    return f.following;
  };

  const follow = (gameId: string): Follower => {
    const f: Follower = {
      gameId,
      tag: crypto.createHash('sha256').update(gameId).digest('base64url').slice(0, 12),
      epoch: 0,
      upstreamCursor: null,
      upstreamDeployment: null,
      upstreamDelay: null,
      policy: null,
      devices: new Map(),
      count: 0,
      log: [],
      start: 0,
      caughtUpAt: null,
      version: 0,
      sorted: null,
      pages: new Map(),
      held: new Set(),
      reads: 0,
      failedReads: 0,
      failures: 0,
      appliedEvents: 0,
      lastError: null,
      refused: null,
      ready: false,
      reportedStale: false,
      firstRead: Promise.resolve(intervalMs),
      syncing: undefined,
      following: undefined,
      loop: undefined,
    };
    followers.set(gameId, f);
    report({ type: 'following', game_id: gameId });
    f.firstRead = sync(f);
    f.loop = (async () => {
      let wait = await f.firstRead;
      while (!stopping.signal.aborted) {
        await pause(wait, stopping.signal);
        if (stopping.signal.aborted) return;
        const began = performance.now();
        wait = await sync(f);
        // One read per interval, counted from each read's start: a slow read or a long fan-out
        // does not push the next one later (a backoff after a failure is kept whole).
        if (wait === intervalMs) wait = Math.max(0, intervalMs - (performance.now() - began));
      }
    })();
    return f;
  };

  /* ---------------------------------------------------------------------------------------------- */
  /* Cursors                                                                                        */

  const encode = (text: string) => Buffer.from(text).toString('base64url');
  const decode = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8');

  /** A feed position of this relay; `hold`: a read from it at the end may be held for a change. */
  const feedCursor = (f: Follower, epoch: number, position: number, hold: boolean) =>
    encode(`r1.${instanceId}.${f.tag}.${epoch}.${position}.${hold ? 1 : 0}`);
  const FEED_CURSOR = /^r1\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{12})\.(\d{1,16})\.(\d{1,16})\.([01])$/;
  const SNAPSHOT_CURSOR = /^s1\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{12})\.(\d{1,16})\.(\d{1,16})\.(.+)$/;

  const notOurs = () => invalid('cursor', 'invalid', 'cursor must be a next_cursor this API returned');
  /** Whose cursor it is: another relay instance's (a restart) or another game's is refused, so the mirror resyncs. */
  const bound = (f: Follower, instance: string, tag: string): Problem | undefined => {
    if (instance !== instanceId)
      return invalid(
        'cursor',
        'invalid',
        'cursor was returned by another relay instance: resync from the snapshot',
      );
    if (tag !== f.tag)
      return invalid('cursor', 'invalid', 'cursor was returned to another publisher or for another game');
    return undefined;
  };

  const readFeedCursor = (f: Follower, cursor: string | null) => {
    if (cursor === null) return { epoch: f.epoch, position: f.start, hold: false };
    const match = FEED_CURSOR.exec(decode(cursor));
    if (!match) return notOurs();
    const problem = bound(f, match[1] as string, match[2] as string);
    if (problem) return problem;
    return { epoch: Number(match[3]), position: Number(match[4]), hold: match[5] === '1' };
  };

  /* ---------------------------------------------------------------------------------------------- */
  /* Serving                                                                                        */

  /** The event as the service would serve it now: `enforced` judged beside the device's global bans in the copy. */
  const asServed = (f: Follower, event: FeedEvent, at: string): FeedEvent => {
    if (!('ban' in event) || !event.ban || !event.device_id || !f.policy) return event;
    if (event.type === 'ban.erased') return { ...event, ban: { ...event.ban, enforced: false } };
    const others = [...(f.devices.get(event.device_id)?.values() ?? [])].filter(
      (other) => other.scope === 'global' && other.ban_id !== event.ban.ban_id,
    );
    const enforced = judgeBans(f.policy, [event.ban, ...others], at)[0]?.applies ?? false;
    return { ...event, ban: { ...event.ban, enforced } } as FeedEvent;
  };

  /** The items of a feed page from `position` as JSON, shared by every reader of that page for a moment. */
  const feedItems = (f: Follower, position: number, limit: number) => {
    const key = `${position}.${limit}`;
    const at = now();
    const cached = f.pages.get(key);
    if (cached && at - cached.at < PAGE_REUSE_MS) return cached;
    const from = position - f.start;
    const iso = new Date(at).toISOString();
    const items = f.log.slice(from, from + limit).map(({ event }) => asServed(f, event, iso));
    const page = { at, json: JSON.stringify(items), next: position + items.length, count: items.length };
    // Readers at many old positions of a quiet game: the cache stays small all the same.
    if (f.pages.size >= 1_000) f.pages.clear();
    f.pages.set(key, page);
    return page;
  };

  const feedBody = (f: Follower, itemsJson: string, next: string) => {
    const lag = lagOf(f) ?? 0;
    const delay = f.upstreamDelay === null ? null : f.upstreamDelay + lag;
    return `{"items":${itemsJson},"next_cursor":${JSON.stringify(next)},"deployment_id":${JSON.stringify(deploymentOf(f))},"delay_ms":${delay}}`;
  };

  /** Why the game cannot be served now, if it cannot. */
  const unservable = (f: Follower): Problem | undefined => {
    if (f.refused)
      return unavailable(
        "The service refused the relay's key; the relay serves nothing until it is fixed",
        30,
      );
    const lag = lagOf(f);
    if (lag === null) return unavailable('The relay has no copy of this game yet; retry shortly');
    if (lag > maxLagMs)
      return unavailable(
        `The relay has not reached the service for ${Math.round(lag / 1000)} s; retry shortly`,
      );
    return undefined;
  };

  const headersOf = (requestId: string, body: string | Buffer, extra: Record<string, string> = {}) => ({
    'Content-Type': JSON_TYPE,
    'Cache-Control': 'no-store',
    'X-Request-Id': requestId,
    'Content-Length': String(Buffer.byteLength(body)),
    ...extra,
  });

  const send = (
    res: ServerResponse,
    requestId: string,
    status: number,
    body: string | Buffer,
    extra?: Record<string, string>,
  ) => {
    if (res.writableEnded || res.destroyed) return;
    res.writeHead(status, headersOf(requestId, body, extra));
    res.end(res.req.method === 'HEAD' ? undefined : body);
  };

  const sendProblem = (res: ServerResponse, requestId: string, problem: Problem) => {
    if (problem.status === 401 || problem.status === 403) served.refused += 1;
    const body = JSON.stringify({
      error: {
        code: problem.code,
        message: problem.message,
        ...(problem.details ? { details: problem.details } : {}),
      },
      request_id: requestId,
    });
    send(res, requestId, problem.status, body, problem.headers);
  };

  /**
   * A feed read from `position`: the events after it, or (at the end, from a cursor that allows it)
   * held until a change, or `holdMs` and the next upstream read. Answered from the copy as long as it is within `maxLagMs`.
   */
  const answerFeed = (
    f: Follower,
    res: ServerResponse,
    requestId: string,
    read: { epoch: number; position: number; hold: boolean },
    limit: number,
    mayHold: boolean,
    /** Bodies already made for held reads answered together: one per page, however many readers. */
    bodies?: Map<string, Buffer>,
  ) => {
    const problem = unservable(f);
    if (problem) return sendProblem(res, requestId, problem);
    if (read.epoch !== f.epoch || read.position < f.start) {
      if (read.epoch > f.epoch) return sendProblem(res, requestId, notOurs());
      return sendProblem(res, requestId, {
        status: 410,
        code: 'cursor_expired',
        message: 'cursor points before the events this relay keeps: resync from the snapshot',
      });
    }
    if (read.position > end(f))
      return sendProblem(
        res,
        requestId,
        invalid('cursor', 'ahead_of_feed', 'cursor is ahead of the feed: resync from the snapshot'),
      );
    if (read.position === end(f) && read.hold && mayHold && res.req.method !== 'HEAD') {
      const poll: HeldPoll = {
        res,
        requestId,
        epoch: read.epoch,
        position: read.position,
        limit,
        expired: false,
        timer: setTimeout(() => {
          poll.expired = true;
          // Should the upstream reads be backing off, the read is answered one interval on all the same.
          poll.timer = setTimeout(() => void release(f, [poll]), intervalMs);
        }, holdMs),
      };
      f.held.add(poll);
      res.once('close', () => {
        clearTimeout(poll.timer);
        f.held.delete(poll);
      });
      return;
    }
    served.events += 1;
    const key = `${read.position}.${limit}`;
    let body = bodies?.get(key);
    if (!body) {
      const page = feedItems(f, read.position, limit);
      body = Buffer.from(feedBody(f, page.json, feedCursor(f, f.epoch, page.next, page.count === 0)));
      bodies?.set(key, body);
    }
    send(res, requestId, 200, body);
  };

  /**
   * Answers held reads of the game: the change they waited for, or why there is none. In slices
   * that give the event loop back between them, so with thousands held the next read of the service
   * and other requests are not kept waiting behind the whole fan-out. Each is taken out of the held
   * set at once, so no read is answered twice; each page is the copy as it is when that slice runs.
   */
  const release = async (f: Follower, polls: HeldPoll[]) => {
    for (const poll of polls) {
      f.held.delete(poll);
      clearTimeout(poll.timer);
    }
    for (let start = 0; start < polls.length; start += RELEASE_SLICE) {
      if (start > 0) await new Promise((resume) => setImmediate(resume));
      const bodies = new Map<string, Buffer>();
      for (const poll of polls.slice(start, start + RELEASE_SLICE)) {
        if (poll.res.destroyed) continue;
        answerFeed(
          f,
          poll.res,
          poll.requestId,
          { epoch: poll.epoch, position: poll.position, hold: false },
          poll.limit,
          false,
          bodies,
        );
      }
    }
  };

  const wake = (f: Follower) => release(f, [...f.held]);

  /** The copy's bans in snapshot order (device, then ban id), sorted once per change. */
  const sortedBans = (f: Follower) => {
    if (f.sorted?.version === f.version) return f.sorted.items;
    const items: Array<{ key: string; ban: KeptBan }> = [];
    for (const [deviceId, bans] of f.devices)
      for (const ban of bans.values()) items.push({ key: snapshotKey(deviceId, ban.ban_id), ban });
    items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    f.sorted = { version: f.version, items };
    return items;
  };
  /** Sorts by device, then ban id: the id padded so that text order is number order. */
  const snapshotKey = (deviceId: string, banId: number) =>
    `${deviceId}\u0000${String(banId).padStart(16, '0')}`;

  const answerSnapshot = (
    f: Follower,
    res: ServerResponse,
    requestId: string,
    cursor: string | null,
    limit: number,
  ) => {
    const problem = unservable(f);
    if (problem) return sendProblem(res, requestId, problem);
    const policy = f.policy as Policy;
    let epoch = f.epoch;
    let feedPosition = end(f);
    let after = '';
    if (cursor !== null) {
      const match = SNAPSHOT_CURSOR.exec(decode(cursor));
      if (!match) return sendProblem(res, requestId, notOurs());
      const refused = bound(f, match[1] as string, match[2] as string);
      if (refused) return sendProblem(res, requestId, refused);
      epoch = Number(match[3]);
      feedPosition = Number(match[4]);
      after = match[5] as string;
    }
    const cacheKey = `snapshot.${epoch}.${feedPosition}.${after}.${limit}`;
    const at = now();
    let page = f.pages.get(cacheKey);
    if (!page || at - page.at >= PAGE_REUSE_MS) {
      const items = sortedBans(f);
      // The first ban after the cursor's: binary search over the sorted keys.
      let low = 0;
      let high = items.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if ((items[mid]?.key ?? '') <= after) low = mid + 1;
        else high = mid;
      }
      const iso = new Date(at).toISOString();
      const chosen: KeptBan[] = [];
      let index = low;
      for (; index < items.length && chosen.length < limit; index += 1) {
        const ban = items[index]?.ban as KeptBan;
        if (ban.expires_at === null || ban.expires_at > iso) chosen.push(ban);
      }
      const judged = new Map<string, Set<number>>();
      const out = chosen.map((ban) => {
        let applying = judged.get(ban.device_id);
        if (!applying) {
          const all = [...(f.devices.get(ban.device_id)?.values() ?? [])];
          applying = new Set(decideDevice(policy, all, iso).applying.map((b) => b.ban_id));
          judged.set(ban.device_id, applying);
        }
        return { ...ban, enforced: applying.has(ban.ban_id) };
      });
      const last = chosen.at(-1);
      const nextCursor =
        index < items.length && last
          ? encode(
              `s1.${instanceId}.${f.tag}.${epoch}.${feedPosition}.${snapshotKey(last.device_id, last.ban_id)}`,
            )
          : null;
      const body: SnapshotPage = {
        game_id: f.gameId,
        policy,
        feed_cursor: feedCursor(f, epoch, feedPosition, false),
        deployment_id: deploymentOf(f),
        items: out,
        next_cursor: nextCursor,
      };
      page = { at, json: JSON.stringify(body), next: 0, count: out.length };
      f.pages.set(cacheKey, page);
    }
    served.snapshot += 1;
    send(res, requestId, 200, page.json);
  };

  /** The game's follower, started on its first request when the relay follows any game. */
  const followerFor = (gameId: string): Follower | Problem => {
    const known = followers.get(gameId);
    if (known) return known;
    if (fixedGames)
      return { status: 403, code: 'forbidden', message: `This relay does not serve game ${gameId}` };
    if (followers.size >= maxGames)
      return { status: 403, code: 'forbidden', message: `This relay follows at most ${maxGames} games` };
    return follow(gameId);
  };

  const serveRoute = (
    res: ServerResponse,
    requestId: string,
    route: 'events' | 'snapshot',
    gameId: string,
    query: URLSearchParams,
  ) => {
    const found = followerFor(gameId);
    if (isProblem(found)) return sendProblem(res, requestId, found);
    const f = found;
    const limit =
      route === 'events'
        ? integerParam(query.get('limit'), 100, 1, FEED_PAGE)
        : integerParam(query.get('limit'), 500, 1, SNAPSHOT_PAGE);
    if (isProblem(limit)) return sendProblem(res, requestId, limit);
    const cursor = query.get('cursor');
    const cursorShape = route === 'events' ? /^[A-Za-z0-9_-]{1,200}$/ : /^[A-Za-z0-9_-]{1,1000}$/;
    if (cursor !== null && !cursorShape.test(cursor))
      return sendProblem(
        res,
        requestId,
        invalid('cursor', 'invalid_format', 'cursor must be a next_cursor this API returned'),
      );
    const go = () => {
      if (route === 'snapshot') return answerSnapshot(f, res, requestId, cursor, limit);
      const read = readFeedCursor(f, cursor);
      if (isProblem(read)) return sendProblem(res, requestId, read);
      answerFeed(f, res, requestId, read, limit, true);
    };
    if (f.caughtUpAt !== null || f.refused) return go();
    // A game's first readers wait for its first upstream read, at most a hold.
    let timer: ReturnType<typeof setTimeout> | undefined;
    Promise.race([f.firstRead, new Promise<void>((resolve) => (timer = setTimeout(resolve, holdMs)))]).then(
      () => {
        clearTimeout(timer);
        guarded(res, requestId, go);
      },
    );
  };

  /** Runs a step of answering a request: a bug in it answers 500, never escapes the server. */
  const guarded = (res: ServerResponse, requestId: string, step: () => void) => {
    try {
      step();
    } catch {
      sendProblem(res, requestId, {
        status: 500,
        code: 'internal_error',
        message: 'An internal error occurred',
      });
    }
  };

  const health = (res: ServerResponse, requestId: string) => {
    const games: Record<string, { state: RelayGameState; lag_ms: number | null }> = {};
    let ok = true;
    for (const f of followers.values()) {
      const state = stateOf(f);
      games[f.gameId] = { state, lag_ms: lagOf(f) };
      if (state !== 'valid' && state !== 'interrupted') ok = false;
    }
    send(res, requestId, ok ? 200 : 503, JSON.stringify({ ok, games }));
  };

  const ALLOW = 'GET, HEAD';
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const requestId = crypto.randomUUID();
    try {
      const url = new URL(req.url ?? '/', 'http://relay.invalid');
      const route =
        url.pathname === '/v1/events'
          ? 'events'
          : url.pathname === '/v1/enforcement/snapshot'
            ? 'snapshot'
            : url.pathname === '/health'
              ? 'health'
              : undefined;
      if (!route)
        return sendProblem(res, requestId, {
          status: 404,
          code: 'not_found',
          message: 'No route matches the request',
        });
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return sendProblem(res, requestId, {
          status: 405,
          code: 'method_not_allowed',
          message: `${req.method} is not allowed on ${url.pathname}`,
          headers: { Allow: ALLOW },
        });
      if (route === 'health') return health(res, requestId);

      const repeated = ['authorization', 'x-game-id'].filter((name) => headerCount(req, name) > 1);
      if (repeated.length > 0) {
        const names = repeated.map((name) => (name === 'x-game-id' ? 'X-Game-Id' : 'Authorization'));
        return sendProblem(res, requestId, {
          status: 400,
          code: 'invalid_request',
          message: names.map((name) => `${name} must be sent at most once`).join('; '),
          details: names.map((field) => ({ field, issue: 'repeated' })),
        });
      }
      const key = bearer(req.headers.authorization);
      const unauthorized: Problem = {
        status: 401,
        code: 'unauthorized',
        message: 'A valid API key is required',
        headers: { 'WWW-Authenticate': 'Bearer' },
      };
      if (key === undefined) return sendProblem(res, requestId, unauthorized);
      const gameHeader = req.headers['x-game-id'];
      const gameId = typeof gameHeader === 'string' ? gameHeader : '';

      const proceed = (allowed: boolean) => {
        if (!allowed) return sendProblem(res, requestId, unauthorized);
        const problems: Problem[] = [];
        if (gameId === '') problems.push(invalid('X-Game-Id', 'required', 'X-Game-Id is required'));
        else if (!GAME_ID.test(gameId))
          problems.push(
            invalid(
              'X-Game-Id',
              'invalid_format',
              'X-Game-Id must be 1-64 characters of A-Z a-z 0-9 . _ ~ : -',
            ),
          );
        const names = [...url.searchParams.keys()];
        for (const name of new Set(names)) {
          if (names.filter((n) => n === name).length > 1)
            problems.push(invalid(name, 'repeated', `${name} must be given at most once`));
          else if (name !== 'limit' && name !== 'cursor')
            problems.push(invalid(name, 'unknown_field', `${name} is not a known field`));
        }
        if (problems.length > 0)
          return sendProblem(res, requestId, {
            status: 400,
            code: 'invalid_request',
            message: problems.map((p) => p.message).join('; '),
            details: problems.flatMap((p) => p.details ?? []),
          });
        serveRoute(res, requestId, route, gameId, url.searchParams);
      };
      const verdict = authorize(key, gameId);
      if (typeof verdict === 'boolean') return proceed(verdict);
      verdict.then(
        (allowed) => guarded(res, requestId, () => proceed(allowed)),
        () => sendProblem(res, requestId, unavailable('The relay could not check the key')),
      );
    } catch {
      sendProblem(res, requestId, {
        status: 500,
        code: 'internal_error',
        message: 'An internal error occurred',
      });
    }
  };

  for (const game of fixedGames ?? []) follow(game);

  const statusOf = (f: Follower): RelayGameStatus => ({
    state: stateOf(f),
    lag_ms: lagOf(f),
    upstream_delay_ms: f.upstreamDelay,
    deployment_id: f.caughtUpAt === null ? null : deploymentOf(f),
    size: f.count,
    log: { events: f.log.length, from: f.start, to: end(f) },
    held_polls: f.held.size,
    upstream_reads: f.reads,
    failed_reads: f.failedReads,
    consecutive_failures: f.failures,
    applied_events: f.appliedEvents,
    last_error: f.lastError,
  });

  return {
    handler,
    async listen(port, host) {
      if (server) throw new Error('the relay is listening already');
      const http = process.getBuiltinModule('node:http');
      const listening = http.createServer(handler);
      // Mirrors reuse their connection every interval; a held read keeps it busy meanwhile.
      listening.keepAliveTimeout = Math.max(5_000, intervalMs * 5);
      server = listening;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(port, host, () => {
          listening.off('error', reject);
          resolve();
        });
      });
      const address = listening.address();
      return { port: typeof address === 'object' && address ? address.port : port };
    },
    async close() {
      stopping.abort();
      for (const f of followers.values()) {
        const polls = [...f.held];
        f.held.clear();
        for (const poll of polls) {
          clearTimeout(poll.timer);
          sendProblem(poll.res, poll.requestId, unavailable('The relay is shutting down; retry shortly'));
        }
      }
      await Promise.all([...followers.values()].map((f) => f.loop?.catch(() => {})));
      if (server) {
        const closing = server;
        server = undefined;
        await new Promise<void>((resolve) => {
          // Connections of answered reads go idle within moments; any left after a second are cut.
          const cut = setTimeout(() => closing.closeAllConnections(), 1_000);
          closing.close(() => {
            clearTimeout(cut);
            resolve();
          });
          closing.closeIdleConnections();
        });
      }
    },
    status() {
      const games: Record<string, RelayGameStatus> = {};
      let ready = true;
      for (const f of followers.values()) {
        const game = statusOf(f);
        games[f.gameId] = game;
        if (game.state !== 'valid' && game.state !== 'interrupted') ready = false;
      }
      return { instance_id: instanceId, ready, games, served: { ...served } };
    },
    async sync(gameId) {
      const f = followers.get(gameId);
      if (!f) throw new Error(`the relay does not follow game ${gameId}`);
      await f.firstRead;
      await syncAfterNow(f);
    },
  };
};
