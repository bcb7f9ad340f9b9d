import * as crypto from 'node:crypto';
import * as fs from 'node:fs/promises';
import { lstat, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPolicyFlags } from '@kernel/policy-flags';
import { defaultPolicyTrust } from '@kernel/policy-trust';
import { describe, expect, it, vi } from 'vitest';
import { createBanClient } from '../../client/src/client';
import { ApiError } from '../../client/src/errors';
import { createBanMirror, type MirrorEvent, type MirrorSource } from '../../client/src/mirror';

/**
 * The mirror's behaviour when the service misbehaves, against a source written here (no network):
 * 503 and 429 storms back off and keep the copy as it was, the copy ages into `stale` past its lag
 * limit and answers by its fail mode, and each kind of event changes the copy as the feed means it.
 * Its exactness against the real API is test/integration/mirror-exactness.test.ts.
 */

// The state file's temporary name comes from node:crypto's randomBytes: one test makes it
// predictable to show a planted file at that very name is still not opened.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, randomBytes: vi.fn(actual.randomBytes) };
});
// A write held open shows the polls do not wait for it.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return { ...actual, open: vi.fn(actual.open) };
});

const GAME = 'g-1';
/** A new publisher's policy: everything enforced but global social bans, everyone trusted alone. */
const policy = {
  publisher_id: 'pub-1',
  ...defaultPolicyFlags,
  ...defaultPolicyTrust,
  updated_at: '2026-11-01T00:00:00.000Z',
};

const ban = (id: number, over: Record<string, unknown> = {}) => ({
  ban_id: id,
  ban_type: 'cheat' as const,
  scope: 'game' as const,
  publisher_id: 'pub-1',
  game_id: GAME,
  reason_code: 'aimbot',
  details_json: null,
  created_at: '2026-11-01T00:00:00.000Z',
  expires_at: null as string | null,
  revoked_at: null as string | null,
  revoke_reason_code: null,
  player_message: null,
  appealable: true,
  statement: {
    ground: 'terms' as const,
    terms_clause: 'aimbot',
    terms_url: null,
    legal_ground: null,
    illegal_explanation: null,
    facts: 'This device received a cheat ban for aimbot.',
    automated_detection: true,
    automated_decision: 'fully' as const,
    source: 'own_initiative' as const,
    territorial_scope: ['DE', 'FR'],
    category: 'other_violation_tc' as const,
  },
  message_locale: 'en',
  translations: null,
  appeal: null,
  created_by: null,
  enforced: true,
  ...over,
});

/** A source answering a snapshot of `bans` and then the scripted feed pages or errors, in order. */
const scripted = (bans: ReturnType<typeof ban>[], script: Array<unknown[] | Error>) => {
  let reads = 0;
  const source = {
    getEnforcementSnapshot: async () => ({
      game_id: GAME,
      policy,
      feed_cursor: 'c0',
      items: bans.map((b) => ({ device_id: `d-${b.ban_id}`, ...b })),
      next_cursor: null,
    }),
    listEvents: async (_game: string, query: { cursor?: string } = {}) => {
      const step = script[reads];
      reads += 1;
      if (step instanceof Error) throw step;
      const items = step ?? [];
      return { items, next_cursor: items.length ? `c${reads}` : (query.cursor ?? 'c0') };
    },
  } as unknown as MirrorSource;
  return { source, reads: () => reads };
};

const unavailable = () =>
  new ApiError({
    status: 503,
    code: 'service_unavailable',
    message: 'try again',
    details: [],
    request_id: 'r',
  });

describe('the mirror when reads fail', () => {
  it('backs off with growing, jittered waits through a 503 storm, keeps its copy, and recovers', async () => {
    const events: MirrorEvent[] = [];
    const { source } = scripted([ban(1)], [[], unavailable(), unavailable(), unavailable(), []]);
    let clock = Date.parse('2026-11-02T00:00:00.000Z');
    const mirror = createBanMirror({
      client: source,
      gameId: GAME,
      intervalMs: 10,
      maxBackoffMs: 80,
      maxLagMs: 60_000,
      now: () => clock,
      onEvent: (event) => events.push(event),
    });
    await mirror.start();
    expect(mirror.check('d-1')).toMatchObject({ stale: false, restricted: { cheat: true } });
    await expect
      .poll(() => events.filter((e) => e.type === 'caught_up').length, { timeout: 5_000 })
      .toBeGreaterThanOrEqual(2);
    await mirror.stop();
    const waits = events.flatMap((e) => (e.type === 'read_failed' ? [e] : []));
    expect(waits).toHaveLength(3);
    waits.forEach((failure, i) => {
      expect(failure).toMatchObject({ status: 503, code: 'service_unavailable' });
      // Full jitter: anywhere from 0 to min(max, interval × 2^n).
      expect(failure.retry_in_ms).toBeLessThanOrEqual(Math.min(80, 10 * 2 ** (i + 1)));
    });
    // The copy was never dropped or half-changed meanwhile.
    clock += 1000;
    expect(mirror.check('d-1')).toMatchObject({ stale: false, restricted: { cheat: true } });
  });

  it('answers stale past its lag limit: restricting everyone when closed, from the copy when open', async () => {
    for (const failMode of ['closed', 'open'] as const) {
      const { source } = scripted([ban(1)], [[]]);
      let clock = Date.parse('2026-11-02T00:00:00.000Z');
      const mirror = createBanMirror({
        client: source,
        gameId: GAME,
        maxLagMs: 1_000,
        failMode,
        now: () => clock,
      });
      await mirror.sync();
      expect(mirror.check('d-2')).toMatchObject({ stale: false, lag_ms: 0, restricted: { cheat: false } });
      clock += 1_001;
      const stale = mirror.check('d-2');
      expect(stale).toMatchObject({ stale: true, lag_ms: 1_001 });
      expect(stale.restricted).toEqual(
        failMode === 'closed' ? { cheat: true, social: true } : { cheat: false, social: false },
      );
      expect(mirror.check('d-1').restricted.cheat).toBe(true);
    }
  });

  it('is stale, and closed by default, before it has ever read the feed to its end', () => {
    const { source } = scripted([], []);
    const mirror = createBanMirror({ client: source, gameId: GAME });
    expect(mirror.check('d-1')).toMatchObject({
      stale: true,
      lag_ms: null,
      restricted: { cheat: true, social: true },
    });
  });

  it('rejects start() on a refused key (401) and never polls again', async () => {
    const refused = new ApiError({
      status: 401,
      code: 'unauthorized',
      message: 'no',
      details: [],
      request_id: 'r',
    });
    const { source, reads } = scripted([], [refused, []]);
    const mirror = createBanMirror({ client: source, gameId: GAME, intervalMs: 5 });
    await expect(mirror.start()).rejects.toBe(refused);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reads()).toBe(1);
    expect(mirror.stoppedBy).toMatchObject({ status: 401, code: 'unauthorized' });
  });
});

describe('the copy, event by event', () => {
  it('ends bans by the clock at check time, and applies created, updated, revoked, erased, policy and appeal events', async () => {
    const soon = '2026-11-02T00:00:10.000Z';
    const { source } = scripted(
      [ban(1), ban(2, { ban_type: 'social', scope: 'global', publisher_id: 'pub-2', game_id: null })],
      [
        [
          {
            event_id: 'e1',
            type: 'ban.created',
            occurred_at: soon,
            device_id: 'd-3',
            ban: ban(3, { expires_at: soon }),
          },
          {
            event_id: 'e2',
            type: 'ban.revoked',
            occurred_at: soon,
            device_id: 'd-1',
            ban: ban(1, { revoked_at: soon }),
          },
          {
            event_id: 'e3',
            type: 'policy.updated',
            occurred_at: soon,
            device_id: null,
            policy: { ...policy, enforce_social_global: true, updated_at: soon },
          },
          {
            event_id: 'e4',
            type: 'appeal.created',
            occurred_at: soon,
            device_id: 'd-2',
            appeal: { appeal_id: 'apl_1', ban_id: 2, status: 'open', outcome: null },
          },
        ],
        [],
      ],
    );
    const mirror = createBanMirror({
      client: source,
      gameId: GAME,
      now: () => Date.parse('2026-11-02T00:00:00.000Z'),
    });
    await mirror.sync();
    expect(mirror.check('d-1').restricted.cheat).toBe(false);
    expect(mirror.check('d-3', '2026-11-02T00:00:09.999Z').restricted.cheat).toBe(true);
    expect(mirror.check('d-3', soon).restricted.cheat).toBe(false);
    const global = mirror.check('d-2');
    expect(global.restricted.social).toBe(true);
    expect(global.policy_updated_at).toBe(soon);
    expect(global.bans).toEqual([
      expect.objectContaining({
        ban_id: 2,
        appeal: { appeal_id: 'apl_1', status: 'open', outcome: null },
        rule: ['enforce_global', 'enforce_social_global'],
      }),
    ]);
    expect(mirror.size()).toBe(2);
  });
});

describe('the state file', () => {
  /** A folder holding a file another account wants overwritten, and where the state file goes. */
  const shared = async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mirror-state-'));
    const victim = join(folder, 'victim.txt');
    await writeFile(victim, 'keep me');
    return { folder, victim, stateFile: join(folder, 'ban-mirror.json') };
  };

  it('follows no symlink planted at a predictable temporary name, and is written 0600', async () => {
    const { folder, victim, stateFile } = await shared();
    try {
      const planted = [`${stateFile}.${process.pid}.tmp`, `${stateFile}.tmp`, `${stateFile}.0.tmp`];
      for (const name of planted) await symlink(victim, name);
      const mirror = createBanMirror({ client: scripted([ban(1)], []).source, gameId: GAME, stateFile });
      await mirror.sync();
      await mirror.stop();

      expect(await readFile(victim, 'utf8')).toBe('keep me');
      for (const name of planted) expect((await lstat(name)).isSymbolicLink()).toBe(true);
      const saved = await lstat(stateFile);
      expect(saved.isFile()).toBe(true);
      expect(saved.mode & 0o777).toBe(0o600);
      expect(JSON.parse(await readFile(stateFile, 'utf8')).devices).toHaveLength(1);
      // No temporary file is left behind: the folder holds the planted links, the victim and the state.
      expect((await readdir(folder)).sort()).toEqual(
        ['ban-mirror.json', 'victim.txt', ...planted.map((name) => name.slice(folder.length + 1))].sort(),
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('discards an edited file (a ban removed by hand) and files of older formats, and starts from a snapshot', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mirror-'));
    try {
      const stateFile = join(folder, 'ban-mirror.json');
      const first = createBanMirror({
        client: scripted([ban(1), ban(2)], []).source,
        gameId: GAME,
        stateFile,
      });
      await first.sync();
      await first.stop();
      const saved = JSON.parse(await readFile(stateFile, 'utf8'));
      expect(saved).toMatchObject({
        format: 'device-ban-mirror/4',
        checksum: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      // Unbanned by hand: valid JSON, a valid shape, one ban fewer.
      await writeFile(stateFile, JSON.stringify({ ...saved, devices: saved.devices.slice(1) }));
      const events: MirrorEvent[] = [];
      const { source } = scripted([ban(1), ban(2)], []);
      const second = createBanMirror({
        client: source,
        gameId: GAME,
        stateFile,
        onEvent: (e) => events.push(e),
      });
      await second.sync();
      expect(events.slice(0, 2)).toEqual([
        {
          type: 'state_discarded',
          reason: 'the state file was edited or damaged (its checksum does not match)',
        },
        { type: 'snapshot', bans: 2, reason: 'start' },
      ]);
      expect(second.check('d-1').restricted.cheat).toBe(true);
      await second.stop();

      const { checksum: _checksum, ...older } = JSON.parse(await readFile(stateFile, 'utf8'));
      for (const format of ['device-ban-mirror/1', 'device-ban-mirror/2', 'device-ban-mirror/3']) {
        await writeFile(stateFile, JSON.stringify({ ...older, format }));
        const olderEvents: MirrorEvent[] = [];
        const third = createBanMirror({
          client: scripted([ban(1)], []).source,
          gameId: GAME,
          stateFile,
          onEvent: (e) => olderEvents.push(e),
        });
        await third.sync();
        // Never served: discarded, and the copy is the snapshot's.
        expect(olderEvents.slice(0, 2)).toEqual([
          { type: 'state_discarded', reason: `the state file is of another format (${format})` },
          { type: 'snapshot', bans: 1, reason: 'start' },
        ]);
        expect(third.check('d-2').restricted.cheat).toBe(false);
        await third.stop();
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('refuses to open a file already at its random name, and saves under a new name at the next read', async () => {
    const { folder, victim, stateFile } = await shared();
    const randomBytes = vi.mocked(crypto.randomBytes);
    try {
      const guessed = Buffer.alloc(12, 7);
      randomBytes.mockImplementationOnce(() => guessed);
      await symlink(victim, `${stateFile}.${guessed.toString('hex')}.tmp`);
      const events: MirrorEvent[] = [];
      let clock = Date.parse('2026-11-02T00:00:00.000Z');
      const mirror = createBanMirror({
        client: scripted([ban(1)], []).source,
        gameId: GAME,
        stateFile,
        now: () => clock,
        onEvent: (event) => events.push(event),
      });

      // The write is refused and reported; the read itself caught up.
      await mirror.sync();
      await expect
        .poll(() => events.at(-1), { timeout: 5_000 })
        .toMatchObject({ type: 'state_write_failed', code: 'EEXIST' });
      expect(mirror.check('d-1')).toMatchObject({ stale: false, restricted: { cheat: true } });
      expect(await readFile(victim, 'utf8')).toBe('keep me');
      await expect(stat(stateFile)).rejects.toMatchObject({ code: 'ENOENT' });

      // The next write, once due, goes under a new name.
      clock += 5_000;
      await mirror.sync();
      await expect.poll(() => events.at(-1)?.type, { timeout: 5_000 }).toBe('state_written');
      expect(await readFile(victim, 'utf8')).toBe('keep me');
      expect((await lstat(stateFile)).mode & 0o777).toBe(0o600);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('a state file that cannot be written', () => {
  it('reports each failed write, keeps polling at its interval with a fresh copy, and stop() does not throw', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mirror-'));
    try {
      // A folder that does not exist: every write fails (as on a full disk), reading never does.
      const stateFile = join(folder, 'missing', 'ban-mirror.json');
      const events: MirrorEvent[] = [];
      const { source, reads } = scripted([ban(1)], [[], [], [], []]);
      const mirror = createBanMirror({
        client: source,
        gameId: GAME,
        stateFile,
        intervalMs: 5,
        onEvent: (event) => events.push(event),
      });
      await mirror.start();
      await expect.poll(reads, { timeout: 5_000 }).toBeGreaterThanOrEqual(3);
      // No read failed and none backed off: the writes failed on their own.
      expect(events.filter((e) => e.type === 'read_failed')).toEqual([]);
      expect(events.filter((e) => e.type === 'state_write_failed').length).toBeGreaterThanOrEqual(1);
      expect(events.find((e) => e.type === 'state_write_failed')).toMatchObject({ code: 'ENOENT' });
      expect(mirror.check('d-1')).toMatchObject({ stale: false, restricted: { cheat: true } });
      const before = events.length;
      await expect(mirror.stop()).resolves.toBeUndefined();
      expect(events.slice(before).map((e) => e.type)).toContain('state_write_failed');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('status', () => {
  it('goes initializing, valid, interrupted, stale, valid again and stopped, with its events and counters', async () => {
    let failing = false;
    let clock = Date.parse('2026-11-02T00:00:00.000Z');
    const source = {
      getEnforcementSnapshot: async () => ({
        game_id: GAME,
        policy,
        feed_cursor: 'c0',
        items: [],
        next_cursor: null,
      }),
      listEvents: async () => {
        if (failing) throw unavailable();
        return { items: [], next_cursor: 'c0' };
      },
    } as unknown as MirrorSource;
    const events: MirrorEvent[] = [];
    const mirror = createBanMirror({
      client: source,
      gameId: GAME,
      intervalMs: 5,
      maxBackoffMs: 10,
      maxLagMs: 1_000,
      now: () => clock,
      onEvent: (event) => events.push(event),
    });
    expect(mirror.status()).toMatchObject({
      state: 'initializing',
      lag_ms: null,
      reads: 0,
      last_error: null,
    });
    await mirror.start();
    expect(mirror.status()).toMatchObject({ state: 'valid', lag_ms: 0, consecutive_failures: 0 });
    expect(events.map((e) => e.type)).toContain('ready');

    failing = true;
    await expect
      .poll(() => mirror.status().consecutive_failures, { timeout: 5_000 })
      .toBeGreaterThanOrEqual(1);
    expect(mirror.status()).toMatchObject({
      state: 'interrupted',
      last_error: { status: 503, code: 'service_unavailable' },
    });
    clock += 1_001;
    await expect.poll(() => events.some((e) => e.type === 'stale'), { timeout: 5_000 }).toBe(true);
    expect(mirror.status().state).toBe('stale');
    expect(events.filter((e) => e.type === 'stale')).toHaveLength(1);

    failing = false;
    await expect.poll(() => mirror.status().state, { timeout: 5_000 }).toBe('valid');
    expect(events.find((e) => e.type === 'recovered')).toMatchObject({ after_failures: expect.any(Number) });
    const status = mirror.status();
    expect(status.failed_reads).toBeGreaterThanOrEqual(2);
    expect(status.reads).toBeGreaterThan(status.failed_reads);
    await mirror.stop();
    expect(mirror.status().state).toBe('stopped');
  });
});

describe('push: onBanChange and awaitBan', () => {
  const at = '2026-11-02T00:00:00.000Z';
  const created = (id: number, device: string) => ({
    event_id: `e${id}`,
    type: 'ban.created',
    occurred_at: at,
    device_id: device,
    ban: ban(id),
  });
  const revoked = (id: number, device: string) => ({
    event_id: `r${id}`,
    type: 'ban.revoked',
    occurred_at: at,
    device_id: device,
    ban: ban(id, { revoked_at: at }),
  });

  it('tells a listener each device whose bans changed, with its fresh check, until it is removed', async () => {
    const { source } = scripted(
      [ban(1)],
      [[created(5, 'd-5')], [], [revoked(5, 'd-5')], [], [created(6, 'd-6')], []],
    );
    const mirror = createBanMirror({ client: source, gameId: GAME });
    const heard: Array<[string, boolean, boolean]> = [];
    const stop = mirror.onBanChange((device, check) =>
      heard.push([device, check.restricted.cheat, check.stale]),
    );
    await mirror.sync();
    expect(heard).toEqual([['d-5', true, false]]);
    await mirror.sync();
    expect(heard).toEqual([
      ['d-5', true, false],
      ['d-5', false, false],
    ]);
    stop();
    await mirror.sync();
    expect(heard).toHaveLength(2);
    expect(mirror.check('d-6').restricted.cheat).toBe(true);
  });

  it('tells every device held when the policy changes, and goes on when a listener throws', async () => {
    const { source } = scripted(
      [ban(1), ban(2)],
      [
        [
          {
            event_id: 'p1',
            type: 'policy.updated',
            occurred_at: at,
            device_id: null,
            policy: { ...policy, enforce_game: false, updated_at: at },
          },
        ],
        [],
      ],
    );
    const mirror = createBanMirror({ client: source, gameId: GAME });
    const heard: string[] = [];
    mirror.onBanChange(() => {
      throw new Error('the server failed');
    });
    mirror.onBanChange((device, check) => heard.push(`${device}:${check.restricted.cheat}`));
    await mirror.sync();
    expect(heard.sort()).toEqual(['d-1:false', 'd-2:false']);
  });

  it('awaitBan reads at once and resolves true when the ban arrives, false for one that never does', async () => {
    const { source, reads } = scripted([], [[], [created(7, 'd-7')], []]);
    const mirror = createBanMirror({ client: source, gameId: GAME, intervalMs: 10 });
    await mirror.sync();
    expect(reads()).toBe(1);
    // No poll loop runs here: awaitBan reads itself, without waiting an interval first.
    expect(await mirror.awaitBan(7, { timeoutMs: 2_000 })).toBe(true);
    expect(mirror.check('d-7').restricted.cheat).toBe(true);
    expect(await mirror.awaitBan(99, { timeoutMs: 50 })).toBe(false);
  });
});

describe('sync', () => {
  it('reads again for a caller who asks while a read is under way, since that read may have passed the change', async () => {
    // The first feed read is answered "nothing new" and held while the caller's ban lands; a
    // sync() joining it would return without the ban, which the next read brings.
    const created = {
      event_id: 'e9',
      type: 'ban.created',
      occurred_at: '2026-11-02T00:00:00.000Z',
      device_id: 'd-9',
      ban: ban(9),
    };
    const { source, reads } = scripted([], [[], [created], []]);
    const listEvents = source.listEvents;
    let releaseFirst: () => void = () => {};
    const firstHeld = new Promise<void>((done) => {
      releaseFirst = done;
    });
    source.listEvents = (async (...args: Parameters<typeof listEvents>) => {
      const page = await listEvents(...args);
      if (reads() === 1) await firstHeld;
      return page;
    }) as typeof listEvents;
    const mirror = createBanMirror({ client: source, gameId: GAME });
    const first = mirror.sync();
    await vi.waitFor(() => expect(reads()).toBe(1));
    const second = mirror.sync();
    const third = mirror.sync();
    releaseFirst();
    await first;
    expect(mirror.check('d-9').restricted.cheat).toBe(false);
    await Promise.all([second, third]);
    expect(mirror.check('d-9').restricted.cheat).toBe(true);
    // The two callers who asked meanwhile shared one read (two pages: the ban, then the end).
    expect(reads()).toBe(3);
  });
});

describe('start with a timeout', () => {
  it('resolves at the timeout while the first read hangs, answers stale meanwhile, and catches up after', async () => {
    const { source } = scripted([ban(1)], [[]]);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const snapshot = source.getEnforcementSnapshot;
    (source as { getEnforcementSnapshot: unknown }).getEnforcementSnapshot = async (
      ...args: Parameters<typeof snapshot>
    ) => {
      await held;
      return snapshot(...args);
    };
    const events: MirrorEvent[] = [];
    const mirror = createBanMirror({
      client: source,
      gameId: GAME,
      intervalMs: 10,
      onEvent: (e) => events.push(e),
    });
    await mirror.start({ timeoutMs: 20 });
    // Resolved with the first read still under way: nothing known yet, closed by default.
    expect(events).toEqual([]);
    expect(mirror.check('d-1')).toMatchObject({ stale: true, restricted: { cheat: true, social: true } });
    release();
    await expect.poll(() => mirror.check('d-2').stale, { timeout: 5_000 }).toBe(false);
    expect(mirror.check('d-1').restricted.cheat).toBe(true);
    await mirror.stop();
  });

  it('reports a key refused after the timeout in stoppedBy and its event, never as a rejection', async () => {
    const refused = new ApiError({
      status: 403,
      code: 'forbidden',
      message: 'no',
      details: [],
      request_id: 'r',
    });
    let fail: () => void = () => {};
    const source = {
      getEnforcementSnapshot: () =>
        new Promise((_resolve, reject) => {
          fail = () => reject(refused);
        }),
      listEvents: async () => ({ items: [], next_cursor: 'c0' }),
    } as unknown as MirrorSource;
    const events: MirrorEvent[] = [];
    const mirror = createBanMirror({ client: source, gameId: GAME, onEvent: (e) => events.push(e) });
    await mirror.start({ timeoutMs: 10 });
    fail();
    await expect.poll(() => mirror.stoppedBy, { timeout: 5_000 }).toMatchObject({ status: 403 });
    expect(events.map((e) => e.type)).toContain('stopped');
    await mirror.stop();
  });
});

describe('the login gate (decide)', () => {
  const refusedKey = () =>
    new ApiError({ status: 401, code: 'unauthorized', message: 'revoked', details: [], request_id: 'r' });
  const unreachable = () => new ApiError({ status: 0, code: 'network_error', message: 'connection refused' });
  /** The scripted source, with an enforcement read answering `answer` (or failing with it). */
  const withFallback = (bans: ReturnType<typeof ban>[], answer: (device: string) => unknown) => {
    const { source } = scripted(bans, [[]]);
    const asked: Array<{ device: string; options: unknown }> = [];
    (source as { getEnforcement: unknown }).getEnforcement = async (
      _game: string,
      device: string,
      options: unknown,
    ) => {
      asked.push({ device, options });
      const got = answer(device);
      if (got instanceof Error) throw got;
      return got;
    };
    return { source, asked };
  };
  const apiAnswer = (device: string, cheat: boolean) => ({
    device_id: device,
    game_id: GAME,
    evaluated_at: '2026-11-02T00:00:00.000Z',
    restricted: { cheat, social: false },
    bans: [],
    not_enforced: [],
    reputation: { cheat: 0, social: 0 },
    policy_updated_at: policy.updated_at,
  });
  const mirrorOf = async (
    source: MirrorSource,
    failMode: 'open' | 'closed',
    events: MirrorEvent[] = [],
    sync = true,
  ) => {
    const clock = { at: Date.parse('2026-11-02T00:00:00.000Z') };
    const mirror = createBanMirror({
      client: source,
      gameId: GAME,
      maxLagMs: 1_000,
      failMode,
      now: () => clock.at,
      onEvent: (event) => events.push(event),
    });
    if (sync) await mirror.sync();
    return { mirror, clock };
  };

  it('answers from a fresh copy with no call to the API', async () => {
    const { source, asked } = withFallback([ban(1)], (d) => apiAnswer(d, false));
    const { mirror } = await mirrorOf(source, 'open');
    expect(await mirror.decide('d-1')).toMatchObject({
      source: 'mirror',
      stale: false,
      restricted: { cheat: true },
    });
    expect(await mirror.decide('d-2')).toMatchObject({ source: 'mirror', restricted: { cheat: false } });
    expect(asked).toEqual([]);
  });

  it('asks the API once, with a short deadline and no retries, when the copy is stale', async () => {
    const { source, asked } = withFallback([ban(1)], (d) => apiAnswer(d, d === 'd-9'));
    const { mirror, clock } = await mirrorOf(source, 'closed');
    clock.at += 1_001;
    const decision = await mirror.decide('d-9');
    expect(decision).toMatchObject({
      source: 'api',
      stale: false,
      restricted: { cheat: true },
      fallback_error: null,
    });
    expect(decision).not.toHaveProperty('reputation');
    expect(asked).toEqual([{ device: 'd-9', options: { deadlineMs: 1_500, retries: 0 } }]);
  });

  it('never lets a ban the copy knows in when the copy is stale and the API does not answer (open)', async () => {
    const events: MirrorEvent[] = [];
    const { source } = withFallback([ban(1)], () => unreachable());
    const { mirror, clock } = await mirrorOf(source, 'open', events);
    clock.at += 60_000;
    expect(await mirror.decide('d-1')).toMatchObject({
      source: 'stale_copy',
      stale: true,
      restricted: { cheat: true },
      fallback_error: { status: 0, code: 'network_error' },
    });
    expect(await mirror.decide('d-2')).toMatchObject({ source: 'stale_copy', restricted: { cheat: false } });
    expect(events.filter((e) => e.type === 'fallback_failed')).toEqual([
      {
        type: 'fallback_failed',
        status: 0,
        code: 'network_error',
        message: 'connection refused',
        alert: false,
      },
      {
        type: 'fallback_failed',
        status: 0,
        code: 'network_error',
        message: 'connection refused',
        alert: false,
      },
    ]);
  });

  it('restricts every device when the copy is stale and the API does not answer (closed)', async () => {
    const { source } = withFallback([ban(1)], () => unreachable());
    const { mirror, clock } = await mirrorOf(source, 'closed');
    clock.at += 60_000;
    expect(await mirror.decide('d-2')).toMatchObject({
      source: 'fail_closed',
      restricted: { cheat: true, social: true },
    });
  });

  it('with no copy yet and no API: restricts nobody when open (nothing is known), everybody when closed', async () => {
    for (const [failMode, restricted, source_] of [
      ['open', false, 'no_copy'],
      ['closed', true, 'fail_closed'],
    ] as const) {
      const { source } = withFallback([ban(1)], () => unreachable());
      const { mirror } = await mirrorOf(source, failMode, [], false);
      expect(await mirror.decide('d-1'), failMode).toMatchObject({
        source: source_,
        stale: true,
        lag_ms: null,
        restricted: { cheat: restricted, social: restricted },
        bans: [],
      });
      // check() answers the same without asking anyone.
      expect(mirror.check('d-1').restricted, failMode).toEqual({ cheat: restricted, social: restricted });
    }
  });

  it('raises an alert and restricts everyone, even when open, when the API refuses the key (401)', async () => {
    const events: MirrorEvent[] = [];
    const { source } = withFallback([ban(1)], () => refusedKey());
    const { mirror, clock } = await mirrorOf(source, 'open', events);
    clock.at += 60_000;
    expect(await mirror.decide('d-2')).toMatchObject({
      source: 'key_refused',
      restricted: { cheat: true, social: true },
      fallback_error: { status: 401, code: 'unauthorized' },
    });
    expect(events.at(-1)).toEqual({
      type: 'fallback_failed',
      status: 401,
      code: 'unauthorized',
      message: 'revoked',
      alert: true,
    });
  });

  it('gives up on a frozen API at its deadline, one attempt, and answers by the copy', async () => {
    // The real client, over a fetch that never answers until it is aborted.
    const { createBanClient } = await import('../../client/src/client');
    let attempts = 0;
    const frozen = ((_url: string, init: { signal?: AbortSignal }) =>
      new Promise((_resolve, reject) => {
        attempts += 1;
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      })) as unknown as typeof fetch;
    const real = createBanClient({ baseUrl: 'http://api.test', apiKey: 'bsk_x', fetch: frozen });
    const { source } = scripted([ban(1)], [[]]);
    (source as { getEnforcement: unknown }).getEnforcement = real.getEnforcement;
    const { mirror, clock } = await mirrorOf(source, 'open');
    clock.at += 60_000;
    const decision = await mirror.decide('d-1', { deadlineMs: 100 });
    expect(decision).toMatchObject({
      source: 'stale_copy',
      restricted: { cheat: true },
      fallback_error: { code: 'timeout' },
    });
    expect(attempts).toBe(1);
  });
});

type Listed = ReturnType<typeof ban> & { device_id: string };

/**
 * A service of one deployment, as the mirror sees it: a snapshot of the bans in force (`pageSize`
 * a page, with the feed's position when its first page was read), and a feed read by position
 * (cursor `p<n>`): a cursor past its end is refused as the API refuses it (400, `ahead_of_feed`).
 * `deployment` and `delay` are what its pages name; null or undefined leaves the field out, as an
 * older server does.
 */
/** A page naming its deployment, or, for undefined, as an older server answers it. */
const named = <T extends object>(page: T, deployment: string | undefined) =>
  deployment === undefined ? page : { ...page, deployment_id: deployment };
const service = (bans: Listed[] = [], deployment: string | null = 'dep-1') => {
  const svc = {
    deployment: deployment ?? undefined,
    delay: undefined as number | null | undefined,
    bans: new Map(bans.map((b) => [b.ban_id, b])),
    log: [] as unknown[],
    pageSize: 1000,
    /** Ban ids the next snapshot leaves out: a copy made wrong. */
    hidden: new Set<number>(),
    /** The deployment each snapshot page names, when it differs from the service's (by page index). */
    pageDeployments: [] as Array<string | undefined>,
    snapshotReads: 0,
    feedReads: 0,
    /** Held until released: the snapshot's first page. */
    held: undefined as Promise<void> | undefined,
    create(id: number, device: string, over: Record<string, unknown> = {}) {
      const made = { ...ban(id, over), device_id: device };
      svc.bans.set(id, made);
      const { device_id: _d, ...listed } = made;
      svc.log.push({
        event_id: `e${svc.log.length}`,
        type: 'ban.created',
        occurred_at: at0,
        device_id: device,
        ban: listed,
      });
    },
    revoke(id: number) {
      const gone = svc.bans.get(id);
      if (!gone) return;
      svc.bans.delete(id);
      const { device_id, ...listed } = gone;
      svc.log.push({
        event_id: `e${svc.log.length}`,
        type: 'ban.revoked',
        occurred_at: at0,
        device_id,
        ban: { ...listed, revoked_at: at0 },
      });
    },
  };
  const source = {
    getEnforcementSnapshot: async (_game: string, query: { cursor?: string } = {}) => {
      if (!query.cursor) {
        svc.snapshotReads += 1;
        await svc.held;
      }
      const [position, from] = (query.cursor ?? `${svc.log.length}:0`).split(':').map(Number) as [
        number,
        number,
      ];
      const items = [...svc.bans.values()].filter((b) => !svc.hidden.has(b.ban_id));
      const page = items.slice(from, from + svc.pageSize);
      const index = from / svc.pageSize;
      const next = from + svc.pageSize < items.length ? `${position}:${from + svc.pageSize}` : null;
      if (next === null) svc.hidden.clear();
      return named(
        { game_id: GAME, policy, feed_cursor: `p${position}`, items: page, next_cursor: next },
        index in svc.pageDeployments ? svc.pageDeployments[index] : svc.deployment,
      );
    },
    listEvents: async (_game: string, query: { cursor?: string; limit?: number } = {}) => {
      svc.feedReads += 1;
      const position = Number((query.cursor ?? 'p0').slice(1));
      if (position > svc.log.length)
        throw new ApiError({
          status: 400,
          code: 'invalid_request',
          message: 'cursor: is ahead of the feed',
          details: [{ field: 'cursor', issue: 'ahead_of_feed' }],
          request_id: 'r',
        });
      const items = svc.log.slice(position, position + (query.limit ?? 500));
      const page = { items, next_cursor: `p${position + items.length}` };
      return named(svc.delay === undefined ? page : { ...page, delay_ms: svc.delay }, svc.deployment);
    },
  } as unknown as MirrorSource;
  return { svc, source };
};
const at0 = '2026-11-01T00:00:00.000Z';
const listed = (id: number, device = `d-${id}`, over: Record<string, unknown> = {}): Listed => ({
  ...ban(id, over),
  device_id: device,
});
/** A promise and the function that settles it. */
const gate = () => {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { held, release };
};
const inFolder = async (run: (folder: string) => Promise<void>) => {
  const folder = await mkdtemp(join(tmpdir(), 'mirror-'));
  try {
    await run(folder);
  } finally {
    // Retried: a mirror left running may be writing its state file as the folder goes.
    await rm(folder, { recursive: true, force: true, maxRetries: 5 });
  }
};

describe('bound to its deployment', () => {
  it('rebuilds from a snapshot a state file of another deployment, answering nothing from it meanwhile', async () => {
    await inFolder(async (folder) => {
      const stateFile = join(folder, 'ban-mirror.json');
      const first = createBanMirror({
        client: service([listed(1)], 'dep-1').source,
        gameId: GAME,
        stateFile,
      });
      await first.sync();
      await first.stop();
      expect(JSON.parse(await readFile(stateFile, 'utf8'))).toMatchObject({ deployment_id: 'dep-1' });

      // Another deployment (a restored table, a new stack) that never banned d-1.
      const { svc, source } = service([listed(2)], 'dep-2');
      const snapshot = gate();
      const events: MirrorEvent[] = [];
      const mirror = createBanMirror({
        client: source,
        gameId: GAME,
        stateFile,
        onEvent: (e) => events.push(e),
      });
      // The file is read and its cursor tried; the snapshot that replaces it is held.
      svc.held = snapshot.held;
      const syncing = mirror.sync();
      await expect.poll(() => svc.snapshotReads, { timeout: 5_000 }).toBe(1);
      expect(mirror.status().state).toBe('initializing');
      expect(mirror.check('d-1')).toMatchObject({ stale: true, restricted: { cheat: true, social: true } });
      snapshot.release();
      await syncing;

      expect(events.map((e) => e.type)).toEqual(['state_loaded', 'snapshot', 'caught_up']);
      expect(events[1]).toEqual({ type: 'snapshot', bans: 1, reason: 'deployment_changed' });
      expect(mirror.check('d-1')).toMatchObject({ stale: false, restricted: { cheat: false } });
      expect(mirror.check('d-2')).toMatchObject({ stale: false, restricted: { cheat: true } });
      await mirror.stop();
      expect(JSON.parse(await readFile(stateFile, 'utf8'))).toMatchObject({ deployment_id: 'dep-2' });
    });
  });

  it('discards its copy when a feed page comes from a new deployment mid-run, and tells the listeners', async () => {
    const { svc, source } = service([listed(1)]);
    const events: MirrorEvent[] = [];
    const mirror = createBanMirror({ client: source, gameId: GAME, onEvent: (e) => events.push(e) });
    const heard: string[] = [];
    mirror.onBanChange((device, check) => heard.push(`${device}:${check.restricted.cheat}`));
    await mirror.sync();
    svc.create(2, 'd-2');
    await mirror.sync();
    expect(mirror.check('d-1').restricted.cheat).toBe(true);

    // The service answers from another deployment now: d-1 unknown there, d-3 banned.
    svc.deployment = 'dep-2';
    svc.bans = new Map([[3, listed(3)]]);
    const snapshot = gate();
    svc.held = snapshot.held;
    heard.length = 0;
    const syncing = mirror.sync();
    await expect.poll(() => svc.snapshotReads, { timeout: 5_000 }).toBe(2);
    // Never fresh meanwhile: the old copy is not this deployment's.
    expect(mirror.status().state).toBe('initializing');
    expect(mirror.check('d-1').stale).toBe(true);
    snapshot.release();
    await syncing;
    expect(events.filter((e) => e.type === 'snapshot').at(-1)).toEqual({
      type: 'snapshot',
      bans: 1,
      reason: 'deployment_changed',
    });
    expect(mirror.check('d-1')).toMatchObject({ stale: false, restricted: { cheat: false } });
    expect(mirror.check('d-3')).toMatchObject({ stale: false, restricted: { cheat: true } });
    expect(heard.sort()).toEqual(['d-1:false', 'd-2:false', 'd-3:true']);
  });

  it('retakes a snapshot whose pages name two deployments', async () => {
    const { svc, source } = service([listed(1), listed(2), listed(3)]);
    svc.pageSize = 1;
    svc.pageDeployments = [undefined, 'dep-1', 'dep-0'];
    svc.pageDeployments[0] = 'dep-1';
    const events: MirrorEvent[] = [];
    const mirror = createBanMirror({ client: source, gameId: GAME, onEvent: (e) => events.push(e) });
    const first = source.getEnforcementSnapshot;
    let reads = 0;
    (source as { getEnforcementSnapshot: unknown }).getEnforcementSnapshot = async (
      ...args: Parameters<typeof first>
    ) => {
      const page = await first(...args);
      // The first read switched deployment on its third page; later reads agree.
      if (!args[1]?.cursor && ++reads === 2) svc.pageDeployments = [];
      return page;
    };
    await mirror.sync();
    expect(svc.snapshotReads).toBe(2);
    expect(events.filter((e) => e.type === 'snapshot')).toEqual([
      { type: 'snapshot', bans: 3, reason: 'start' },
    ]);
    expect(mirror.size()).toBe(3);
  });

  it('resyncs from a snapshot when its cursor is ahead of the feed (400 naming the cursor)', async () => {
    await inFolder(async (folder) => {
      const stateFile = join(folder, 'ban-mirror.json');
      // Written against a feed five events long, by a server that did not name its deployment.
      const old = service([listed(1)], null);
      for (let i = 0; i < 5; i++) old.svc.create(10 + i, `d-${10 + i}`);
      const first = createBanMirror({ client: old.source, gameId: GAME, stateFile });
      await first.sync();
      await first.stop();

      // The table was restored from a backup: its feed is two events long.
      const restored = service([listed(1)], null);
      restored.svc.create(20, 'd-20');
      restored.svc.create(21, 'd-21');
      const events: MirrorEvent[] = [];
      const mirror = createBanMirror({
        client: restored.source,
        gameId: GAME,
        stateFile,
        onEvent: (e) => events.push(e),
      });
      await mirror.sync();
      expect(events.slice(0, 2)).toEqual([
        { type: 'state_loaded', bans: 6 },
        { type: 'snapshot', bans: 3, reason: 'cursor_refused' },
      ]);
      expect(mirror.check('d-10').restricted.cheat).toBe(false);
      expect(mirror.check('d-21')).toMatchObject({ stale: false, restricted: { cheat: true } });
      await mirror.stop();
    });
  });

  it('accepts pages of a server that does not name its deployment, and binds a copy built so when one does', async () => {
    const { svc, source } = service([listed(1)], null);
    const events: MirrorEvent[] = [];
    const mirror = createBanMirror({ client: source, gameId: GAME, onEvent: (e) => events.push(e) });
    await mirror.sync();
    svc.create(2, 'd-2');
    await mirror.sync();
    expect(mirror.check('d-2').restricted.cheat).toBe(true);
    // Upgraded: its pages name the deployment now; the copy, made without one, is rebuilt once.
    svc.deployment = 'dep-1';
    await mirror.sync();
    await mirror.sync();
    expect(events.filter((e) => e.type === 'snapshot').map((e) => 'reason' in e && e.reason)).toEqual([
      'start',
      'deployment_changed',
    ]);
    expect(mirror.check('d-2')).toMatchObject({ stale: false, restricted: { cheat: true } });
  });
});

describe('verification against a fresh snapshot', () => {
  it('heals a copy that was made wrong, reports it, and tells the listeners of the devices that changed', async () => {
    const { svc, source } = service([listed(1), listed(2), listed(3)]);
    // The first snapshot leaves ban 2 out, and a feed event of ban 3's end was lost.
    svc.hidden = new Set([2]);
    const events: MirrorEvent[] = [];
    const mirror = createBanMirror({ client: source, gameId: GAME, onEvent: (e) => events.push(e) });
    await mirror.sync();
    svc.bans.set(3, listed(3, 'd-3', { expires_at: '2026-11-01T00:00:00.000Z' }));
    expect(mirror.check('d-2').restricted.cheat).toBe(false);
    const heard: string[] = [];
    mirror.onBanChange((device, check) => heard.push(`${device}:${check.restricted.cheat}`));
    // The feed moves on before and while it verifies: those are not differences.
    svc.create(4, 'd-4');
    svc.revoke(1);

    expect(await mirror.verify()).toBe(2);
    expect(events.filter((e) => e.type === 'verified' || e.type === 'diverged')).toEqual([
      { type: 'verified', differences: 2 },
      { type: 'diverged', differences: 2, devices: ['d-3', 'd-2'], policy: false },
    ]);
    expect(heard).toEqual(expect.arrayContaining(['d-2:true', 'd-3:false']));
    expect(mirror.check('d-2').restricted.cheat).toBe(true);
    expect(mirror.check('d-3').restricted.cheat).toBe(false);
    expect(mirror.check('d-4').restricted.cheat).toBe(true);
    expect(mirror.check('d-1').restricted.cheat).toBe(false);

    // Verified again: nothing differs now.
    expect(await mirror.verify()).toBe(0);
    expect(events.at(-1)).toEqual({ type: 'verified', differences: 0 });
  });

  it('verifies every verifyEveryMs by the clock, and never when it is not set', async () => {
    for (const verifyEveryMs of [60_000, undefined]) {
      const { svc, source } = service([listed(1), listed(2)]);
      svc.hidden = new Set([2]);
      let clock = Date.parse('2026-11-02T00:00:00.000Z');
      const events: MirrorEvent[] = [];
      const mirror = createBanMirror({
        client: source,
        gameId: GAME,
        intervalMs: 5,
        verifyEveryMs,
        now: () => clock,
        onEvent: (e) => events.push(e),
      });
      await mirror.start();
      const reads = svc.feedReads;
      await expect.poll(() => svc.feedReads, { timeout: 5_000 }).toBeGreaterThan(reads + 3);
      expect(svc.snapshotReads).toBe(1);
      clock += 60_000;
      if (verifyEveryMs) {
        await expect.poll(() => events.some((e) => e.type === 'diverged'), { timeout: 5_000 }).toBe(true);
        expect(mirror.check('d-2').restricted.cheat).toBe(true);
        expect(svc.snapshotReads).toBe(2);
      } else {
        await expect.poll(() => svc.feedReads, { timeout: 5_000 }).toBeGreaterThan(reads + 6);
        expect(svc.snapshotReads).toBe(1);
        expect(events.some((e) => e.type === 'verified')).toBe(false);
      }
      await mirror.stop();
    }
  });
});

describe('status: upstream delay and bytes', () => {
  it("reports the last feed page's delay, and the bytes of every answer read through the client", async () => {
    const { svc, source } = service([listed(1)]);
    let served = 0;
    // The package's client over a fetch that answers from the service above.
    const fake = (async (url: string) => {
      const { pathname, searchParams } = new URL(url);
      const query = Object.fromEntries(searchParams);
      const body = JSON.stringify(
        pathname === '/v1/events'
          ? await source.listEvents(GAME, query)
          : await source.getEnforcementSnapshot(GAME, query),
      );
      served += Buffer.byteLength(body);
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    }) as unknown as typeof fetch;
    const client = createBanClient({ baseUrl: 'http://api.test', apiKey: 'bsk_x', fetch: fake });
    const mirror = createBanMirror({ client, gameId: GAME });
    expect(mirror.status()).toMatchObject({ upstream_delay_ms: null, bytes: 0 });
    await mirror.sync();
    expect(mirror.status()).toMatchObject({ upstream_delay_ms: null, bytes: served });
    svc.delay = 250;
    svc.create(2, 'd-2', { player_message: 'é' });
    await mirror.sync();
    expect(mirror.status()).toMatchObject({ upstream_delay_ms: 250, bytes: served, size: 2 });
    expect(served).toBeGreaterThan(0);
    svc.delay = null;
    await mirror.sync();
    expect(mirror.status().upstream_delay_ms).toBeNull();
  });
});

describe('writing the state file', () => {
  const written = (events: MirrorEvent[]) => events.filter((e) => e.type === 'state_written').length;
  const stored = async (file: string) => JSON.parse(await readFile(file, 'utf8'));

  it('writes at most once per stateWriteIntervalMs, whatever the polls change', async () => {
    await inFolder(async (folder) => {
      const stateFile = join(folder, 'ban-mirror.json');
      const { svc, source } = service([listed(1)]);
      let clock = Date.parse('2026-11-02T00:00:00.000Z');
      const events: MirrorEvent[] = [];
      const mirror = createBanMirror({
        client: source,
        gameId: GAME,
        stateFile,
        stateWriteIntervalMs: 10_000,
        now: () => clock,
        onEvent: (e) => events.push(e),
      });
      await mirror.sync();
      await expect.poll(() => written(events), { timeout: 5_000 }).toBe(1);
      for (let i = 2; i <= 6; i++) {
        clock += 1_000;
        svc.create(i, `d-${i}`);
        await mirror.sync();
      }
      expect((await stored(stateFile)).devices).toHaveLength(1);
      clock += 5_000;
      await mirror.sync();
      await expect.poll(() => written(events), { timeout: 5_000 }).toBe(2);
      expect(await stored(stateFile)).toMatchObject({ cursor: 'p5' });
      expect((await stored(stateFile)).devices).toHaveLength(6);
      await mirror.stop();
      // Nothing changed since: stop() had nothing to write.
      expect(written(events)).toBe(2);
    });
  });

  it('polls on while a write is slow, and stop() writes the latest state after it', async () => {
    await inFolder(async (folder) => {
      const stateFile = join(folder, 'ban-mirror.json');
      const { svc, source } = service([listed(1)]);
      const slow = gate();
      const open = vi.mocked(fs.open);
      open.mockClear();
      const actualOpen = (await vi.importActual<typeof import('node:fs/promises')>('node:fs/promises')).open;
      open.mockImplementationOnce(async (...args: Parameters<typeof actualOpen>) => {
        await slow.held;
        return actualOpen(...args);
      });
      const events: MirrorEvent[] = [];
      const mirror = createBanMirror({
        client: source,
        gameId: GAME,
        stateFile,
        intervalMs: 5,
        onEvent: (e) => events.push(e),
      });
      await mirror.start();
      await expect.poll(() => open.mock.calls.length, { timeout: 5_000 }).toBe(1);
      svc.create(2, 'd-2');
      const reads = svc.feedReads;
      // The first write is held; the polls keep their interval and the copy keeps up.
      await expect.poll(() => svc.feedReads, { timeout: 5_000 }).toBeGreaterThan(reads + 5);
      expect(mirror.check('d-2')).toMatchObject({ stale: false, restricted: { cheat: true } });
      expect(mirror.status().state).toBe('valid');
      expect(written(events)).toBe(0);

      svc.create(3, 'd-3');
      await mirror.sync();
      const stopping = mirror.stop();
      slow.release();
      await stopping;
      expect(written(events)).toBe(2);
      expect(await stored(stateFile)).toMatchObject({ cursor: 'p2' });
      // What was written restores the same copy.
      const events2: MirrorEvent[] = [];
      const again = createBanMirror({
        client: source,
        gameId: GAME,
        stateFile,
        onEvent: (e) => events2.push(e),
      });
      await again.sync();
      expect(events2.slice(0, 2)).toEqual([
        { type: 'state_loaded', bans: 3 },
        { type: 'caught_up', applied: 0 },
      ]);
      expect(again.check('d-3').restricted.cheat).toBe(true);
    });
  });

  it('keeps in the file exactly what a check answers, restored as the copy had it', async () => {
    await inFolder(async (folder) => {
      const stateFile = join(folder, 'ban-mirror.json');
      const rich = listed(1, 'd-1', {
        scope: 'global',
        publisher_id: 'pub-2',
        game_id: null,
        details_json: { clip: 'https://x/1', frames: [1, 2] },
        expires_at: '2027-01-01T00:00:00.000Z',
        player_message: 'Banned for aimbot',
        appealable: false,
        appeal: { appeal_id: 'apl_1', status: 'decided', outcome: 'upheld' },
        created_by: { kind: 'key', id: 'k1' },
      });
      const { source } = service([rich, listed(2)]);
      const now = () => Date.parse('2026-11-02T00:00:00.000Z');
      const live = createBanMirror({ client: source, gameId: GAME, stateFile, now });
      await live.sync();
      await live.stop();
      const restored = createBanMirror({ client: source, gameId: GAME, stateFile, now });
      await restored.sync();
      const at = '2026-11-02T00:00:00.000Z';
      for (const device of ['d-1', 'd-2']) expect(restored.check(device, at)).toEqual(live.check(device, at));
      expect(live.check('d-1', at).bans[0]).toMatchObject({
        details_json: { clip: 'https://x/1', frames: [1, 2] },
        appeal: { appeal_id: 'apl_1', status: 'decided', outcome: 'upheld' },
        revoked_at: null,
        revoke_reason_code: null,
        created_by: null,
      });
    });
  });
});
