import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';

/**
 * A ban's texts in the player's language (docs/api.md#languages): the catalogue holds a reason's
 * player message and statement texts per language; a ban made from it carries the translations of
 * the texts the create did not write itself; every answer that carries bans picks one per ban by
 * `?locale=`, else Accept-Language (RFC 4647 lookup), else the ban's own language, field by field.
 * Another publisher reads a global ban in the owner's translations, never the translations map
 * (nor the details); a bad locale or an over-long translation is a 400 that stores nothing.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

let n = 0;
const unique = (prefix: string) => {
  n += 1;
  return `${prefix}-${Date.now().toString(36)}-${n}`;
};
const publisher = async () => {
  const id = unique('loc');
  return { id, key: (await api.createKey(id, 'locales test')).api_key };
};

const GERMAN = {
  label: 'Zielhilfe',
  player_message: 'Dieses Gerät ist wegen Cheat-Software gesperrt.',
  facts: 'Unser Anti-Cheat hat Zielhilfe-Software auf diesem Gerät gefunden.',
  terms_clause: 'Nutzungsbedingungen, 7.3: keine Cheat-Software',
};
const ENGLISH = {
  player_message: 'This device is banned for using cheat software.',
  facts: 'Our anti-cheat found aim-assistance software on this device.',
  terms_clause: 'Terms of service, 7.3: no cheat software',
};

const putCatalogue = (key: string, extra: Record<string, unknown> = {}) =>
  api.request('PUT', '/v1/reasons', {
    key,
    body: {
      strict_reasons: false,
      reasons: [
        {
          code: 'aimbot',
          label: 'Aim assistance',
          ban_type: 'cheat',
          scope: 'global',
          duration_seconds: null,
          player_message: ENGLISH.player_message,
          statement: { facts: ENGLISH.facts, terms_clause: ENGLISH.terms_clause },
          translations: { de: GERMAN },
        },
      ],
      ...extra,
    },
  });

const create = (key: string, body: Record<string, unknown>, game = 'g1') =>
  api.request('POST', '/v1/bans', {
    key,
    game,
    body: { ban_type: 'cheat', scope: 'global', reason_code: 'aimbot', ...body },
  });

const storedBans = async (device: string) =>
  (await api.items()).filter((item) => item.pk === `DEVICE#${device}` && String(item.sk).startsWith('BAN#'));

describe('a ban made from a catalogue reason with a German translation', () => {
  it('answers German for Accept-Language de-AT,de;q=0.9 and for ?locale=de, English without', async () => {
    const owner = await publisher();
    const catalogue = await putCatalogue(owner.key);
    expect(catalogue.status, JSON.stringify(catalogue.body)).toBe(200);
    expect(catalogue.body.default_locale).toBe('en');
    expect(catalogue.body.reasons[0].translations).toEqual({ de: GERMAN });

    const device = unique('dev');
    // The console's form sends the reason's message as it is: the reason's, so translated.
    const made = await create(owner.key, { device_id: device, player_message: ENGLISH.player_message });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    // Stored with the ban: a read never needs the catalogue.
    const [item] = await storedBans(device);
    expect(item?.translations).toEqual({
      de: { player_message: GERMAN.player_message, facts: GERMAN.facts, terms_clause: GERMAN.terms_clause },
    });

    const german = await api.request('GET', `/v1/device/${device}/bans`, {
      key: owner.key,
      game: 'g1',
      headers: { 'Accept-Language': 'de-AT,de;q=0.9' },
    });
    expect(german.status).toBe(200);
    const [ban] = german.body.items;
    expect(ban.message_locale).toBe('de');
    expect(ban.player_message).toBe(GERMAN.player_message);
    expect(ban.statement.facts).toBe(GERMAN.facts);
    expect(ban.statement.terms_clause).toBe(GERMAN.terms_clause);
    expect(german.headers.get('vary')).toBe('Accept-Language');
    expect(german.headers.get('content-language')).toBe('de');
    // The owner reads the translations themselves in a listing.
    expect(ban.translations).toEqual(item?.translations);

    const byParameter = await api.request('GET', `/v1/device/${device}/enforcement?locale=de`, {
      key: owner.key,
      game: 'g1',
      headers: { 'Accept-Language': 'en' },
    });
    expect(byParameter.status).toBe(200);
    expect(byParameter.body.bans[0].message_locale).toBe('de');
    expect(byParameter.body.bans[0].player_message).toBe(GERMAN.player_message);
    // The hot path answers the picked language alone.
    expect(byParameter.body.bans[0].translations).toBeNull();
    expect(byParameter.headers.get('content-language')).toBe('de');

    const english = await api.request('GET', `/v1/device/${device}/bans`, { key: owner.key, game: 'g1' });
    expect(english.body.items[0]).toMatchObject({
      message_locale: 'en',
      player_message: ENGLISH.player_message,
      statement: { facts: ENGLISH.facts, terms_clause: ENGLISH.terms_clause },
    });
    expect(english.headers.get('vary')).toBe('Accept-Language');

    // The feed's ban events read the same way.
    await api.settle();
    const feed = await api.request('GET', '/v1/events?limit=500&locale=de', { key: owner.key, game: 'g1' });
    expect(feed.status).toBe(200);
    const event = feed.body.items.find((e: { device_id: string }) => e.device_id === device);
    expect(event.ban).toMatchObject({ message_locale: 'de', player_message: GERMAN.player_message });
    expect(feed.headers.get('vary')).toBe('Accept-Language');

    const batch = await api.request('POST', '/v1/enforcement/batch', {
      key: owner.key,
      game: 'g1',
      headers: { 'Accept-Language': 'fr, de;q=0.5' },
      body: { device_ids: [device] },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results[0].bans[0]).toMatchObject({
      message_locale: 'de',
      player_message: GERMAN.player_message,
    });
  });

  it("keeps the create's own player_message: the catalogue's translation of another text never replaces it", async () => {
    const owner = await publisher();
    expect((await putCatalogue(owner.key)).status).toBe(200);
    const device = unique('dev');
    const own = 'Banned: aim assistance in match m-77.';
    const made = await create(owner.key, { device_id: device, player_message: own });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const res = await api.request('GET', `/v1/device/${device}/bans?locale=de`, {
      key: owner.key,
      game: 'g1',
    });
    const [ban] = res.body.items;
    // Its own message stays; the texts it took from the catalogue read in German.
    expect(ban.player_message).toBe(own);
    expect(ban.statement.facts).toBe(GERMAN.facts);
    expect(ban.message_locale).toBe('de');
    expect(ban.translations.de.player_message).toBeUndefined();
  });

  it('translates the statement of a ban made without a player_message, which has none to translate', async () => {
    const owner = await publisher();
    expect((await putCatalogue(owner.key)).status).toBe(200);
    const device = unique('dev');
    expect((await create(owner.key, { device_id: device })).status).toBe(201);
    const res = await api.request('GET', `/v1/device/${device}/bans?locale=de`, {
      key: owner.key,
      game: 'g1',
    });
    expect(res.body.items[0]).toMatchObject({
      message_locale: 'de',
      player_message: null,
      statement: { facts: GERMAN.facts, terms_clause: GERMAN.terms_clause },
    });
  });

  it("takes the create's own translations over the catalogue's", async () => {
    const owner = await publisher();
    expect((await putCatalogue(owner.key)).status).toBe(200);
    const device = unique('dev');
    const made = await create(owner.key, {
      device_id: device,
      player_message: ENGLISH.player_message,
      translations: { de: { facts: 'Zielhilfe in Match m-77.' }, fr: { player_message: 'Appareil banni.' } },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const [item] = await storedBans(device);
    expect(item?.translations).toEqual({
      de: {
        player_message: GERMAN.player_message,
        facts: 'Zielhilfe in Match m-77.',
        terms_clause: GERMAN.terms_clause,
      },
      fr: { player_message: 'Appareil banni.' },
    });
    const res = await api.request('GET', `/v1/device/${device}/bans`, {
      key: owner.key,
      game: 'g1',
      headers: { 'Accept-Language': 'fr-CA' },
    });
    // Field by field: French gives the message only; the statement reads in the ban's own language.
    expect(res.body.items[0]).toMatchObject({
      message_locale: 'fr',
      player_message: 'Appareil banni.',
      statement: { facts: ENGLISH.facts, terms_clause: ENGLISH.terms_clause },
    });
  });

  it("answers another publisher the owner's translation, never the owner's translations map or details", async () => {
    const [owner, other] = [await publisher(), await publisher()];
    expect((await putCatalogue(owner.key)).status).toBe(200);
    const device = unique('dev');
    const made = await create(owner.key, {
      device_id: device,
      player_message: ENGLISH.player_message,
      details: { clip: 'c-9' },
    });
    expect(made.status).toBe(201);
    for (const path of [`/v1/device/${device}/bans`, `/v1/device/${device}/bans/cheat`]) {
      const res = await api.request('GET', path, {
        key: other.key,
        game: 'g9',
        headers: { 'Accept-Language': 'de' },
      });
      expect(res.status).toBe(200);
      expect(res.body.items[0]).toMatchObject({
        publisher_id: owner.id,
        message_locale: 'de',
        player_message: GERMAN.player_message,
        details_json: null,
        translations: null,
        created_by: null,
      });
    }
    const enforcement = await api.request('GET', `/v1/device/${device}/enforcement?locale=DE`, {
      key: other.key,
      game: 'g9',
    });
    expect(enforcement.body.bans[0]).toMatchObject({
      message_locale: 'de',
      statement: { facts: GERMAN.facts },
      details_json: null,
      translations: null,
    });
  });

  it("reads in the catalogue's default_locale when no translation matches", async () => {
    const owner = await publisher();
    const put = await api.request('PUT', '/v1/reasons', {
      key: owner.key,
      body: {
        strict_reasons: false,
        default_locale: 'de',
        reasons: [
          {
            code: 'aimbot',
            label: 'Zielhilfe',
            ban_type: 'cheat',
            scope: 'global',
            duration_seconds: null,
            player_message: GERMAN.player_message,
            translations: { en: { player_message: ENGLISH.player_message } },
          },
        ],
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const device = unique('dev');
    expect(
      (await create(owner.key, { device_id: device, player_message: GERMAN.player_message })).status,
    ).toBe(201);
    const ja = await api.request('GET', `/v1/device/${device}/bans`, {
      key: owner.key,
      game: 'g1',
      headers: { 'Accept-Language': 'ja' },
    });
    expect(ja.body.items[0]).toMatchObject({ message_locale: 'de', player_message: GERMAN.player_message });
    const en = await api.request('GET', `/v1/device/${device}/bans?locale=en-GB`, {
      key: owner.key,
      game: 'g1',
    });
    expect(en.body.items[0]).toMatchObject({ message_locale: 'en', player_message: ENGLISH.player_message });
  });
});

describe('translations and an appeal', () => {
  it("reads a player message an appeal's decision replaced as its owner wrote it, never the old one's translation", async () => {
    const [owner, filer] = [await publisher(), await publisher()];
    expect((await putCatalogue(owner.key)).status).toBe(200);
    const device = unique('dev');
    const made = await create(owner.key, { device_id: device, player_message: ENGLISH.player_message });
    expect(made.status).toBe(201);
    const filed = await api.request('POST', '/v1/appeals', {
      key: filer.key,
      game: 'g9',
      body: { device_id: device, ban_id: made.body.ban_id, message: 'Not my device.' },
    });
    expect(filed.status, JSON.stringify(filed.body)).toBe(201);
    const replaced = 'Your appeal was heard; the ban stays.';
    const decided = await api.request('POST', `/v1/appeals/${filed.body.appeal_id}/decision`, {
      key: owner.key,
      body: { outcome: 'upheld', player_message: replaced },
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    for (const reader of [owner, filer]) {
      const res = await api.request('GET', `/v1/device/${device}/bans?locale=de`, {
        key: reader.key,
        game: reader === owner ? 'g1' : 'g9',
      });
      expect(res.body.items[0]).toMatchObject({
        message_locale: 'de',
        player_message: replaced,
        statement: { facts: GERMAN.facts },
      });
    }
  });
});

describe('translations and erasure', () => {
  it('go with an erasure: neither the erased event nor the earlier one, nor any item, keeps them', async () => {
    const owner = await publisher();
    expect((await putCatalogue(owner.key)).status).toBe(200);
    const device = unique('dev');
    const secret = 'Im Match m-7 hat jo@example.com die Zielhilfe gemeldet.';
    const made = await create(owner.key, {
      device_id: device,
      player_message: ENGLISH.player_message,
      translations: { de: { facts: secret } },
    });
    expect(made.status).toBe(201);
    await api.settle();
    const before = await api.request('GET', '/v1/events?limit=100', { key: owner.key, game: 'g1' });
    const created = before.body.items.find((e: { device_id: string }) => e.device_id === device);
    expect(created.ban.translations.de.facts).toBe(secret);
    expect((await api.request('POST', `/v1/device/${device}/erase`, { key: owner.key })).status).toBe(200);
    await api.settle();
    const feed = await api.request('GET', '/v1/events?limit=100', { key: owner.key, game: 'g1' });
    const events = feed.body.items.filter((e: { device_id: string }) => e.device_id === device);
    expect(events.map((e: { type: string }) => e.type)).toEqual(['ban.created', 'ban.erased']);
    for (const event of events) {
      expect(event.ban.translations).toBeNull();
      expect(event.ban.player_message).toBeNull();
    }
    expect(JSON.stringify(await api.items({ derived: true }))).not.toContain(secret);
  });
});

describe('translations the API refuses', () => {
  const expectRefused = (res: { status: number; body: any }, field: string, issue: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details).toContainEqual({ field, issue });
  };

  it('refuses a bad locale key, an over-long translation and too many languages, storing nothing', async () => {
    const owner = await publisher();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ de_AT: { player_message: 'x' } }, 'reasons.0.translations.de_AT', 'invalid_locale'],
      [{ DE: { player_message: 'x' } }, 'reasons.0.translations.DE', 'invalid_locale'],
      [{ de: { player_message: 'x'.repeat(501) } }, 'reasons.0.translations.de.player_message', 'too_big'],
      [{ de: { label: 'a\nb' } }, 'reasons.0.translations.de.label', 'invalid_format'],
      [{ de: { colour: 'blau' } }, 'reasons.0.translations.de.colour', 'unknown_field'],
      [{ en: { player_message: 'x' } }, 'reasons.0.translations.en', 'default_locale'],
      [
        Object.fromEntries(
          ['de', 'fr', 'it', 'es', 'pt', 'nl', 'pl', 'sv', 'da', 'fi', 'cs', 'hu', 'ro'].map((l) => [
            l,
            { label: l },
          ]),
        ),
        'reasons.0.translations',
        'too_big',
      ],
    ];
    for (const [translations, field, issue] of cases) {
      const res = await api.request('PUT', '/v1/reasons', {
        key: owner.key,
        body: {
          strict_reasons: false,
          reasons: [
            {
              code: 'aimbot',
              label: 'Aim assistance',
              ban_type: 'cheat',
              scope: 'global',
              duration_seconds: null,
              player_message: null,
              translations,
            },
          ],
        },
      });
      expectRefused(res, field, issue);
    }
    const bad = await api.request('PUT', '/v1/reasons', {
      key: owner.key,
      body: { strict_reasons: false, reasons: [], default_locale: 'english' },
    });
    expectRefused(bad, 'default_locale', 'invalid_format');
    const read = await api.request('GET', '/v1/reasons', { key: owner.key });
    expect(read.body).toEqual({ reasons: [], strict_reasons: false, default_locale: 'en', updated_at: null });
  });

  it("refuses a create's translation in a bad locale, of a text the ban lacks, or too long, storing nothing", async () => {
    const owner = await publisher();
    const device = unique('dev');
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ translations: { 'de-at': { facts: 'x' } } }, 'translations.de-at', 'invalid_locale'],
      [{ translations: { de: { facts: 'x'.repeat(5001) } } }, 'translations.de.facts', 'too_big'],
      [
        { translations: { de: { player_message: 'Gesperrt.' } } },
        'translations.de.player_message',
        'not_for_ban',
      ],
      [{ translations: { de: { legal_ground: 'StGB' } } }, 'translations.de.legal_ground', 'not_for_ban'],
      [{ translations: { en: { facts: 'x' } } }, 'translations.en', 'default_locale'],
    ];
    for (const [body, field, issue] of cases)
      expectRefused(await create(owner.key, { device_id: device, ...body }), field, issue);
    expect(await storedBans(device)).toEqual([]);
  });

  it('refuses a malformed locale parameter, and never a malformed Accept-Language', async () => {
    const owner = await publisher();
    const device = unique('dev');
    expect((await create(owner.key, { device_id: device })).status).toBe(201);
    expectRefused(
      await api.request('GET', `/v1/device/${device}/enforcement?locale=de_AT`, {
        key: owner.key,
        game: 'g1',
      }),
      'locale',
      'invalid_format',
    );
    const odd = await api.request('GET', `/v1/device/${device}/bans`, {
      key: owner.key,
      game: 'g1',
      headers: { 'Accept-Language': ';;q=x,,de;q=7' },
    });
    expect(odd.status).toBe(200);
    expect(odd.body.items[0].message_locale).toBe('en');
  });
});
