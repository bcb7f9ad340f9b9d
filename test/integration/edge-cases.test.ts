import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ISSUES } from '../../lib/http/chain';
import { partitions } from '../../lib/storage/keys';
import type { TestApi } from '../support/api';
import { banBody as fixtureBan, startTwoPublishers } from '../support/fixtures';

/**
 * Edge defects an outside fuzzer and hand-written probes found: each case is the request that
 * misbehaved, with the answer it must get and what must (not) be stored afterwards.
 */

let api: TestApi;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  ({ api, keyA, keyB } = await startTwoPublishers('edge-a', 'edge-b'));
});
afterAll(() => api?.close());

const banBody = (overrides: Record<string, unknown> = {}) =>
  fixtureBan({ device_id: 'edge-device', ...overrides });
const storedBans = async () =>
  (await api.items()).filter((item) => String(item.pk).startsWith(partitions.device));

/** A request with headers exactly as given, repeats included (fetch would merge them). */
const rawRequest = (
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
  body?: string,
) =>
  new Promise<{ status: number; body: any }>((done, fail) => {
    const req = httpRequest(`${api.url}${path}`, { method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        done({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
      );
    });
    for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
    req.on('error', fail);
    req.end(body);
  });

describe('a repeated idempotency key', () => {
  it('answers idempotent_ok with the original ban even after that ban expired', async () => {
    const body = banBody({
      device_id: 'edge-expiring',
      expires_at: new Date(Date.now() + 1_500).toISOString(),
      idempotency_key: 'retry-late',
    });
    const first = await api.request('POST', '/v1/bans', { key: keyA, game: 'g1', body });
    expect(first.status).toBe(201);
    // Past its expiry: the API's clock set forward (for the rest of this file), not waited for.
    api.setClockOffset(2_000);

    const retry = await api.request('POST', '/v1/bans', { key: keyA, game: 'g1', body });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ ...first.body, status: 'idempotent_ok' });
    expect((await storedBans()).filter((b) => b.device_id === 'edge-expiring')).toHaveLength(1);
  });

  it('does not excuse a past expiry on a new ban: 400 in_past, nothing stored', async () => {
    const before = await api.items();
    const res = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'g1',
      body: banBody({ expires_at: '2020-01-01T00:00:00Z', idempotency_key: 'never-used' }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'expires_at', issue: 'in_past' }]);
    expect(await api.items()).toEqual(before);
  });

  it('is per publisher: another publisher with the same key and a past expiry gets 400', async () => {
    const res = await api.request('POST', '/v1/bans', {
      key: keyB,
      game: 'g1',
      body: banBody({
        device_id: 'edge-expiring',
        expires_at: '2020-01-01T00:00:00Z',
        idempotency_key: 'retry-late',
      }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'expires_at', issue: 'in_past' }]);
  });
});

describe('device ids no path can address', () => {
  it.each(['.', '..'])(
    'refuses %j at creation with a 400 naming device_id, storing nothing',
    async (deviceId) => {
      const before = await api.items();
      const res = await api.request('POST', '/v1/bans', {
        key: keyA,
        game: 'g1',
        body: banBody({ device_id: deviceId }),
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'device_id', issue: 'invalid_format' }]);
      expect(await api.items()).toEqual(before);
    },
  );

  it('still accepts ids that merely contain dots', async () => {
    const res = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'g1',
      body: banBody({ device_id: '...' }),
    });
    expect(res.status).toBe(201);
    const listed = await api.request('GET', '/v1/device/.../bans/cheat', { key: keyA, game: 'g1' });
    expect(listed.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual([res.body.ban_id]);
  });
});

describe('headers that must come once', () => {
  it.each([
    ['X-Game-Id', { 'X-Game-Id': ['g1', 'g2'] }],
    ['Content-Type', { 'X-Game-Id': 'g1', 'Content-Type': ['application/json', 'application/json'] }],
  ])('refuses a repeated %s with 400 repeated, storing nothing', async (name, headers) => {
    const before = await api.items();
    const res = await rawRequest(
      'POST',
      '/v1/bans',
      { Authorization: `Bearer ${keyA}`, 'Content-Type': 'application/json', ...headers },
      JSON.stringify(banBody({ device_id: 'edge-repeated' })),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'invalid_request',
      details: [{ field: name, issue: 'repeated' }],
    });
    expect(await api.items()).toEqual(before);
  });

  it.each([
    ['X-Game-Id', (key: string) => [`Authorization: Bearer ${key}`, 'X-Game-Id: g1', 'x-game-id: g2']],
    [
      'Authorization',
      (key: string) => [`Authorization: Bearer ${key}`, `authorization: Bearer ${key}`, 'X-Game-Id: g1'],
    ],
    [
      'Content-Type',
      (key: string) => [
        `Authorization: Bearer ${key}`,
        'X-Game-Id: g1',
        'content-type: application/json',
        'CONTENT-TYPE: application/json',
      ],
    ],
  ])(
    'refuses %s twice in different letter cases, as two header lines, storing nothing',
    async (name, lines) => {
      const before = await api.items();
      const body = JSON.stringify(banBody({ device_id: 'edge-cased' }));
      const headers = lines(keyA);
      if (name !== 'Content-Type') headers.push('Content-Type: application/json');
      const raw = await rawExchange(
        `POST /v1/bans HTTP/1.1\r\nHost: x\r\n${headers.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        { halfClose: false },
      );
      const res = parseRaw(raw);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: name, issue: 'repeated' }]);
      expect(await api.items()).toEqual(before);
    },
  );

  it('refuses two Authorization headers, whichever key comes last', async () => {
    const res = await rawRequest('GET', '/v1/policy', {
      Authorization: [`Bearer ${keyB}`, `Bearer ${keyA}`],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'Authorization', issue: 'repeated' }]);
  });
});

describe('numbers in details', () => {
  it.each([
    ['1e400', 'details.big'],
    ['12345678901234567890123', 'details.big'],
    ['[1, 2, 9007199254740993]', 'details.big.2'],
  ])('refuses %s, which a double cannot hold, naming where it is', async (literal, field) => {
    const before = await api.items();
    const raw = `{"device_id":"edge-numbers","ban_type":"cheat","scope":"game","reason_code":"r","details":{"big":${literal}}}`;
    const res = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'g1',
      rawBody: raw,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field, issue: 'imprecise_number' }]);
    expect(await api.items()).toEqual(before);
  });

  it('stores every exactly representable number as sent', async () => {
    const details = { a: 0.1, b: -2.5, c: 9007199254740991, d: 1.5e300, e: 5e-324, f: 1e21 };
    const raw = `{"device_id":"edge-exact","ban_type":"cheat","scope":"game","reason_code":"r","details":{"a":0.1,"b":-2.5,"c":9007199254740991,"d":1.5e300,"e":5e-324,"f":1e21}}`;
    const res = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'g1',
      rawBody: raw,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(201);
    const listed = await api.request('GET', '/v1/device/edge-exact/bans/cheat', { key: keyA, game: 'g1' });
    expect(listed.body.items[0].details_json).toEqual(details);
  });
});

describe('revoke follows listing visibility', () => {
  it('answers 404 for a game ban revoked through another game, and leaves it active; its own game revokes it', async () => {
    const created = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'game-a',
      body: banBody({ device_id: 'edge-revoke', ban_type: 'social' }),
    });
    const path = `/v1/device/edge-revoke/bans/${created.body.ban_id}/revoke`;
    const elsewhere = await api.request('POST', path, {
      key: keyA,
      game: 'game-z',
      body: { reason_code: 'appeal' },
    });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.code).toBe('not_found');
    const [stored] = (await storedBans()).filter((b) => b.ban_id === created.body.ban_id);
    expect(stored?.revoked_at).toBeNull();

    const own = await api.request('POST', path, {
      key: keyA,
      game: 'game-a',
      body: { reason_code: 'appeal' },
    });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ revoke_reason_code: 'appeal', revoked_at: expect.any(String) });
  });

  it("lists revoke_reason_code: null while active, the owner's reason once revoked, to every viewer", async () => {
    const created = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'g1',
      body: banBody({ device_id: 'edge-reason', scope: 'global' }),
    });
    const list = (key: string) =>
      api.request('GET', '/v1/device/edge-reason/bans?status=all', { key, game: 'g1' });
    expect((await list(keyA)).body.items[0].revoke_reason_code).toBeNull();
    await api.request('POST', `/v1/device/edge-reason/bans/${created.body.ban_id}/revoke`, {
      key: keyA,
      game: 'g1',
      body: { reason_code: 'false_positive' },
    });
    expect((await list(keyA)).body.items[0].revoke_reason_code).toBe('false_positive');
    expect((await list(keyB)).body.items[0]).toMatchObject({
      revoke_reason_code: 'false_positive',
      details_json: null,
    });
  });
});

describe('the batch contract', () => {
  it('refuses a body whose device_ids are not all strings, naming the item, instead of a 200', async () => {
    const res = await api.request('POST', '/v1/enforcement/batch', {
      key: keyA,
      game: 'g1',
      body: { device_ids: ['ok-device', 12, null] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { field: 'device_ids.1', issue: 'invalid_type' },
      { field: 'device_ids.2', issue: 'invalid_type' },
    ]);
  });
});

describe('a flood of bad fields', () => {
  it('names the first few and counts the rest, in a small answer', async () => {
    const body = Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`unknown_${i}`, i]));
    const res = await api.request('POST', '/v1/bans', {
      key: keyA,
      game: 'g1',
      body: { ...banBody(), ...body },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toHaveLength(MAX_ISSUES);
    expect(res.body.error.details[0]).toEqual({ field: 'unknown_0', issue: 'unknown_field' });
    expect(res.body.error.message).toMatch(/and 2980 more$/);
    expect(res.text.length).toBeLessThan(5_000);
  });
});

describe('the served OpenAPI document', () => {
  it('names the server that serves it first, and keeps the deployed and local templates after it', async () => {
    const res = await api.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.servers[0].url).toBe(api.url);
    expect(res.body.servers.slice(1).map((s: { url: string }) => s.url)).toEqual([
      'https://{restApiId}.execute-api.{region}.amazonaws.com/{stage}',
      'http://127.0.0.1:3000',
    ]);
  });
});

/**
 * Bytes on a socket, for what no HTTP client will send; resolves with everything the server wrote.
 * `halfClose`: end our side at once (a request the parser refuses is answered anyway); without it
 * the socket stays open until the server, told `Connection: close`, answers and closes it.
 */
const rawExchange = (bytes: string, { halfClose = true } = {}) =>
  new Promise<string>((done, fail) => {
    const { hostname, port } = new URL(api.url);
    const socket = connect(Number(port), hostname, () =>
      halfClose ? socket.end(bytes) : socket.write(bytes),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => done(Buffer.concat(chunks).toString()));
    socket.on('error', fail);
  });

const parseRaw = (raw: string) => {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
};

describe('requests the HTTP parser refuses', () => {
  it('answers a 20 KB header in the envelope with a request id, not a bare status line', async () => {
    const res = parseRaw(
      await rawExchange(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({
      error: { code: 'invalid_request', message: 'The request headers are too large' },
      request_id: res.headers['x-request-id'],
    });
  });

  it('answers a malformed request line in the envelope with a request id', async () => {
    const res = parseRaw(await rawExchange('GET /health HTTP/9.Z\r\n\r\n'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { code: 'invalid_request', message: 'The request is not valid' },
      request_id: res.headers['x-request-id'],
    });
  });
});

describe('HEAD', () => {
  it('is served wherever GET is: the GET status and headers, no body', async () => {
    await api.request('POST', '/v1/bans', { key: keyA, game: 'g', body: banBody({ device_id: 'head-dev' }) });
    const get = await api.request('GET', '/v1/device/head-dev/bans', { key: keyA, game: 'g' });
    const head = await fetch(`${api.url}/v1/device/head-dev/bans`, {
      method: 'HEAD',
      headers: { Authorization: `Bearer ${keyA}`, 'X-Game-Id': 'g' },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)));
    expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await head.text()).toBe('');
    const health = await fetch(`${api.url}/health`, { method: 'HEAD' });
    expect(health.status).toBe(200);
  });

  it('needs the key GET needs, and another publisher learns nothing more through it', async () => {
    const noKey = await fetch(`${api.url}/v1/policy`, { method: 'HEAD' });
    expect(noKey.status).toBe(401);
    expect(await noKey.text()).toBe('');
    const other = await fetch(`${api.url}/v1/device/head-dev/bans`, {
      method: 'HEAD',
      headers: { Authorization: `Bearer ${keyB}`, 'X-Game-Id': 'g' },
    });
    const otherGet = await api.request('GET', '/v1/device/head-dev/bans', { key: keyB, game: 'g' });
    expect(other.status).toBe(200);
    expect(other.headers.get('content-length')).toBe(String(Buffer.byteLength(otherGet.text)));
    expect(otherGet.body.items).toEqual([]);
  });

  it('is listed in Allow beside GET', async () => {
    const res = await api.request('DELETE', '/v1/device/head-dev/bans', { key: keyA });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });
});
