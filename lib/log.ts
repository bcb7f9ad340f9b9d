/**
 * One JSON line per event, to stdout (CloudWatch in Lambda). Callers pass only the fields they
 * choose: never headers, bodies or keys, so a secret cannot reach a log by accident.
 */
export const log = (
  level: 'info' | 'warn' | 'error',
  message: string,
  fields: Record<string, unknown> = {},
) => {
  if (process.env.LOG_LEVEL === 'silent') return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...fields });
  if (level === 'error') console.error(line);
  else console.log(line);
};

export const describeError = (error: unknown) =>
  error instanceof Error
    ? { error_name: error.name, error_message: error.message, stack: error.stack }
    : { error: String(error) };
