/**
 * One JSON line per event, to stdout (stderr for warnings and errors): CloudWatch in Lambda.
 * Callers pass only the fields they choose: never headers, bodies or keys, so a secret cannot
 * reach a log by accident.
 *
 * In Lambda's JSON log format a line that is a JSON object with `level` and `timestamp` is kept as
 * it is and filtered by the function's application log level. The same threshold applies here,
 * from the bound settings (lib/config.ts): `LOG_LEVEL` (ours; `silent` turns logging off, as the
 * tests do) or else `AWS_LAMBDA_LOG_LEVEL` (what Lambda sets from the function's configuration),
 * default `info`.
 */
import { settings } from './config';

const LEVELS = { trace: 0, debug: 1, info: 2, warn: 3, error: 4, fatal: 5 } as const;
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const threshold = (): number => {
  let setting: string;
  try {
    setting = settings().logLevel;
  } catch {
    // Settings that do not parse still let their error be logged.
    setting = 'info';
  }
  if (setting === 'silent') return Number.POSITIVE_INFINITY;
  return LEVELS[setting as keyof typeof LEVELS] ?? LEVELS.info;
};

export const log = (level: LogLevel, message: string, fields: Record<string, unknown> = {}) => {
  if (LEVELS[level] < threshold()) return;
  const line = JSON.stringify({ timestamp: new Date().toISOString(), level, message, ...fields });
  const stream = level === 'warn' || level === 'error' ? process.stderr : process.stdout;
  stream.write(`${line}\n`);
};

export const describeError = (error: unknown) =>
  error instanceof Error
    ? { error_name: error.name, error_message: error.message, stack: error.stack }
    : { error: String(error) };

/**
 * The line the authorizer writes when it cannot read keys (storage failing), not when it refuses
 * one. The stack's alarm counts exactly this message (infra/stack/alarms.ts), so it lives here,
 * in a module the stack can load without the runtime's storage client.
 */
export const AUTHORIZER_FAILURE_MESSAGE = 'authorizer: storage unavailable';

/**
 * The webhook sender's lines the stack counts (infra/stack/alarms.ts): one per delivery attempt a
 * receiver refused or could not be reached for (an ordinary retry follows), and one per queue
 * message the sender itself failed on (storage or the queue failing, a bug: SQS hands the message
 * on again and, after five receipts, to the dead-letter queue).
 */
export const DELIVERY_ATTEMPT_FAILED_MESSAGE = 'webhook delivery: attempt failed';
export const SENDER_FAILURE_MESSAGE = 'webhook sender failed';

/** The export job runner's line for a run that failed (the message is handed on, or the job marked failed). */
export const EXPORT_JOB_FAILURE_MESSAGE = 'export job run failed';
