import { decideDevice, ruleFor } from '../../lib/domain/policy-rules.js';
import type { components } from './api-types.js';
import type { BanClient } from './client.js';
import { pause } from './retry.js';

/**
 * A game server's local copy of what enforcement needs for one publisher and game: the policy and
 * every ban that can restrict a device there, kept by following the change feed. `check(deviceId)`
 * answers what `GET /v1/device/{id}/enforcement` answers, with no call to the service, by the same
 * rule code the service runs (lib/domain/policy-rules.ts), with expiry applied by the clock at
 * `check` time.
 *
 * It starts from `GET /v1/enforcement/snapshot` (every live ban, and a feed cursor taken before
 * the snapshot was read), then replays `GET /v1/events` from that cursor and polls it. Its state
 * and cursor can be kept in a file (replaced atomically), so a restart resumes where it stopped.
 * See docs/game-servers.md.
 */

type Schemas = components['schemas'];
type Policy = Schemas['Policy'];
type FeedEvent = Schemas['FeedEvent'];
type FeedPage = Schemas['FeedPage'];
type SnapshotPage = Schemas['EnforcementSnapshot'];
type Enforcement = Schemas['Enforcement'];
/** A ban as the mirror keeps it: the snapshot's item (its device, and the ban as listings show it). */
export type MirroredBan = Omit<SnapshotPage['items'][number], 'enforced'>;

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
  /** What happened, for the server's log: started afresh, resynced, a read failing, stopped. */
  onEvent?: (event: MirrorEvent) => void;
  /** The clock (tests move it). */
  now?: () => number;
}

export type MirrorEvent =
  | { type: 'state_loaded'; bans: number }
  | { type: 'state_discarded'; reason: string }
  | { type: 'snapshot'; bans: number; reason: 'start' | 'cursor_expired' | 'cursor_refused' }
  | { type: 'caught_up'; applied: number }
  /** The first caught-up read: the copy can answer. */
  | { type: 'ready' }
  /** The copy went past `maxLagMs` (reads failing): `check` answers by `failMode` from now. */
  | { type: 'stale'; lag_ms: number | null }
  /** Caught up again after reads had failed. */
  | { type: 'recovered'; after_failures: number }
  | { type: 'read_failed'; status: number; code: string; retry_in_ms: number }
  | { type: 'stopped'; status: number; code: string; message: string }
  /** The state file could not be written: the copy and the polls go on, the next read writes again. */
  | { type: 'state_write_failed'; code: string; message: string }
  /** `decide` asked the API (the copy stale) in vain; `alert`: the key was refused (401, 403). */
  | { type: 'fallback_failed'; status: number; code: string; message: string; alert: boolean };

/** /2: with a checksum of the rest, so an edited or damaged file is never served from. */
const STATE_FORMAT = 'device-ban-mirror/2';
const FORMAT_FAMILY = 'device-ban-mirror/';

interface State {
  policy: Policy;
  cursor: string;
  /** Device id → ban id → ban. */
  devices: Map<string, Map<number, MirroredBan>>;
  count: number;
}

interface StoredState {
  format: typeof STATE_FORMAT;
  game_id: string;
  publisher_id: string;
  cursor: string;
  policy: Policy;
  bans: MirroredBan[];
}

/** SHA-256 of the text, hex (node:crypto, loaded by the caller). */
type Digest = (text: string) => string;

const errorFields = (error: unknown) => {
  const e = error as { status?: unknown; code?: unknown; message?: unknown };
  return {
    status: typeof e?.status === 'number' ? e.status : 0,
    code: typeof e?.code === 'string' ? e.code : 'network_error',
    message: typeof e?.message === 'string' ? e.message : String(error),
  };
};

const putBan = (state: State, ban: MirroredBan) => {
  const bans = state.devices.get(ban.device_id) ?? new Map<number, MirroredBan>();
  state.devices.set(ban.device_id, bans);
  if (!bans.has(ban.ban_id)) state.count += 1;
  bans.set(ban.ban_id, ban);
};

const dropBan = (state: State, deviceId: string, banId: number) => {
  const bans = state.devices.get(deviceId);
  if (!bans?.delete(banId)) return;
  state.count -= 1;
  if (bans.size === 0) state.devices.delete(deviceId);
};

/** A listed ban without the reader-relative `enforced` (recomputed at every check). */
const mirrored = (
  deviceId: string,
  { enforced: _enforced, ...ban }: Omit<MirroredBan, 'device_id'> & { enforced: boolean },
): MirroredBan => ({
  ...ban,
  device_id: deviceId,
});

/**
 * One feed event applied to the copy. Replaying an event the snapshot already reflects leaves the
 * same state (a create or update puts the ban as it was then, a later event of the same ban follows
 * it in the feed), so replay from a cursor taken before the snapshot ends exact.
 */
const applyEvent = (state: State, event: FeedEvent) => {
  if (event.type === 'policy.updated' && event.policy) {
    state.policy = event.policy as Policy;
    return;
  }
  if (event.type === 'appeal.created' || event.type === 'appeal.decided') {
    const appeal = event.appeal as Schemas['AppealSubject'] | undefined;
    const ban =
      appeal && event.device_id ? state.devices.get(event.device_id)?.get(appeal.ban_id) : undefined;
    if (ban && appeal)
      putBan(state, {
        ...ban,
        appeal: { appeal_id: appeal.appeal_id, status: appeal.status, outcome: appeal.outcome },
      });
    return;
  }
  if (!('ban' in event) || !event.device_id) return;
  const { ban } = event;
  if (event.type === 'ban.revoked' || event.type === 'ban.erased' || ban.revoked_at !== null)
    dropBan(state, event.device_id, ban.ban_id);
  else putBan(state, mirrored(event.device_id, ban));
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The stored state, or why it cannot be used. */
const parseStored = (text: string, gameId: string, digest: Digest): StoredState | string => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'the state file is not JSON';
  }
  if (
    isRecord(value) &&
    typeof value.format === 'string' &&
    value.format !== STATE_FORMAT &&
    value.format.startsWith(FORMAT_FAMILY)
  )
    return `the state file is of another format (${value.format})`;
  if (!isRecord(value) || value.format !== STATE_FORMAT) return 'the state file is not a mirror state';
  // The checksum was written last, over everything before it in the order written.
  const { checksum, ...rest } = value;
  if (typeof checksum !== 'string' || digest(JSON.stringify(rest)) !== checksum)
    return 'the state file was edited or damaged (its checksum does not match)';
  if (value.game_id !== gameId) return `the state file is for game ${String(value.game_id)}`;
  if (
    typeof value.cursor !== 'string' ||
    typeof value.publisher_id !== 'string' ||
    !isRecord(value.policy) ||
    value.policy.publisher_id !== value.publisher_id ||
    !Array.isArray(value.bans) ||
    !value.bans.every(
      (ban) => isRecord(ban) && typeof ban.device_id === 'string' && typeof ban.ban_id === 'number',
    )
  )
    return 'the state file is damaged';
  return value as unknown as StoredState;
};

const stateOf = (policy: Policy, cursor: string, bans: readonly MirroredBan[]): State => {
  const state: State = { policy, cursor, devices: new Map(), count: 0 };
  for (const ban of bans) putBan(state, ban);
  return state;
};

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
   * Stops polling (an in-flight read finishes first) and writes the state file once more; a write
   * that fails is reported (`state_write_failed`), never thrown.
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
  /** Reads the feed to its end now (what the poll does each interval). */
  sync(): Promise<void>;
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
  const now = options.now ?? Date.now;
  const report = options.onEvent ?? (() => {});
  let state: State | undefined;
  let caughtUpAt: number | undefined;
  let dirty = false;
  let stoppedBy: BanMirror['stoppedBy'] = null;
  let loop: Promise<void> | undefined;
  let starting: Promise<void> | undefined;
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
  let syncing: Promise<void> | undefined;
  const stopping = new AbortController();

  const load = async (): Promise<State | undefined> => {
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
    const stored = parseStored(text, gameId, (body) => createHash('sha256').update(body).digest('hex'));
    if (typeof stored === 'string') {
      report({ type: 'state_discarded', reason: stored });
      return undefined;
    }
    report({ type: 'state_loaded', bans: stored.bans.length });
    return stateOf(stored.policy, stored.cursor, stored.bans);
  };

  /**
   * Written to a new file and renamed over the old one, so a crash leaves one or the other whole.
   * The new file has a random name and is created exclusively (never opened if anything, such as
   * a symlink another account planted in a shared folder, is already there), readable by this
   * account alone; the rename keeps that mode, so the state file is 0600 too.
   */
  const save = async () => {
    if (!stateFile || !state || !dirty) return;
    const { open, rename, unlink } = await import('node:fs/promises');
    const { randomBytes } = await import('node:crypto');
    const { createHash } = await import('node:crypto');
    const stored: StoredState = {
      format: STATE_FORMAT,
      game_id: gameId,
      publisher_id: state.policy.publisher_id,
      cursor: state.cursor,
      policy: state.policy,
      bans: [...state.devices.values()].flatMap((bans) => [...bans.values()]),
    };
    const body = JSON.stringify(stored);
    const checksum = createHash('sha256').update(body).digest('hex');
    const temporary = `${stateFile}.${randomBytes(12).toString('hex')}.tmp`;
    const file = await open(temporary, 'wx', 0o600);
    try {
      try {
        // The checksum last, over the text before it (parseStored checks it the same way).
        await file.writeFile(`${body.slice(0, -1)},"checksum":"${checksum}"}`);
      } finally {
        await file.close();
      }
      await rename(temporary, stateFile);
    } catch (error) {
      await unlink(temporary).catch(() => {});
      throw error;
    }
    dirty = false;
  };

  /**
   * Writes the state file, never failing the read that asked: a full disk or a refused file is
   * reported as its own event and backs nothing off (the copy in memory is whole and current, and
   * the next caught-up read or stop() writes again).
   */
  const persist = async () => {
    try {
      await save();
    } catch (error) {
      const { code, message } = errorFields(error);
      report({ type: 'state_write_failed', code, message });
    }
  };

  /** Every page of a snapshot, then the copy replaced by it (never half-read). */
  const takeSnapshot = async (reason: 'start' | 'cursor_expired' | 'cursor_refused') => {
    const bans: MirroredBan[] = [];
    let page = await client.getEnforcementSnapshot(gameId, { limit: SNAPSHOT_PAGE });
    const { policy, feed_cursor } = page;
    for (;;) {
      for (const item of page.items) bans.push(mirrored(item.device_id, item));
      if (!page.next_cursor) break;
      page = await client.getEnforcementSnapshot(gameId, { limit: SNAPSHOT_PAGE, cursor: page.next_cursor });
    }
    if (state && listeners.size > 0) for (const device of state.devices.keys()) changed.add(device);
    state = stateOf(policy, feed_cursor, bans);
    if (reason !== 'start' && listeners.size > 0)
      for (const device of state.devices.keys()) changed.add(device);
    dirty = true;
    report({ type: 'snapshot', bans: bans.length, reason });
  };

  const prune = (at: number) => {
    if (!state) return;
    const before = new Date(at - PRUNE_AFTER_MS).toISOString();
    for (const [deviceId, bans] of state.devices)
      for (const ban of bans.values())
        if (ban.expires_at !== null && ban.expires_at < before) dropBan(state, deviceId, ban.ban_id);
  };

  /** Reads the feed from the cursor until a page comes back empty. */
  const catchUp = async () => {
    let applied = 0;
    for (;;) {
      const current = state;
      if (!current) return;
      let page: FeedPage;
      try {
        page = await client.listEvents(gameId, { cursor: current.cursor, limit: FEED_PAGE });
      } catch (error) {
        const { status, code } = errorFields(error);
        if (status === 410 && code === 'cursor_expired') {
          await takeSnapshot('cursor_expired');
          continue;
        }
        // A cursor refused as another publisher's or game's: the state file was not ours.
        if (status === 400 && code === 'invalid_request') {
          await takeSnapshot('cursor_refused');
          continue;
        }
        throw error;
      }
      for (const event of page.items) {
        applyEvent(current, event);
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
        prune(caughtUpAt);
        report({ type: 'caught_up', applied });
        tellChanges();
        await persist();
        return;
      }
    }
  };

  const sync = () => {
    syncing ??= (async () => {
      try {
        if (!state) state = await load();
        if (!state) await takeSnapshot('start');
        await catchUp();
      } finally {
        syncing = undefined;
      }
    })();
    return syncing;
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
      await syncing?.catch(() => {});
      await persist();
    },
    sync,
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
