import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** The bench's child processes (stores, APIs, helpers), each a TypeScript entry run with tsx. */

/** Resolves when the child's stdout matches; keeps reading it afterwards so the child never hits a closed pipe. */
export const waitForLine = (child: ChildProcess, pattern: RegExp) =>
  new Promise<{ match: RegExpExecArray; out: string }>((done, fail) => {
    let out = '';
    let found = false;
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const match = found ? null : pattern.exec(out);
      if (match) {
        found = true;
        done({ match, out });
      }
    });
    child.once('exit', (code) => {
      if (!found) fail(new Error(`process exited (${code}) before printing ${pattern}: ${out}`));
    });
  });

/** Runs `args` (an entry and its arguments) with tsx, silent logs, stdout piped to waitForLine. */
export const startChild = (args: readonly string[], env: NodeJS.ProcessEnv) =>
  spawn(process.execPath, ['--import', 'tsx', ...args], {
    env: {
      ...process.env,
      LOG_LEVEL: 'silent',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });

export const stopChild = async (child: ChildProcess) => {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
};

/**
 * One part of the bench (an exported measure function of a bench module) run in a fresh process,
 * so each part binds the store it starts (bench/part.ts), and whatever a part leaves running ends
 * with its process. Resolves to the function's figures.
 */
export const runPart = async <T>(module: string, name: string, args: readonly unknown[] = []): Promise<T> => {
  const child = startChild(['bench/part.ts', module, name, JSON.stringify(args)], {});
  try {
    const { match } = await waitForLine(child, /^bench-part-figures (.*)\n/m);
    return JSON.parse(match[1] ?? 'null') as T;
  } finally {
    await stopChild(child);
  }
};
