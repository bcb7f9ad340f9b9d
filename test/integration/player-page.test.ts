import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';

/**
 * The player's page (docs/player-rights.md): a key mints a link for one device in one game; the
 * link, and nothing the request says, decides what the page reads; the table keeps only the
 * secret's hash; an unknown, altered or ended link opens nothing; a player's appeal through it is
 * one per ban, a repeat answering the first.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterEach(() => api?.setClockOffset(0));
afterAll(() => api?.close());

let n = 0;
const unique = (prefix: string) => {
  n += 1;
  return `${prefix}-${Date.now().toString(36)}-${n}`;
};
const publisher = async () => {
  const id = unique('pp');
  return { id, key: (await api.createKey(id, 'player page test')).api_key };
};
const ban = async (key: string, body: Record<string, unknown>, game = 'g1') => {
  const res = await api.request('POST', '/v1/bans', {
    key,
    game,
    body: { ban_type: 'cheat', scope: 'game', reason_code: 'aimbot', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.ban_id as number;
};
const mint = (key: string, body: Record<string, unknown>, game = 'g1') =>
  api.request('POST', '/v1/player-links', { key, game, body });
const page = (secret: string, extra: Record<string, string> = {}) =>
  api.request('GET', '/v1/player/restrictions', { headers: { 'X-Player-Link': secret, ...extra } });
const appeal = (secret: string, body: Record<string, unknown>) =>
  api.request('POST', '/v1/player/appeals', {
    headers: { 'X-Player-Link': secret },
    body: { message: 'It was not me: my brother played that evening.', ...body },
  });
const linkItems = async () => (await api.items()).filter((item) => String(item.pk).startsWith('PLAYERLINK#'));
const appealItems = async () => (await api.items()).filter((item) => String(item.pk).startsWith('APPEAL#'));

describe("the player's page", () => {
  it("shows the device's restrictions in force in the link's game, with their statements, and nothing private", async () => {
    const owner = await publisher();
    const device = unique('dev');
    const shown = await ban(owner.key, {
      device_id: device,
      player_message: 'Banned for aim assistance software.',
      details: { clip: 'private-evidence' },
      expires_at: '2099-01-01T00:00:00.000Z',
    });
    // Another game's ban, another device's ban and a revoked ban: none is this page's.
    await ban(owner.key, { device_id: device, reason_code: 'wallhack' }, 'g2');
    await ban(owner.key, { device_id: unique('other') });
    const revoked = await ban(owner.key, { device_id: device, ban_type: 'social', reason_code: 'spam' });
    const revoke = await api.request('POST', `/v1/device/${device}/bans/${revoked}/revoke`, {
      key: owner.key,
      game: 'g1',
      body: { reason_code: 'mistake' },
    });
    expect(revoke.status).toBe(200);

    const minted = await mint(owner.key, { device_id: device });
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    expect(minted.body).toMatchObject({ device_id: device, game_id: 'g1', appeal: false });
    expect(minted.body.path).toBe(`/player/#${minted.body.secret}`);

    // The table keeps the secret's hash, never the secret.
    const items = await linkItems();
    const hash = createHash('sha256').update(minted.body.secret).digest('hex');
    expect(items.map((item) => item.pk)).toContain(`PLAYERLINK#${hash}`);
    expect(JSON.stringify(items)).not.toContain(minted.body.secret);

    const res = await page(minted.body.secret);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ device_id: device, game_id: 'g1', can_appeal: false });
    expect(res.body.restrictions.map((r: { ban_id: number }) => r.ban_id)).toEqual([shown]);
    const [restriction] = res.body.restrictions;
    expect(restriction).toMatchObject({
      ban_type: 'cheat',
      scope: 'game',
      in_force: true,
      expires_at: '2099-01-01T00:00:00.000Z',
      player_message: 'Banned for aim assistance software.',
      can_appeal: false,
      appeal: null,
    });
    expect(restriction.statement).toMatchObject({ ground: 'terms', automated_decision: 'fully' });
    // Never the owner, the reason code, the details or who made it.
    expect(res.text).not.toContain('private-evidence');
    expect(res.text).not.toContain(owner.id);
    expect(Object.keys(restriction)).not.toContain('details_json');
  });

  it("reads in the player's language where the ban has it: Accept-Language, then ?locale", async () => {
    const owner = await publisher();
    const catalogue = await api.request('PUT', '/v1/reasons', {
      key: owner.key,
      body: {
        strict_reasons: false,
        reasons: [
          {
            code: 'aimbot',
            label: 'Aim assistance',
            ban_type: 'cheat',
            scope: 'game',
            duration_seconds: null,
            player_message: 'This device is banned for using cheat software.',
            statement: { facts: 'Our anti-cheat found aim-assistance software on this device.' },
            translations: {
              de: {
                player_message: 'Dieses Gerät ist wegen Cheat-Software gesperrt.',
                facts: 'Unser Anti-Cheat hat Zielhilfe-Software auf diesem Gerät gefunden.',
              },
            },
          },
        ],
      },
    });
    expect(catalogue.status, JSON.stringify(catalogue.body)).toBe(200);
    const device = unique('dev');
    // As the console's form sends it: the reason's message, so the reason's translations come with it.
    await ban(owner.key, {
      device_id: device,
      player_message: 'This device is banned for using cheat software.',
    });
    const { secret } = (await mint(owner.key, { device_id: device })).body;
    const german = await page(secret, { 'Accept-Language': 'de-AT,de;q=0.9,en;q=0.5' });
    expect(german.status).toBe(200);
    expect(german.body.restrictions[0]).toMatchObject({
      message_locale: 'de',
      player_message: 'Dieses Gerät ist wegen Cheat-Software gesperrt.',
      statement: { facts: 'Unser Anti-Cheat hat Zielhilfe-Software auf diesem Gerät gefunden.' },
    });
    expect(german.headers.get('content-language')).toBe('de');
    expect(german.headers.get('vary')).toBe('Accept-Language');
    const french = await page(secret, { 'Accept-Language': 'fr-FR' });
    expect(french.body.restrictions[0]).toMatchObject({
      message_locale: 'en',
      player_message: 'This device is banned for using cheat software.',
    });
    const asked = await api.request('GET', '/v1/player/restrictions?locale=de', {
      headers: { 'X-Player-Link': secret, 'Accept-Language': 'en' },
    });
    expect(asked.body.restrictions[0].message_locale).toBe('de');
  });

  it("shows another publisher's global ban only as the link's publisher's policy enforces it", async () => {
    const [owner, other] = [await publisher(), await publisher()];
    const device = unique('dev');
    await ban(other.key, { device_id: device, scope: 'global', ban_type: 'social' }, 'their-game');
    // The default policy does not enforce social global bans: not a restriction in this game.
    const minted = await mint(owner.key, { device_id: device });
    expect((await page(minted.body.secret)).body.restrictions).toEqual([]);
    const trusted = await api.request('PUT', '/v1/policy', {
      key: owner.key,
      body: { enforce_social_global: true },
    });
    expect(trusted.status, JSON.stringify(trusted.body)).toBe(200);
    const res = await page(minted.body.secret);
    expect(res.body.restrictions).toHaveLength(1);
    expect(res.body.restrictions[0]).toMatchObject({ scope: 'global', in_force: true });
    expect(res.text).not.toContain(other.id);
  });

  it('reads only what the link names: a device or game the request names is refused, not read', async () => {
    const owner = await publisher();
    const [device, victim] = [unique('dev'), unique('victim')];
    const victimBan = await ban(owner.key, { device_id: victim });
    const minted = await mint(owner.key, { device_id: device, appeal: true });
    const asked = await api.request('GET', `/v1/player/restrictions?device_id=${victim}`, {
      headers: { 'X-Player-Link': minted.body.secret },
    });
    expect(asked.status).toBe(400);
    expect(asked.body.error.details).toEqual([{ field: 'device_id', issue: 'unknown_field' }]);
    const withGame = await page(minted.body.secret, { 'X-Game-Id': 'g2' });
    expect(withGame.status).toBe(200);
    expect(withGame.body).toMatchObject({ device_id: device, game_id: 'g1', restrictions: [] });
    // Another device's ban, by its id: not on this page, so not this link's to appeal.
    const before = await appealItems();
    const filed = await appeal(minted.body.secret, { ban_id: victimBan });
    expect(filed.status).toBe(404);
    expect(await appealItems()).toEqual(before);
  });

  it('opens nothing with a missing, altered or ended link, each the same 401', async () => {
    const owner = await publisher();
    const device = unique('dev');
    await ban(owner.key, { device_id: device });
    const minted = await mint(owner.key, { device_id: device, expires_in_seconds: 60 });
    const secret: string = minted.body.secret;
    const last = secret.at(-1) === 'A' ? 'B' : 'A';
    const altered = `${secret.slice(0, -1)}${last}`;
    for (const res of [
      await api.request('GET', '/v1/player/restrictions'),
      await page('bpl_short'),
      await page(altered),
      // An API key is not a link.
      await api.request('GET', '/v1/player/restrictions', { key: owner.key }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('PlayerLink');
    }
    expect((await page(secret)).status).toBe(200);
    api.setClockOffset(61_000);
    const ended = await page(secret);
    expect(ended.status).toBe(401);
    expect(ended.body.error.message).toBe('This link is unknown or has ended: ask the game for a new one');
    expect((await appeal(secret, { ban_id: 1 })).status).toBe(401);
  });

  it('ends with the key that minted it: revoked, the same 401 at once', async () => {
    const owner = await publisher();
    const server = await api.createKey(owner.id, 'game server', { scopes: ['bans:read', 'appeals:write'] });
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device });
    const { secret } = (await mint(server.api_key, { device_id: device, appeal: true })).body;
    expect((await page(secret)).status).toBe(200);
    const revoked = await api.request('POST', `/v1/keys/${server.key_id}/revoke`, { key: owner.key });
    expect(revoked.status).toBe(200);
    const before = await appealItems();
    for (const res of [await page(secret), await appeal(secret, { ban_id: banId })]) {
      expect(res.status).toBe(401);
      expect(res.body.error.message).toBe('This link is unknown or has ended: ask the game for a new one');
    }
    expect(await appealItems()).toEqual(before);
    // A link of the owner's key still opens the page.
    expect((await page((await mint(owner.key, { device_id: device })).body.secret)).status).toBe(200);
  });

  it('is minted only by a key that may read bans in that game, and appeals only with appeals:write', async () => {
    const owner = await publisher();
    const reader = (await api.createKey(owner.id, 'reader', { scopes: ['bans:read'], games: ['g1'] }))
      .api_key;
    const writer = (await api.createKey(owner.id, 'writer', { scopes: ['appeals:write'] })).api_key;
    const before = await linkItems();
    const device = unique('dev');
    expect((await mint(reader, { device_id: device }, 'g2')).status).toBe(403);
    expect((await mint(writer, { device_id: device })).status).toBe(403);
    const refused = await mint(reader, { device_id: device, appeal: true });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      'A link that lets the player appeal needs the scope appeals:write',
    );
    for (const body of [
      { device_id: device, expires_in_seconds: 59 },
      { device_id: device, expires_in_seconds: 86_401 },
      { device_id: '' },
      { device_id: device, game_id: 'g2' },
    ]) {
      const res = await mint(owner.key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    expect(await linkItems()).toEqual(before);
    expect((await mint(reader, { device_id: device })).status).toBe(201);
  });
});

describe("the player's appeal through the page", () => {
  it('is filed once as the publisher from the game, recorded as through the link; a replay answers the first', async () => {
    const [owner, other] = [await publisher(), await publisher()];
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device });
    const minted = await mint(owner.key, { device_id: device, appeal: true });
    const secret: string = minted.body.secret;
    expect((await page(secret)).body.restrictions[0]).toMatchObject({ can_appeal: true, appeal: null });

    const filed = await appeal(secret, { ban_id: banId, contact: 'player@example.com' });
    expect(filed.status, JSON.stringify(filed.body)).toBe(201);
    expect(filed.body).toMatchObject({ result: 'created', appeal: { status: 'open', outcome: null } });
    const appealId: string = filed.body.appeal.appeal_id;

    // Replayed (a second tap, a retry, the same request sent again): the first appeal, nothing new.
    const replay = await appeal(secret, { ban_id: banId, message: 'Other words this time.' });
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ result: 'idempotent_ok', appeal: { appeal_id: appealId } });
    const stored = (await appealItems()).filter((item) => item.pk === `APPEAL#${appealId}`);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      player_link_id: minted.body.link_id,
      filer_publisher_id: owner.id,
      filer_game_id: 'g1',
      message: 'It was not me: my brother played that evening.',
    });
    // A new link for the same device: the ban is appealed already.
    const again = await mint(owner.key, { device_id: device, appeal: true });
    expect((await appeal(again.body.secret, { ban_id: banId })).status).toBe(409);

    // The owner's queue shows it as the player's, and the page shows it open.
    const queued = await api.request('GET', `/v1/appeals/${appealId}`, { key: owner.key });
    expect(queued.body).toMatchObject({ player_link_id: minted.body.link_id, contact: 'player@example.com' });
    expect((await page(secret)).body.restrictions[0]).toMatchObject({
      can_appeal: false,
      appeal: { appeal_id: appealId, status: 'open' },
    });
    const audit = await api.request('GET', '/v1/audit?type=appeal.created', { key: owner.key });
    expect(audit.body.items[0]).toMatchObject({ actor: { type: 'key', name: 'player page test' } });
    // Another publisher sees none of it.
    expect((await api.request('GET', `/v1/appeals/${appealId}`, { key: other.key })).status).toBe(404);
    expect((await api.request('GET', '/v1/appeals', { key: other.key })).body.items).toEqual([]);
  });

  it('shows the outcome once decided, the lifted ban no longer in force', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device });
    const { secret } = (await mint(owner.key, { device_id: device, appeal: true })).body;
    const filed = await appeal(secret, { ban_id: banId });
    const decided = await api.request('POST', `/v1/appeals/${filed.body.appeal.appeal_id}/decision`, {
      key: owner.key,
      body: { outcome: 'overturned', note: 'private note', player_message: 'Your ban was lifted.' },
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    const res = await page(secret);
    expect(res.body.restrictions).toHaveLength(1);
    expect(res.body.restrictions[0]).toMatchObject({
      ban_id: banId,
      in_force: false,
      can_appeal: false,
      appeal: { status: 'decided', outcome: 'overturned', player_message: 'Your ban was lifted.' },
    });
    expect(res.text).not.toContain('private note');
  });

  it('is refused through a link without appeal, and bad input stores nothing', async () => {
    const owner = await publisher();
    const device = unique('dev');
    const banId = await ban(owner.key, { device_id: device });
    const readOnly = (await mint(owner.key, { device_id: device })).body.secret;
    const before = await appealItems();
    const refused = await appeal(readOnly, { ban_id: banId });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('This link does not let the player appeal');
    const { secret } = (await mint(owner.key, { device_id: device, appeal: true })).body;
    for (const body of [
      { ban_id: banId, message: 'x'.repeat(2001) },
      { ban_id: 0 },
      { ban_id: banId, device_id: 'x' },
    ]) {
      const res = await appeal(secret, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(await appealItems()).toEqual(before);
  });
});
