import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, open, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { defaultPolicyFlags } from '@kernel/policy-flags';
import { defaultPolicyTrust } from '@kernel/policy-trust';
import { createBanClient } from '../client/src/index';
import { createBanMirror, type MirrorEvent, type MirrorSource } from '../client/src/mirror';
import { startLocalApi } from '../infra/local/server';
import { median, percentile } from './storage-probe';

/**
 * Part 9, game servers: a login answered by the client's mirror (client/src/mirror.ts)
 * against the same login answered by the API (`GET /v1/device/{id}/enforcement`), on one host,
 * against `npm start`'s API in this process on the embedded store:
 *
 * - logins per second and latency (p50/p99): the mirror's `check` in a loop, against the API
 *   called by 10 concurrent callers for LOGIN_SECONDS (default 3) each;
 * - API calls per 1,000 logins: requests the mirror's client made while it answered the logins
 *   (its feed polls, which depend on time, not on logins), against 1,000 for the API;
 * - freshness: from a ban's 201 to the mirror's `check` restricting the device, at the default
 *   poll interval (1 s), FRESHNESS_SAMPLES (default 30) bans made at random moments;
 * - memory per 100,000 mirrored bans: the heap after a full collection with the mirror holding
 *   them (its source's pages released), less the heap before the source made them;
 * - the state file of 100,000 bans: its size, a write's time, and the event loop's delay (p99,
 *   max) while a mirror of them polls and writes, against the previous way in the same run (the
 *   whole file serialized and hashed at once, on each poll that changed something);
 * - snapshot time for SNAPSHOT_BANS (default 100,000) bans: a new mirror's start (every page of
 *   `GET /v1/enforcement/snapshot` and the feed to its end), against reading the same live items
 *   straight from the store with Queries of 1,000.
 *
 * Alone: `node --expose-gc --import tsx bench/game-servers.ts` (without --expose-gc, the
 * collection is asked for through V8's flags, which may not collect everything).
 */

export interface GameServerFigures {
  mirror_logins_per_s: number;
  mirror_p50_us: number;
  mirror_p99_us: number;
  api_logins_per_s: number;
  api_p50_ms: number;
  api_p99_ms: number;
  mirror_api_calls_per_1000_logins: number;
  freshness_samples: number;
  freshness_p50_ms: number;
  freshness_p99_ms: number;
  memory_bytes_per_100k: number;
  persistence: PersistenceFigures;
  snapshot_bans: number;
  snapshot_ms: number;
  snapshot_store_ms: number;
}

const collect = (() => {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (!exposed) setFlagsFromString('--expose-gc');
  const gc = exposed ?? (runInNewContext('gc') as () => void);
  return () => {
    gc();
    gc();
  };
})();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A synthetic ban as the snapshot lists it. */
const syntheticBan = (i: number, publisher: string, game: string) => ({
  device_id: `bench-device-${String(i).padStart(7, '0')}`,
  ban_id: 1_000_000 + i,
  ban_type: i % 3 === 0 ? ('social' as const) : ('cheat' as const),
  scope: i % 2 === 0 ? ('global' as const) : ('game' as const),
  publisher_id: publisher,
  game_id: i % 2 === 0 ? null : game,
  reason_code: 'bench_reason',
  details_json: null,
  created_at: '2026-11-01T00:00:00.000Z',
  expires_at: i % 4 === 0 ? '2027-11-01T00:00:00.000Z' : null,
  revoked_at: null,
  revoke_reason_code: null,
  player_message: null,
  appealable: true,
  appeal: null,
  created_by: null,
  enforced: true,
});

const benchPolicy = (publisher: string) => ({
  publisher_id: publisher,
  ...defaultPolicyFlags,
  ...defaultPolicyTrust,
  updated_at: '2026-11-01T00:00:00.000Z',
});

/**
 * A source answering a snapshot of `count` synthetic bans, each page parsed from its JSON as the
 * client parses an answer (so the mirror holds strings of its own, as it would), and a feed that
 * has one new ban each time a poll reaches its end (`growing`), or none.
 */
const syntheticSource = (count: number, publisher: string, game: string, growing = false) => {
  let items: ReturnType<typeof syntheticBan>[] = Array.from({ length: count }, (_, i) =>
    syntheticBan(i, publisher, game),
  );
  const policy = benchPolicy(publisher);
  let made = 0;
  // One new ban per poll: every other read at the end brings one, the read after it finds the
  // feed caught up (an empty page), so each poll applies one event and ends.
  let endReads = 0;
  const source = {
    getEnforcementSnapshot: async (_game: string, { cursor }: { cursor?: string } = {}) => {
      const from = Number(cursor ?? 0);
      const next = from + 1000;
      return JSON.parse(
        JSON.stringify({
          game_id: game,
          policy,
          feed_cursor: 'p0',
          deployment_id: 'bench',
          items: items.slice(from, next),
          next_cursor: next < items.length ? String(next) : null,
        }),
      );
    },
    listEvents: async (_game: string, { cursor }: { cursor?: string } = {}) => {
      const at = Number((cursor ?? 'p0').slice(1));
      const page = { items: [] as unknown[], next_cursor: `p${at}`, deployment_id: 'bench', delay_ms: 0 };
      if (growing && at === made && endReads++ % 2 === 0) {
        const { device_id, enforced: _e, ...ban } = syntheticBan(count + made, publisher, game);
        page.items.push({
          event_id: `e${made}`,
          type: 'ban.created',
          occurred_at: ban.created_at,
          device_id,
          ban,
        });
        made += 1;
        page.next_cursor = `p${made}`;
      }
      return JSON.parse(JSON.stringify(page));
    },
  } as unknown as MirrorSource;
  /** The source lets go of its bans (the mirror's copy is then all that holds them). */
  const release = () => {
    items = [];
  };
  return { source, release };
};

/** Heap bytes a mirror holding `count` bans takes, read from a source that answers one snapshot. */
const measureMemory = async (count: number) => {
  const game = 'g-memory';
  collect();
  // Before the source makes its bans: what the mirror holds afterwards is counted whole, strings
  // included, and nothing the source freed is taken off it.
  const before = process.memoryUsage().heapUsed;
  const { source, release } = syntheticSource(count, 'bench-memory', game);
  const mirror = createBanMirror({ client: source, gameId: game });
  await mirror.sync();
  release();
  collect();
  const after = process.memoryUsage().heapUsed;
  if (mirror.size() !== count) throw new Error(`the mirror holds ${mirror.size()} of ${count} bans`);
  return after - before;
};

export interface PersistenceFigures {
  bans: number;
  seconds: number;
  file_bytes: number;
  /** The mirror's writes: each one's wall time (chunked, beside the polls), and how many. */
  write_ms: number;
  writes: number;
  loop_p99_ms: number;
  loop_max_ms: number;
  /** The previous way: the whole file serialized and hashed at once, after each changing poll. */
  old_file_bytes: number;
  old_write_ms: number;
  old_writes: number;
  old_loop_p99_ms: number;
  old_loop_max_ms: number;
}

/** The event loop's delay while `run` goes on for `seconds`: p99 and max, in ms. */
const loopDelay = async (seconds: number, run: () => Promise<void>) => {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  await Promise.all([run(), sleep(seconds * 1000)]);
  histogram.disable();
  return { p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 };
};

/**
 * The state file of `count` bans: a mirror polling each second, each poll bringing a new ban (so
 * each poll changes the copy), for `seconds`, with its state file (chunked writes at most every
 * 5 s, off the poll); against the same polls with the previous write after each of them.
 */
const measurePersistence = async (count: number, seconds: number): Promise<PersistenceFigures> => {
  const folder = await mkdtemp(join(tmpdir(), 'bench-mirror-'));
  try {
    const game = 'g-persist';
    const { source, release } = syntheticSource(count, 'bench-persist', game, true);
    const events: MirrorEvent[] = [];
    const mirror = createBanMirror({
      client: source,
      gameId: game,
      stateFile: join(folder, 'new.json'),
      onEvent: (event) => events.push(event),
    });
    await mirror.sync();
    // The heap holds the copy, as a server's would, not the source's bans beside it.
    release();
    // The first write (after the snapshot) is left out: what is measured is a server running.
    while (!events.some((e) => e.type === 'state_written')) await sleep(10);
    events.length = 0;
    // Both ways start from a collected heap: the snapshot's garbage is charged to neither.
    collect();
    const fresh = await loopDelay(seconds, () => mirror.start());
    await mirror.stop();
    const written = events.flatMap((e) => (e.type === 'state_written' ? [e] : []));
    if (written.length === 0) throw new Error('the mirror wrote no state file');
    const failed = events.find((e) => e.type === 'state_write_failed');
    if (failed) throw new Error(`a state file write failed: ${JSON.stringify(failed)}`);

    // The previous way: after each poll that changed something, the whole state as one JSON text
    // and its hash, on the event loop, then written and renamed. Its copy (the previous file's
    // bans, every listed field but `enforced`) is held here, parsed from JSON as a copy's would
    // be; the mirror beside it only polls (the same feed, one new ban a poll).
    const copy: unknown[] = JSON.parse(
      JSON.stringify(
        Array.from({ length: count }, (_, i) => {
          const { enforced: _enforced, ...ban } = syntheticBan(i, 'bench-persist', game);
          return ban;
        }),
      ),
    );
    const old = syntheticSource(0, 'bench-persist', game, true);
    const file = join(folder, 'old.json');
    const times: number[] = [];
    let oldBytes = 0;
    let saving: Promise<void> = Promise.resolve();
    const oldMirror = createBanMirror({
      client: old.source,
      gameId: game,
      onEvent: (event) => {
        if (event.type !== 'caught_up' || event.applied === 0) return;
        const start = performance.now();
        const body = JSON.stringify({
          format: 'device-ban-mirror/2',
          game_id: game,
          publisher_id: 'bench-persist',
          cursor: 'p0',
          policy: benchPolicy('bench-persist'),
          bans: copy,
        });
        const checksum = createHash('sha256').update(body).digest('hex');
        const text = `${body.slice(0, -1)},"checksum":"${checksum}"}`;
        oldBytes = Buffer.byteLength(text);
        saving = saving.then(async () => {
          const temporary = `${file}.${randomBytes(12).toString('hex')}.tmp`;
          const handle = await open(temporary, 'wx', 0o600);
          await handle.writeFile(text);
          await handle.close();
          await rename(temporary, file);
          times.push(performance.now() - start);
        });
      },
    });
    await oldMirror.sync();
    collect();
    const previous = await loopDelay(seconds, () => oldMirror.start());
    await oldMirror.stop();
    await saving;
    const last = written.at(-1);
    return {
      bans: count,
      seconds,
      file_bytes: last?.bytes ?? 0,
      write_ms: median(written.map((e) => e.ms)),
      writes: written.length,
      loop_p99_ms: fresh.p99,
      loop_max_ms: fresh.max,
      old_file_bytes: oldBytes,
      old_write_ms: median(times),
      old_writes: times.length,
      old_loop_p99_ms: previous.p99,
      old_loop_max_ms: previous.max,
    };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
};

export const measureGameServers = async (
  options: { loginSeconds?: number; freshnessSamples?: number; snapshotBans?: number } = {},
): Promise<GameServerFigures> => {
  const loginSeconds = options.loginSeconds ?? Number(process.env.LOGIN_SECONDS ?? 3);
  const samples = options.freshnessSamples ?? Number(process.env.FRESHNESS_SAMPLES ?? 30);
  const snapshotBans = options.snapshotBans ?? Number(process.env.SNAPSHOT_BANS ?? 100_000);
  const memoryBytes = await measureMemory(100_000);
  const persistence = await measurePersistence(100_000, Number(process.env.PERSISTENCE_SECONDS ?? 12));

  const api = await startLocalApi({
    port: 0,
    console: false,
    env: { ...process.env, DYNAMODB_ENDPOINT: '', TABLE_NAME: '', DATA_DIR: ':memory:' },
  });
  try {
    // Imported after the store is chosen: the storage client reads its settings at import.
    const { createApiKey } = await import('../lib/domain/api-keys');
    const { dynamo, tableName: boundTable } = await import('../lib/storage/client');
    const tableName = boundTable();
    const { BatchWriteCommand, QueryCommand } = await import('@aws-sdk/lib-dynamodb');
    const { gameFeedPartition, liveBanKey, LIVE_BAN_PREFIX } = await import('../lib/storage/keys');
    const publisher = 'bench-game-servers';
    const game = 'g-bench';
    const { api_key: apiKey } = await createApiKey(publisher, 'bench');
    let mirrorRequests = 0;
    const counting: typeof fetch = (input, init) => {
      mirrorRequests += 1;
      return fetch(input, init);
    };
    const client = createBanClient({ baseUrl: api.url, apiKey });
    const devices = Array.from({ length: 1000 }, (_, i) => `gs-device-${i}`);
    // 300 of the 1,000 devices banned, of every type and scope.
    for (let i = 0; i < 300; i += 10)
      await Promise.all(
        devices.slice(i, i + 10).map((device, j) =>
          client.createBan(game, {
            device_id: device,
            ban_type: j % 2 ? 'cheat' : 'social',
            scope: (['game', 'publisher', 'global'] as const)[j % 3] ?? 'game',
            reason_code: 'bench',
          }),
        ),
      );
    await api.events?.drain();
    const mirror = createBanMirror({
      client: createBanClient({ baseUrl: api.url, apiKey, fetch: counting }),
      gameId: game,
    });
    await mirror.start();

    // Logins by the mirror: check in a loop, timing each in batches of 100 (a single check is
    // below the clock's useful resolution): microseconds per check.
    const batchTimes: number[] = [];
    let mirrorLogins = 0;
    mirrorRequests = 0;
    const mirrorUntil = Date.now() + loginSeconds * 1000;
    while (Date.now() < mirrorUntil) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < 100; i++) mirror.check(devices[(mirrorLogins + i) % devices.length] as string);
      batchTimes.push(Number(process.hrtime.bigint() - start) / 100_000);
      mirrorLogins += 100;
      // Let the poll run, as a server's event loop would.
      if (mirrorLogins % 100_000 === 0) await sleep(0);
    }
    const mirrorCallsPer1000 = (mirrorRequests / mirrorLogins) * 1000;

    // Logins by the API: 10 callers at once.
    const latencies: number[] = [];
    let apiLogins = 0;
    const apiUntil = Date.now() + loginSeconds * 1000;
    await Promise.all(
      Array.from({ length: 10 }, async (_, caller) => {
        for (let i = caller; Date.now() < apiUntil; i += 10) {
          const start = performance.now();
          await client.getEnforcement(game, devices[i % devices.length] as string);
          latencies.push(performance.now() - start);
          apiLogins += 1;
        }
      }),
    );

    // Freshness: a ban made at a random moment of the poll, until the mirror restricts its device.
    const freshness: number[] = [];
    for (let i = 0; i < samples; i++) {
      await sleep(Math.random() * 1000);
      const device = `gs-fresh-${randomUUID()}`;
      await client.createBan(game, {
        device_id: device,
        ban_type: 'cheat',
        scope: 'game',
        reason_code: 'bench',
      });
      const made = performance.now();
      while (!mirror.check(device).restricted.cheat) await sleep(2);
      freshness.push(performance.now() - made);
    }
    await mirror.stop();

    // Snapshot of many bans: live items written straight into the store (the API would take many
    // minutes to make them), then a new mirror's start through the API.
    const partition = gameFeedPartition(publisher, game);
    for (let from = 0; from < snapshotBans; from += 25 * 8) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, b) => {
          const start = from + b * 25;
          let requests = Array.from({ length: Math.max(0, Math.min(25, snapshotBans - start)) }, (_, k) => {
            const listed = syntheticBan(start + k, publisher, game);
            // The ban as the feed's events hold it (lib/domain/change-events.ts).
            const ban = {
              ban_id: listed.ban_id,
              device_id: listed.device_id,
              ban_type: listed.ban_type,
              scope: 'game' as const,
              publisher_id: publisher,
              game_id: game,
              reason_code: listed.reason_code,
              created_at: listed.created_at,
              expires_at: listed.expires_at,
              revoked_at: null,
            };
            return {
              PutRequest: {
                Item: {
                  ...liveBanKey(partition, listed.device_id, listed.ban_id),
                  device_id: listed.device_id,
                  occurred_at: listed.created_at,
                  ban,
                },
              },
            };
          });
          while (requests.length > 0) {
            const answer: BatchWriteCommandOutput = await dynamo.send(
              new BatchWriteCommand({ RequestItems: { [tableName]: requests } }),
            );
            requests = (answer.UnprocessedItems?.[tableName] ?? []) as typeof requests;
          }
        }),
      );
    }
    const snapshotStart = performance.now();
    const fresh = createBanMirror({ client, gameId: game });
    await fresh.sync();
    const snapshotMs = performance.now() - snapshotStart;
    if (fresh.size() < snapshotBans)
      throw new Error(`the snapshot gave ${fresh.size()} of ${snapshotBans} bans`);
    const storeStart = performance.now();
    let read = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await dynamo.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :live)',
          ExpressionAttributeValues: { ':pk': partition, ':live': LIVE_BAN_PREFIX },
          ConsistentRead: true,
          Limit: 1000,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      read += page.Items?.length ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    const storeMs = performance.now() - storeStart;
    if (read < snapshotBans) throw new Error(`the store gave ${read} of ${snapshotBans} live items`);

    return {
      mirror_logins_per_s: mirrorLogins / loginSeconds,
      mirror_p50_us: median(batchTimes),
      mirror_p99_us: percentile(batchTimes, 99),
      api_logins_per_s: apiLogins / loginSeconds,
      api_p50_ms: median(latencies),
      api_p99_ms: percentile(latencies, 99),
      mirror_api_calls_per_1000_logins: mirrorCallsPer1000,
      freshness_samples: freshness.length,
      freshness_p50_ms: median(freshness),
      freshness_p99_ms: percentile(freshness, 99),
      memory_bytes_per_100k: memoryBytes,
      persistence,
      snapshot_bans: snapshotBans,
      snapshot_ms: snapshotMs,
      snapshot_store_ms: storeMs,
    };
  } finally {
    await api.close();
  }
};

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

export const gameServerRows = (f: GameServerFigures) => [
  {
    part: '9 game servers',
    subject: 'logins answered per second: mirror check vs the API (same host)',
    value: `${Math.round(f.mirror_logins_per_s).toLocaleString('en')} /s`,
    baseline: `API ${Math.round(f.api_logins_per_s)} /s`,
    ratio: round(f.mirror_logins_per_s / f.api_logins_per_s, 0),
    target: 'reported',
    ok: true,
  },
  {
    part: '9 game servers',
    subject: 'login latency p50 / p99',
    value: `${round(f.mirror_p50_us, 2)} / ${round(f.mirror_p99_us, 2)} µs`,
    baseline: `API ${round(f.api_p50_ms, 2)} / ${round(f.api_p99_ms, 2)} ms`,
    ratio: round((f.api_p50_ms * 1000) / f.mirror_p50_us, 0),
    target: 'reported',
    ok: true,
  },
  {
    part: '9 game servers',
    subject: 'API calls per 1,000 logins',
    value: `${round(f.mirror_api_calls_per_1000_logins, 3)} (its feed polls)`,
    baseline: 'API 1,000',
    ratio: null,
    target: '< 1',
    ok: f.mirror_api_calls_per_1000_logins < 1,
  },
  {
    part: '9 game servers',
    subject: `a ban's 201 to the mirror restricting (1 s interval, ${f.freshness_samples} bans) p50 / p99`,
    value: `${Math.round(f.freshness_p50_ms)} / ${Math.round(f.freshness_p99_ms)} ms`,
    baseline: 'poll interval 1,000 ms',
    ratio: round(f.freshness_p99_ms / 1000, 2),
    target: 'p99 ≤ 1,500 ms',
    ok: f.freshness_p99_ms <= 1500,
  },
  {
    part: '9 game servers',
    subject: 'memory per 100,000 mirrored bans (heap after a full collection, its source released)',
    value: `${round(f.memory_bytes_per_100k / 1024 / 1024)} MB`,
    baseline: '—',
    ratio: null,
    target: 'reported',
    ok: true,
  },
  {
    part: '9 game servers',
    subject: `state file of ${f.persistence.bans.toLocaleString('en')} bans: size, a write (median of ${f.persistence.writes})`,
    value: `${round(f.persistence.file_bytes / 1024 / 1024)} MB, ${Math.round(f.persistence.write_ms)} ms`,
    baseline: `previous ${round(f.persistence.old_file_bytes / 1024 / 1024)} MB, ${Math.round(f.persistence.old_write_ms)} ms (${f.persistence.old_writes} writes)`,
    ratio: round(f.persistence.file_bytes / f.persistence.old_file_bytes, 2),
    target: 'reported',
    ok: true,
  },
  {
    part: '9 game servers',
    subject: `event loop delay p99 / max, ${f.persistence.bans.toLocaleString('en')} bans, a change each 1 s poll, ${f.persistence.seconds} s`,
    value: `${round(f.persistence.loop_p99_ms)} / ${round(f.persistence.loop_max_ms)} ms`,
    baseline: `previous ${round(f.persistence.old_loop_p99_ms)} / ${round(f.persistence.old_loop_max_ms)} ms`,
    ratio: round(f.persistence.old_loop_max_ms / f.persistence.loop_max_ms, 1),
    target: 'p99 < 50 ms',
    ok: f.persistence.loop_p99_ms < 50,
  },
  {
    part: '9 game servers',
    subject: `snapshot of ${f.snapshot_bans.toLocaleString('en')} bans (a new mirror's start)`,
    value: `${round(f.snapshot_ms / 1000, 2)} s`,
    baseline: `the store's Queries ${round(f.snapshot_store_ms / 1000, 2)} s`,
    ratio: round(f.snapshot_ms / f.snapshot_store_ms, 2),
    target: 'reported',
    ok: true,
  },
];

if (import.meta.url === `file://${process.argv[1]}`) {
  process.env.LOG_LEVEL ??= 'silent';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const figures = await measureGameServers();
  console.log(JSON.stringify(figures, null, 2));
  console.table(gameServerRows(figures));
  process.exit(0);
}
