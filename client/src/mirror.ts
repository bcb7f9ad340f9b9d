import { decideDevice, ruleFor } from '@kernel/policy-rules';
import type { components } from './api-types.js';
import { applyEvent, dropBan, putBan } from './ban-copy.js';
import type { BanClient } from './client.js';
import { errorFields } from './errors.js';
import {
  compareCopies,
  emptyCopy,
  type MirrorCopy,
  type MirroredBan,
  parseState,
  writeState,
} from './mirror-state.js';
import { pause } from './retry.js';
import { responseBytes } from './transport.js';

export type { MirroredBan };

/**
 * A game server's local copy of what enforcement needs for one publisher and game: the policy and
 * every ban that can restrict a device there, started from `GET /v1/enforcement/snapshot` and kept
 * by following `GET /v1/events` from its cursor. Invariants: `check(deviceId)` answers what
 * `GET /v1/device/{id}/enforcement` answers, with no call, by the service's own rule code
 * (kernel/policy-rules.ts), expiry applied by the clock at `check` time; the copy is bound to the
 * deployment it was built from (another's feed page is followed by a new snapshot). Its state can
 * be kept in a file, so a restart resumes where it stopped. See docs/game-servers.md.
 */

type Schemas = components['schemas'];
type FeedEvent = Schemas['FeedEvent'];
type FeedPage = Schemas['FeedPage'];
type Enforcement = Schemas['Enforcement'];

/** What `check` answers: the enforcement answer's fields but the reputation, and how fresh it is. */
export type MirrorCheck = Omit<Enforcement, 'reputation'> & {
  /** Past the lag limit (or never caught up): answered by `failMode`, not from the copy. */
  stale: boolean;
  /** Milliseconds since the copy last read the feed to its end; null before it ever did. */
  lag_ms: number | null;
};

/**
 * The reads the mirror makes: the client's methods of those routes (createBanClient). The
 * enforcement read is what `decide` asks when the copy is stale; a source without it never asks.
 */
export type MirrorSource = Pick<BanClient, 'getEnforcementSnapshot' | 'listEvents'> &
  Partial<Pick<BanClient, 'getEnforcement'>>;

/**
 * Where a decision came from:
 * - `mirror`: the copy, fresh (no call);
 * - `api`: the copy was stale or absent, and the API answered within the fallback deadline;
 * - `stale_copy`: stale, the API did not answer, `failMode: 'open'`: the copy as it is, so every
 *   ban it knows still holds (bans made since are not seen);
 * - `no_copy`: no copy yet, the API did not answer, `failMode: 'open'`: nothing is known, so
 *   nobody is restricted;
 * - `fail_closed`: stale, the API did not answer, `failMode: 'closed'`: every device restricted;
 * - `key_refused`: the API refused the key (401, 403): every device restricted, in either mode,
 *   and a `fallback_failed` event with `alert: true` (a revoked key must be fixed, not played through).
 */
export type DecisionSource = 'mirror' | 'api' | 'stale_copy' | 'no_copy' | 'fail_closed' | 'key_refused';

/** What `decide` answers: what `check` answers, where it came from, and why the API was not used. */
export type MirrorDecision = MirrorCheck & {
  source: DecisionSource;
  /** The API's failure, when the copy was stale and the API was asked in vain; else null. */
  fallback_error: { status: number; code: string; message: string } | null;
};

/**
 * Where the mirror stands, as feature-flag SDKs report it:
 * - `initializing`: no copy yet (no state file read, no snapshot taken and caught up);
 * - `valid`: caught up within `maxLagMs`, the last read succeeded;
 * - `interrupted`: reads are failing, but the copy is still within `maxLagMs`;
 * - `stale`: the copy is older than `maxLagMs` (`check` answers by `failMode`);
 * - `stopped`: `stop()` was called, or the key was refused (`stoppedBy`).
 */
export type MirrorState = 'initializing' | 'valid' | 'interrupted' | 'stale' | 'stopped';

export interface MirrorStatus {
  state: MirrorState;
  /** Milliseconds since the last caught-up read; null before the first. */
  lag_ms: number | null;
  /** The last failed read (or the refusal that stopped it), when; null if none yet. */
  last_error: { status: number; code: string; message: string; at: string } | null;
  /** Failed reads since the last one that succeeded. */
  consecutive_failures: number;
  /** Bans the copy holds. */
  size: number;
  /** Reads to the feed's end attempted, failed, and the feed events applied, since creation. */
  reads: number;
  failed_reads: number;
  applied_events: number;
  /**
   * How far the feed itself is behind the service's writes, as its last page said (`delay_ms`):
   * a ban wave piling up before the feed shows here, however fresh the copy is. Null before a
   * page said it (or from a server that does not).
   */
  upstream_delay_ms: number | null;
  /**
   * Bytes of the answers read since creation (snapshot and feed pages, verifications included),
   * as decoded: counted by this package's client as it reads them, so 0 with another source.
   */
  bytes: number;
}

export interface DecideOptions {
  /** The clock to end bans by (a test compares with an API answer); now if absent. */
  at?: string | Date;
  /** The API fallback's whole deadline, one attempt (default: the mirror's `fallbackDeadlineMs`). */
  deadlineMs?: number;
}

export interface MirrorOptions {
  /** A client of this package (createBanClient), or anything with its two read methods. */
  client: MirrorSource;
  gameId: string;
  /** Where to keep the state and cursor between runs; none keeps it in memory only. */
  stateFile?: string;
  /** Between feed reads once caught up (default 1,000 ms). */
  intervalMs?: number;
  /** Past this long since the last caught-up read, `check` answers by `failMode` (default 30,000 ms). */
  maxLagMs?: number;
  /**
   * When the copy is stale: `closed` restricts every device; `open` answers from the copy as it
   * is (and, with no copy yet, restricts nobody). `decide` asks the API first either way.
   */
  failMode?: 'closed' | 'open';
  /** `decide`'s one attempt at the API when the copy is stale (default 1,500 ms, no retries). */
  fallbackDeadlineMs?: number;
  /** Longest wait between reads after errors (default 30,000 ms). */
  maxBackoffMs?: number;
  /**
   * At most one state file write per this long (default 5,000 ms): a poll that changed the copy
   * starts one when the last started this long ago, and never waits for it; `stop()` writes the
   * latest state whenever the last write was.
   */
  stateWriteIntervalMs?: number;
  /**
   * Every this long, a fresh snapshot brought to the copy's feed position and compared with it; a
   * copy that differs is replaced (`verified`, `diverged`). Off by default: the copy is exact by
   * construction, and each comparison reads a whole snapshot (a page per 1,000 bans).
   */
  verifyEveryMs?: number;
  /** What happened, for the server's log: started afresh, resynced, a read failing, stopped. */
  onEvent?: (event: MirrorEvent) => void;
  /** The clock (tests move it). */
  now?: () => number;
}

export type MirrorEvent =
  | { type: 'state_loaded'; bans: number }
  | { type: 'state_discarded'; reason: string }
  /**
   * The copy was (re)built from a snapshot: at `start`, after the cursor expired or was refused
   * (another publisher's, or ahead of the feed), or on a feed page of another deployment (the
   * copy was discarded first: never answered from meanwhile).
   */
  | { type: 'snapshot'; bans: number; reason: SnapshotReason }
  | { type: 'caught_up'; applied: number }
  /** The first caught-up read: the copy can answer. */
  | { type: 'ready' }
  /** The copy went past `maxLagMs` (reads failing): `check` answers by `failMode` from now. */
  | { type: 'stale'; lag_ms: number | null }
  /** Caught up again after reads had failed. */
  | { type: 'recovered'; after_failures: number }
  | { type: 'read_failed'; status: number; code: string; retry_in_ms: number }
  | { type: 'stopped'; status: number; code: string; message: string }
  /** The state file was written: its bans and size, and how long the write took (not on the poll). */
  | { type: 'state_written'; bans: number; bytes: number; ms: number }
  /** The state file could not be written: the copy and the polls go on, a later write tries again. */
  | { type: 'state_write_failed'; code: string; message: string }
  /** A fresh snapshot at the copy's feed position was compared with it: how many devices differed. */
  | { type: 'verified'; differences: number }
  /**
   * The copy differed from a fresh snapshot (the devices, at most 20 named, and whether the policy
   * did) and was replaced by it; the listeners were told of those devices.
   */
  | { type: 'diverged'; differences: number; devices: string[]; policy: boolean }
  /** `decide` asked the API (the copy stale) in vain; `alert`: the key was refused (401, 403). */
  | { type: 'fallback_failed'; status: number; code: string; message: string; alert: boolean };

export type SnapshotReason = 'start' | 'cursor_expired' | 'cursor_refused' | 'deployment_changed';

/** A 400 about the cursor, or naming no field (as a server answers that does not say which). */
const namesCursor = (error: unknown) => {
  const details = (error as { details?: unknown })?.details;
  return (
    !Array.isArray(details) ||
    details.length === 0 ||
    details.some((issue) => (issue as { field?: unknown })?.field === 'cursor')
  );
};

/** A listed ban without the reader-relative `enforced` (recomputed at every check). */
const mirrored = (
  deviceId: string,
  { enforced: _enforced, ...ban }: Omit<MirroredBan, 'device_id'> & { enforced: boolean },
): MirroredBan => ({
  ...ban,
  device_id: deviceId,
  // The feed does not carry who made a ban: null everywhere, so copies built either way agree.
  created_by: null,
});

const FEED_PAGE = 500;
const SNAPSHOT_PAGE = 1000;
/** Bans that ended this long ago are dropped from memory (the check ignores them already). */
const PRUNE_AFTER_MS = 60_000;

export interface BanMirror {
  /**
   * Loads the state file or takes a snapshot, catches up with the feed, and polls from then on.
   * Resolves after that first read, even when it failed (the polls go on; `check` answers stale
   * until one succeeds); rejects only when the key is refused (401/403). With `timeoutMs`, resolves
   * then at the latest: the first read goes on behind it (a refusal after that is in `stoppedBy`
   * and its `stopped` event), and a server need not wait the client's whole deadline to open.
   */
  start(options?: { timeoutMs?: number }): Promise<void>;
  /**
   * Stops polling (an in-flight read, verification and write finish first) and writes the latest
   * state to the file; a write that fails is reported (`state_write_failed`), never thrown.
   */
  stop(): Promise<void>;
  /**
   * The device's enforcement in this game, from the copy: no call to the service. Bans end by the
   * clock now (or at `at`: a test compares with an answer the API gave at its `evaluated_at`).
   */
  check(deviceId: string, at?: string | Date): MirrorCheck;
  /**
   * The login gate: may this device play? From the copy while it is fresh (no call); when it is
   * stale, from the API in one short attempt (`fallbackDeadlineMs`); when the API does not answer
   * either, by `failMode` (open: the copy as it is, so no ban it knows lets a player in). A key
   * the API refuses restricts every device and reports an alert. See DecisionSource.
   */
  decide(deviceId: string, options?: DecideOptions): Promise<MirrorDecision>;
  /**
   * Reads the feed to its end now (what the poll does each interval): a read that starts after the
   * call, so the copy holds every change the service made before it.
   */
  sync(): Promise<void>;
  /**
   * Compares the copy with a fresh snapshot now (what `verifyEveryMs` does): resolves with the
   * number of devices (and policy) that differed, and were healed; null when nothing could be
   * compared (the feed kept moving, or the deployment changed); rejects when a read fails.
   */
  verify(): Promise<number | null>;
  /**
   * Calls `listener(deviceId, check)` for each device whose bans or policy changed, once the read
   * that brought the change has caught up (so `check` is fresh): a server kicks a player already
   * in a match. A policy change or a resync calls it for every device the copy holds (or held).
   * Returns the function that removes it; a listener that throws is ignored.
   */
  onBanChange(listener: (deviceId: string, check: MirrorCheck) => void): () => void;
  /**
   * Read-your-writes after `createBan`: resolves true once the copy has applied the feed's event
   * of that ban (reading at once, then each interval), false after `timeoutMs` (default 10,000)
   * without it. A ban of another game, which this game's feed never carries, ends false.
   */
  awaitBan(banId: number, options?: { timeoutMs?: number }): Promise<boolean>;
  /** Milliseconds since the last caught-up read; null before the first. */
  lagMs(): number | null;
  /** How many bans the copy holds. */
  size(): number;
  /** Where it stands, with its counters (see MirrorState). */
  status(): MirrorStatus;
  /** Set when a 401 or 403 stopped it: the key was revoked or lacks a scope. */
  readonly stoppedBy: { status: number; code: string; message: string } | null;
}

export const createBanMirror = (options: MirrorOptions): BanMirror => {
  const { client, gameId, stateFile } = options;
  const intervalMs = options.intervalMs ?? 1000;
  const maxLagMs = options.maxLagMs ?? 30_000;
  const failMode = options.failMode ?? 'closed';
  const fallbackDeadlineMs = options.fallbackDeadlineMs ?? 1_500;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const stateWriteIntervalMs = options.stateWriteIntervalMs ?? 5_000;
  const verifyEveryMs = options.verifyEveryMs;
  const now = options.now ?? Date.now;
  const report = options.onEvent ?? (() => {});
  let state: MirrorCopy | undefined;
  let fileRead = false;
  let caughtUpAt: number | undefined;
  let dirty = false;
  let stoppedBy: BanMirror['stoppedBy'] = null;
  let loop: Promise<void> | undefined;
  let starting: Promise<void> | undefined;
  let upstreamDelayMs: number | null = null;
  let bytesRead = 0;
  const listeners = new Set<(deviceId: string, check: MirrorCheck) => void>();
  /** Devices changed by reads since the last caught-up one: told to the listeners then. */
  const changed = new Set<string>();
  /** The ids of the bans whose events were applied lately (for awaitBan), oldest first. */
  const applied = new Set<number>();
  const APPLIED_KEPT = 10_000;
  const noteChanges = (event: FeedEvent) => {
    // Only what a listener will be told: a policy change names every device held, which on the
    // poll path is worth doing for someone, never for no one.
    if (listeners.size > 0) {
      if (event.type === 'policy.updated')
        for (const device of state?.devices.keys() ?? []) changed.add(device);
      else if (event.device_id) changed.add(event.device_id);
    }
    if ('ban' in event && event.ban) {
      applied.delete(event.ban.ban_id);
      applied.add(event.ban.ban_id);
      if (applied.size > APPLIED_KEPT) applied.delete(applied.values().next().value as number);
    }
  };
  const counted = <T>(page: T): T => {
    bytesRead += responseBytes(page) ?? 0;
    return page;
  };
  /** The read in progress (a sync, or a verification's exclusive part): one at a time. */
  let syncing: Promise<void> | undefined;
  const stopping = new AbortController();

  const load = async (): Promise<MirrorCopy | undefined> => {
    if (!stateFile) return undefined;
    const { readFile } = await import('node:fs/promises');
    let text: string;
    try {
      text = await readFile(stateFile, 'utf8');
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT')
        report({
          type: 'state_discarded',
          reason: `the state file cannot be read: ${errorFields(error).message}`,
        });
      return undefined;
    }
    const { createHash } = await import('node:crypto');
    const stored = parseState(text, gameId, () => createHash('sha256'));
    if (typeof stored === 'string') {
      report({ type: 'state_discarded', reason: stored });
      return undefined;
    }
    report({ type: 'state_loaded', bans: stored.count });
    return stored;
  };

  let writing: Promise<void> | undefined;
  let lastWriteAt: number | undefined;
  /**
   * Starts a write of the copy as it is, unless one is under way (then resolves when that ends).
   * Never rejects: a full disk or a refused file is reported as its own event and backs nothing
   * off (the copy in memory is whole and current), and the copy stays due for the next write.
   */
  const writeNow = (): Promise<void> => {
    if (writing) return writing;
    const copy = state;
    if (!stateFile || !copy || !dirty) return Promise.resolve();
    dirty = false;
    lastWriteAt = now();
    const started = performance.now();
    writing = writeState(stateFile, copy, gameId)
      .then(
        ({ bytes }) =>
          report({
            type: 'state_written',
            bans: copy.count,
            bytes,
            ms: Math.round(performance.now() - started),
          }),
        (error: unknown) => {
          dirty = true;
          const { code, message } = errorFields(error);
          report({ type: 'state_write_failed', code, message });
        },
      )
      .finally(() => {
        writing = undefined;
      });
    return writing;
  };
  /** After each read: a write when the copy changed and the last one started long enough ago. */
  const writeWhenDue = () => {
    if (lastWriteAt === undefined || now() - lastWriteAt >= stateWriteIntervalMs) void writeNow();
  };

  const DEPLOYMENT_MISMATCH = {
    status: 0,
    code: 'deployment_changed',
    message: "the snapshot's pages came from different deployments",
  };
  /**
   * Every page of a snapshot, as a copy of its own; retaken when its pages name two deployments.
   * A verification's (`abortable`) ends at the next page once stop() is called.
   */
  const readSnapshot = async (abortable = false): Promise<MirrorCopy> => {
    for (let attempt = 0; ; attempt++) {
      let page = counted(await client.getEnforcementSnapshot(gameId, { limit: SNAPSHOT_PAGE }));
      // A server that does not name its deployment: the copy is taken as is.
      const deploymentId = page.deployment_id ?? null;
      const copy = emptyCopy(page.policy, page.feed_cursor, deploymentId);
      let agreed = true;
      for (;;) {
        for (const item of page.items) putBan(copy, mirrored(item.device_id, item));
        if (!page.next_cursor) break;
        if (abortable) stopping.signal.throwIfAborted();
        page = counted(
          await client.getEnforcementSnapshot(gameId, { limit: SNAPSHOT_PAGE, cursor: page.next_cursor }),
        );
        if ((page.deployment_id ?? null) !== deploymentId) {
          agreed = false;
          break;
        }
      }
      if (agreed) return copy;
      if (attempt >= 2) throw DEPLOYMENT_MISMATCH;
    }
  };

  /** The copy replaced by a whole new snapshot (never half-read); `previous` is what it held. */
  const takeSnapshot = async (reason: SnapshotReason, previous = state) => {
    const copy = await readSnapshot();
    if (previous && listeners.size > 0) for (const device of previous.devices.keys()) changed.add(device);
    state = copy;
    if (reason !== 'start' && listeners.size > 0)
      for (const device of copy.devices.keys()) changed.add(device);
    dirty = true;
    report({ type: 'snapshot', bans: copy.count, reason });
  };

  const prune = (copy: MirrorCopy | undefined, at: number) => {
    if (!copy) return;
    const before = new Date(at - PRUNE_AFTER_MS).toISOString();
    for (const [deviceId, bans] of copy.devices)
      for (const ban of bans.values())
        if (ban.expires_at !== null && ban.expires_at < before) dropBan(copy, deviceId, ban.ban_id);
  };

  /** One feed page from the copy's cursor; the page's delay is the latest known. */
  const readPage = async (copy: MirrorCopy) => {
    const page = counted(await client.listEvents(gameId, { cursor: copy.cursor, limit: FEED_PAGE }));
    if (page.delay_ms !== undefined) upstreamDelayMs = page.delay_ms;
    return page;
  };

  /**
   * Reads the feed from the cursor until a page comes back empty. A cursor the feed no longer
   * keeps, or refuses, or a page of another deployment than the copy's, ends in a new snapshot: at
   * most twice per read, so a service that keeps refusing is a failed read (backed off), not a loop.
   */
  const catchUp = async () => {
    let applied = 0;
    let resyncs = 0;
    let snapshotTaken = false;
    const resync = async (reason: SnapshotReason, cause: unknown) => {
      resyncs += 1;
      if (resyncs > 2) throw cause;
      const previous = state;
      // Not merely old but not this feed's: never answered from again, stale until rebuilt.
      if (reason !== 'cursor_expired') {
        state = undefined;
        caughtUpAt = undefined;
      }
      await takeSnapshot(reason, previous);
      snapshotTaken = true;
    };
    for (;;) {
      const current = state;
      if (!current) return;
      let page: FeedPage;
      try {
        page = await readPage(current);
      } catch (error) {
        const { status, code } = errorFields(error);
        if (status === 410 && code === 'cursor_expired') {
          await resync('cursor_expired', error);
          continue;
        }
        // A cursor refused: another publisher's or game's (the state file was not ours), or ahead
        // of the feed's end (the file was written against another deployment, or the table was
        // restored from a backup).
        if (status === 400 && code === 'invalid_request' && namesCursor(error)) {
          await resync('cursor_refused', error);
          continue;
        }
        throw error;
      }
      const deploymentId = page.deployment_id;
      if (deploymentId !== undefined && deploymentId !== current.deploymentId) {
        // A copy just built by a server that did not name its deployment is bound to this one.
        if (current.deploymentId === null && snapshotTaken) {
          current.deploymentId = deploymentId;
          dirty = true;
        } else {
          await resync('deployment_changed', {
            ...DEPLOYMENT_MISMATCH,
            message: `the feed is of deployment ${deploymentId}, the copy of ${current.deploymentId}`,
          });
          continue;
        }
      }
      for (const event of page.items) {
        applyEvent(current, event, mirrored);
        noteChanges(event);
      }
      appliedEvents += page.items.length;
      applied += page.items.length;
      if (page.next_cursor !== current.cursor) {
        current.cursor = page.next_cursor;
        dirty = true;
      }
      if (page.items.length === 0) {
        caughtUpAt = now();
        prune(current, caughtUpAt);
        report({ type: 'caught_up', applied });
        tellChanges();
        return;
      }
    }
  };

  /** Runs `work` once no other read is under way, as the read under way (sync() follows it). */
  const exclusive = async <T>(work: () => Promise<T>): Promise<T> => {
    while (syncing) await syncing.catch(() => {});
    const running = work();
    const done = running.then(
      () => {},
      () => {},
    );
    syncing = done;
    try {
      return await running;
    } finally {
      if (syncing === done) syncing = undefined;
      writeWhenDue();
    }
  };

  const read = () => {
    syncing = (async () => {
      try {
        if (!fileRead) {
          fileRead = true;
          state ??= await load();
        }
        if (!state) await takeSnapshot('start');
        await catchUp();
      } finally {
        syncing = undefined;
        writeWhenDue();
      }
    })();
    return syncing;
  };
  /**
   * A read that starts now, or, while one is under way (it may have read the feed's end before the
   * caller's last write), the one that follows it: shared by every caller meanwhile.
   */
  let following: Promise<void> | undefined;
  const sync = (): Promise<void> => {
    if (!syncing) return read();
    following ??= syncing
      .catch(() => {})
      .then(() => {
        following = undefined;
        return stopping.signal.aborted ? undefined : sync();
      });
    return following;
  };

  let verifying: Promise<number | null> | undefined;
  let lastVerifyAt: number | undefined;
  /**
   * A fresh snapshot, brought to the copy's feed position (both read to the feed's end, until they
   * end at the same cursor), then compared; a copy that differs is replaced and the listeners are
   * told of the devices that changed. The snapshot is read beside the polls; only the reads to the
   * same position and the comparison hold them (a few pages and a pass over the copy).
   */
  const verify = () => {
    verifying ??= (async () => {
      lastVerifyAt = now();
      const candidate = await readSnapshot(true);
      return exclusive(async () => {
        const copy = state;
        // A copy of another deployment is the copy's own reads' to find (and rebuild).
        if (!copy || candidate.deploymentId !== copy.deploymentId) return null;
        for (let round = 0; round < 4 && candidate.cursor !== copy.cursor; round++) {
          for (;;) {
            const page = await readPage(candidate);
            if (page.deployment_id !== undefined && page.deployment_id !== candidate.deploymentId)
              return null;
            for (const event of page.items) applyEvent(candidate, event, mirrored);
            candidate.cursor = page.next_cursor;
            if (page.items.length === 0) break;
          }
          await catchUp();
          if (state !== copy) return null;
        }
        // The feed kept moving: the next period tries again.
        if (candidate.cursor !== copy.cursor) return null;
        const { devices, policy } = await compareCopies(copy, candidate, new Date(now()).toISOString());
        const differences = devices.length + (policy ? 1 : 0);
        report({ type: 'verified', differences });
        if (differences === 0) return 0;
        prune(candidate, now());
        state = candidate;
        dirty = true;
        if (listeners.size > 0)
          for (const device of policy ? [...copy.devices.keys(), ...candidate.devices.keys()] : devices)
            changed.add(device);
        report({ type: 'diverged', differences, devices: devices.slice(0, 20), policy });
        tellChanges();
        return differences;
      });
    })().finally(() => {
      verifying = undefined;
    });
    return verifying;
  };
  /** After each successful poll: a verification in the background when one is due. */
  const verifyWhenDue = () => {
    if (!verifyEveryMs || verifying || !state) return;
    lastVerifyAt ??= now();
    if (now() - lastVerifyAt >= verifyEveryMs) verify().catch(() => {});
  };

  let failures = 0;
  let reads = 0;
  let failedReads = 0;
  let appliedEvents = 0;
  let lastError: MirrorStatus['last_error'] = null;
  let ready = false;
  let reportedStale = false;
  const stateNow = (): MirrorState => {
    if (stoppedBy !== null || stopping.signal.aborted) return 'stopped';
    const { stale, lag } = freshness();
    if (!state || lag === null) return 'initializing';
    if (stale) return 'stale';
    return failures > 0 ? 'interrupted' : 'valid';
  };
  /**
   * One read to the feed's end: the wait before the next (the interval; after failures longer,
   * with full jitter), or the error of a 401/403, which stops the mirror.
   */
  const attempt = async (): Promise<{ wait: number } | { stopped: unknown }> => {
    reads += 1;
    try {
      await sync();
      if (!ready) {
        ready = true;
        report({ type: 'ready' });
      } else if (failures > 0) report({ type: 'recovered', after_failures: failures });
      failures = 0;
      reportedStale = false;
      verifyWhenDue();
      return { wait: intervalMs };
    } catch (error) {
      const fields = errorFields(error);
      failedReads += 1;
      lastError = { ...fields, at: new Date(now()).toISOString() };
      if (fields.status === 401 || fields.status === 403) {
        stoppedBy = fields;
        report({ type: 'stopped', ...fields });
        return { stopped: error };
      }
      failures += 1;
      if (!reportedStale && ready && freshness().stale) {
        reportedStale = true;
        report({ type: 'stale', lag_ms: lagMs() });
      }
      const wait = Math.round(Math.random() * Math.min(maxBackoffMs, intervalMs * 2 ** failures));
      report({ type: 'read_failed', status: fields.status, code: fields.code, retry_in_ms: wait });
      return { wait };
    }
  };

  const poll = async (first: number) => {
    let wait: number | undefined = first;
    while (wait !== undefined && !stopping.signal.aborted) {
      await pause(wait, stopping.signal);
      if (stopping.signal.aborted) return;
      const outcome = await attempt();
      wait = 'wait' in outcome ? outcome.wait : undefined;
    }
  };

  const lagMs = () => (caughtUpAt === undefined ? null : Math.max(0, now() - caughtUpAt));
  const tellChanges = () => {
    if (listeners.size === 0) {
      changed.clear();
      return;
    }
    const devices = [...changed];
    changed.clear();
    for (const device of devices)
      for (const listener of listeners) {
        try {
          listener(device, mirror.check(device));
        } catch {
          // The server's handler failing is the server's to log; the mirror goes on.
        }
      }
  };
  const freshness = () => {
    const lag = lagMs();
    return { lag, stale: !state || lag === null || lag > maxLagMs || stoppedBy !== null };
  };
  /** The answer of a copy that cannot be trusted and a mode that fails closed: nobody plays. */
  const everyoneRestricted = (deviceId: string, evaluatedAt: string, lag: number | null): MirrorCheck => ({
    device_id: deviceId,
    game_id: gameId,
    evaluated_at: evaluatedAt,
    restricted: { cheat: true, social: true },
    bans: [],
    not_enforced: [],
    policy_updated_at: state?.policy.updated_at ?? evaluatedAt,
    stale: true,
    lag_ms: lag,
  });
  /** Failing open with no copy at all: no ban is known, so none restricts. */
  const nothingKnown = (deviceId: string, evaluatedAt: string, lag: number | null): MirrorCheck => ({
    ...everyoneRestricted(deviceId, evaluatedAt, lag),
    restricted: { cheat: false, social: false },
  });
  /** The copy's answer, by the service's own rules, however old the copy is; null without one. */
  const fromCopy = (
    deviceId: string,
    evaluatedAt: string,
    stale: boolean,
    lag: number | null,
  ): MirrorCheck | null => {
    const policy = state?.policy;
    if (!policy) return null;
    // Every ban of the device, in the service's order (newest first): a quorum of global bans is
    // a property of the device, not of one ban.
    const bans = [...(state?.devices.get(deviceId)?.values() ?? [])].sort((a, b) => b.ban_id - a.ban_id);
    const { applying, restricted, not_enforced } = decideDevice(policy, bans, evaluatedAt);
    return {
      device_id: deviceId,
      game_id: gameId,
      evaluated_at: evaluatedAt,
      restricted,
      bans: applying.map(({ device_id: _device, ...ban }) => ({
        ...ban,
        enforced: true,
        rule: ruleFor(ban),
      })),
      not_enforced,
      policy_updated_at: policy.updated_at,
      stale,
      lag_ms: lag,
    };
  };

  const mirror: BanMirror = {
    async start(startOptions = {}) {
      starting ??= (async () => {
        const outcome = await attempt();
        // A key that is refused is a mistake to show at once; any other failure is an outage the
        // polls ride out (check answers stale meanwhile).
        if ('stopped' in outcome) throw outcome.stopped;
        loop = poll(outcome.wait);
      })();
      const { timeoutMs } = startOptions;
      if (timeoutMs === undefined) return starting;
      // Past the timeout nobody awaits the first read: its refusal is reported, not thrown.
      starting.catch(() => {});
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      try {
        await Promise.race([starting, waited]);
      } finally {
        clearTimeout(timer);
      }
    },
    async stop() {
      stopping.abort();
      await starting?.catch(() => {});
      await loop;
      await verifying?.catch(() => {});
      await following?.catch(() => {});
      await syncing?.catch(() => {});
      // The write under way may hold an older copy: then the latest, whenever the last one was.
      await writing;
      await writeNow();
    },
    sync,
    verify,
    lagMs,
    size: () => state?.count ?? 0,
    status: () => ({
      state: stateNow(),
      lag_ms: lagMs(),
      last_error: lastError,
      consecutive_failures: failures,
      size: state?.count ?? 0,
      reads,
      failed_reads: failedReads,
      applied_events: appliedEvents,
      upstream_delay_ms: upstreamDelayMs,
      bytes: bytesRead,
    }),
    get stoppedBy() {
      return stoppedBy;
    },
    check(deviceId, at) {
      const evaluatedAt = new Date(at ?? now()).toISOString();
      const { stale, lag } = freshness();
      if (stale && failMode === 'closed') return everyoneRestricted(deviceId, evaluatedAt, lag);
      return fromCopy(deviceId, evaluatedAt, stale, lag) ?? nothingKnown(deviceId, evaluatedAt, lag);
    },
    async decide(deviceId, decideOptions = {}) {
      const evaluatedAt = new Date(decideOptions.at ?? now()).toISOString();
      const { stale, lag } = freshness();
      const fresh = stale ? null : fromCopy(deviceId, evaluatedAt, false, lag);
      if (fresh) return { ...fresh, source: 'mirror', fallback_error: null };
      let failure: MirrorDecision['fallback_error'];
      if (client.getEnforcement) {
        try {
          const { reputation: _reputation, ...answer } = await client.getEnforcement(gameId, deviceId, {
            deadlineMs: decideOptions.deadlineMs ?? fallbackDeadlineMs,
            retries: 0,
          });
          return { ...answer, stale: false, lag_ms: lag, source: 'api', fallback_error: null };
        } catch (error) {
          failure = errorFields(error);
        }
      } else
        failure = { status: 0, code: 'no_fallback', message: "the mirror's source cannot read enforcement" };
      const refused = failure.status === 401 || failure.status === 403;
      report({ type: 'fallback_failed', ...failure, alert: refused });
      if (refused)
        return {
          ...everyoneRestricted(deviceId, evaluatedAt, lag),
          source: 'key_refused',
          fallback_error: failure,
        };
      if (failMode === 'closed')
        return {
          ...everyoneRestricted(deviceId, evaluatedAt, lag),
          source: 'fail_closed',
          fallback_error: failure,
        };
      const copy = fromCopy(deviceId, evaluatedAt, true, lag);
      return copy
        ? { ...copy, source: 'stale_copy', fallback_error: failure }
        : { ...nothingKnown(deviceId, evaluatedAt, lag), source: 'no_copy', fallback_error: failure };
    },
    onBanChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async awaitBan(banId, awaitOptions = {}) {
      const deadline = now() + (awaitOptions.timeoutMs ?? 10_000);
      for (;;) {
        if (applied.has(banId)) return true;
        await sync().catch(() => {});
        if (applied.has(banId)) return true;
        const left = deadline - now();
        if (left <= 0 || stopping.signal.aborted) return false;
        await pause(Math.min(intervalMs, left), stopping.signal);
      }
    },
  };
  return mirror;
};
