import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createBanClient } from '../client/src/client';
import { createBanMirror, type MirrorSource } from '../client/src/mirror';
import { createBanRelay } from '../client/src/relay';
import { defaultPolicyFlags } from '../lib/model/policy-flags';
import { defaultPolicyTrust } from '../lib/model/policy-trust';
import { median, percentile } from './storage-probe';

/**
 * Part 11 of `npm run bench` (alone: `npx tsx bench/relay.ts`): RELAY_BENCH_MIRRORS (default 10,000)
 * game servers' mirrors (createBanMirror, unchanged, default options, each over its own kept-alive
 * connection) behind one relay (createBanRelay, default options) behind a service written here that
 * counts its feed reads. The mirrors run in RELAY_BENCH_PROCESSES (default 2) processes, the relay
 * in one of its own, the service in this one. Once every mirror has its copy (RELAY_BENCH_BANS bans,
 * default 10: the copy's size is part 9's subject, and a large one only loads the collector here),
 * the service makes RELAY_BENCH_CHANGES (default 10) bans, one every 2–4 s at random moments, and
 * waits RELAY_BENCH_TAIL_MS (default 8,000) after the last; the figures, over that window:
 *
 * - the service's feed reads per second for the game (the goal: one, whatever the mirrors);
 * - from a ban's append to the service's feed to the page that carries it reaching a mirror (its
 *   copy applies the page as it arrives, so `check` answers it from then): p50, p99 and max over
 *   every mirror and change; per change, its first mirror (the relay's next read of the service)
 *   and how long until its last;
 * - the relay's own part: how long writing the answers to the reads held for a change took, its
 *   memory (RSS, heap) and CPU, and the requests it answered per second.
 *
 * Every process shares the machine's cores: the mirrors' side (thousands of HTTP clients, one per
 * game server in production) costs far more than the relay's. RELAY_BENCH_PROFILE=<dir> writes the
 * mirror processes' CPU profiles there.
 */

const MIRRORS = Number(process.env.RELAY_BENCH_MIRRORS ?? 10_000);
const PROCESSES = Number(process.env.RELAY_BENCH_PROCESSES ?? 2);
const BANS = Number(process.env.RELAY_BENCH_BANS ?? 10);
const CHANGES = Number(process.env.RELAY_BENCH_CHANGES ?? 10);
const GAME = 'g-relay';
const PUBLISHER = 'relay-bench';
const UPSTREAM_KEY = 'bsk_relay_bench_upstream';
const SERVER_KEY = 'studio-game-server-key';
/** Mirrors started at once; the next batch starts when these have their copy. */
const START_BATCH = 250;

export interface RelayFigures {
  mirrors: number;
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
  mirror_read_failures: number;
  mirror_failure_codes: Record<string, number>;
  start_s: number;
}

const wallClock = () => performance.timeOrigin + performance.now();

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
    });
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
        for (const event of page.items)
          if (event.device_id?.startsWith('change-'))
            arrivals.push([Number(event.device_id.slice('change-'.length)), index, at]);
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
  send({ type: 'started', mirrors: copies });
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
        ban: listedBan(1_000_000 + index),
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
      ...(role === 'mirrors' ? ['--max-semi-space-size=64'] : []),
      ...(process.env.RELAY_BENCH_PROFILE && role === 'mirrors'
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const measureRelay = async (): Promise<RelayFigures> => {
  const service = await startService();
  const processes: ChildProcess[] = [];
  try {
    const relay = child('relay', [service.url]);
    processes.push(relay);
    const { port } = await nextMessage(relay, 'port');
    const relayUrl = `http://127.0.0.1:${port}`;
    const startedAt = Date.now();
    const share = Math.ceil(MIRRORS / PROCESSES);
    const groups = Array.from({ length: PROCESSES }, (_, i) =>
      child('mirrors', [relayUrl, String(Math.min(share, MIRRORS - i * share))]),
    );
    processes.push(...groups);
    const started = await Promise.all(groups.map((group) => nextMessage(group, 'started')));
    const copies = started.reduce((sum, s) => sum + s.mirrors, 0);
    if (copies !== MIRRORS) throw new Error(`${copies} of ${MIRRORS} mirrors have their copy`);
    const startS = (Date.now() - startedAt) / 1000;
    // Settle into the steady state (held reads, one poll a second) before counting.
    await sleep(3_000);

    const usage = async () => {
      const answer = nextMessage(relay, 'usage');
      relay.send({ type: 'usage' });
      return answer;
    };
    const before = await usage();
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
        slowest.set(change, Math.max(slowest.get(change) ?? 0, latency));
        fastest.set(change, Math.min(fastest.get(change) ?? Number.POSITIVE_INFINITY, latency));
      }
    });
    const perChange = [...slowest.values()];
    return {
      mirrors: MIRRORS,
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

export const relayRows = (f: RelayFigures) => [
  {
    part: '11 relay',
    subject: `service feed reads per second for the game, ${f.mirrors.toLocaleString('en')} mirrors behind one relay`,
    value: `${round(f.upstream_polls_per_s, 2)} /s (snapshot: ${f.upstream_snapshot_pages} page)`,
    baseline: `without the relay ${f.mirrors.toLocaleString('en')} /s`,
    ratio: round(f.upstream_polls_per_s, 2),
    target: '≤ 1 /s',
    ok: f.upstream_polls_per_s <= 1,
  },
  {
    part: '11 relay',
    subject: `a change to the mirrors' copies (${f.changes} changes × ${f.mirrors.toLocaleString('en')} mirrors) p50 / p99 / max`,
    value: `${Math.round(f.arrival_p50_ms)} / ${Math.round(f.arrival_p99_ms)} / ${Math.round(f.arrival_max_ms)} ms, ${f.missing} missing`,
    baseline: `per change: first mirror ${Math.round(f.first_arrival_median_ms)} ms (the relay's next read), then all within ${Math.round(f.spread_median_ms)} ms (medians); slowest ${Math.round(f.every_mirror_max_ms)} ms`,
    ratio: round(f.arrival_p99_ms / 2000, 2),
    target: 'p99 ≤ 2,000 ms, none missing',
    ok: f.arrival_p99_ms <= 2000 && f.missing === 0,
  },
  {
    part: '11 relay',
    subject: 'the relay: memory, CPU, requests answered',
    value: `RSS ${round(f.relay_rss_mb)} MB (heap ${round(f.relay_heap_mb)} MB), CPU ${round(f.relay_cpu_percent)} % of a core, ${Math.round(f.downstream_requests_per_s).toLocaleString('en')} req/s; a change's ${Math.round(f.relay_fan_out_reads_median).toLocaleString('en')} held reads answered in ${Math.round(f.relay_fan_out_median_ms)} ms (max ${Math.round(f.relay_fan_out_max_ms)})`,
    baseline: `${f.mirror_read_failures} failed mirror reads; all mirrors started in ${round(f.start_s)} s`,
    ratio: null,
    target: 'reported',
    ok: true,
  },
];

const [role, ...args] = process.argv.slice(2);
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (role === 'relay') await runRelay(args[0] as string);
  else if (role === 'mirrors') await runMirrors(args[0] as string, Number(args[1]));
  else {
    const figures = await measureRelay();
    console.log(JSON.stringify(figures, null, 2));
    console.table(relayRows(figures));
    process.exit(0);
  }
}
