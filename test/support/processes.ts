import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** Environment for a child process that must choose its own store (nothing inherited from vitest). */
export const childEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const { TABLE_NAME: _t, DYNAMODB_ENDPOINT: _d, DATA_DIR: _dd, PORT: _p, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'silent', ...extra };
};

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript entry point with tsx and collects its output. */
export const runTs = async (entry: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> => {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
};

/**
 * Starts a long-running TypeScript entry point and waits until its stdout matches `ready` and ends
 * a line: the banner's lines are each written whole (a pipe's writes are synchronous on Linux), so
 * the output is then the banner up to that line, and no timer decides when it has all arrived.
 */
export const startTs = async (entry: string, env: NodeJS.ProcessEnv, ready: RegExp) => {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', entry], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`not ready in time:\n${stdout}\n${stderr}`)), 30_000);
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      if (ready.test(stdout) && stdout.endsWith('\n')) {
        clearTimeout(timer);
        done();
      }
    });
    child.once('exit', (code) => fail(new Error(`exited with ${code}:\n${stdout}\n${stderr}`)));
  });
  return {
    child,
    output: () => stdout,
    errors: () => stderr,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
};
