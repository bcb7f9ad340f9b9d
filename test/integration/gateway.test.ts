import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithPublisher, type TestApi } from '../support/fixtures';

let api: TestApi;
let key: string;

beforeAll(async () => {
  ({ api, key } = await startWithPublisher('pub-gw'));
});
afterAll(() => api?.close());

describe('the local gateway', () => {
  it('answers GET /health with ok and no authentication', async () => {
    const res = await api.request('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route 404 not_found in the envelope', async () => {
    const res = await api.request('GET', '/v1/nothing-here', { key });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: { code: 'not_found', message: expect.any(String) },
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('answers a known path with a wrong method 405 with Allow', async () => {
    const res = await api.request('DELETE', '/v1/policy', { key });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, PUT');
    expect(res.body.error.code).toBe('method_not_allowed');
  });

  it('answers 405 for GET on the create route', async () => {
    const res = await api.request('GET', '/v1/bans', { key, game: 'g' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('authentication', () => {
  const refused = async (headers: Record<string, string>) => {
    const res = await api.request('GET', '/v1/policy', { headers });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  };

  it('refuses a request without Authorization', () => refused({}));
  it('refuses a header that is not Bearer <key>', () => refused({ Authorization: `Basic ${key}` }));
  it('refuses Bearer with two spaces', () => refused({ Authorization: `Bearer  ${key}` }));
  it('refuses a well-formed but unknown key', () =>
    refused({ Authorization: `Bearer bsk_${'x'.repeat(43)}` }));
  it('refuses a key that is not in the key format', () => refused({ Authorization: 'Bearer hunter2' }));

  it('refuses a revoked key, which worked before', async () => {
    const made = await api.createKey('pub-revoked');
    expect((await api.request('GET', '/v1/policy', { key: made.api_key })).status).toBe(200);
    await api.revokeKey(made.key_id);
    await refused({ Authorization: `Bearer ${made.api_key}` });
    // The publisher's other keys keep working.
    const other = await api.createKey('pub-revoked');
    expect((await api.request('GET', '/v1/policy', { key: other.api_key })).status).toBe(200);
  });

  it('takes the scheme in any case', async () => {
    const res = await api.request('GET', '/v1/policy', { headers: { Authorization: `bearer ${key}` } });
    expect(res.status).toBe(200);
  });
});
