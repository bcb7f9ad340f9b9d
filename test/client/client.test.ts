import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  type BanClient,
  type ClientOptions,
  createBanClient,
  type KeyedOperationId,
  operationTable,
  retryRules,
} from '../../client/src/index';
import { routes } from '../../lib/routes';

/**
 * The client against a fake fetch: which routes it calls and how, when it retries and when it
 * must not, how long it waits, when it stops, the error it throws and how the iterators page.
 * (test/client/api.test.ts runs it against the real local API.)
 */

interface Sent {
  url: URL;
  method: string;
  headers: Headers;
  body: any;
}

type Answer = Response | Error | 'hang';

/** A fetch that records each request and answers from the list in order (the last one repeats). */
const fakeFetch = (...answers: Answer[]) => {
  const sent: Sent[] = [];
  const impl = async (input: string | URL | Request, init: RequestInit = {}) => {
    sent.push({
      url: new URL(String(input)),
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    const answer = answers[Math.min(sent.length - 1, answers.length - 1)];
    if (answer === 'hang')
      return new Promise<Response>((_, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
      });
    if (answer instanceof Error) throw answer;
    return (answer as Response).clone();
  };
  return { fetch: impl as typeof fetch, sent };
};

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': `req-${status}`, ...headers },
  });

const envelope = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { error: { code, message: `${code} happened` }, request_id: `env-${status}` }, headers);

const unavailable = (headers: Record<string, string> = {}) => envelope(503, 'service_unavailable', headers);
const limited = (headers: Record<string, string> = {}) => envelope(429, 'rate_limited', headers);
const networkError = () => new TypeError('fetch failed');

const client = (fetchImpl: typeof fetch, options: Partial<ClientOptions> = {}) =>
  createBanClient({
    baseUrl: 'https://api.example.test/prod/',
    apiKey: 'bsk_test',
    fetch: fetchImpl,
    baseDelayMs: 1,
    maxDelayMs: 5,
    ...options,
  });

const failure = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
};

afterEach(() => vi.useRealTimers());

/** One call of each method, with arguments whose path parameters are recognisable. */
const sampleCalls: Record<KeyedOperationId, (c: BanClient) => Promise<unknown>> = {
  getPolicy: (c) => c.getPolicy(),
  createPlayerLink: (c) => c.createPlayerLink('g-1', { device_id: 'd-1', appeal: true }),
  updatePolicy: (c) => c.updatePolicy({ enforce_game: true }),
  previewPolicy: (c) => c.previewPolicy('g-1', { enforce_game: false }),
  getReasons: (c) => c.getReasons(),
  putReasons: (c) => c.putReasons({ reasons: [], strict_reasons: false }),
  getDeviceFormats: (c) => c.getDeviceFormats(),
  putDeviceFormats: (c) => c.putDeviceFormats({ formats: [{ platform: 'steam', prefix: 'steam:' }] }),
  putPublisher: (c) => c.putPublisher({ display_name: 'Northwind Games' }),
  listPublishers: (c) => c.listPublishers({ limit: 10 }),
  createBan: (c) =>
    c.createBan('g-1', { device_id: 'd-1', ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' }),
  importBans: (c) =>
    c.importBans('g-1', {
      batch_id: 'b-1',
      rows: [
        {
          external_id: 'x-1',
          device_id: 'd-1',
          ban_type: 'cheat',
          scope: 'game',
          reason_code: 'aimbot',
          created_at: '2020-01-01T00:00:00Z',
        },
      ],
    }),
  listSocialBans: (c) => c.listSocialBans('g-1', 'd-1', { status: 'all' }),
  listCheatBans: (c) => c.listCheatBans('g-1', 'd-1'),
  listBans: (c) => c.listBans('g-1', 'd-1', { type: 'social' }),
  revokeBan: (c) => c.revokeBan('g-1', 'd-1', 42, { reason_code: 'appeal_upheld' }),
  getEnforcement: (c) => c.getEnforcement('g-1', 'd-1'),
  getEnforcementBatch: (c) => c.getEnforcementBatch('g-1', { device_ids: ['d-1', 'd-2'] }),
  getEnforcementSnapshot: (c) => c.getEnforcementSnapshot('g-1', { limit: 100 }),
  createKey: (c) => c.createKey({ name: 'servers', scopes: ['bans:read'] }),
  listKeys: (c) => c.listKeys({ limit: 10 }),
  revokeKey: (c) => c.revokeKey('key_1'),
  listPeople: (c) => c.listPeople(),
  invitePerson: (c) => c.invitePerson({ email: 'sam@example.com', role: 'moderator' }),
  updatePerson: (c) => c.updatePerson('person_1', { enabled: false }),
  listAudit: (c) => c.listAudit({ type: 'ban.created' }),
  listDsaStatements: (c) => c.listDsaStatements({ from: '2026-03-01T00:00:00Z' }),
  eraseDevice: (c) => c.eraseDevice('d-1'),
  listDevices: (c) => c.listDevices({ prefix: 'd-' }),
  listGames: (c) => c.listGames(),
  listExpiringBans: (c) => c.listExpiringBans({ within_hours: 24 }),
  listEvents: (c) => c.listEvents('g-1', { limit: 5 }),
  createWebhook: (c) => c.createWebhook({ url: 'https://hooks.example.test/bans' }),
  listWebhooks: (c) => c.listWebhooks(),
  deleteWebhook: (c) => c.deleteWebhook('wh_1'),
  listWebhookDeliveries: (c) => c.listWebhookDeliveries('wh_1', { status: 'failed' }),
  testWebhook: (c) => c.testWebhook('wh_1'),
  createAppeal: (c) => c.createAppeal('g-1', { device_id: 'd-1', ban_id: 42, message: 'not me' }),
  listAppeals: (c) => c.listAppeals({ status: 'open' }),
  appealStats: (c) => c.appealStats(),
  getAppeal: (c) => c.getAppeal('apl_1'),
  decideAppeal: (c) => c.decideAppeal('apl_1', { outcome: 'upheld' }),
  claimAppeal: (c) => c.claimAppeal('apl_1', { duration_seconds: 600 }),
  releaseAppealClaim: (c) => c.releaseAppealClaim('apl_1'),
  transparencyReport: (c) => c.transparencyReport({ from: '2026-03-01', to: '2026-03-31' }),
  exportData: (c) => c.exportData('bans', { limit: 100 }),
  deviceData: (c) => c.deviceData('d-1'),
  startExportJob: (c) => c.startExportJob({ kinds: ['bans'] }),
  getExportJob: (c) => c.getExportJob('exp_Qm3vX8pLr2Tz4KwB9sC1aE'),
};
const pathValues: Record<string, string> = {
  device_id: 'd-1',
  ban_id: '42',
  key_id: 'key_1',
  person_id: 'person_1',
  webhook_id: 'wh_1',
  appeal_id: 'apl_1',
  kind: 'bans',
  export_id: 'exp_Qm3vX8pLr2Tz4KwB9sC1aE',
};

describe('every route of lib/routes.ts', () => {
  const keyed = routes.filter((route) => route.auth);

  it('that takes a key is a method of the client, named by its route id', () => {
    const c = client(fakeFetch(json(200, {})).fetch);
    const missing = keyed.filter(
      (route) => typeof (c as unknown as Record<string, unknown>)[route.id] !== 'function',
    );
    expect(missing.map((route) => route.id)).toEqual([]);
    // Left out on purpose: the public routes (no key, nothing a game server needs from this client),
    // and the player's page's, which take the player's link, never a key.
    expect(routes.filter((route) => !route.auth).map((route) => route.id)).toEqual([
      'health',
      'getPlayerPage',
      'filePlayerAppeal',
      'openapi',
    ]);
    // And the client calls no operation the route table does not have.
    expect(Object.keys(operationTable).sort()).toEqual(routes.map((route) => route.id).sort());
    expect(Object.keys(retryRules).sort()).toEqual(routes.map((route) => route.id).sort());
  });

  it("is the generated method table's row: method, path, path parameters, game header and retry rule", () => {
    for (const route of routes) {
      expect(operationTable[route.id], route.id).toEqual({
        method: route.method,
        path: route.path,
        pathParams: [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
        game: 'game' in route.request && route.request.game === true,
        retry: route.retry,
      });
      expect(retryRules[route.id]).toBe(route.retry);
    }
  });

  it.each(keyed.map((route) => [route.id, route] as const))(
    '%s sends its method to its path, with X-Game-Id exactly when the route takes one',
    async (id, route) => {
      const { fetch, sent } = fakeFetch(route.method === 'DELETE' ? json(204, null) : json(200, {}));
      const call = sampleCalls[id as KeyedOperationId];
      expect(call, `no sample call for ${id}`).toBeDefined();
      await call(client(fetch));
      expect(sent).toHaveLength(1);
      const [request] = sent as [Sent];
      expect(request.method).toBe(route.method);
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => pathValues[name] ?? `?${name}`);
      expect(request.url.pathname).toBe(`/prod${path}`);
      expect(request.headers.get('authorization')).toBe('Bearer bsk_test');
      expect(request.headers.get('x-game-id')).toBe('game' in route.request ? 'g-1' : null);
      const hasBody = 'body' in route.request;
      expect(request.headers.get('content-type')).toBe(hasBody ? 'application/json' : null);
      expect(request.body !== undefined).toBe(hasBody);
    },
  );

  it('puts query objects in the query string and encodes path parameters', async () => {
    const { fetch, sent } = fakeFetch(json(200, {}));
    const c = client(fetch);
    await c.listBans('g-1', 'dev:1@x+y=z/..', { status: 'all', limit: 5, type: undefined });
    const [request] = sent as [Sent];
    expect(request.url.pathname).toBe('/prod/v1/device/dev%3A1%40x%2By%3Dz%2F../bans');
    expect([...request.url.searchParams]).toEqual([
      ['status', 'all'],
      ['limit', '5'],
    ]);
  });
});

describe('the language of an enforcement answer', () => {
  it('sends options.locale as the locale parameter of the enforcement calls, and nothing without it', async () => {
    const { fetch, sent } = fakeFetch(json(200, {}), json(200, {}), json(200, {}));
    const c = client(fetch);
    await c.getEnforcement('g-1', 'd-1', { locale: 'de-AT' });
    await c.getEnforcementBatch('g-1', { device_ids: ['d-1'] }, { locale: 'pt-BR' });
    await c.getEnforcement('g-1', 'd-1');
    expect(sent.map((s) => [...s.url.searchParams])).toEqual([
      [['locale', 'de-AT']],
      [['locale', 'pt-BR']],
      [],
    ]);
  });
});

describe('retries', () => {
  it('retries a read after 503, 429 and a network error, then answers', async () => {
    const { fetch, sent } = fakeFetch(unavailable(), limited(), networkError(), json(200, { ok: 1 }));
    await expect(client(fetch).getEnforcement('g-1', 'd-1')).resolves.toEqual({ ok: 1 });
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map((s) => s.url.href)).size).toBe(1);
  });

  it('retries the enforcement batch, a POST that only reads', async () => {
    const { fetch, sent } = fakeFetch(unavailable(), json(200, { results: [] }));
    await client(fetch).getEnforcementBatch('g-1', { device_ids: ['d-1'] });
    expect(sent).toHaveLength(2);
    expect(sent[1]?.body).toEqual({ device_ids: ['d-1'] });
  });

  it.each([
    'importBans',
    'revokeBan',
    'revokeKey',
    'eraseDevice',
    'decideAppeal',
    'claimAppeal',
    'releaseAppealClaim',
  ] as const)('retries %s, whose repeat the API answers unchanged', async (id) => {
    const { fetch, sent } = fakeFetch(unavailable(), networkError(), json(200, {}));
    await sampleCalls[id](client(fetch));
    expect(sent).toHaveLength(3);
    expect(sent[2]?.body).toEqual(sent[0]?.body);
  });

  it.each([
    'updatePolicy',
    'putReasons',
    'putDeviceFormats',
    'putPublisher',
    'createKey',
    'createWebhook',
    'deleteWebhook',
    'testWebhook',
    'createPlayerLink',
    'startExportJob',
  ] as const)('never retries %s, whose repeat would be a second change', async (id) => {
    for (const answer of [unavailable(), limited(), networkError()]) {
      const { fetch, sent } = fakeFetch(answer, json(200, {}));
      const error = await failure(sampleCalls[id](client(fetch)));
      expect(sent).toHaveLength(1);
      expect(error.attempts).toBe(1);
      expect(error.status).toBe(answer instanceof Error ? 0 : answer.status);
    }
  });

  it('never retries another 4xx or a 500, even on a read', async () => {
    for (const [status, code] of [
      [400, 'invalid_request'],
      [401, 'unauthorized'],
      [403, 'forbidden'],
      [404, 'not_found'],
      [409, 'conflict'],
      [500, 'internal_error'],
    ] as const) {
      const { fetch, sent } = fakeFetch(envelope(status, code), json(200, {}));
      const error = await failure(client(fetch).getPolicy());
      expect([error.status, error.code, sent.length]).toEqual([status, code, 1]);
    }
  });

  it('gives up after `retries` retries with the last answer as the error', async () => {
    const { fetch, sent } = fakeFetch(limited(), limited(), unavailable());
    const error = await failure(client(fetch, { retries: 2 }).getPolicy());
    expect(sent).toHaveLength(3);
    expect([error.status, error.code, error.request_id, error.attempts]).toEqual([
      503,
      'service_unavailable',
      'env-503',
      3,
    ]);
  });

  it('turns network failures after its retries into ApiError status 0, network_error, with the cause', async () => {
    const { fetch, sent } = fakeFetch(networkError());
    const error = await failure(client(fetch, { retries: 3 }).listEvents('g-1'));
    expect(sent).toHaveLength(4);
    expect([error.status, error.code, error.request_id]).toEqual([0, 'network_error', null]);
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(error.message).toContain('fetch failed');
  });

  it('draws each wait from [0, base * 2^n) capped at maxDelayMs (full jitter)', async () => {
    vi.useFakeTimers();
    const { fetch, sent } = fakeFetch(
      unavailable(),
      unavailable(),
      unavailable(),
      unavailable(),
      json(200, {}),
    );
    // random() just under 1: the longest wait of each range: 100, 200, 400, then 500 (the cap).
    const c = client(fetch, { baseDelayMs: 100, maxDelayMs: 500, random: () => 0.999999 });
    const done = c.getPolicy();
    const callsAt = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
      return sent.length;
    };
    expect(await callsAt(0)).toBe(1);
    expect([await callsAt(98), await callsAt(1)]).toEqual([1, 2]);
    expect([await callsAt(198), await callsAt(1)]).toEqual([2, 3]);
    expect([await callsAt(398), await callsAt(1)]).toEqual([3, 4]);
    expect([await callsAt(498), await callsAt(1)]).toEqual([4, 5]);
    await expect(done).resolves.toEqual({});
  });

  it('waits as long as Retry-After says (seconds), not the shorter jitter', async () => {
    vi.useFakeTimers();
    const { fetch, sent } = fakeFetch(limited({ 'Retry-After': '2' }), json(200, { ok: true }));
    const done = client(fetch, { baseDelayMs: 10 }).getEnforcement('g-1', 'd-1');
    await vi.advanceTimersByTimeAsync(1_999);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toHaveLength(2);
    await expect(done).resolves.toEqual({ ok: true });
  });

  it('does not start a wait that would end past the deadline: the answer that asked for it is the error', async () => {
    vi.useFakeTimers();
    const { fetch, sent } = fakeFetch(unavailable({ 'Retry-After': '30' }), json(200, {}));
    const error = await failure(client(fetch, { deadlineMs: 10_000 }).getPolicy());
    expect(sent).toHaveLength(1);
    expect([error.status, error.retry_after]).toEqual([503, 30]);
  });

  it('stops retrying at the total deadline, however many retries are left', async () => {
    vi.useFakeTimers();
    const { fetch, sent } = fakeFetch(unavailable());
    const c = client(fetch, {
      deadlineMs: 1_000,
      retries: 1_000,
      baseDelayMs: 100,
      maxDelayMs: 100,
      random: () => 0.5,
    });
    const done = failure(c.getPolicy());
    await vi.advanceTimersByTimeAsync(5_000);
    const error = await done;
    // Attempts at 0, 50, 100, ... 950: the wait after the one at 950 would end at the deadline.
    expect(sent).toHaveLength(20);
    expect([error.status, error.attempts]).toEqual([503, 20]);
  });

  it('gives up a request still in flight at the deadline: status 0, timeout', async () => {
    vi.useFakeTimers();
    const { fetch, sent } = fakeFetch(unavailable(), 'hang');
    const done = failure(client(fetch, { random: () => 0 }).getPolicy({ deadlineMs: 3_000 }));
    await vi.advanceTimersByTimeAsync(2_999);
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    const error = await done;
    expect([error.status, error.code, error.attempts]).toEqual([0, 'timeout', 2]);
    expect(error.cause).toMatchObject({ status: 503 });
  });

  it("stops at once when the caller's signal aborts, between attempts or during one", async () => {
    vi.useFakeTimers();
    const between = fakeFetch(unavailable());
    const controller = new AbortController();
    const c = client(between.fetch, { baseDelayMs: 1_000, maxDelayMs: 1_000, random: () => 0.5 });
    const waiting = c.getPolicy({ signal: controller.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort(new Error('server shutting down'));
    expect(await waiting).toEqual(new Error('server shutting down'));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(between.sent).toHaveLength(1);

    const during = fakeFetch('hang');
    const inFlight = new AbortController();
    const pending = client(during.fetch)
      .getPolicy({ signal: inFlight.signal })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    inFlight.abort();
    expect(await pending).toMatchObject({ name: 'AbortError' });
    expect(during.sent).toHaveLength(1);

    const before = fakeFetch(json(200, {}));
    await expect(client(before.fetch).getPolicy({ signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(before.sent).toHaveLength(0);
  });
});

describe('idempotency keys', () => {
  const ban = { device_id: 'd-1', ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' } as const;

  it('a create without one gets a random one, the same on every retry of that call', async () => {
    const { fetch, sent } = fakeFetch(unavailable(), networkError(), limited(), json(201, { ban_id: 1 }));
    const c = client(fetch);
    await c.createBan('g-1', ban);
    expect(sent).toHaveLength(4);
    const keys = sent.map((s) => s.body.idempotency_key);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(sent.every((s) => s.body.device_id === 'd-1')).toBe(true);

    // Another call is another ban: another key.
    await c.createBan('g-1', ban);
    expect(sent[4]?.body.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[4]?.body.idempotency_key).not.toBe(keys[0]);
  });

  it("a caller's key is sent as it is, on every retry", async () => {
    const { fetch, sent } = fakeFetch(unavailable(), json(200, { status: 'idempotent_ok' }));
    const body = { ...ban, idempotency_key: 'report-991' };
    await client(fetch).createBan('g-1', body);
    expect(sent.map((s) => s.body)).toEqual([body, body]);
  });

  it('an appeal gets one too, kept across retries', async () => {
    const { fetch, sent } = fakeFetch(unavailable(), json(201, {}));
    await client(fetch).createAppeal('g-1', { device_id: 'd-1', ban_id: 7, message: 'it was my brother' });
    expect(sent).toHaveLength(2);
    expect(sent[0]?.body.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]?.body).toEqual(sent[0]?.body);
  });
});

describe('ApiError', () => {
  it('carries status, code, message, details and request_id of the error envelope', async () => {
    // The README's example answer, as the API sends it.
    const body = {
      error: {
        code: 'invalid_request',
        message: 'limit must be between 1 and 200',
        details: [{ field: 'limit', issue: 'too_big' }],
      },
      request_id: '4f7c9a2e-0000-4000-8000-000000000001',
    };
    const { fetch } = fakeFetch(json(400, body, { 'X-Request-Id': body.request_id }));
    const error = await failure(client(fetch).listBans('g-1', 'd-1', { limit: 500 }));
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ApiError');
    expect({
      status: error.status,
      code: error.code,
      message: error.message,
      details: error.details,
      request_id: error.request_id,
    }).toEqual({ status: 400, ...body.error, request_id: body.request_id });
  });

  it('falls back to X-Request-Id, and says invalid_response, for an answer without the envelope', async () => {
    const html = new Response('<html>Bad gateway</html>', {
      status: 502,
      headers: { 'X-Request-Id': 'gw-1' },
    });
    const error = await failure(client(fakeFetch(html).fetch).getPolicy());
    expect([error.status, error.code, error.request_id, error.details]).toEqual([
      502,
      'invalid_response',
      'gw-1',
      [],
    ]);
  });

  it('says invalid_response for a success whose body is not JSON, and does not retry it', async () => {
    const { fetch, sent } = fakeFetch(new Response('{"trunc', { status: 200 }), json(200, {}));
    const error = await failure(client(fetch).getPolicy());
    expect([error.status, error.code, sent.length]).toEqual([200, 'invalid_response', 1]);
  });

  it('a 204 resolves with nothing', async () => {
    await expect(client(fakeFetch(json(204, null)).fetch).deleteWebhook('wh_1')).resolves.toBeUndefined();
  });
});

describe('paging', () => {
  it('a listing follows next_cursor until it is null, item by item or page by page', async () => {
    const { fetch, sent } = fakeFetch(
      json(200, { items: [{ device_id: 'a' }, { device_id: 'b' }], next_cursor: 'c1' }),
      json(200, { items: [{ device_id: 'c' }], next_cursor: 'c2' }),
      json(200, { items: [], next_cursor: 'c3' }),
      json(200, { items: [{ device_id: 'd' }], next_cursor: null }),
    );
    const devices = client(fetch).devices({ prefix: 'd', limit: 2 });
    expect(devices.cursor).toBeUndefined();
    const seen: string[] = [];
    for await (const device of devices) seen.push(device.device_id);
    expect(seen).toEqual(['a', 'b', 'c', 'd']);
    expect(sent.map((s) => s.url.searchParams.get('cursor'))).toEqual([null, 'c1', 'c2', 'c3']);
    expect(
      sent.every((s) => s.url.searchParams.get('prefix') === 'd' && s.url.searchParams.get('limit') === '2'),
    ).toBe(true);
    expect(devices.cursor).toBeNull();
    for await (const _ of devices) throw new Error('a finished listing reads nothing more');
    expect(sent).toHaveLength(4);
  });

  it('the ban listing pages on its numeric cursor and shows each page whole', async () => {
    const { fetch, sent } = fakeFetch(
      json(200, {
        device_id: 'd-1',
        counts: { total: 3 },
        items: [{ ban_id: 3 }, { ban_id: 2 }],
        next_cursor: 2,
      }),
      json(200, { device_id: 'd-1', counts: { total: 3 }, items: [{ ban_id: 1 }], next_cursor: null }),
    );
    const pages = [];
    for await (const page of client(fetch).bans('g-1', 'd-1', { status: 'all', limit: 2 }).pages())
      pages.push(page);
    expect(pages.map((p) => [p.counts.total, p.items.map((b) => b.ban_id)])).toEqual([
      [3, [3, 2]],
      [3, [1]],
    ]);
    expect(sent[1]?.url.searchParams.get('cursor')).toBe('2');
    expect(sent.every((s) => s.headers.get('x-game-id') === 'g-1')).toBe(true);
  });

  it('audit, appeals, deliveries, keys and expiring bans page the same way', async () => {
    const cases: Array<[(c: BanClient) => AsyncIterable<unknown>, string]> = [
      [(c) => c.auditEvents({ type: 'ban.created' }), '/prod/v1/audit'],
      [(c) => c.appeals({ status: 'all' }), '/prod/v1/appeals'],
      [(c) => c.deliveries('wh_1'), '/prod/v1/webhooks/wh_1/deliveries'],
      [(c) => c.apiKeys(), '/prod/v1/keys'],
      [(c) => c.expiringBans({ within_hours: 6 }), '/prod/v1/bans/expiring'],
      [(c) => c.snapshot('g-1'), '/prod/v1/enforcement/snapshot'],
    ];
    for (const [iterate, path] of cases) {
      const { fetch, sent } = fakeFetch(
        json(200, { items: [1, 2], next_cursor: 'n1' }),
        json(200, { items: [3], next_cursor: null }),
      );
      const items = [];
      for await (const item of iterate(client(fetch))) items.push(item);
      expect(items).toEqual([1, 2, 3]);
      expect(sent.map((s) => [s.url.pathname, s.url.searchParams.get('cursor')])).toEqual([
        [path, null],
        [path, 'n1'],
      ]);
    }
  });

  it('a listing read again from its cursor after a stop repeats the unfinished page, never skips it', async () => {
    const { fetch, sent } = fakeFetch(
      json(200, { items: [{ event_id: 'a' }, { event_id: 'b' }], next_cursor: 'c1' }),
      json(200, { items: [{ event_id: 'c' }, { event_id: 'd' }], next_cursor: 'c2' }),
    );
    const c = client(fetch);
    const audit = c.auditEvents();
    const seen: string[] = [];
    for await (const item of audit) {
      seen.push(item.event_id);
      if (item.event_id === 'c') break;
    }
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(audit.cursor).toBe('c1');
    expect(sent).toHaveLength(2);
  });

  it('the feed reads until a page comes back empty, keeps its cursor, and the next pass resumes there', async () => {
    const { fetch, sent } = fakeFetch(
      json(200, { items: [{ event_id: 'e1' }, { event_id: 'e2' }], next_cursor: 'p1' }),
      json(200, { items: [{ event_id: 'e3' }], next_cursor: 'p2' }),
      json(200, { items: [], next_cursor: 'p2' }),
      json(200, { items: [], next_cursor: 'p2' }),
      json(200, { items: [{ event_id: 'e4' }], next_cursor: 'p3' }),
      json(200, { items: [], next_cursor: 'p3' }),
    );
    const feed = client(fetch).events('g-1', { limit: 2 });
    expect([feed.cursor, feed.caughtUpAt]).toEqual([undefined, null]);
    const pass = async () => {
      const ids: string[] = [];
      for await (const event of feed) ids.push(event.event_id);
      return ids;
    };
    expect(await pass()).toEqual(['e1', 'e2', 'e3']);
    expect(feed.cursor).toBe('p2');
    expect(feed.caughtUpAt).toEqual(expect.any(Number));
    expect(await pass()).toEqual([]);
    expect(await pass()).toEqual(['e4']);
    expect(feed.cursor).toBe('p3');
    expect(sent.map((s) => s.url.searchParams.get('cursor'))).toEqual([null, 'p1', 'p2', 'p2', 'p2', 'p3']);
    expect(
      sent.every((s) => s.url.searchParams.get('limit') === '2' && s.headers.get('x-game-id') === 'g-1'),
    ).toBe(true);
  });

  it('the feed starts from a saved cursor, and page by page yields only pages with events', async () => {
    const { fetch, sent } = fakeFetch(
      json(200, { items: [{ event_id: 'e9' }], next_cursor: 'q2' }),
      json(200, { items: [], next_cursor: 'q2' }),
    );
    const feed = client(fetch).events('g-1', { cursor: 'q1' });
    expect(feed.cursor).toBe('q1');
    const pages = [];
    for await (const page of feed.pages()) pages.push(page);
    expect(pages).toEqual([{ items: [{ event_id: 'e9' }], next_cursor: 'q2' }]);
    expect(sent.map((s) => s.url.searchParams.get('cursor'))).toEqual(['q1', 'q2']);
  });

  it('a page that fails after its retries ends the pass with the ApiError, the cursor where it was', async () => {
    const { fetch } = fakeFetch(json(200, { items: [{ event_id: 'e1' }], next_cursor: 'p1' }), unavailable());
    const feed = client(fetch, { retries: 1 }).events('g-1');
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const event of feed) seen.push(event.event_id);
      })(),
    );
    expect([seen, error.status, feed.cursor]).toEqual([['e1'], 503, 'p1']);
  });
});

describe('createBanClient', () => {
  it('refuses to start without an address or a key', () => {
    expect(() => createBanClient({ baseUrl: '', apiKey: 'k' })).toThrow(/baseUrl/);
    expect(() => createBanClient({ baseUrl: 'http://x', apiKey: '' })).toThrow(/apiKey/);
  });

  it('uses the global fetch when given none', async () => {
    const spy = vi.spyOn(globalThis, 'fetch').mockResolvedValue(json(200, { ok: true }));
    try {
      await expect(createBanClient({ baseUrl: 'http://x.test', apiKey: 'k' }).getPolicy()).resolves.toEqual({
        ok: true,
      });
      expect(spy).toHaveBeenCalledOnce();
    } finally {
      spy.mockRestore();
    }
  });
});
