import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitions } from '../../lib/storage/keys';
import { startWithPublishers, type TestApi } from '../support/fixtures';

/**
 * The key API: a `keys:manage` key makes, lists and revokes its own publisher's keys, never grants
 * more than it holds, never shows a secret after creation, and reaches no other publisher's keys.
 */

const PUBLISHERS = ['keys-a', 'keys-b', 'keys-c'] as const;
let api: TestApi;
let admin: Record<(typeof PUBLISHERS)[number], string>;

beforeAll(async () => {
  ({ api, keys: admin } = await startWithPublishers(PUBLISHERS));
});
afterAll(() => api?.close());

const keyItems = async () =>
  (await api.items()).filter((item) =>
    [partitions.apiKey, partitions.keyId].some((p) => String(item.pk).startsWith(p)),
  );

const make = (key: string, body: unknown) => api.request('POST', '/v1/keys', { key, body });

describe('POST /v1/keys', () => {
  it('answers 201 with the secret once; the new key works within its scopes and games only', async () => {
    const res = await make(admin['keys-a'], { name: 'reader', scopes: ['bans:read'], games: ['g1'] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      key_id: expect.stringMatching(/^key_[A-Za-z0-9_-]{12}$/),
      api_key: expect.stringMatching(/^bsk_[A-Za-z0-9_-]{43}$/),
      name: 'reader',
      scopes: ['bans:read'],
      games: ['g1'],
      created_at: expect.any(String),
      expires_at: null,
    });
    const reader = res.body.api_key as string;
    expect((await api.request('GET', '/v1/device/k-dev/bans', { key: reader, game: 'g1' })).status).toBe(200);
    expect((await api.request('GET', '/v1/device/k-dev/bans', { key: reader, game: 'g2' })).status).toBe(403);
    expect((await api.request('GET', '/v1/policy', { key: reader })).status).toBe(403);
    // Stored: the hash and the last 4 characters, never the key.
    expect(JSON.stringify(await api.items())).not.toContain(reader);
  });

  it('takes an expiry, normalised to UTC, and refuses one in the past with nothing made', async () => {
    const later = await make(admin['keys-a'], {
      name: 'temp',
      scopes: ['bans:read'],
      expires_at: '2099-01-01T02:00:00+02:00',
    });
    expect(later.status).toBe(201);
    expect(later.body.expires_at).toBe('2099-01-01T00:00:00.000Z');
    const before = (await keyItems()).length;
    const past = await make(admin['keys-a'], {
      name: 'temp',
      scopes: ['bans:read'],
      expires_at: '2020-01-01T00:00:00Z',
    });
    expect(past.status).toBe(400);
    expect(past.body.error.details).toEqual([{ field: 'expires_at', issue: 'in_past' }]);
    expect((await keyItems()).length).toBe(before);
  });

  it('never makes a key that outlives an expiring calling key: 400 on expires_at, nothing made', async () => {
    const temporary = (
      await make(admin['keys-a'], {
        name: 'temporary manager',
        scopes: ['keys:manage', 'bans:read'],
        expires_at: '2098-01-01T00:00:00Z',
      })
    ).body.api_key as string;
    const before = (await keyItems()).length;
    for (const body of [
      { name: 'forever', scopes: ['bans:read'] },
      { name: 'later', scopes: ['bans:read'], expires_at: '2099-01-01T00:00:00Z' },
    ]) {
      const res = await make(temporary, body);
      expect(res.status, body.name).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'expires_at', issue: 'not_held' }]);
    }
    expect((await keyItems()).length).toBe(before);
    const within = await make(temporary, {
      name: 'within',
      scopes: ['bans:read'],
      expires_at: '2097-06-01T00:00:00Z',
    });
    expect(within.status).toBe(201);
    expect(within.body.expires_at).toBe('2097-06-01T00:00:00.000Z');
  });

  it('never grants a scope or a game the calling key does not hold: 400 naming it, nothing made', async () => {
    const manager = (
      await make(admin['keys-a'], {
        name: 'manager',
        scopes: ['keys:manage', 'bans:read'],
        games: ['g1', 'g2'],
      })
    ).body.api_key as string;
    const before = (await keyItems()).length;
    for (const [body, field] of [
      [{ name: 'x', scopes: ['bans:write'], games: ['g1'] }, 'scopes'],
      [{ name: 'x', scopes: ['bans:read'] }, 'games'],
      [{ name: 'x', scopes: ['bans:read'], games: ['g1', 'g3'] }, 'games'],
    ] as const) {
      const res = await make(manager, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details).toEqual([{ field, issue: 'not_held' }]);
    }
    expect((await keyItems()).length).toBe(before);
    const within = await make(manager, { name: 'ok', scopes: ['bans:read'], games: ['g2'] });
    expect(within.status).toBe(201);
  });

  it.each([
    ['an unknown scope', { name: 'x', scopes: ['bans:everything'] }, 'scopes.0', 'invalid_value'],
    ['no scopes', { name: 'x', scopes: [] }, 'scopes', 'too_small'],
    ['a bad game id', { name: 'x', scopes: ['bans:read'], games: ['bad#game'] }, 'games.0', 'invalid_format'],
    ['a name over 64 characters', { name: 'n'.repeat(65), scopes: ['bans:read'] }, 'name', 'too_big'],
    ['no name', { scopes: ['bans:read'] }, 'name', 'required'],
    ['an unknown field', { name: 'x', scopes: ['bans:read'], admin: true }, 'admin', 'unknown_field'],
  ])('refuses %s with 400 naming the field, and makes nothing', async (_, body, field, issue) => {
    const before = (await keyItems()).length;
    const res = await make(admin['keys-a'], body);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field, issue });
    expect((await keyItems()).length).toBe(before);
  });

  it('needs keys:manage: a key without it gets 403 and makes nothing', async () => {
    const writer = (await make(admin['keys-a'], { name: 'w', scopes: ['bans:write'] })).body
      .api_key as string;
    const before = (await keyItems()).length;
    const res = await make(writer, { name: 'x', scopes: ['bans:write'] });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe('This key lacks the scope keys:manage');
    expect((await keyItems()).length).toBe(before);
  });
});

describe('GET /v1/keys', () => {
  it("lists the publisher's own keys with their last 4 characters, who made each, and no secret", async () => {
    const made = await make(admin['keys-b'], { name: 'listed', scopes: ['policy:read'] });
    const res = await api.request('GET', '/v1/keys', { key: admin['keys-b'] });
    expect(res.status).toBe(200);
    const listed = res.body.items.find((k: { key_id: string }) => k.key_id === made.body.key_id);
    // The calling key made it; the operator's keys tool made the calling key.
    const caller = res.body.items.find((k: { last4: string }) => admin['keys-b'].endsWith(k.last4));
    expect(caller.created_by).toEqual({ type: 'key', key_id: null, name: 'operator' });
    expect(listed).toEqual({
      key_id: made.body.key_id,
      name: 'listed',
      scopes: ['policy:read'],
      games: null,
      created_at: made.body.created_at,
      expires_at: null,
      revoked_at: null,
      last4: (made.body.api_key as string).slice(-4),
      created_by: { type: 'key', key_id: caller.key_id, name: caller.name },
      last_used_at: null,
    });
    // The calling key was just used.
    expect(caller.last_used_at).toEqual(expect.any(String));
    expect(res.text).not.toContain('bsk_');
    expect(res.text).not.toContain('key_hash');
  });
});

describe('POST /v1/keys/{key_id}/revoke', () => {
  it('revokes at once: the key is a 401 afterwards; again keeps the first time', async () => {
    const made = await make(admin['keys-c'], { name: 'short-lived', scopes: ['policy:read'] });
    const key = made.body.api_key as string;
    expect((await api.request('GET', '/v1/policy', { key })).status).toBe(200);
    const res = await api.request('POST', `/v1/keys/${made.body.key_id}/revoke`, { key: admin['keys-c'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key_id: made.body.key_id, revoked_at: expect.any(String) });
    expect((await api.request('GET', '/v1/policy', { key })).status).toBe(401);
    const again = await api.request('POST', `/v1/keys/${made.body.key_id}/revoke`, { key: admin['keys-c'] });
    expect(again.body.revoked_at).toBe(res.body.revoked_at);
  });

  it('answers 404 for an unknown key id, and 400 for a malformed one', async () => {
    expect(
      (await api.request('POST', '/v1/keys/key_AAAAAAAAAAAA/revoke', { key: admin['keys-c'] })).status,
    ).toBe(404);
    const bad = await api.request('POST', '/v1/keys/nope/revoke', { key: admin['keys-c'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ field: 'key_id', issue: 'invalid_format' }]);
  });
});

describe('tenant isolation, every ordered pair of publishers', () => {
  const pairs = PUBLISHERS.flatMap((owner) =>
    PUBLISHERS.filter((o) => o !== owner).map((other) => [owner, other] as const),
  );

  it.each(pairs)(
    '%s makes a key; %s can neither list it nor revoke it, and it keeps working',
    async (owner, other) => {
      const made = await make(admin[owner], { name: `of ${owner}`, scopes: ['policy:read'] });
      expect(made.status).toBe(201);
      const listed = await api.request('GET', '/v1/keys', { key: admin[other] });
      expect(listed.body.items.map((k: { key_id: string }) => k.key_id)).not.toContain(made.body.key_id);
      const revoke = await api.request('POST', `/v1/keys/${made.body.key_id}/revoke`, { key: admin[other] });
      expect(revoke.status).toBe(404);
      expect(revoke.body.error.code).toBe('not_found');
      const policy = await api.request('GET', '/v1/policy', { key: made.body.api_key });
      expect(policy.status).toBe(200);
      expect(policy.body.publisher_id).toBe(owner);
    },
  );
});

describe("listPublishers (the keys tool's quota --all)", () => {
  it('finds every publisher that has a key, once, whatever its number of keys', async () => {
    const { listPublishers } = await import('../../lib/domain/policy');
    await make(admin['keys-a'], { name: 'second', scopes: ['bans:read'] });
    const found = await listPublishers();
    for (const publisher of PUBLISHERS) expect(found.filter((p) => p === publisher)).toEqual([publisher]);
  });
});

describe('last_used_at in GET /v1/keys', () => {
  const listed = async (publisher: (typeof PUBLISHERS)[number], keyId: string) =>
    (
      (await api.request('GET', '/v1/keys?limit=200', { key: admin[publisher] })).body.items as Array<{
        key_id: string;
        last_used_at: string | null;
      }>
    ).find((k) => k.key_id === keyId);

  it('is null until the key is used, then noted at most once per 5 minutes on its lookup item, and shown to its publisher only', async () => {
    const made = await make(admin['keys-b'], { name: 'usage', scopes: ['policy:read'] });
    expect(made.status).toBe(201);
    const { key_id: keyId, api_key: key } = made.body as { key_id: string; api_key: string };
    expect((await listed('keys-b', keyId))?.last_used_at).toBeNull();

    expect((await api.request('GET', '/v1/policy', { key })).status).toBe(200);
    const first = (await listed('keys-b', keyId))?.last_used_at;
    expect(first).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const lookup = (await api.items({ keyUse: true })).filter(
      (item) => String(item.pk).startsWith(partitions.apiKey) && item.key_id === keyId,
    );
    expect(lookup).toEqual([expect.objectContaining({ last_used_at: first })]);

    // Used again within 5 minutes: nothing written.
    expect((await api.request('GET', '/v1/policy', { key })).status).toBe(200);
    expect((await listed('keys-b', keyId))?.last_used_at).toBe(first);

    // Six minutes on (the API's clock): the use is noted again.
    api.setClockOffset(6 * 60_000);
    try {
      expect((await api.request('GET', '/v1/policy', { key })).status).toBe(200);
      const later = (await listed('keys-b', keyId))?.last_used_at ?? '';
      expect(Date.parse(later) - Date.parse(first ?? '')).toBeGreaterThanOrEqual(6 * 60_000);
    } finally {
      api.setClockOffset(0);
    }
    // Another publisher lists none of it.
    expect(await listed('keys-c', keyId)).toBeUndefined();
  });
});
