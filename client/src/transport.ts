import { ApiError, errorFromAnswer } from './errors.js';
import { type Backoff, pause, retryableStatus, retryDelay } from './retry.js';

/** Settings of every call of one client (see ClientOptions in ./client.ts for their meaning). */
export interface TransportSettings extends Backoff {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  deadlineMs: number;
  retries: number;
  random: () => number;
}

/** What one call may add: the caller's AbortSignal, and its own deadline or retry budget. */
export interface CallOptions {
  /** Aborting it stops the call at once, in flight or between attempts: the call rejects with its reason. */
  signal?: AbortSignal;
  /** The call's total time, every attempt and wait included (ms); the client's `deadlineMs` if absent. */
  deadlineMs?: number;
  /** At most this many retries of a call that may be retried (0: one attempt only); the client's `retries` if absent. */
  retries?: number;
}

export interface HttpRequest {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** The path, its parameters filled in and encoded. */
  path: string;
  query?: object | undefined;
  /** Sent as X-Game-Id. */
  game?: string | undefined;
  body?: unknown;
  /** Whether a repeat is safe (./retry.ts): only then are 429, 503 and network errors retried. */
  retry: boolean;
}

const queryString = (query: object | undefined): string => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {}))
    if (value !== undefined && value !== null) params.set(name, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
};

/** The settings one request needs: where, with which key, through which fetch. */
export type ExchangeSettings = Pick<TransportSettings, 'baseUrl' | 'apiKey' | 'fetch'>;

/** One answer as it came: its status and headers, and its body as text. */
export interface Exchanged {
  status: number;
  ok: boolean;
  headers: Headers;
  text: string;
}

/**
 * One request and its whole answer: the one place the package calls fetch. `send` makes each
 * attempt of a call through it; the console (console/client.ts) sends through it too, one attempt
 * each (no retries: the console offers its own Retry, after the answer's Retry-After), reading
 * the answer its own way. Cookies are never sent (the key is the only credential). Throws what
 * fetch or reading the body throws.
 */
export const exchange = async (
  settings: ExchangeSettings,
  req: Omit<HttpRequest, 'retry'>,
  signal?: AbortSignal,
): Promise<Exchanged> => {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${settings.apiKey}`,
    Accept: 'application/json',
  };
  if (req.game !== undefined) headers['X-Game-Id'] = req.game;
  if (req.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await settings.fetch(`${settings.baseUrl}${req.path}${queryString(req.query)}`, {
    method: req.method,
    headers,
    body: req.body === undefined ? undefined : JSON.stringify(req.body),
    credentials: 'omit',
    ...(signal ? { signal } : {}),
  });
  return { status: res.status, ok: res.ok, headers: res.headers, text: await res.text() };
};

/** UTF-8 bytes of `text`: Node's native count, or (in a browser, which has no Buffer) TextEncoder's. */
const byteLength = (text: string): number =>
  typeof Buffer === 'function' ? Buffer.byteLength(text) : new TextEncoder().encode(text).byteLength;

const DEADLINE = Symbol('deadline');

/** The size of each answer's body, by the JSON parsed from it (see responseBytes). */
const sizes = new WeakMap<object, number>();

/**
 * How many bytes the body of the answer `body` was parsed from had, as decoded (after any
 * compression): undefined for a value this transport did not parse. Taken from the text already
 * read, so it costs one native pass over it; the mirror counts what it reads with it.
 */
export const responseBytes = (body: unknown): number | undefined =>
  typeof body === 'object' && body !== null ? sizes.get(body) : undefined;

/**
 * Sends one call: the attempts, the waits between them, the deadline and the caller's signal. It
 * resolves with the answer's JSON (undefined for a 204) or rejects with an ApiError; an abort by
 * the caller rejects with the signal's reason, as fetch does.
 */
export const send = async (settings: TransportSettings, req: HttpRequest, options: CallOptions = {}) => {
  const { signal } = options;
  signal?.throwIfAborted();
  const deadlineMs = options.deadlineMs ?? settings.deadlineMs;
  const retries = req.retry ? (options.retries ?? settings.retries) : 0;
  const deadline = Date.now() + deadlineMs;

  // One controller stops whatever is under way: the caller's abort, or the deadline.
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop.abort(DEADLINE), deadlineMs);
  let last: ApiError | undefined;
  const stopped = (cause: unknown, attempts: number): unknown => {
    if (signal?.aborted) return signal.reason;
    if (stop.signal.reason === DEADLINE)
      return new ApiError(
        {
          status: 0,
          code: 'timeout',
          message: `No answer within the call's deadline of ${deadlineMs} ms (${attempts} attempt${attempts === 1 ? '' : 's'})`,
          request_id: last?.request_id ?? null,
          attempts,
        },
        { cause: last ?? cause },
      );
    return undefined;
  };
  try {
    for (let attempt = 1; ; attempt++) {
      let error: ApiError;
      try {
        const res = await exchange(settings, req, stop.signal);
        const { text } = res;
        if (res.ok) {
          if (text === '') return undefined;
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch (cause) {
            throw new ApiError(
              {
                status: res.status,
                code: 'invalid_response',
                message: `HTTP ${res.status} with a body that is not JSON`,
                request_id: res.headers.get('x-request-id'),
                attempts: attempt,
              },
              { cause },
            );
          }
          if (typeof parsed === 'object' && parsed !== null) sizes.set(parsed, byteLength(text));
          return parsed;
        }
        error = errorFromAnswer(res.status, res.headers, text, attempt);
      } catch (cause) {
        if (cause instanceof ApiError) throw cause;
        const reason = stopped(cause, attempt);
        if (reason !== undefined) throw reason;
        error = new ApiError(
          {
            status: 0,
            code: 'network_error',
            message: `No answer from ${settings.baseUrl}: ${cause instanceof Error ? cause.message : String(cause)}`,
            attempts: attempt,
          },
          { cause },
        );
      }
      last = error;
      if (attempt > retries || !(error.status === 0 || retryableStatus(error.status))) throw error;
      const wait = retryDelay(attempt - 1, settings, error.retry_after, settings.random);
      // A wait that would end past the deadline is not worth starting: the last answer is the error.
      if (Date.now() + wait >= deadline) throw error;
      const waited = await pause(wait, stop.signal);
      if (!waited) throw signal?.aborted ? signal.reason : error;
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
};
