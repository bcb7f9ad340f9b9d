import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConsoleSignIn, SIGN_IN_FILE } from '@kernel/sign-in';
import { buildConsole } from '../../console/build';
import { headersFor } from '../../console/headers';

/**
 * The moderator console on the local server: built once at start (console/build.ts) and served
 * from memory at /console/, with the headers the deployed copy gets (console/headers.ts). The API
 * is on the same origin, so the page needs no CORS.
 *
 *   GET /console           → 308 to /console/
 *   GET /console/          → index.html
 *   GET /console/app.js    → the bundle
 *   GET /console/app.css   → the stylesheet
 *   GET /console/sign-in.json → the local identity provider's settings for the page (or null)
 *   anything else under /console/ → 404; another method → 405
 *   GET /player            → 308 to /player/
 *   GET /player/           → player.html, the player's page (its link rides in the fragment)
 *   GET /player/player.js, /player/player.css → its script and stylesheet
 */

export type ConsoleListener = (req: IncomingMessage, res: ServerResponse) => boolean;

export const PREFIX = '/console';
/** The player's page, beside the console (kernel/player-links.ts PLAYER_PAGE_PATH). */
export const PLAYER_PREFIX = '/player';
const PLAYER_FILES: Readonly<Record<string, string>> = {
  '': 'player.html',
  'player.js': 'player.js',
  'player.css': 'player.css',
};

let built: Map<string, Buffer> | undefined;

/** The console's files, built once per process (each local server of a test run shares them). */
export const buildConsoleInMemory = (): Map<string, Buffer> => {
  if (built) return built;
  const dir = mkdtempSync(join(tmpdir(), 'console-'));
  try {
    const { files } = buildConsole(dir);
    built = new Map(files.map((f) => [f.name, readFileSync(join(dir, f.name))]));
    return built;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/**
 * Answers the console's requests and returns true; false for every other path (the API's).
 * `signIn` gives the identity provider's settings once it runs (it starts after the server, since
 * it needs the console's address); its token endpoint's origin goes into the CSP.
 */
export const consoleListener = (
  files: ReadonlyMap<string, Buffer> = buildConsoleInMemory(),
  signIn: () => ConsoleSignIn | null = () => null,
): ConsoleListener => {
  const headers = (name: string) => {
    const provider = signIn();
    return headersFor(name, provider ? new URL(provider.token_endpoint).origin : undefined);
  };
  const plain = (res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}) =>
    res
      .writeHead(status, {
        ...headers('index.html'),
        'Content-Type': 'text/plain; charset=utf-8',
        ...extra,
      })
      .end(text);
  return (req, res) => {
    const pathname = (req.url ?? '/').split('?')[0] ?? '/';
    const prefix = [PREFIX, PLAYER_PREFIX].find((p) => pathname === p || pathname.startsWith(`${p}/`));
    if (!prefix) return false;
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      plain(res, 405, 'Method not allowed\n', { Allow: 'GET, HEAD' });
      return true;
    }
    if (pathname === prefix) {
      const query = req.url?.slice(pathname.length) ?? '';
      plain(res, 308, `Moved to ${prefix}/\n`, { Location: `${prefix}/${query}` });
      return true;
    }
    const rest = pathname.slice(prefix.length + 1);
    const name =
      prefix === PLAYER_PREFIX ? PLAYER_FILES[rest] : pathname === `${PREFIX}/` ? 'index.html' : rest;
    const body =
      name === undefined
        ? undefined
        : prefix === PREFIX && name === SIGN_IN_FILE
          ? Buffer.from(JSON.stringify(signIn()))
          : (prefix === PREFIX && ['index.html', 'app.js', 'app.css'].includes(name)) ||
              (prefix === PLAYER_PREFIX && name.startsWith('player.'))
            ? files.get(name)
            : undefined;
    if (!body) {
      plain(res, 404, 'Not found\n');
      return true;
    }
    res.writeHead(200, { ...headers(name as string), 'Content-Length': String(body.length) });
    res.end(method === 'HEAD' ? undefined : body);
    return true;
  };
};
