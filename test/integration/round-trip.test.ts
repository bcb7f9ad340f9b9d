import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { type Body, unique } from '../support/fixtures';
import { childEnv, runTs } from '../support/processes';

/**
 * Moving a deployment (docs/import-export.md#moving-a-deployment-round-trip): a publisher's data
 * built through the API (bans of every scope, type and state, with statements, translations and
 * appeals of every outcome; a policy and trust settings off their defaults; a strict reason
 * catalogue), exported with `npm run export`, imported with `npm run import -- --from-export` into a
 * second, empty deployment (a fresh store), answers every listing, enforcement call and appeal read
 * as the first did, but for the ids of its bans and appeals, which are new. Importing the same
 * export again makes nothing and changes nothing. Both stores in one move: the old deployment is
 * always `npm start`'s embedded store, the new one the stage's store (DynamoDB Local in `npm test`).
 */

/** `npm start`'s own store, in memory, whatever store the stage gives the other deployment. */
const EMBEDDED = { DYNAMODB_ENDPOINT: '', TABLE_NAME: '', DATA_DIR: ':memory:' };

const GAMES = ['rt-g1', 'rt-g2'];
const [G1, G2] = GAMES as [string, string];

let source: TestApi | undefined;
let target: TestApi | undefined;
afterAll(async () => {
  await source?.close();
  await target?.close();
});

const ok = async <T = any>(answer: Promise<{ status: number; body: T }>, status = 200): Promise<T> => {
  const res = await answer;
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
};

/**
 * Ids, who acted (the importing key makes, revokes and decides in the new deployment: its keys are
 * not the old one's), and what moves with each deployment's clock, left out: what must be equal
 * after the move.
 */
const VARYING = new Set([
  'ban_id',
  'appeal_id',
  'created_by',
  'revoked_by',
  'decided_by',
  'policy_updated_at',
  'updated_at',
  'evaluated_at',
  'computed_at',
  'as_of',
]);
const normal = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(normal);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !VARYING.has(key))
        .map(([key, field]) => [key, normal(field)]),
    );
  return value;
};

const catalogue = {
  strict_reasons: true,
  reasons: [
    {
      code: 'aimbot',
      label: 'Aim assistance',
      ban_type: 'cheat',
      scope: 'game',
      duration_seconds: null,
      player_message: 'This device is banned for using cheat software.',
      statement: { facts: 'Our anti-cheat found aim-assistance software.', terms_clause: 'Terms, 7.3' },
      translations: { de: { label: 'Zielhilfe', player_message: 'Dieses Gerät ist gesperrt.' } },
    },
    {
      code: 'toxicity',
      label: 'Abusive chat',
      ban_type: 'social',
      scope: 'publisher',
      duration_seconds: 7 * 86_400,
      player_message: 'This device may not chat for a week.',
    },
    {
      code: 'wallhack',
      label: 'Seeing through walls',
      ban_type: 'cheat',
      scope: 'global',
      duration_seconds: null,
      player_message: null,
    },
  ],
};

const policy = {
  enforce_social_global: true,
  rep_include_publisher: false,
  global_sources: { except: ['rt-banned-studio'] },
  rep_global_quorum: 2,
};

/** Every answer the move must keep, read from one deployment by the publisher's key. */
const snapshot = async (api: TestApi, key: string, devices: readonly string[]) => {
  const read = (path: string, game?: string) => ok(api.request('GET', path, { key, game }));
  const bans: Record<string, unknown> = {};
  for (const device of devices)
    for (const game of GAMES) {
      for (const status of ['all', 'active', 'inactive'])
        bans[`${device} ${game} ${status}`] = await read(
          `/v1/device/${device}/bans?status=${status}&limit=200`,
          game,
        );
      for (const type of ['social', 'cheat'])
        bans[`${device} ${game} ${type}`] = await read(`/v1/device/${device}/bans/${type}`, game);
      bans[`${device} ${game} de`] = await read(`/v1/device/${device}/bans?status=all&locale=de`, game);
      bans[`${device} ${game} enforcement`] = await read(`/v1/device/${device}/enforcement`, game);
    }
  const batch: Record<string, unknown> = {};
  for (const game of GAMES)
    batch[game] = await ok(
      api.request('POST', '/v1/enforcement/batch', { key, game, body: { device_ids: [...devices] } }),
    );
  const appeals = (await read('/v1/appeals?status=all&limit=200')).items as any[];
  const byId = [];
  for (const appeal of appeals) byId.push(await read(`/v1/appeals/${appeal.appeal_id}`));
  const stats = await read('/v1/appeals/stats');
  return {
    bans,
    batch,
    appeals,
    byId,
    stats: { ...stats, oldest_open_age_seconds: undefined },
    policy: await read('/v1/policy'),
    reasons: await read('/v1/reasons'),
  };
};

/** Who decided is the importing key after the move (docs/import-export.md): set aside when comparing appeals. */
const withoutDecider = (appeals: any[]) =>
  appeals.map((appeal) =>
    appeal.decision ? { ...appeal, decision: { ...appeal.decision, decided_by: null } } : appeal,
  );

const importCli = (api: TestApi, key: string, dir: string, more: string[] = []) =>
  runTs(
    'infra/import-cli.ts',
    ['--url', api.url, '--from-export', dir, ...more],
    childEnv({ BAN_API_KEY: key }),
  );

describe('moving a deployment: export, then import into an empty one', () => {
  it('answers every listing, enforcement call and appeal as before, but for ids; a second import changes nothing', async () => {
    const publisherId = unique('rt-pub');
    const foreignId = unique('rt-other');
    source = await startTestApi({ events: false, env: EMBEDDED });
    const key = (await source.createKey(publisherId, 'round trip')).api_key;
    const foreign = (await source.createKey(foreignId, 'another publisher')).api_key;
    await ok(source.request('PUT', '/v1/reasons', { key, body: catalogue }));
    await ok(source.request('PUT', '/v1/policy', { key, body: policy }));

    const devices = [unique('rt-a'), unique('rt-b'), unique('rt-c'), unique('rt-d')];
    const [d1, d2, d3, d4] = devices as [string, string, string, string];
    const ban = async (game: string, body: Body) =>
      (await ok(source?.request('POST', '/v1/bans', { key, game, body }) as never, 201)).ban_id as number;
    const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
    // One that will have expired by the export.
    const soon = new Date(Date.now() + 4_000).toISOString();
    await ban(G1, {
      device_id: d4,
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'aimbot',
      expires_at: soon,
    });
    const open = await ban(G1, {
      device_id: d1,
      ban_type: 'cheat',
      scope: 'game',
      reason_code: 'aimbot',
      details: { match: 'm-77', tool: 'aimx' },
      player_message: 'This device is banned for using cheat software.',
      statement: { facts: 'Replay 7781 shows tracking through two walls.', source: 'notice' },
      translations: {
        de: { facts: 'Replay 7781 zeigt Zielhilfe.' },
        fr: { player_message: 'Appareil banni.' },
      },
    });
    const upheld = await ban(G1, {
      device_id: d1,
      ban_type: 'social',
      scope: 'publisher',
      reason_code: 'toxicity',
      expires_at: inDays(30),
    });
    const overturned = await ban(G2, {
      device_id: d2,
      ban_type: 'cheat',
      scope: 'publisher',
      reason_code: 'aimbot',
      player_message: 'Banned on every game of ours.',
    });
    const shortened = await ban(G1, {
      device_id: d3,
      ban_type: 'cheat',
      scope: 'global',
      reason_code: 'wallhack',
      expires_at: inDays(60),
    });
    const revoked = await ban(G2, {
      device_id: d3,
      ban_type: 'social',
      scope: 'game',
      reason_code: 'toxicity',
      appealable: false,
    });
    await ok(
      source.request('POST', `/v1/device/${d3}/bans/${revoked}/revoke`, {
        key,
        game: G2,
        body: { reason_code: 'toxicity' },
      }),
    );
    await ban(G2, { device_id: d4, ban_type: 'cheat', scope: 'global', reason_code: 'wallhack' });

    // Another publisher appeals the global ban first: its appeal stays behind in a move.
    await ok(
      source.request('POST', '/v1/appeals', {
        key: foreign,
        game: 'their-game',
        body: { device_id: d3, ban_id: shortened, message: 'Our player says it is not them.' },
      }),
      201,
    );
    const appeal = async (game: string, device: string, banId: number, message: string, contact?: string) =>
      (
        await ok(
          source?.request('POST', '/v1/appeals', {
            key,
            game,
            body: { device_id: device, ban_id: banId, message, ...(contact ? { contact } : {}) },
          }) as never,
          201,
        )
      ).appeal_id as string;
    const decide = (appealId: string, body: Body) =>
      ok(source?.request('POST', `/v1/appeals/${appealId}/decision`, { key, body }) as never);
    await appeal(G1, d1, open, 'I was not playing that day.', 'player@example.com');
    await decide(await appeal(G1, d1, upheld, 'It was a joke.'), {
      outcome: 'upheld',
      note: 'Chat log is clear.',
      player_message: 'Your appeal was refused: the ban stands.',
    });
    // Filed from another game than the ban's: a publisher ban holds in both.
    await decide(await appeal(G1, d2, overturned, 'Shared computer.'), {
      outcome: 'overturned',
      note: 'Family account.',
    });
    await decide(await appeal(G2, d3, shortened, 'First offence.'), {
      outcome: 'shortened',
      expires_at: inDays(10),
      player_message: 'Shortened on appeal.',
    });

    const wait = Date.parse(soon) + 500 - Date.now();
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    const before = await snapshot(source, key, devices);
    // Every kind of ban is there: revoked, expired, active, and each outcome of an appeal.
    expect(before.appeals.map((a: any) => a.decision?.outcome ?? 'open').sort()).toEqual(
      ['open', 'open', 'upheld', 'overturned', 'shortened'].sort(),
    );
    expect((before.bans[`${d4} ${G1} inactive`] as any).items).toHaveLength(1);

    const dir = mkdtempSync(join(tmpdir(), 'round-trip-'));
    const exported = await runTs(
      'infra/export-cli.ts',
      ['--url', source.url, '--out', dir],
      childEnv({ BAN_API_KEY: key }),
    );
    expect(exported.code, exported.stderr).toBe(0);
    await source.close();
    source = undefined;

    // The new deployment: an empty store, the same publisher, a key of its own.
    target = await startTestApi({ events: false });
    const newKey = (await target.createKey(publisherId, 'moved')).api_key;
    const moved = await importCli(target, newKey, dir);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stderr).toContain('keys and webhooks are not made again');
    const after = await snapshot(target, newKey, devices);

    expect(normal(after.bans)).toEqual(normal(before.bans));
    expect(normal(after.batch)).toEqual(normal(before.batch));
    expect(normal(after.policy)).toEqual(normal(before.policy));
    expect(normal(after.reasons)).toEqual(normal(before.reasons));
    // The appeals: the publisher's own, as they were, in the same order; the other publisher's stayed behind.
    const own = (appeals: any[]) => appeals.filter((a) => a.filed_by.publisher_id === publisherId);
    expect(after.appeals).toHaveLength(4);
    expect(normal(withoutDecider(after.appeals))).toEqual(normal(withoutDecider(own(before.appeals))));
    expect(normal(withoutDecider(after.byId))).toEqual(normal(withoutDecider(own(before.byId))));
    const ownOpen = own(before.appeals).find((a) => a.status === 'open');
    expect(after.stats).toEqual({
      ...before.stats,
      open: 1,
      oldest_open_at: ownOpen.created_at,
      computed_at: after.stats.computed_at,
    });
    // Whoever decided, here it is the importing key.
    for (const decided of after.byId.filter((a: any) => a.decision))
      expect(decided.decision.decided_by).toMatchObject({ type: 'key', name: 'moved' });

    // The same export again: every ban already imported, nothing changed.
    const stored = async () =>
      (await (target as TestApi).items()).filter((item) => /^(DEVICE|APPEAL)/.test(String(item.pk)));
    const items = await stored();
    const again = await importCli(target, newKey, dir, ['--restart']);
    expect(again.code, again.stderr).toBe(0);
    const report = readFileSync(join(dir, 'bans.jsonl.import-report.jsonl'), 'utf8').trim().split('\n');
    const summary = JSON.parse(report.at(-1) as string);
    expect(summary.counts).toEqual({ created: 0, already_imported: 7, changed: 0, refused: 0 });
    expect(report.slice(0, -1).map((line) => JSON.parse(line).status)).toEqual(
      Array(7).fill('already_imported'),
    );
    expect(await stored()).toEqual(items);
    expect(normal((await snapshot(target, newKey, devices)).bans)).toEqual(normal(after.bans));
  }, 240_000);
});
