import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_EXPIRY } from '../../lib/model/requests';
import { startTestApi, type TestApi } from '../support/api';
import { banBody } from '../support/fixtures';

/**
 * Every id, position and cursor the API decodes, and every date it takes, at the edges a fuzzer
 * reaches: numbers past 2^53 - 1 (where two numbers share one double), forged cursors, dates past
 * year 9999 in UTC, leap seconds, normalisation that grows a URL. Each is one clear 400 naming the
 * field, and nothing is stored.
 */

let api: TestApi;
let key: string;
beforeAll(async () => {
  api = await startTestApi();
  key = (await api.createKey('pub-decoders', 'decoders')).api_key;
});
afterAll(() => api?.close());

const feedCursor = (publisher: string, game: string, positions: string) => {
  const tag = createHash('sha256').update(`${publisher}\n${game}`).digest('base64url').slice(0, 12);
  return Buffer.from(`f1.${tag}.${positions}`).toString('base64url');
};

describe('positions and ids past 2^53 - 1', () => {
  it.each([
    ['a position past the last one', '9999999999999999.0.0'],
    ['a position past 2^53 - 1', '9007199254740993.0.0'],
    ['the last position itself, after which nothing can come', '9007199254740991.0.0'],
    ['the largest 16-digit position in another partition', '0.0.9999999999999999'],
  ])('refuses a forged feed cursor with %s as invalid (400, not 500)', async (_name, positions) => {
    const res = await api.request('GET', `/v1/events?cursor=${feedCursor('pub-decoders', 'g1', positions)}`, {
      key,
      game: 'g1',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'cursor', issue: 'invalid' }]);
  });

  it('decodes a cursor just before the last position, then refuses it as ahead of this feed', async () => {
    const res = await api.request(
      'GET',
      `/v1/events?cursor=${feedCursor('pub-decoders', 'g1', '9007199254740990.0.0')}`,
      {
        key,
        game: 'g1',
      },
    );
    // Decoded (not `invalid`), then judged by the feed: no partition here reaches that far.
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'cursor', issue: 'ahead_of_feed' }]);
  });

  it.each([
    ['9007199254740992'],
    ['9007199254740993'],
    ['12345678901234567'],
    ['99999999999999999999999999'],
  ])('answers a ban listing cursor of %s with one too_big issue', async (cursor) => {
    const res = await api.request('GET', `/v1/device/d-1/bans/cheat?cursor=${cursor}`, { key, game: 'g1' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'cursor', issue: 'too_big' }]);
  });

  it.each([['9007199254740993'], ['12345678901234567']])(
    'answers a ban_id of %s with one too_big issue, revoking nothing',
    async (banId) => {
      const before = await api.items();
      const res = await api.request('POST', `/v1/device/d-1/bans/${banId}/revoke`, {
        key,
        game: 'g1',
        body: { reason_code: 'r' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'ban_id', issue: 'too_big' }]);
      expect(await api.items()).toEqual(before);
    },
  );

  it.each([['-1'], ['1e3'], ['NaN'], ['0x10'], ['']])(
    'answers a cursor of %j as not an integer',
    async (cursor) => {
      const res = await api.request('GET', `/v1/device/d-1/bans/cheat?cursor=${cursor}`, { key, game: 'g1' });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'cursor', issue: 'invalid_format' }]);
    },
  );
});

describe('expiry dates', () => {
  it.each([
    ['9999-12-31T23:59:59-23:59'],
    ['9999-12-31T23:59:59.9999999999Z'.replace(/\d{10}Z$/, '999000001-00:01')],
  ])(
    'refuses %s, after the latest date in UTC, as too_big naming that date, storing nothing',
    async (expiresAt) => {
      const before = await api.items();
      const res = await api.request('POST', '/v1/bans', {
        key,
        game: 'g1',
        body: banBody({ device_id: 'd-late', expires_at: expiresAt }),
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'expires_at', issue: 'too_big' }]);
      expect(res.body.error.message).toContain(LATEST_EXPIRY);
      expect(await api.items()).toEqual(before);
    },
  );

  it('accepts the latest date itself', async () => {
    const res = await api.request('POST', '/v1/bans', {
      key,
      game: 'g1',
      body: banBody({ device_id: 'd-latest', expires_at: '9999-12-31T23:59:59.999Z' }),
    });
    expect(res.status).toBe(201);
    const listed = await api.request('GET', '/v1/device/d-latest/bans/cheat', { key, game: 'g1' });
    expect(listed.body.items.map((b: { expires_at: string }) => b.expires_at)).toEqual([LATEST_EXPIRY]);
  });

  it.each([
    ['a leap second', '2030-06-30T23:59:60Z'],
    ['ten fraction digits', '2030-01-01T00:00:00.0123456789Z'],
  ])('refuses %s as the documented narrower format, storing nothing', async (_name, expiresAt) => {
    const before = await api.items();
    const res = await api.request('POST', '/v1/bans', {
      key,
      game: 'g1',
      body: banBody({ device_id: 'd-format', expires_at: expiresAt }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'expires_at', issue: 'invalid_format' }]);
    expect(await api.items()).toEqual(before);
  });

  it("refuses a key's expiry after the latest date the same way", async () => {
    const res = await api.request('POST', '/v1/keys', {
      key,
      body: { name: 'late', scopes: ['bans:read'], expires_at: '9999-12-31T23:59:59-23:59' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'expires_at', issue: 'too_big' }]);
  });
});

describe('webhook URLs', () => {
  it('checks the 2,048-character limit on the normalised URL, the one stored and called', async () => {
    // 1,000 characters as sent; each é becomes %C3%A9 once normalised: over 6,000.
    const url = `https://hooks.example.com/${'é'.repeat(1000)}`;
    expect(url.length).toBeLessThan(2048);
    expect(new URL(url).href.length).toBeGreaterThan(2048);
    const before = await api.items();
    const res = await api.request('POST', '/v1/webhooks', { key, body: { url } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'url', issue: 'not_allowed' }]);
    expect(res.body.error.message).toMatch(/once normalised/);
    expect(await api.items()).toEqual(before);
    const listed = await api.request('GET', '/v1/webhooks', { key });
    expect(listed.body.items).toEqual([]);
  });
});

describe('listing cursors, bound to their reader', () => {
  const other = 'pub-decoders-other';
  let otherKey: string;
  /** Each listing with a second page for pub-decoders, and a position made up as a cursor. */
  const listings = [
    ['the keys', '/v1/keys?limit=1', 'k1.key_AAAAAAAAAAAA'],
    ['the audit trail', '/v1/audit?limit=1', '2026-01-01T00:00:00.000Z#evt_AAAAAAAAAAAAAAAAAAAAAAAA'],
    ['the banned devices', '/v1/devices?limit=1', 'cur-dev-1'],
    [
      'the appeals',
      '/v1/appeals?status=all&limit=1',
      'OPEN#2026-01-01T00:00:00.000Z#apl_AAAAAAAAAAAAAAAAAAAAAA',
    ],
  ] as const;
  const cursorText = (cursor: string) => Buffer.from(cursor, 'base64url').toString();
  const asCursor = (text: string) => Buffer.from(text).toString('base64url');

  beforeAll(async () => {
    otherKey = (await api.createKey(other, 'decoders')).api_key;
    for (const [owner, ownerKey] of [
      ['pub-decoders', key],
      [other, otherKey],
    ] as const) {
      await api.createKey(owner, 'second');
      for (const device of ['cur-dev-1', 'cur-dev-2']) {
        const ban = await api.request('POST', '/v1/bans', {
          key: ownerKey,
          game: 'g1',
          body: banBody({ device_id: device, scope: 'global' }),
        });
        expect(ban.status).toBe(201);
        const appeal = await api.request('POST', '/v1/appeals', {
          key: ownerKey,
          game: 'g1',
          body: { device_id: device, ban_id: ban.body.ban_id, message: 'not me' },
        });
        expect(appeal.status, JSON.stringify(appeal.body)).toBe(201);
      }
    }
  });

  const firstPage = async (path: string, reader = key) => {
    const res = await api.request('GET', path, { key: reader });
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toEqual(expect.any(String));
    return res.body as { items: unknown[]; next_cursor: string };
  };
  const refused = async (path: string, cursor: string, reader = key) => {
    const res = await api.request('GET', `${path}&cursor=${cursor}`, { key: reader });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'cursor', issue: 'invalid' }]);
  };

  it.each(listings)('reads %s on from the cursor it returned', async (_name, path) => {
    const first = await firstPage(path);
    const next = await api.request('GET', `${path}&cursor=${first.next_cursor}`, { key });
    expect(next.status).toBe(200);
    expect(next.body.items).toHaveLength(1);
    expect(next.body.items).not.toEqual(first.items);
  });

  it.each(listings)(
    'refuses a well-formed position made up as a cursor for %s',
    async (_name, path, made) => {
      await refused(path, asCursor(made));
      await refused(path, asCursor(`c1.AAAAAAAAAAAAAAAA.${made}`));
    },
  );

  it.each(listings)("refuses another publisher's cursor for %s", async (_name, path) => {
    const theirs = await firstPage(path, otherKey);
    await refused(path, theirs.next_cursor);
    const ours = await firstPage(path);
    await refused(path, ours.next_cursor, otherKey);
  });

  it.each(listings)('refuses a cursor for %s whose position was edited', async (_name, path) => {
    const ours = await firstPage(path);
    const [version, tag, ...rest] = cursorText(ours.next_cursor).split('.');
    const position = rest.join('.');
    // Another position of the same form: its last character changed.
    const edited = `${position.slice(0, -1)}${position.endsWith('A') ? 'B' : 'A'}`;
    await refused(path, asCursor(`${version}.${tag}.${edited}`));
  });
});
