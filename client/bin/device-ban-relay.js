#!/usr/bin/env node
// The relay as a process: `npx device-ban-relay` (docs/game-servers.md, "Relay"). Plain JavaScript
// over the built package, configured by flags or the environment; events go to stderr as JSON lines.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createBanClient, createBanRelay } from '../dist/index.js';

const usage = `usage: device-ban-relay [options]          serve the relay
       device-ban-relay hash-key             print the SHA-256 of a key read from stdin

  --upstream URL            the service (BAN_RELAY_UPSTREAM)
  --upstream-key-file PATH  a file holding the relay's own key of the service
                            (or BAN_RELAY_UPSTREAM_KEY; scope bans:read)
  --port N                  where game servers connect (BAN_RELAY_PORT, default 8080)
  --host ADDRESS            the address to listen on (BAN_RELAY_HOST, default every address)
  --key-hash HEX            a game server key's SHA-256, repeatable (BAN_RELAY_KEY_HASHES,
                            comma-separated); no plain key is ever given to the relay
  --key-hashes-file PATH    one SHA-256 per line
  --game ID                 a game to follow from the start, repeatable (BAN_RELAY_GAMES,
                            comma-separated); none: any game, followed on its first request
  --interval-ms N           between upstream reads per game (default 1000)
  --max-lag-ms N            past this without reaching the service, reads answer 503 (default 10000)
  --hold-ms N               a feed read at the end waits this long for a change, then until
                            the next upstream read (default 4000)
  --retention-events N      events kept per game for downstream cursors (default 20000)
  --retention-ms N          and for at most this long (default 86400000)
  --verbose                 also log each upstream read that brought no change
`;

const fail = (message) => {
  console.error(`device-ban-relay: ${message}\n\n${usage}`);
  process.exit(2);
};

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      upstream: { type: 'string' },
      'upstream-key-file': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'key-hash': { type: 'string', multiple: true },
      'key-hashes-file': { type: 'string' },
      game: { type: 'string', multiple: true },
      'interval-ms': { type: 'string' },
      'max-lag-ms': { type: 'string' },
      'hold-ms': { type: 'string' },
      'retention-events': { type: 'string' },
      'retention-ms': { type: 'string' },
      verbose: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (error) {
  fail(error.message);
}
const { values, positionals } = parsed;
if (values.help) {
  console.log(usage);
  process.exit(0);
}

if (positionals[0] === 'hash-key') {
  // The key from stdin, so it is in no shell history and no process list.
  const key = readFileSync(0, 'utf8').trim();
  if (!key) fail('hash-key reads the key from stdin');
  console.log(createHash('sha256').update(key).digest('hex'));
  process.exit(0);
}
if (positionals.length > 0) fail(`unknown command ${positionals[0]}`);

const env = process.env;
const list = (text) =>
  (text ?? '')
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);
const number = (name, text, fallback) => {
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text)) fail(`--${name} must be a whole number`);
  return Number(text);
};

const upstream = values.upstream ?? env.BAN_RELAY_UPSTREAM;
if (!upstream) fail('--upstream (or BAN_RELAY_UPSTREAM) is required');
const upstreamKey = values['upstream-key-file']
  ? readFileSync(values['upstream-key-file'], 'utf8').trim()
  : env.BAN_RELAY_UPSTREAM_KEY;
if (!upstreamKey) fail('the upstream key is required: --upstream-key-file or BAN_RELAY_UPSTREAM_KEY');
const keyHashes = [
  ...(values['key-hash'] ?? []),
  ...list(env.BAN_RELAY_KEY_HASHES),
  ...(values['key-hashes-file'] ? list(readFileSync(values['key-hashes-file'], 'utf8')) : []),
];
if (keyHashes.length === 0) fail('at least one game server key hash is required (--key-hash)');
const games = [...(values.game ?? []), ...list(env.BAN_RELAY_GAMES)];
const verbose = values.verbose === true;

let relay;
try {
  relay = createBanRelay({
    client: createBanClient({ baseUrl: upstream, apiKey: upstreamKey }),
    keys: keyHashes,
    ...(games.length > 0 ? { games } : {}),
    intervalMs: number('interval-ms', values['interval-ms'], 1_000),
    maxLagMs: number('max-lag-ms', values['max-lag-ms'], 10_000),
    holdMs: number('hold-ms', values['hold-ms'], 4_000),
    retention: {
      events: number('retention-events', values['retention-events'], 20_000),
      ms: number('retention-ms', values['retention-ms'], 86_400_000),
    },
    onEvent: (event) => {
      if (event.type === 'caught_up' && event.applied === 0 && !verbose) return;
      console.error(JSON.stringify({ at: new Date().toISOString(), ...event }));
    },
  });
} catch (error) {
  fail(error.message);
}

const { port } = await relay.listen(
  number('port', values.port ?? env.BAN_RELAY_PORT, 8080),
  values.host ?? env.BAN_RELAY_HOST,
);
console.log(
  `device-ban-relay listening on port ${port}, following ${games.length > 0 ? games.join(', ') : 'games on first request'}`,
);

const shutdown = async () => {
  await relay.close();
  process.exit(0);
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
