import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deviceFormatsKey, partitions, reasonsKey } from '../../lib/storage/keys';
import { storedEvents } from '../support/audit';
import {
  expectFired,
  expectUnavailable,
  type FaultInjector,
  type FaultRule,
  failThenRetry,
  faultKinds,
  injectFaults,
} from '../support/faults';
import {
  banBody,
  postBan,
  startTwoPublishers,
  storedBans,
  storedItem,
  type TestApi,
  unique,
} from '../support/fixtures';

/**
 * The reason catalogue's and the device id formats' storage calls failing: each answers 503, and what is left is either the
 * old catalogue or the new one with its event (recorded by the retry), never a catalogue change
 * nobody records, nor a ban the catalogue read did not let through.
 */

const OWNER = 'rf-owner';
const OTHER = 'rf-other';
const GAME = 'game-rf';

let api: TestApi;
let faults: FaultInjector;
let ownerKey: string;
let otherKey: string;

beforeAll(async () => {
  ({ api, keyA: ownerKey, keyB: otherKey } = await startTwoPublishers(OWNER, OTHER));
  const { dynamo } = await import('../../lib/storage/client');
  faults = injectFaults(dynamo);
});
afterEach(() => faults.reset());
afterAll(async () => {
  faults?.remove();
  await api?.close();
});

const reason = (code: string) => ({
  code,
  label: `Reason ${code}`,
  ban_type: 'cheat',
  scope: 'game',
  duration_seconds: 3600,
  player_message: null,
});
const put = (body: unknown) => api.request('PUT', '/v1/reasons', { key: ownerKey, body });
const stored = () => storedItem(reasonsKey(OWNER));
const reasonEvents = async () =>
  (await storedEvents(OWNER)).filter((event) => event.type === 'reasons.updated');

const catalogueWrite = (kind: (typeof faultKinds)[number]): FaultRule => ({
  operation: 'PutItem',
  keyPrefix: partitions.publisher,
  error: kind,
});
const eventWrite = (kind: (typeof faultKinds)[number]): FaultRule => ({
  operation: 'PutItem',
  keyPrefix: partitions.audit,
  error: kind,
});
const catalogueRead = (kind: (typeof faultKinds)[number]): FaultRule => ({
  operation: 'GetItem',
  keyPrefix: partitions.publisher,
  error: kind,
});

describe('PUT /v1/reasons', () => {
  it.each(faultKinds)(
    'when the catalogue write fails (%s): 503, nothing changed, the retry stores it once',
    async (kind) => {
      const before = await stored();
      const events = await reasonEvents();
      const body = { reasons: [reason(unique('code'))], strict_reasons: true };
      const retry = await failThenRetry(
        faults,
        catalogueWrite(kind),
        () => put(body),
        async () => {
          expect(await stored()).toEqual(before);
          expect(await reasonEvents()).toEqual(events);
        },
      );
      expect(retry.status).toBe(200);
      expect((await stored())?.reasons).toEqual(body.reasons);
      expect(await reasonEvents()).toHaveLength(events.length + 1);
    },
  );

  it.each(faultKinds)(
    'when its event write fails (%s): 503, and the next change records the lost one beside its own',
    async (kind) => {
      const events = await reasonEvents();
      const code = unique('code');
      const body = { reasons: [reason(code)], strict_reasons: false };
      faults.fail(eventWrite(kind));
      expectUnavailable(await put(body));
      expectFired(faults, eventWrite(kind));
      faults.clear();
      // The catalogue took effect (a single write, no transaction); its event waits for the next change.
      expect((await stored())?.reasons).toEqual(body.reasons);

      const retry = await put(body);
      expect(retry.status).toBe(200);
      const after = await reasonEvents();
      expect(after).toHaveLength(events.length + 2);
      expect(after.slice(0, 2).map((event) => event.codes)).toEqual([[code], [code]]);
      // Recording again changes nothing: both are there once.
      expect(new Set(after.map((event) => event.event_id)).size).toBe(after.length);
    },
  );
});

describe('PUT /v1/device-formats and the search that reads them', () => {
  const formats = (prefix: string) => ({ formats: [{ platform: 'steam', prefix }] });
  const declare = (body: unknown) => api.request('PUT', '/v1/device-formats', { key: ownerKey, body });
  const formatEvents = async () =>
    (await storedEvents(OWNER)).filter((event) => event.type === 'device_formats.updated');

  it.each(faultKinds)(
    'when the write fails (%s): 503, nothing changed, the retry stores it and records it once',
    async (kind) => {
      const before = await storedItem(deviceFormatsKey(OWNER));
      const events = await formatEvents();
      const body = formats(`${unique('s').replace(/[^A-Za-z0-9]/g, '')}:`);
      const retry = await failThenRetry(
        faults,
        catalogueWrite(kind),
        () => declare(body),
        async () => {
          expect(await storedItem(deviceFormatsKey(OWNER))).toEqual(before);
          expect(await formatEvents()).toEqual(events);
        },
      );
      expect(retry.status).toBe(200);
      expect((await storedItem(deviceFormatsKey(OWNER)))?.formats).toEqual(body.formats);
      expect(await formatEvents()).toHaveLength(events.length + 1);
      // The other publisher declared nothing and sees nothing of it.
      const ofOther = await api.request('GET', '/v1/device-formats', { key: otherKey });
      expect(ofOther.body).toEqual({ formats: [], updated_at: null });
    },
  );

  it.each(faultKinds)('a search answers 503 when the formats read fails (%s)', async (kind) => {
    faults.fail(catalogueRead(kind));
    expectUnavailable(await api.request('GET', '/v1/devices?prefix=76561198000000001', { key: ownerKey }));
    expectFired(faults, catalogueRead(kind));
  });
});

describe('GET /v1/reasons', () => {
  it.each(faultKinds)('answers 503 when the read fails (%s)', async (kind) => {
    faults.fail(catalogueRead(kind));
    expectUnavailable(await api.request('GET', '/v1/reasons', { key: ownerKey }));
    expectFired(faults, catalogueRead(kind));
  });
});

describe('POST /v1/bans with strict reasons', () => {
  it.each(faultKinds)(
    'answers 503 when the catalogue read fails (%s), stores nothing, and the retry makes one ban',
    async (kind) => {
      expect((await put({ reasons: [reason('aimbot')], strict_reasons: true })).status).toBe(200);
      const device = unique('dev');
      const body = banBody({ device_id: device, reason_code: 'aimbot' });
      const retry = await failThenRetry(
        faults,
        catalogueRead(kind),
        () => postBan(api, ownerKey, GAME, body),
        async () => expect(await storedBans(device)).toEqual([]),
      );
      expect(retry.status).toBe(201);
      expect((await storedBans(device)).map((item) => item.ban_id)).toEqual([retry.body.ban_id]);
      // The other publisher, with no catalogue, is not held to the owner's.
      expect(
        (await postBan(api, otherKey, GAME, banBody({ device_id: device, reason_code: 'free' }))).status,
      ).toBe(201);
    },
  );
});
