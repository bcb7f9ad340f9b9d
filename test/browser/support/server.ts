import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEV_PUBLISHER,
  ensureDevelopmentPublisher,
  serverOptionsFrom,
} from '../../../infra/local/development';
import { startLocalApi } from '../../../infra/local/server';
import { childEnv, runTs, startTs } from '../../support/processes';

/**
 * `npm start` as the console's tests meet it: its server, on a fresh store in a temporary DATA_DIR
 * and a free port, with webhook retries shortened (WEBHOOK_RETRY_BASE_MS=50). The tests ask the
 * API itself, over fetch, what was stored.
 */

export interface ApiAnswer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  /** The key to send; the development key by default, `null` for none. */
  key?: string | null;
  game?: string;
  body?: unknown;
}

export interface LocalServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The console's address: it opens on Start. */
  consoleUrl: string;
  /** The console's address opened on Devices (`#/device`): where the device and ban tests begin. */
  devicesUrl: string;
  /** The development publisher's key printed on first start: every scope, every game. */
  devKey: string;
  /** The three people of dev-publisher printed on first start, by role. */
  people: Record<'viewer' | 'moderator' | 'admin', { email: string; password: string }>;
  dataDir: string;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiAnswer<T>>;
  /** A new key of dev-publisher's, made through POST /v1/keys with the development key. */
  makeKey(name: string, scopes: string[], games?: string[]): Promise<{ key_id: string; api_key: string }>;
  /**
   * A key with every scope of another publisher, made as `npm run keys -- create --publisher` makes
   * it (that tool's own process is test/host's): in this process when the server is, else by the
   * tool on the server's folder.
   */
  publisherKey(publisherId: string): Promise<string>;
  /**
   * Moves the server's clock `offsetMs` ahead of the wall clock (0: back), so a test reaches an
   * expiry without waiting. Only a server in this process has its clock here: another throws.
   */
  setClockOffset(offsetMs: number): void;
  stop(): Promise<void>;
}

export { DEV_PUBLISHER };

/** How one of the servers below runs. */
interface Running {
  url: string;
  devKey: string;
  people: LocalServer['people'];
  /** Whether it runs in this process (its store is this process's). */
  here: boolean;
  setClockOffset(offsetMs: number): void;
  stop(): Promise<void>;
}

/**
 * `npm start`'s server in this process: its startLocalApi with the options main.ts derives from
 * the environment, and the development publisher main.ts makes. The storage client, the settings
 * and the clock are bound per process (lib/config.ts), so one at a time; a second server wanted
 * meanwhile (a test of other settings) runs as `npm start` itself, in a child process.
 */
let inProcess = false;

const startInProcess = async (env: NodeJS.ProcessEnv): Promise<Running> => {
  inProcess = true;
  try {
    const api = await startLocalApi(serverOptionsFrom(env));
    try {
      const { key, people } = await ensureDevelopmentPublisher({ people: true });
      if (!key || !people) throw new Error('a fresh store already had the development publisher');
      const byRole = (role: string) => {
        const { email = '', password = '' } = people.find((p) => p.role === role) ?? {};
        return { email, password };
      };
      return {
        url: api.url,
        devKey: key.api_key,
        people: { viewer: byRole('viewer'), moderator: byRole('moderator'), admin: byRole('admin') },
        here: true,
        setClockOffset: (offsetMs) => api.setClockOffset(offsetMs),
        stop: async () => {
          try {
            await api.close();
          } finally {
            inProcess = false;
          }
        },
      };
    } catch (error) {
      await api.close().catch(() => {});
      throw error;
    }
  } catch (error) {
    inProcess = false;
    throw error;
  }
};

const startChild = async (env: NodeJS.ProcessEnv): Promise<Running> => {
  const server = await startTs(
    'infra/local/main.ts',
    env,
    /listening on http:\/\/127\.0\.0\.1:\d+[\s\S]*(curl|already has a key)[\s\S]*(Add more with|list them with)/,
  );
  const printed = server.output();
  const person = (role: string) => {
    const [, email = '', password = ''] =
      new RegExp(`^ +${role} +(\\S+@\\S+) +(\\S+)$`, 'm').exec(printed) ?? [];
    return { email, password };
  };
  return {
    url: (/listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed) as RegExpExecArray)[1] as string,
    devKey: (/bsk_[A-Za-z0-9_-]{43}/.exec(printed) as RegExpExecArray)[0],
    people: { viewer: person('viewer'), moderator: person('moderator'), admin: person('admin') },
    here: false,
    setClockOffset: () => {
      throw new Error("a server in a child process keeps its own clock: set it in the test's first server");
    },
    stop: async () => {
      await server.stop('SIGTERM');
    },
  };
};

export const startServer = async (extraEnv: Record<string, string> = {}): Promise<LocalServer> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'console-'));
  const env = childEnv({ DATA_DIR: dataDir, PORT: '0', WEBHOOK_RETRY_BASE_MS: '50', ...extraEnv });
  let running: Running;
  try {
    running = inProcess ? await startChild(env) : await startInProcess(env);
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const { url, devKey, people } = running;
  let stopped: Promise<void> | undefined;

  const call = async (method: string, path: string, options: CallOptions = {}): Promise<ApiAnswer> => {
    const headers: Record<string, string> = {};
    const key = options.key === undefined ? devKey : options.key;
    if (key !== null) headers.Authorization = `Bearer ${key}`;
    if (options.game !== undefined) headers['X-Game-Id'] = options.game;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${url}${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };

  return {
    url,
    consoleUrl: `${url}/console/`,
    devicesUrl: `${url}/console/#/device`,
    devKey,
    people,
    dataDir,
    call,
    makeKey: async (name, scopes, games) => {
      const made = await call('POST', '/v1/keys', {
        body: { name, scopes, ...(games ? { games } : {}) },
      });
      if (made.status !== 201) throw new Error(`POST /v1/keys: ${made.status} ${JSON.stringify(made.body)}`);
      return made.body;
    },
    publisherKey: async (publisherId) => {
      if (running.here) {
        const { createApiKey } = await import('../../../lib/domain/api-keys');
        return (await createApiKey(publisherId, 'default', {})).api_key;
      }
      const made = await runTs(
        'infra/keys-cli.ts',
        ['create', '--publisher', publisherId, '--json'],
        childEnv({ DATA_DIR: dataDir }),
      );
      if (made.code !== 0) throw new Error(`npm run keys -- create: ${made.code} ${made.stderr}`);
      return JSON.parse(made.stdout).api_key;
    },
    setClockOffset: (offsetMs) => running.setClockOffset(offsetMs),
    // Once: a file may stop its first server early (so that a server of other settings after it
    // runs in this process, not as `npm start` in a child), and its afterAll stops it again.
    stop: () => {
      stopped ??= running.stop().then(() => rmSync(dataDir, { recursive: true, force: true }));
      return stopped;
    },
  };
};
