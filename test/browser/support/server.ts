import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv, startTs } from '../../support/processes';

/**
 * `npm start` as the console's tests meet it: `infra/local/main.ts` in a child process, on a
 * fresh store in a temporary DATA_DIR and a free port, with webhook retries shortened
 * (WEBHOOK_RETRY_BASE_MS=50). The tests ask the API itself, over fetch, what was stored.
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
  /** Everything the server printed. */
  output(): string;
  stop(): Promise<void>;
}

export const DEV_PUBLISHER = 'dev-publisher';

export const startServer = async (extraEnv: Record<string, string> = {}): Promise<LocalServer> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'console-'));
  let process_: Awaited<ReturnType<typeof startTs>>;
  try {
    process_ = await startTs(
      'infra/local/main.ts',
      childEnv({ DATA_DIR: dataDir, PORT: '0', WEBHOOK_RETRY_BASE_MS: '50', ...extraEnv }),
      /listening on http:\/\/127\.0\.0\.1:\d+[\s\S]*(curl|already has a key)[\s\S]*(Add more with|list them with)/,
    );
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const server = process_;
  const printed = server.output();
  const url = (/listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed) as RegExpExecArray)[1] as string;
  const devKey = (/bsk_[A-Za-z0-9_-]{43}/.exec(printed) as RegExpExecArray)[0];
  const person = (role: string) => {
    const [, email = '', password = ''] =
      new RegExp(`^ +${role} +(\\S+@\\S+) +(\\S+)$`, 'm').exec(printed) ?? [];
    return { email, password };
  };
  const people = { viewer: person('viewer'), moderator: person('moderator'), admin: person('admin') };

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
    output: server.output,
    stop: async () => {
      await server.stop('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};
