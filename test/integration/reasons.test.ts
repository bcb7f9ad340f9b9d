import type { Scope } from '@kernel/scopes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reasonsKey } from '../../lib/storage/keys';
import { storedEvents } from '../support/audit';
import {
  banBody,
  postBan,
  startWithPublishers,
  storedBans,
  storedItem,
  storedRecord,
  type TestApi,
  unique,
} from '../support/fixtures';

/**
 * The reason catalogue (`GET`/`PUT /v1/reasons`): one item per publisher, replaced whole, recorded
 * in the audit trail; with `strict_reasons` on, a new ban must name one of its codes.
 */

let api: TestApi;
let keys: Record<'rs-a' | 'rs-b' | 'rs-strict' | 'rs-scopes', string>;

beforeAll(async () => {
  ({ api, keys } = await startWithPublishers(['rs-a', 'rs-b', 'rs-strict', 'rs-scopes']));
});
afterAll(() => api?.close());

const aimbot = {
  code: 'aimbot',
  label: 'Aimbot or other aim assistance',
  ban_type: 'cheat',
  scope: 'global',
  duration_seconds: null,
  player_message: 'This device is banned for using cheat software.',
};
const chat = {
  code: 'chat.abuse',
  label: 'Abusive chat 💬',
  ban_type: 'social',
  scope: 'game',
  duration_seconds: 604_800,
  player_message: null,
};

const getReasons = (key: string) => api.request('GET', '/v1/reasons', { key });
const putReasons = (key: string, body: unknown) => api.request('PUT', '/v1/reasons', { key, body });
const stored = (publisher: string) => storedItem(reasonsKey(publisher));
const reasonEvents = async (publisher: string) =>
  (await storedEvents(publisher)).filter((event) => event.type === 'reasons.updated');

describe('GET /v1/reasons', () => {
  it('answers an empty, lenient catalogue to a publisher that never wrote one, and stores nothing', async () => {
    const res = await getReasons(keys['rs-b']);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ reasons: [], strict_reasons: false, default_locale: 'en', updated_at: null });
    expect(await stored('rs-b')).toBeUndefined();
  });
});

describe('PUT /v1/reasons', () => {
  it('stores the catalogue, answers it with updated_at, and records reasons.updated', async () => {
    const res = await putReasons(keys['rs-a'], { reasons: [aimbot, chat], strict_reasons: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      reasons: [aimbot, chat],
      strict_reasons: false,
      default_locale: 'en',
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(await stored('rs-a')).toMatchObject({
      publisher_id: 'rs-a',
      reasons: [aimbot, chat],
      strict_reasons: false,
      updated_at: res.body.updated_at,
    });
    expect((await getReasons(keys['rs-a'])).body).toEqual(res.body);

    const events = await reasonEvents('rs-a');
    expect(events).toEqual([
      {
        type: 'reasons.updated',
        event_id: expect.stringMatching(/^evt_/),
        occurred_at: res.body.updated_at,
        actor: expect.objectContaining({ type: 'key' }),
        codes: ['aimbot', 'chat.abuse'],
        strict_reasons: false,
      },
    ]);
    const audit = await api.request('GET', '/v1/audit?type=reasons.updated', { key: keys['rs-a'] });
    expect(audit.status).toBe(200);
    expect(audit.body.items).toEqual(events);
  });

  it("neither shows to nor changes another publisher's catalogue or trail", async () => {
    const before = await stored('rs-a');
    expect((await getReasons(keys['rs-b'])).body).toEqual({
      reasons: [],
      strict_reasons: false,
      default_locale: 'en',
      updated_at: null,
    });
    const res = await putReasons(keys['rs-b'], { reasons: [chat], strict_reasons: true });
    expect(res.status).toBe(200);
    expect(await stored('rs-a')).toEqual(before);
    expect((await getReasons(keys['rs-a'])).body.reasons).toEqual([aimbot, chat]);
    expect((await reasonEvents('rs-b')).map((event) => event.codes)).toEqual([['chat.abuse']]);
    expect(await reasonEvents('rs-a')).toHaveLength(1);
  });

  it('replaces the whole catalogue, each change one event; an empty list empties it', async () => {
    const one = await putReasons(keys['rs-a'], { reasons: [chat], strict_reasons: true });
    expect(one.status).toBe(200);
    expect((await getReasons(keys['rs-a'])).body).toEqual(one.body);
    const none = await putReasons(keys['rs-a'], { reasons: [], strict_reasons: false });
    expect(none.body).toEqual({
      reasons: [],
      strict_reasons: false,
      default_locale: 'en',
      updated_at: expect.any(String),
    });
    expect((await reasonEvents('rs-a')).map((event) => [event.codes, event.strict_reasons])).toEqual([
      [[], false],
      [['chat.abuse'], true],
      [['aimbot', 'chat.abuse'], false],
    ]);
  });

  const hundred = Array.from({ length: 100 }, (_, i) => ({ ...chat, code: `code-${i}` }));
  it('takes 100 reasons, durations up to ten years and 500-character messages', async () => {
    const res = await putReasons(keys['rs-b'], {
      reasons: [
        ...hundred.slice(0, 99),
        { ...aimbot, duration_seconds: 315_576_000, player_message: '✓'.repeat(500), label: 'l'.repeat(80) },
      ],
      strict_reasons: false,
    });
    expect(res.status).toBe(200);
    expect(res.body.reasons).toHaveLength(100);
  });

  it.each([
    [{ reasons: [{ ...chat, code: 'has space' }] }, 'reasons.0.code', 'invalid_format'],
    [{ reasons: [{ ...chat, code: 'x'.repeat(65) }] }, 'reasons.0.code', 'invalid_format'],
    [{ reasons: [aimbot, chat, { ...chat, label: 'Again' }] }, 'reasons.2.code', 'duplicate'],
    [{ reasons: [{ ...chat, label: '' }] }, 'reasons.0.label', 'too_small'],
    [{ reasons: [{ ...chat, label: 'l'.repeat(81) }] }, 'reasons.0.label', 'too_big'],
    [{ reasons: [aimbot, { ...chat, label: 'two\nlines' }] }, 'reasons.1.label', 'invalid_format'],
    [{ reasons: [{ ...chat, label: '   ' }] }, 'reasons.0.label', 'invalid_format'],
    [{ reasons: [{ ...chat, ban_type: 'spam' }] }, 'reasons.0.ban_type', 'invalid_value'],
    [{ reasons: [{ ...chat, scope: 'world' }] }, 'reasons.0.scope', 'invalid_value'],
    [{ reasons: [{ ...chat, duration_seconds: 0 }] }, 'reasons.0.duration_seconds', 'too_small'],
    [{ reasons: [{ ...chat, duration_seconds: 1.5 }] }, 'reasons.0.duration_seconds', 'invalid_type'],
    [{ reasons: [{ ...chat, duration_seconds: 315_576_001 }] }, 'reasons.0.duration_seconds', 'too_big'],
    [{ reasons: [{ ...chat, duration_seconds: '3600' }] }, 'reasons.0.duration_seconds', 'invalid_type'],
    [{ reasons: [{ ...chat, player_message: '' }] }, 'reasons.0.player_message', 'too_small'],
    [{ reasons: [{ ...chat, player_message: 'a\u202Eb' }] }, 'reasons.0.player_message', 'invalid_format'],
    [{ reasons: [{ ...chat, player_message: undefined }] }, 'reasons.0.player_message', 'required'],
    [{ reasons: [{ ...chat, colour: 'red' }] }, 'reasons.0.colour', 'unknown_field'],
    [{ reasons: [...hundred, { ...chat, code: 'one-more' }] }, 'reasons', 'too_big'],
    [{ reasons: {} }, 'reasons', 'invalid_type'],
    [{ reasons: [chat], strict_reasons: 'yes' }, 'strict_reasons', 'invalid_type'],
    [{ reasons: [chat], strict_reasons: undefined }, 'strict_reasons', 'required'],
    [{ reasons: [chat], updated_at: '2030-01-01T00:00:00Z' }, 'updated_at', 'unknown_field'],
  ])('refuses %j with 400 naming %s, and changes nothing', async (patch, field, issue) => {
    const before = await stored('rs-a');
    const events = await storedEvents('rs-a');
    const res = await putReasons(keys['rs-a'], { strict_reasons: true, ...patch });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details).toContainEqual({ field, issue });
    expect(await stored('rs-a')).toEqual(before);
    expect(await storedEvents('rs-a')).toEqual(events);
  });
});

describe('who may read and write it', () => {
  const scoped = async (scopes: Scope[], games: string[] | null = null) =>
    (await api.createKey('rs-scopes', unique('scoped'), { scopes, games })).api_key;

  it('is read with policy:read or bans:write, written with policy:write only', async () => {
    const moderator = await scoped(['bans:write']);
    const viewer = await scoped(['policy:read']);
    const reader = await scoped(['bans:read']);
    expect((await getReasons(moderator)).status).toBe(200);
    expect((await getReasons(viewer)).status).toBe(200);
    const refused = await getReasons(reader);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('This key lacks the scope policy:read or bans:write');
    for (const key of [moderator, viewer, reader]) {
      const res = await putReasons(key, { reasons: [chat], strict_reasons: true });
      expect(res.status).toBe(403);
    }
    expect(await stored('rs-scopes')).toBeUndefined();
  });

  it('is read by a key bound to games but written only by one bound to no game: strict reasons reach every game', async () => {
    const bound = await scoped(['policy:read', 'policy:write'], ['g1']);
    const refused = await putReasons(bound, { reasons: [], strict_reasons: true });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      'This key is bound to games, and this operation covers every game',
    );
    expect(await stored('rs-scopes')).toBeUndefined();
    const res = await putReasons(await scoped(['policy:write']), { reasons: [chat], strict_reasons: false });
    expect(res.status).toBe(200);
    expect((await getReasons(bound)).body).toEqual(res.body);
  });
});

describe('strict_reasons on POST /v1/bans', () => {
  const key = () => keys['rs-strict'];

  it('accepts any code while strict is off, catalogue or not', async () => {
    const device = unique('lenient');
    expect(
      (await postBan(api, key(), 'g1', banBody({ device_id: device, reason_code: 'free.code' }))).status,
    ).toBe(201);
    await putReasons(key(), { reasons: [aimbot], strict_reasons: false });
    expect(
      (await postBan(api, key(), 'g1', banBody({ device_id: device, reason_code: 'other' }))).status,
    ).toBe(201);
  });

  it('with strict on, refuses a code not in the catalogue (400 naming reason_code, nothing stored) and takes one that is', async () => {
    await putReasons(key(), { reasons: [aimbot], strict_reasons: true });
    const device = unique('strict');
    const refused = await postBan(
      api,
      key(),
      'g1',
      banBody({ device_id: device, reason_code: 'free.code', idempotency_key: 'k-refused' }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'invalid_request',
      details: [{ field: 'reason_code', issue: 'not_in_catalogue' }],
    });
    expect(await storedBans(device)).toEqual([]);
    expect(await storedRecord('rs-strict', 'g1', 'k-refused')).toBeUndefined();

    const taken = await postBan(api, key(), 'g1', banBody({ device_id: device, reason_code: 'aimbot' }));
    expect(taken.status).toBe(201);
    expect(await storedBans(device)).toHaveLength(1);
  });

  it("is the publisher's own: another publisher's strict catalogue does not refuse its codes", async () => {
    // rs-strict is strict with aimbot only; rs-a is not strict.
    const res = await postBan(
      api,
      keys['rs-a'],
      'g1',
      banBody({ device_id: unique('other'), reason_code: 'free.code' }),
    );
    expect(res.status).toBe(201);
    // And rs-b is strict (it put chat.abuse with strict on), so aimbot, in rs-strict's catalogue, is refused to rs-b.
    await putReasons(keys['rs-b'], { reasons: [chat], strict_reasons: true });
    const refused = await postBan(
      api,
      keys['rs-b'],
      'g1',
      banBody({ device_id: unique('other'), reason_code: 'aimbot' }),
    );
    expect(refused.status).toBe(400);
  });

  it('answers a repeated idempotency key with its original ban even after the catalogue dropped its code', async () => {
    await putReasons(key(), { reasons: [aimbot, chat], strict_reasons: true });
    const device = unique('repeat');
    const body = banBody({
      device_id: device,
      ban_type: 'social',
      reason_code: 'chat.abuse',
      idempotency_key: 'k-1',
    });
    const first = await postBan(api, key(), 'g1', body);
    expect(first.status).toBe(201);
    await putReasons(key(), { reasons: [aimbot], strict_reasons: true });

    const again = await postBan(api, key(), 'g1', body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, status: 'idempotent_ok' });
    expect(await storedBans(device)).toHaveLength(1);
    // A new key with the dropped code is refused.
    const fresh = await postBan(api, key(), 'g1', { ...body, idempotency_key: 'k-2' });
    expect(fresh.status).toBe(400);
    expect(await storedBans(device)).toHaveLength(1);
  });

  it('accepts free codes again once strict is turned off', async () => {
    await putReasons(key(), { reasons: [aimbot], strict_reasons: false });
    const res = await postBan(
      api,
      key(),
      'g1',
      banBody({ device_id: unique('off'), reason_code: 'free.code' }),
    );
    expect(res.status).toBe(201);
  });
});
