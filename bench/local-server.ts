import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * `npm start`'s server (infra/local/main.ts) as a child process of a tree (this one, or another
 * checkout to measure a "before"), on a fresh store, and the development key it prints: the local
 * API the console benchmarks drive in Chromium.
 */
export interface LocalServer {
  url: string;
  key: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

const KEY = /bsk_[A-Za-z0-9_-]{43}/;
const LISTENING = /listening on (http:\/\/[\d.:]+)/;

export const startLocalServer = async ({
  cwd = process.cwd(),
  env = {},
  readyMs = 60_000,
}: {
  cwd?: string;
  /** Over the defaults: a store in memory, any free port, no logs. */
  env?: NodeJS.ProcessEnv;
  readyMs?: number;
} = {}): Promise<LocalServer> => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    cwd,
    env: {
      ...process.env,
      LOG_LEVEL: 'silent',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      DYNAMODB_ENDPOINT: '',
      TABLE_NAME: '',
      DATA_DIR: ':memory:',
      PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr?.on('data', (chunk) => {
    out += chunk;
  });
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`npm start printed no key in ${readyMs} ms:\n${out}`)),
      readyMs,
    );
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      if (LISTENING.test(out) && KEY.test(out)) {
        clearTimeout(timer);
        done();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`npm start exited (${code}):\n${out}`));
    });
  });
  return {
    url: (LISTENING.exec(out) as RegExpExecArray)[1] as string,
    key: (KEY.exec(out) as RegExpExecArray)[0],
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
};
