import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Agent, createServer, request } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { defaultPolicyFlags } from '@kernel/policy-flags';
import { defaultPolicyTrust } from '@kernel/policy-trust';
import { createBanClient } from '../client/src/client';
import { createBanMirror, type MirrorSource } from '../client/src/mirror';
import { createBanRelay } from '../client/src/relay';
import { median, percentile } from './storage-probe';

/**
 * Part 11 of `npm run bench` (alone: `npx tsx bench/relay.ts`): RELAY_BENCH_MIRRORS (default 10,000)
 * game servers' readers behind one relay (createBanRelay, default options) behind a service written
 * here that counts its feed reads. The relay runs in a process of its own, the service in this one.
 *
 * Two modes. Fan-out (the default) measures the relay's fan-out: RELAY_BENCH_REAL_MIRRORS (default
 * 200) of the readers are real mirrors (createBanMirror, unchanged, default options, each over its
 * own kept-alive connection) in a process of their own, and the rest are light pollers spread over
 * RELAY_BENCH_PROCESSES (default 2) processes: on the wire what a mirror does once it has its copy
 * (the same feed reads with the same headers, from each answer's `next_cursor`, again at once after
 * a page with items and one second after an empty one, one kept-alive connection each, starting
 * from a real snapshot's `feed_cursor`), but without a copy to keep, so that the 10,000 game
 * servers, each on its own machine in production, do not take the relay's cores from it here.
 * RELAY_BENCH_FULL_MIRRORS=1 makes every reader a real mirror (spread over RELAY_BENCH_PROCESSES):
 * what 10,000 full mirrors on this one box cost, the relay included.
 *
 * Once every reader has started (the mirrors with their copy of RELAY_BENCH_BANS bans, default 10:
 * the copy's size is part 9's subject, and a large one only loads the collector here), the service
 * makes RELAY_BENCH_CHANGES (default 10) bans, one every 2–4 s at random moments, and waits
 * RELAY_BENCH_TAIL_MS (default 8,000) after the last; the figures, over that window:
 *
 * - the service's feed reads per second for the game (the goal: one, whatever the readers);
 * - from a ban's append to the service's feed to the page that carries it having been read and
 *   parsed by a reader (a mirror applies it as it arrives, so `check` answers it from then): p50,
 *   p99 and max over every reader and change, and over the real mirrors alone; per change, its
 *   first reader (the relay's next read of the service) and how long until its last; arrivals
 *   missing at the end (a reader that never got a change);
 * - the relay's own part: how long writing the answers to the reads held for a change took, its
 *   memory (RSS, heap) and CPU, and the requests it answered per second; the readers' processes'
 *   CPU and event-loop delay, which tell whether a slow arrival waited on the relay or the reader.
 *
 * RELAY_BENCH_PROFILE=<dir> writes the readers' processes' CPU profiles there.
 */

const MIRRORS = Number(process.env.RELAY_BENCH_MIRRORS ?? 10_000);
const PROCESSES = Number(process.env.RELAY_BENCH_PROCESSES ?? 2);
const FULL_MIRRORS = process.env.RELAY_BENCH_FULL_MIRRORS === '1';
/** Real mirrors among the readers; the rest are light pollers (all real with RELAY_BENCH_FULL_MIRRORS=1). */
const REAL_MIRRORS = FULL_MIRRORS
  ? MIRRORS
  : Math.min(MIRRORS, Number(process.env.RELAY_BENCH_REAL_MIRRORS ?? 200));
const LIGHT_POLLERS = MIRRORS - REAL_MIRRORS;
/** The mirror's defaults: its poll interval and feed page. */
const POLL_INTERVAL_MS = 1_000;
const FEED_PAGE = 500;
/** A change's ban id is this plus its index. */
const CHANGE_BAN = 1_000_000;
const BANS = Number(process.env.RELAY_BENCH_BANS ?? 10);
const CHANGES = Number(process.env.RELAY_BENCH_CHANGES ?? 10);
const GAME = 'g-relay';
const PUBLISHER = 'relay-bench';
const UPSTREAM_KEY = 'bsk_relay_bench_upstream';
const SERVER_KEY = 'studio-game-server-key';
/** Mirrors started at once; the next batch starts when these have their copy. */
const START_BATCH = 250;

export interface RelayFigures {
  /** Every reader a real mirror, or a sample of real mirrors and the rest light pollers. */
  mode: 'fan-out' | 'full-mirrors';
  mirrors: number;
  real_mirrors: number;
  light_pollers: number;
  processes: number;
  changes: number;
  window_s: number;
  upstream_polls_per_s: number;
  upstream_snapshot_pages: number;
  arrivals: number;
  missing: number;
  arrival_p50_ms: number;
  arrival_p99_ms: number;
  arrival_max_ms: number;
  /** The real mirrors alone (arrival: the page applied to the copy). */
  real_arrivals: number;
  real_missing: number;
  real_arrival_p50_ms: number;
  real_arrival_p99_ms: number;
  real_arrival_max_ms: number;
  /** Per change, its slowest mirror: median and worst over the changes. */
  every_mirror_median_ms: number;
  every_mirror_max_ms: number;
  /** Per change, its first mirror (the relay's next read of the service) and its last after it: medians. */
  first_arrival_median_ms: number;
  spread_median_ms: number;
  /** The relay's own part: writing the answers to the reads held for a change (median, max), and how many. */
  relay_fan_out_median_ms: number;
  relay_fan_out_max_ms: number;
  relay_fan_out_reads_median: number;
  downstream_requests_per_s: number;
  relay_rss_mb: number;
  relay_heap_mb: number;
  relay_cpu_percent: number;
  /** The readers' processes over the window: CPU (% of a core, summed) and the worst event-loop delay p99. */
  readers_cpu_percent: number;
  readers_loop_delay_p99_ms: number;
  mirror_read_failures: number;
  mirror_failure_codes: Record<string, number>;
  start_s: number;
}

const wallClock = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/* ------------------------------------------------------------------------------------------------ */
/* The roles run in child processes                                                                 */

type Message =
  | { type: 'port'; port: number }
  | {
      type: 'usage';
      cpu_us: number;
      rss: number;
      heap: number;
      served: number;
      at: number;
      /** Each change's answers to the reads held for it: how many, and the ms to write them all. */
      fan_outs: Array<[number, number]>;
      /** The process's event-loop delay p99 since the last sample (ms). */
      loop_delay_p99_ms: number;
    }
  | { type: 'started'; mirrors: number }
  | {
      type: 'arrivals';
      arrivals: Array<[number, number, number]>;
      failures: number;
      failure_codes: Record<string, number>;
    };

const send = (message: Message) => process.send?.(message);

const runRelay = async (upstream: string) => {
  const fanOuts: Array<[number, number]> = [];
  const relay = createBanRelay({
    client: createBanClient({ baseUrl: upstream, apiKey: UPSTREAM_KEY }),
    keys: [createHash('sha256').update(SERVER_KEY).digest('hex')],
    games: [GAME],
    onEvent: (event) => {
      if (event.type === 'held_answered') fanOuts.push([event.reads, event.ms]);
    },
  });
  const { port } = await relay.listen(0, '127.0.0.1');
  send({ type: 'port', port });
  process.on('message', (message: { type: string }) => {
    if (message.type !== 'usage') return;
    const cpu = process.cpuUsage();
    const memory = process.memoryUsage();
    const { served } = relay.status();
    send({
      type: 'usage',
      cpu_us: cpu.user + cpu.system,
      rss: memory.rss,
      heap: memory.heapUsed,
      served: served.events + served.snapshot,
      at: wallClock(),
      fan_outs: fanOuts.splice(0),
      loop_delay_p99_ms: 0,
    });
  });
};

/** A readers' process answers the same usage sample: its CPU and how late its event loop ran. */
const answerUsage = () => {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  process.on('message', (message: { type: string }) => {
    if (message.type !== 'usage') return;
    const cpu = process.cpuUsage();
    const memory = process.memoryUsage();
    send({
      type: 'usage',
      cpu_us: cpu.user + cpu.system,
      rss: memory.rss,
      heap: memory.heapUsed,
      served: 0,
      at: wallClock(),
      fan_outs: [],
      loop_delay_p99_ms: delay.percentile(99) / 1e6,
    });
    delay.reset();
  });
};

/**
 * A mirror's fetch: node:http over one kept-alive connection of its own (as a game server has),
 * answering what the client reads of a Response. Thousands of game servers share this machine's two
 * cores here, where each has its own in production; the platform's fetch costs several times more
 * per request, and the figures would measure the harness, not the relay.
 */
const leanFetch = () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return ((input: string, init: RequestInit = {}) =>
    new Promise((resolve, reject) => {
      const req = request(
        input,
        {
          method: init.method,
          headers: init.headers as Record<string, string>,
          agent,
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            resolve({
              ok: status >= 200 && status < 300,
              status,
              headers: {
                get: (name: string) => {
                  const value = res.headers[name.toLowerCase()];
                  return value === undefined ? null : String(value);
                },
              },
              text: async () => text,
            } as unknown as Response);
          });
        },
      );
      req.on('error', reject);
      req.end(init.body as string | undefined);
    })) as unknown as typeof fetch;
};

const runMirrors = async (relayUrl: string, count: number) => {
  /** [change, mirror, when its page arrived]. */
  const arrivals: Array<[number, number, number]> = [];
  let failures = 0;
  const failureCodes = new Map<string, number>();
  const mirrors = Array.from({ length: count }, (_, index) => {
    const client = createBanClient({ baseUrl: relayUrl, apiKey: SERVER_KEY, fetch: leanFetch() });
    // The mirror's own reads, timed where the page arrives: the mirror applies it at once.
    const source: MirrorSource = {
      getEnforcementSnapshot: client.getEnforcementSnapshot,
      listEvents: async (game, query, options) => {
        const page = await client.listEvents(game, query, options);
        const at = wallClock();
        for (const event of page.items) {
          const id = 'ban' in event ? event.ban.ban_id : undefined;
          if (id !== undefined && id >= CHANGE_BAN) arrivals.push([id - CHANGE_BAN, index, at]);
        }
        return page;
      },
    };
    return createBanMirror({
      client: source,
      gameId: GAME,
      onEvent: (event) => {
        if (event.type !== 'read_failed') return;
        failures += 1;
        failureCodes.set(event.code, (failureCodes.get(event.code) ?? 0) + 1);
      },
    });
  });
  for (let from = 0; from < count; from += START_BATCH)
    await Promise.all(mirrors.slice(from, from + START_BATCH).map((mirror) => mirror.start()));
  const copies = mirrors.filter((mirror) => mirror.size() === BANS).length;
  answerUsage();
  send({ type: 'started', mirrors: copies });
  process.once('SIGTERM', () => process.exit(0));
  process.on('message', (message: { type: string }) => {
    if (message.type === 'collect')
      send({ type: 'arrivals', arrivals, failures, failure_codes: Object.fromEntries(failureCodes) });
  });
};

/**
 * Light pollers: on the wire what a mirror does once it has its copy (the same feed read, with
 * `X-Game-Id` and the Bearer key, from each answer's `next_cursor`; again at once after a page with
 * items, one interval after an empty one), each over a kept-alive connection of its own, but no
 * copy: a raw HTTP/1.1 exchange and JSON.parse of the body for `next_cursor` and the ban ids. The
 * relay serves them exactly as it serves mirrors; they cost this machine a fraction of a mirror,
 * so a few thousand of them do not crowd the relay out of the cores it shares with them.
 */
const runPollers = async (relayUrl: string, count: number) => {
  const { hostname, port } = new URL(relayUrl);
  const head = `Host: ${hostname}:${port}\r\nAuthorization: Bearer ${SERVER_KEY}\r\nX-Game-Id: ${GAME}\r\nAccept: application/json\r\n\r\n`;
  // One real snapshot read for this process's pollers: they follow the relay's own log from it.
  const snapshot = await fetch(`${relayUrl}/v1/enforcement/snapshot?limit=1000`, {
    headers: { Authorization: `Bearer ${SERVER_KEY}`, 'X-Game-Id': GAME },
  });
  if (!snapshot.ok) throw new Error(`the relay's snapshot answered ${snapshot.status}`);
  const { feed_cursor: feedCursor } = (await snapshot.json()) as { feed_cursor: string };
  /** [change, poller, when the page carrying it had arrived and been parsed]. */
  const arrivals: Array<[number, number, number]> = [];
  let failures = 0;
  const failureCodes = new Map<string, number>();
  const fail = (code: string) => {
    failures += 1;
    failureCodes.set(code, (failureCodes.get(code) ?? 0) + 1);
  };

  const poller = (index: number) => {
    let cursor = feedCursor;
    let socket: Socket | undefined;
    let pending:
      | { resolve: (r: { status: number; body: string }) => void; reject: (e: Error) => void }
      | undefined;
    let received: Buffer[] = [];
    let size = 0;

    /** One whole response in what arrived (status line, headers with Content-Length, body)? */
    const tryResponse = () => {
      const data = received.length === 1 ? (received[0] as Buffer) : Buffer.concat(received, size);
      received = [data];
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headers = data.toString('latin1', 0, end);
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(headers);
      const bodyLength = Number(length?.[1] ?? 0);
      if (data.length < end + 4 + bodyLength) return;
      const status = Number(headers.slice(9, 12));
      const body = data.toString('utf8', end + 4, end + 4 + bodyLength);
      received = [];
      size = 0;
      const answer = pending;
      pending = undefined;
      answer?.resolve({ status, body });
    };

    const open = () =>
      new Promise<void>((resolve, reject) => {
        const s = connect({ host: hostname, port: Number(port) });
        s.setNoDelay(true);
        s.once('connect', () => resolve());
        s.on('data', (chunk: Buffer) => {
          received.push(chunk);
          size += chunk.length;
          tryResponse();
        });
        s.on('error', (error) => reject(error));
        s.on('close', () => {
          if (socket === s) socket = undefined;
          received = [];
          size = 0;
          const answer = pending;
          pending = undefined;
          answer?.reject(new Error('connection closed'));
        });
        socket = s;
      });

    const read = async () => {
      if (!socket) await open();
      return new Promise<{ status: number; body: string }>((resolve, reject) => {
        pending = { resolve, reject };
        socket?.write(
          `GET /v1/events?cursor=${encodeURIComponent(cursor)}&limit=${FEED_PAGE} HTTP/1.1\r\n${head}`,
        );
      });
    };

    const loop = async () => {
      for (;;) {
        let wait = POLL_INTERVAL_MS;
        try {
          const { status, body } = await read();
          if (status !== 200) fail(String(status));
          else {
            const page = JSON.parse(body) as {
              items: Array<{ ban?: { ban_id?: number } }>;
              next_cursor: string;
            };
            const at = wallClock();
            for (const item of page.items) {
              const id = item.ban?.ban_id;
              if (id !== undefined && id >= CHANGE_BAN) arrivals.push([id - CHANGE_BAN, index, at]);
            }
            cursor = page.next_cursor;
            if (page.items.length > 0) wait = 0;
          }
        } catch {
          fail('connection');
        }
        if (wait > 0) await sleep(wait);
      }
    };

    return {
      /** Connected, and the first read (from the snapshot's cursor) sent. */
      start: async () => {
        await open();
        void loop();
      },
    };
  };

  const pollers = Array.from({ length: count }, (_, index) => poller(index));
  let connected = 0;
  for (let from = 0; from < count; from += START_BATCH)
    await Promise.all(
      pollers.slice(from, from + START_BATCH).map((p) =>
        p.start().then(
          () => {
            connected += 1;
          },
          () => fail('connect'),
        ),
      ),
    );
  answerUsage();
  send({ type: 'started', mirrors: connected });
  process.once('SIGTERM', () => process.exit(0));
  process.on('message', (message: { type: string }) => {
    if (message.type === 'collect')
      send({ type: 'arrivals', arrivals, failures, failure_codes: Object.fromEntries(failureCodes) });
  });
};

/* ------------------------------------------------------------------------------------------------ */
/* The service, and the measurement                                                                 */

const policy = {
  publisher_id: PUBLISHER,
  ...defaultPolicyFlags,
  ...defaultPolicyTrust,
  updated_at: '2026-11-01T00:00:00.000Z',
};

const listedBan = (id: number) => ({
  ban_id: id,
  ban_type: 'cheat' as const,
  scope: 'game' as const,
  publisher_id: PUBLISHER,
  game_id: GAME,
  reason_code: 'bench',
  details_json: null,
  created_at: '2026-11-01T00:00:00.000Z',
  expires_at: null,
  revoked_at: null,
  revoke_reason_code: null,
  player_message: null,
  appealable: true,
  appeal: null,
  created_by: null,
  enforced: true,
});

/** The service: the two routes a relay reads, for one game, counting feed reads. */
const startService = async () => {
  const bans = Array.from({ length: BANS }, (_, i) => ({
    device_id: `bench-device-${i}`,
    ...listedBan(1 + i),
  }));
  const events: unknown[] = [];
  const counts = { polls: 0, snapshotPages: 0 };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://service');
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${UPSTREAM_KEY}` || req.headers['x-game-id'] !== GAME)
      return answer(401, {
        error: { code: 'unauthorized', message: 'A valid API key is required' },
        request_id: 'b',
      });
    if (url.pathname === '/v1/events') {
      counts.polls += 1;
      const from = Number((url.searchParams.get('cursor') ?? 'u0').slice(1));
      const items = events.slice(from, from + Number(url.searchParams.get('limit') ?? 100));
      return answer(200, {
        items,
        next_cursor: `u${from + items.length}`,
        deployment_id: 'bench-service',
        delay_ms: 0,
      });
    }
    if (url.pathname === '/v1/enforcement/snapshot') {
      counts.snapshotPages += 1;
      const from = Number(url.searchParams.get('cursor') ?? 0);
      const to = from + Number(url.searchParams.get('limit') ?? 500);
      return answer(200, {
        game_id: GAME,
        policy,
        feed_cursor: `u${events.length}`,
        deployment_id: 'bench-service',
        items: bans.slice(from, to),
        next_cursor: to < bans.length ? String(to) : null,
      });
    }
    answer(404, { error: { code: 'not_found', message: 'No route matches the request' }, request_id: 'b' });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    /** A new ban on the feed; resolves with when it became readable. */
    change(index: number) {
      events.push({
        event_id: `evt_bench_${index}`,
        type: 'ban.created',
        occurred_at: new Date().toISOString(),
        device_id: `change-${index}`,
        ban: listedBan(CHANGE_BAN + index),
      });
      return wallClock();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
};

const child = (role: string, args: string[]) =>
  spawn(
    process.execPath,
    [
      // Thousands of clients' short-lived objects: a larger young generation spares most of the
      // collections that would promote them.
      ...(role !== 'relay' ? ['--max-semi-space-size=64'] : []),
      ...(process.env.RELAY_BENCH_PROFILE && role !== 'relay'
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.RELAY_BENCH_PROFILE}`]
        : []),
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      role,
      ...args,
    ],
    { env: { ...process.env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );

const nextMessage = <T extends Message['type']>(proc: ChildProcess, type: T) =>
  new Promise<Extract<Message, { type: T }>>((resolve, reject) => {
    const onMessage = (message: Message) => {
      if (message.type !== type) return;
      proc.off('message', onMessage);
      resolve(message as Extract<Message, { type: T }>);
    };
    proc.on('message', onMessage);
    proc.once('exit', (code) => reject(new Error(`a bench process exited (${code}) before ${type}`)));
  });

export const measureRelay = async (): Promise<RelayFigures> => {
  const service = await startService();
  const processes: ChildProcess[] = [];
  try {
    const relay = child('relay', [service.url]);
    processes.push(relay);
    const { port } = await nextMessage(relay, 'port');
    const relayUrl = `http://127.0.0.1:${port}`;
    const startedAt = Date.now();
    // Full mirrors: every reader a mirror, spread over the processes. Fan-out: the real mirrors in a
    // process of their own, the light pollers spread over the processes.
    const spread = (role: 'mirrors' | 'pollers', count: number) => {
      const share = Math.ceil(count / PROCESSES);
      return Array.from({ length: PROCESSES }, (_, i) => Math.min(share, count - i * share))
        .filter((n) => n > 0)
        .map((n) => ({ real: role === 'mirrors', proc: child(role, [relayUrl, String(n)]) }));
    };
    const readers = FULL_MIRRORS
      ? spread('mirrors', MIRRORS)
      : [
          ...(REAL_MIRRORS > 0
            ? [{ real: true, proc: child('mirrors', [relayUrl, String(REAL_MIRRORS)]) }]
            : []),
          ...spread('pollers', LIGHT_POLLERS),
        ];
    const groups = readers.map((r) => r.proc);
    processes.push(...groups);
    const started = await Promise.all(groups.map((group) => nextMessage(group, 'started')));
    const copies = started.reduce((sum, s) => sum + s.mirrors, 0);
    if (copies !== MIRRORS)
      throw new Error(`${copies} of ${MIRRORS} readers started (mirrors with their copy)`);
    const startS = (Date.now() - startedAt) / 1000;
    // Settle into the steady state (held reads, one poll a second) before counting.
    await sleep(3_000);

    const usageOf = async (proc: ChildProcess) => {
      const answer = nextMessage(proc, 'usage');
      proc.send({ type: 'usage' });
      return answer;
    };
    const usage = () => usageOf(relay);
    const before = await usage();
    const readersBefore = await Promise.all(groups.map(usageOf));
    const pollsBefore = service.counts.polls;
    const windowStart = wallClock();
    const madeAt: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      await sleep(2_000 + Math.random() * 2_000);
      madeAt.push(service.change(i));
    }
    // Time for the last change to reach everyone (and the polls to go on meanwhile).
    await sleep(Number(process.env.RELAY_BENCH_TAIL_MS ?? 8_000));
    const after = await usage();
    const readersAfter = await Promise.all(groups.map(usageOf));
    const windowMs = wallClock() - windowStart;
    const polls = service.counts.polls - pollsBefore;

    const collected = await Promise.all(
      groups.map((group) => {
        const answer = nextMessage(group, 'arrivals');
        group.send({ type: 'collect' });
        return answer;
      }),
    );
    const latencies: number[] = [];
    const realLatencies: number[] = [];
    const slowest = new Map<number, number>();
    const fastest = new Map<number, number>();
    const seen = new Set<string>();
    collected.forEach(({ arrivals }, group) => {
      for (const [change, mirror, at] of arrivals) {
        // A page read twice (a retry) counts once, at its first arrival.
        const id = `${change}.${group}.${mirror}`;
        if (seen.has(id)) continue;
        seen.add(id);
        const latency = at - (madeAt[change] ?? at);
        latencies.push(latency);
        if (readers[group]?.real) realLatencies.push(latency);
        slowest.set(change, Math.max(slowest.get(change) ?? 0, latency));
        fastest.set(change, Math.min(fastest.get(change) ?? Number.POSITIVE_INFINITY, latency));
      }
    });
    const perChange = [...slowest.values()];
    const readersCpuMs = readersAfter.reduce(
      (sum, a, i) => sum + (a.cpu_us - (readersBefore[i]?.cpu_us ?? a.cpu_us)) / 1000,
      0,
    );
    return {
      mode: FULL_MIRRORS ? 'full-mirrors' : 'fan-out',
      mirrors: MIRRORS,
      real_mirrors: REAL_MIRRORS,
      light_pollers: LIGHT_POLLERS,
      processes: PROCESSES,
      changes: CHANGES,
      window_s: windowMs / 1000,
      upstream_polls_per_s: polls / (windowMs / 1000),
      upstream_snapshot_pages: service.counts.snapshotPages,
      arrivals: latencies.length,
      missing: MIRRORS * CHANGES - latencies.length,
      arrival_p50_ms: median(latencies),
      arrival_p99_ms: percentile(latencies, 99),
      arrival_max_ms: Math.max(...latencies),
      real_arrivals: realLatencies.length,
      real_missing: REAL_MIRRORS * CHANGES - realLatencies.length,
      real_arrival_p50_ms: median(realLatencies),
      real_arrival_p99_ms: percentile(realLatencies, 99),
      real_arrival_max_ms: Math.max(0, ...realLatencies),
      every_mirror_median_ms: median(perChange),
      every_mirror_max_ms: Math.max(...perChange),
      first_arrival_median_ms: median([...fastest.values()]),
      relay_fan_out_median_ms: median(after.fan_outs.map(([, ms]) => ms)),
      relay_fan_out_max_ms: Math.max(0, ...after.fan_outs.map(([, ms]) => ms)),
      relay_fan_out_reads_median: median(after.fan_outs.map(([reads]) => reads)),
      spread_median_ms: median([...slowest].map(([change, last]) => last - (fastest.get(change) ?? last))),
      downstream_requests_per_s: (after.served - before.served) / ((after.at - before.at) / 1000),
      relay_rss_mb: after.rss / 1024 / 1024,
      relay_heap_mb: after.heap / 1024 / 1024,
      relay_cpu_percent: ((after.cpu_us - before.cpu_us) / 1000 / (after.at - before.at)) * 100,
      readers_cpu_percent: (readersCpuMs / (after.at - before.at)) * 100,
      readers_loop_delay_p99_ms: Math.max(0, ...readersAfter.map((a) => a.loop_delay_p99_ms)),
      mirror_read_failures: collected.reduce((sum, c) => sum + c.failures, 0),
      mirror_failure_codes: collected.reduce<Record<string, number>>((all, c) => {
        for (const [code, n] of Object.entries(c.failure_codes)) all[code] = (all[code] ?? 0) + n;
        return all;
      }, {}),
      start_s: startS,
    };
  } finally {
    for (const proc of processes) {
      if (proc.exitCode !== null) continue;
      const exited = once(proc, 'exit');
      proc.kill('SIGTERM');
      await exited;
    }
    await service.close();
  }
};

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

/** Who read: "10,000 mirrors" or "10,000 readers (200 mirrors, 9,800 light pollers)". */
const readersOf = (f: RelayFigures) =>
  f.mode === 'full-mirrors'
    ? `${f.mirrors.toLocaleString('en')} mirrors`
    : `${f.mirrors.toLocaleString('en')} readers (${f.real_mirrors.toLocaleString('en')} mirrors, ${f.light_pollers.toLocaleString('en')} light pollers)`;

export const relayRows = (f: RelayFigures) => [
  {
    part: '11 relay',
    subject: `service feed reads per second for the game, ${readersOf(f)} behind one relay`,
    value: `${round(f.upstream_polls_per_s, 2)} /s (snapshot: ${f.upstream_snapshot_pages} page)`,
    baseline: `without the relay ${f.mirrors.toLocaleString('en')} /s`,
    ratio: round(f.upstream_polls_per_s, 2),
    // A window of w seconds holds up to w + 1 reads a second apart (one at each edge).
    target: '≤ 1 /s (+ 1 read at the window edge)',
    ok: f.upstream_polls_per_s * f.window_s <= Math.floor(f.window_s) + 1,
  },
  {
    part: '11 relay',
    subject: `a change to every reader (${f.changes} changes × ${readersOf(f)}) p50 / p99 / max`,
    value: `${Math.round(f.arrival_p50_ms)} / ${Math.round(f.arrival_p99_ms)} / ${Math.round(f.arrival_max_ms)} ms, ${f.missing} missing`,
    baseline: `per change: first reader ${Math.round(f.first_arrival_median_ms)} ms (the relay's next read), then all within ${Math.round(f.spread_median_ms)} ms (medians); slowest ${Math.round(f.every_mirror_max_ms)} ms`,
    ratio: round(f.arrival_p99_ms / 2000, 2),
    target: 'p99 ≤ 2,000 ms, none missing',
    ok: f.arrival_p99_ms <= 2000 && f.missing === 0,
  },
  ...(f.mode === 'fan-out'
    ? [
        {
          part: '11 relay',
          subject: `a change to the real mirrors' copies (${f.changes} changes × ${f.real_mirrors.toLocaleString('en')} mirrors among them) p50 / p99 / max`,
          value: `${Math.round(f.real_arrival_p50_ms)} / ${Math.round(f.real_arrival_p99_ms)} / ${Math.round(f.real_arrival_max_ms)} ms, ${f.real_missing} missing`,
          baseline: 'the full-mirror figure: RELAY_BENCH_FULL_MIRRORS=1',
          ratio: round(f.real_arrival_p99_ms / 2000, 2),
          target: 'p99 ≤ 2,000 ms, none missing',
          ok: f.real_arrival_p99_ms <= 2000 && f.real_missing === 0,
        },
      ]
    : []),
  {
    part: '11 relay',
    subject: 'the relay: memory, CPU, requests answered',
    value: `RSS ${round(f.relay_rss_mb)} MB (heap ${round(f.relay_heap_mb)} MB), CPU ${round(f.relay_cpu_percent)} % of a core, ${Math.round(f.downstream_requests_per_s).toLocaleString('en')} req/s; a change's ${Math.round(f.relay_fan_out_reads_median).toLocaleString('en')} held reads answered in ${Math.round(f.relay_fan_out_median_ms)} ms (max ${Math.round(f.relay_fan_out_max_ms)})`,
    baseline: `readers' processes: CPU ${round(f.readers_cpu_percent)} % of a core, event-loop delay p99 ${Math.round(f.readers_loop_delay_p99_ms)} ms; ${f.mirror_read_failures} failed reads; all started in ${round(f.start_s)} s`,
    ratio: null,
    target: 'reported',
    ok: true,
  },
];

const [role, ...args] = process.argv.slice(2);
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (role === 'relay') await runRelay(args[0] as string);
  else if (role === 'mirrors') await runMirrors(args[0] as string, Number(args[1]));
  else if (role === 'pollers') await runPollers(args[0] as string, Number(args[1]));
  else {
    const figures = await measureRelay();
    console.log(JSON.stringify(figures, null, 2));
    console.table(relayRows(figures));
    process.exit(0);
  }
}
