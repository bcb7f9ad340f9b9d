import type { paths } from '../client/src/api-types';
import { type Exchanged, exchange, type HttpRequest } from '../client/src/transport';

/**
 * The console's one way to the API: typed calls whose paths, parameters, bodies and answers all
 * come from the generated `paths` (client/src/api-types.ts, shared with the client package), never
 * from shapes written here, sent through the client package's transport. It never throws on an
 * HTTP status: every answer is `{ ok, status, body, retryAfter }`, narrowed by
 * `status`; a request that got no usable answer (network down, not JSON) is a `Failure`.
 */

export type Method = 'get' | 'put' | 'post' | 'delete';
type Op<P extends keyof paths, M extends Method> = paths[P] extends Record<M, infer O> ? O : never;
export type PathWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends Record<M, unknown> ? P : never;
}[keyof paths];
type Params<O> = O extends { parameters: infer X } ? X : object;
type Json<C> = [C] extends [never] ? null : C extends { 'application/json': infer B } ? B : null;

/** What a call takes: path parameters, query, body and the game header, when the operation has them. */
export type Init<O> = (Params<O> extends { path: infer X } ? { path: X } : { path?: never }) &
  (Params<O> extends { query?: infer X } ? { query?: X } : { query?: never }) &
  (Params<O> extends { header: { 'X-Game-Id': string } } ? { game: string } : { game?: never }) &
  (O extends { requestBody: { content: { 'application/json': infer B } } } ? { body: B } : { body?: never });

/** One variant per status the operation documents, `ok` true on 2xx. */
export type Answer<O> = O extends { responses: infer R }
  ? {
      [S in keyof R & number]: R[S] extends { content: infer C }
        ? {
            ok: `${S}` extends `2${string}` ? true : false;
            status: S;
            body: Json<C>;
            retryAfter: number | null;
          }
        : never;
    }[keyof R & number]
  : never;

/** No usable answer: the network failed, or the answer was not the API's (status 0 either way). */
export type Failure = {
  ok: false;
  status: 0;
  kind: 'network' | 'bad_answer';
  httpStatus: number | null;
  message: string;
  body: null;
  retryAfter: null;
};

export type Call = <M extends Method, P extends PathWith<M>>(
  method: M,
  path: P,
  init: Init<Op<P, M>>,
) => Promise<Answer<Op<P, M>> | Failure>;

/**
 * `bearer` is an API key, or (for a person) a function returning the current access token, which
 * the console renews in place. Each call is one request through the client package's transport
 * (client/src/transport.ts `exchange`, the one fetch of both): never retried there, since the
 * console offers its own Retry after the answer's Retry-After. Its answer is read here: an empty
 * query value is left out, as an empty form field means no filter.
 */
export const createClient = (
  bearer: string | (() => string),
  base = '',
  fetchImpl: typeof fetch = fetch,
): Call =>
  (async (
    method: Method,
    path: string,
    init: { path?: object; query?: object; game?: string; body?: unknown },
  ) => {
    const url = path.replace(/\{(\w+)\}/g, (_, name: string) =>
      encodeURIComponent(String((init.path as Record<string, unknown>)[name])),
    );
    const query = Object.fromEntries(Object.entries(init.query ?? {}).filter(([, value]) => value !== ''));
    const failure = (kind: Failure['kind'], httpStatus: number | null, message: string): Failure => ({
      ok: false,
      status: 0,
      kind,
      httpStatus,
      message,
      body: null,
      retryAfter: null,
    });
    let res: Exchanged;
    try {
      res = await exchange(
        {
          baseUrl: base,
          apiKey: typeof bearer === 'string' ? bearer : bearer(),
          // Called bare: a browser's fetch refuses to be called as another object's method.
          fetch: (input, request) => fetchImpl(input, request),
        },
        {
          method: method.toUpperCase() as HttpRequest['method'],
          path: url,
          query,
          game: init.game,
          body: init.body,
        },
      );
    } catch (error) {
      return failure('network', null, error instanceof Error ? error.message : String(error));
    }
    let body: unknown = null;
    try {
      if (res.text !== '') body = JSON.parse(res.text);
    } catch {
      return failure('bad_answer', res.status, `HTTP ${res.status} with a body that is not JSON`);
    }
    if (body === null && res.status !== 204)
      return failure('bad_answer', res.status, `HTTP ${res.status} without a body`);
    const retry = Number(res.headers.get('Retry-After'));
    return {
      ok: res.ok,
      status: res.status,
      body,
      retryAfter: res.headers.has('Retry-After') && Number.isFinite(retry) ? retry : null,
    };
  }) as Call;
