import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyKey } from '../../lib/storage/keys';
import { startTwoPublishers, type TestApi } from '../support/fixtures';

let api: TestApi;
let keyA: string;
let keyB: string;

const defaults = {
  enforce_game: true,
  enforce_publisher: true,
  enforce_global: true,
  enforce_cheat_global: true,
  enforce_social_global: false,
  rep_include_game: true,
  rep_include_publisher: true,
  rep_include_global: true,
  global_sources: 'all',
  global_quorum: 1,
  rep_global_sources: 'all',
  rep_global_quorum: 1,
};

beforeAll(async () => {
  ({ api, keyA, keyB } = await startTwoPublishers());
});
afterAll(() => api?.close());

const storedPolicy = async (publisher: string) => {
  const { pk, sk } = policyKey(publisher);
  return (await api.items()).find((item) => item.pk === pk && item.sk === sk);
};

describe('GET /v1/policy', () => {
  it('returns the defaults written when the first key was made', async () => {
    const res = await api.request('GET', '/v1/policy', { key: keyA });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      publisher_id: 'pub-a',
      ...defaults,
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });
});

describe('PUT /v1/policy', () => {
  it('changes only the flags sent, keeps the rest, and sets a new updated_at', async () => {
    const before = (await api.request('GET', '/v1/policy', { key: keyA })).body;
    const res = await api.request('PUT', '/v1/policy', {
      key: keyA,
      body: { enforce_social_global: true, rep_include_game: false },
    });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      enforce_social_global: true,
      rep_include_game: false,
      updated_at: expect.any(String),
    });
    expect(res.body.updated_at > before.updated_at).toBe(true);
    expect(await storedPolicy('pub-a')).toMatchObject({
      enforce_social_global: true,
      rep_include_game: false,
      enforce_game: true,
    });
    expect((await api.request('GET', '/v1/policy', { key: keyA })).body).toEqual(res.body);
  });

  it('accepts {} and changes nothing but updated_at', async () => {
    const before = (await api.request('GET', '/v1/policy', { key: keyA })).body;
    const res = await api.request('PUT', '/v1/policy', { key: keyA, body: {} });
    expect(res.status).toBe(200);
    expect({ ...res.body, updated_at: before.updated_at }).toEqual(before);
    expect(res.body.updated_at >= before.updated_at).toBe(true);
  });

  it('applies every one of concurrent PUTs of different flags', async () => {
    await Promise.all([
      api.request('PUT', '/v1/policy', { key: keyB, body: { enforce_game: false } }),
      api.request('PUT', '/v1/policy', { key: keyB, body: { enforce_publisher: false } }),
      api.request('PUT', '/v1/policy', { key: keyB, body: { rep_include_global: false } }),
      api.request('PUT', '/v1/policy', { key: keyB, body: { enforce_cheat_global: false } }),
    ]);
    const res = await api.request('GET', '/v1/policy', { key: keyB });
    expect(res.body).toMatchObject({
      enforce_game: false,
      enforce_publisher: false,
      rep_include_global: false,
      enforce_cheat_global: false,
    });
    await api.request('PUT', '/v1/policy', { key: keyB, body: defaults });
  });

  it.each([
    [{ enforce_game: 'yes' }, 'enforce_game', 'invalid_type'],
    [{ enforce_game: 1 }, 'enforce_game', 'invalid_type'],
    [{ enforce_game: null }, 'enforce_game', 'invalid_type'],
    [{ enforce_everything: true }, 'enforce_everything', 'unknown_field'],
    [{ publisher_id: 'pub-b' }, 'publisher_id', 'unknown_field'],
    [{ updated_at: '2020-01-01T00:00:00Z' }, 'updated_at', 'unknown_field'],
    [[{ enforce_game: true }], 'body', 'invalid_type'],
    ['enforce_game', 'body', 'invalid_type'],
  ])('refuses %j with 400 naming %s, and changes nothing', async (body, field, issue) => {
    const before = await storedPolicy('pub-a');
    const res = await api.request('PUT', '/v1/policy', { key: keyA, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details).toContainEqual({ field, issue });
    expect(await storedPolicy('pub-a')).toEqual(before);
  });

  it('refuses a body that is not JSON with 400 invalid_json', async () => {
    const res = await api.request('PUT', '/v1/policy', {
      key: keyA,
      rawBody: '{"enforce_game": false',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it('refuses a body without a JSON content type with 415', async () => {
    const res = await api.request('PUT', '/v1/policy', {
      key: keyA,
      rawBody: '{"enforce_game": false}',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  it('refuses a body over 64 KiB with 413', async () => {
    const res = await api.request('PUT', '/v1/policy', {
      key: keyA,
      rawBody: JSON.stringify({ enforce_game: false, x: 'y'.repeat(66_000) }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });
});

describe('policy isolation', () => {
  it("never shows or changes another publisher's policy", async () => {
    const a = (await api.request('GET', '/v1/policy', { key: keyA })).body;
    const res = await api.request('PUT', '/v1/policy', { key: keyB, body: { enforce_global: false } });
    expect(res.body.publisher_id).toBe('pub-b');
    expect((await api.request('GET', '/v1/policy', { key: keyA })).body).toEqual(a);
    expect((await api.request('GET', '/v1/policy', { key: keyB })).body).toMatchObject({
      publisher_id: 'pub-b',
      enforce_global: false,
    });
    await api.request('PUT', '/v1/policy', { key: keyB, body: { enforce_global: true } });
  });

  it('ignores a publisher named in a query, header or body', async () => {
    const res = await api.request('GET', '/v1/policy?publisher_id=pub-a', { key: keyB });
    expect(res.status).toBe(400);
    const viaHeader = await api.request('GET', '/v1/policy', {
      key: keyB,
      headers: { 'X-Publisher-Id': 'pub-a' },
    });
    expect(viaHeader.body.publisher_id).toBe('pub-b');
  });
});
