/**
 * What the tools' command lines share (`npm run keys`, `import`, `export`): a refusal is the
 * answer's message, never a throw past the parser, and the API a tool calls and its key are found
 * the same way in each.
 */

export type CommandParse<T> = { ok: true; run: T } | { ok: false; message: string };

class UsageError extends Error {}

/** Refuses the command line, with what to say. */
export const refuse = (message: string): never => {
  throw new UsageError(message);
};

/**
 * Reads a command line with `commandOf`: its refusals and parseArgs' own (an unknown flag, a
 * missing value) are the answer's message; anything else is a bug, and thrown. Never exits.
 */
export const parseCommand = <T>(commandOf: () => T): CommandParse<T> => {
  try {
    return { ok: true, run: commandOf() };
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      return { ok: false, message: (error as Error).message };
    throw error;
  }
};

/**
 * The API a tool calls and the key it calls with: `--url`, else the `npm start` serving DATA_DIR,
 * else http://localhost:3000; `--key`, else BAN_API_KEY (refused without either).
 */
export const apiTarget = (
  flags: { key?: string | undefined; url?: string | undefined },
  env: NodeJS.ProcessEnv,
  localUrl: string | undefined,
): { key: string; url: string } => {
  const key = flags.key ?? (env.BAN_API_KEY || undefined);
  if (key === undefined) return refuse('an API key is needed: --key or BAN_API_KEY');
  const url = flags.url ?? localUrl ?? 'http://localhost:3000';
  try {
    new URL(url);
  } catch {
    refuse(`--url ${url} is not a URL`);
  }
  return { key, url };
};
