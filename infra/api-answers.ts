/** How the tools that call the API (`npm run import`, `npm run export`) read what it answered. */

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** An answer that is not a success, in one line: the error envelope's code and message, else its text. */
export const describeAnswer = (status: number, body: string) => {
  try {
    const error = (JSON.parse(body) as { error?: { code?: string; message?: string } }).error;
    if (error) return `${status} ${error.code}: ${error.message}`;
  } catch {
    // not the error shape: the text as it is
  }
  return `${status} ${body.slice(0, 200)}`;
};

/** A request that got no answer at all (refused, reset, timed out), in one line. */
export const describeNoAnswer = (target: string, error: unknown) =>
  `no answer from ${target}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`;

/** `Retry-After` (seconds) as milliseconds, at most a minute; undefined when absent or not a number. */
export const retryAfterMs = (header: string | null) => {
  const seconds = header === null ? Number.NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 60_000) : undefined;
};
