import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEED_HEAD_SK, GLOBAL_FEED_PARTITION, gameFeedPartition, partitions } from '../../lib/storage/keys';
import { startTestApi, type TestApi } from '../support/api';
import { isErrorEnvelope, unique } from '../support/fixtures';
import { type Receiver, startReceiver } from '../support/receiver';

/**
 * The feed's retention end to end, on an API of its own that keeps events RETENTION_S seconds
 * (EVENT_RETENTION_DAYS as a fraction of a day) and sweeps expired items every half second (the
 * local stand-in for DynamoDB's time to live): entries past the retention vanish from reads, a
 * cursor before them is a 410 `cursor_expired`, a read without a cursor starts after them, new
 * events after everything expired take the next positions (nothing skipped), and settled
 * deliveries carry their `ttl` too. The retention is not waited for: the API's and its
 * dispatcher's clock is set past it. Waits poll what the API answers, never a fixed sleep.
 */

const RETENTION_S = 600;
let api: TestApi;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  api = await startTestApi({
    env: { EVENT_RETENTION_DAYS: String(RETENTION_S / 86_400), TTL_SWEEP_SECONDS: '0.5' },
  });
});
afterAll(async () => {
  await api?.close();
  await receiver?.close();
});

const publisher = async () => {
  const id = unique('ret');
  return { id, key: (await api.createKey(id, 'retention test')).api_key };
};
const read = (key: string, cursor?: string, game = 'g1') =>
  api.request('GET', `/v1/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key, game });
const ban = async (key: string, body: Record<string, unknown>) => {
  const res = await api.request('POST', '/v1/bans', {
    key,
    game: 'g1',
    body: { ban_type: 'cheat', scope: 'game', reason_code: 'aimbot', ...body },
  });
  expect(res.status).toBe(201);
  return res.body as { ban_id: number };
};
const banIds = (items: any[]) => items.map((item) => item.ban?.ban_id);
const feedItems = async (pk: string) => (await api.items({ derived: true })).filter((item) => item.pk === pk);

describe('GET /v1/events past the retention', () => {
  it('drops what is past the retention from every read, answers 410 cursor_expired before it, and goes on at the next positions', async () => {
    const a = await publisher();
    const b = await publisher();
    const hook = await api.request('POST', '/v1/webhooks', {
      key: a.key,
      body: { url: `${receiver.url}/hooks`, events: ['ban.created'] },
    });
    expect(hook.status).toBe(201);
    // Cursors taken before anything was written: A's and B's (B reads the global partition too).
    const fromStartA = (await read(a.key)).body.next_cursor as string;
    const fromStartB = (await read(b.key)).body.next_cursor as string;
    // The preview's copies of A's live sets (lib/domain/live-set-copy.ts) taken now, with nothing
    // in them: the entries they have to catch up on will be gone by their next use.
    const reach = () =>
      api.request('POST', '/v1/policy/preview', { key: a.key, game: 'g1', body: { enforce_game: false } });
    expect((await reach()).body.devices_with_bans).toBe(0);

    const device = unique('dev');
    const first = await ban(a.key, { device_id: `${device}-1` });
    const second = await ban(a.key, { device_id: `${device}-2` });
    const global = await ban(a.key, { device_id: `${device}-3`, scope: 'global' });
    await api.settle();
    const whileKept = await read(a.key, fromStartA);
    expect(whileKept.status).toBe(200);
    expect(banIds(whileKept.body.items)).toEqual([first.ban_id, second.ban_id, global.ban_id]);
    const afterThem = whileKept.body.next_cursor as string;

    // Each entry and marker carries its time to live: appended + the retention, in seconds.
    const stored = await feedItems(gameFeedPartition(a.id, 'g1'));
    const entries = stored.filter((item) => String(item.sk).startsWith('SEQ#'));
    expect(entries).toHaveLength(2);
    for (const item of stored.filter((i) => String(i.sk).match(/^(SEQ#|EVENT#)/))) {
      const appended = Date.parse(String(entries[0]?.appended_at));
      expect(item.ttl).toBeGreaterThanOrEqual(Math.floor(appended / 1000) + RETENTION_S - 2);
      expect(item.ttl).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + RETENTION_S + 1);
    }
    // A delivered delivery is settled: it carries its ttl too.
    const deliveries = async () =>
      (await api.items({ derived: true })).filter((item) =>
        String(item.pk).startsWith(`${partitions.delivery}${a.id}#`),
      );
    await expect
      .poll(async () => (await deliveries()).map((d) => d.status), { timeout: 10_000 })
      .toEqual(['delivered', 'delivered', 'delivered']);
    for (const delivery of await deliveries()) expect(typeof delivery.ttl).toBe('number');
    const listed = await api.request('GET', `/v1/webhooks/${hook.body.webhook_id}/deliveries`, {
      key: a.key,
    });
    expect(listed.body.items).toHaveLength(3);

    // Past the retention: gone from a read without a cursor, which starts after them (no 410).
    api.setClockOffset((RETENTION_S + 2) * 1000);
    await expect
      .poll(async () => banIds((await read(a.key)).body.items), { timeout: 10_000, interval: 250 })
      .toEqual([]);
    const fresh = await read(a.key);
    expect(fresh.status).toBe(200);
    expect(fresh.body.items).toEqual([]);
    const afterExpiry = fresh.body.next_cursor as string;
    expect((await read(a.key, afterExpiry)).body).toEqual({
      items: [],
      next_cursor: afterExpiry,
      deployment_id: expect.stringMatching(/^dep_/),
      delay_ms: expect.any(Number),
    });

    // A cursor before them is a 410 in the error envelope, telling the client to resync.
    for (const [key, cursor] of [
      [a.key, fromStartA],
      [b.key, fromStartB],
    ] as const) {
      const gone = await read(key, cursor);
      expect(gone.status).toBe(410);
      expect(isErrorEnvelope(gone.body)).toBe(true);
      expect(gone.body.error.code).toBe('cursor_expired');
      expect(gone.body.error.message).toMatch(/GET \/v1\/enforcement\/snapshot/);
    }
    // One after them is caught up, not a 410; another reader's cursor stays a 400.
    expect((await read(a.key, afterThem)).body).toEqual({
      items: [],
      next_cursor: afterThem,
      deployment_id: expect.stringMatching(/^dep_/),
      delay_ms: expect.any(Number),
    });
    const foreign = await read(b.key, fromStartA);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ code: 'invalid_request', details: [{ field: 'cursor' }] });
    expect((await read(a.key, fromStartA, 'g2')).status).toBe(400);

    // The settled deliveries are out of the listing too.
    const relisted = await api.request('GET', `/v1/webhooks/${hook.body.webhook_id}/deliveries`, {
      key: a.key,
    });
    expect(relisted.status).toBe(200);
    expect(relisted.body.items).toEqual([]);

    // The sweeper deletes them (the local time to live); the heads stay, holding the positions.
    await expect
      .poll(
        async () =>
          (await feedItems(gameFeedPartition(a.id, 'g1'))).filter((i) => String(i.sk).match(/^(SEQ#|EVENT#)/))
            .length,
        { timeout: 10_000, interval: 250 },
      )
      .toBe(0);
    // (Deliveries were settled a moment after their events were appended: their ttl is later.)
    await expect.poll(async () => (await deliveries()).length, { timeout: 10_000, interval: 250 }).toBe(0);
    // (The partition's live set, `LIVE#`, is the snapshot's: what is live stays.)
    const heads = (await feedItems(gameFeedPartition(a.id, 'g1'))).filter((i) =>
      String(i.sk).startsWith('SEQ'),
    );
    expect(heads).toEqual([expect.objectContaining({ sk: FEED_HEAD_SK, seq: 2 })]);
    expect(heads[0]?.ttl).toBeUndefined();
    const globalHead = (await feedItems(GLOBAL_FEED_PARTITION)).find((item) => item.sk === FEED_HEAD_SK);
    expect(globalHead?.seq).toBeGreaterThanOrEqual(1);

    // A new event takes the next position: a reader from before the expiry misses nothing.
    const later = await ban(a.key, { device_id: `${device}-4` });
    await api.settle();
    for (const cursor of [afterThem, afterExpiry]) {
      const next = await read(a.key, cursor);
      expect(next.status).toBe(200);
      expect(banIds(next.body.items)).toEqual([later.ban_id]);
    }
    const now = (await feedItems(gameFeedPartition(a.id, 'g1'))).filter((i) =>
      String(i.sk).startsWith('SEQ#'),
    );
    expect(now.map((item) => Number(String(item.sk).slice(4)))).toEqual([3]);
    // The copies cannot catch up over the missing positions: they are read whole again, exact.
    expect((await reach()).body).toMatchObject({
      devices_with_bans: 4,
      cheat: { become_restricted: 0, no_longer_restricted: 3 },
    });
    // Nothing of this is a ban.erased: the bans themselves are untouched.
    expect((await read(a.key, afterThem)).body.items.map((e: any) => e.type)).toEqual(['ban.created']);
    const listing = await api.request('GET', `/v1/device/${device}-1/bans/cheat`, { key: a.key, game: 'g1' });
    expect(listing.status).toBe(200);
    expect(JSON.stringify(listing.body)).toContain(String(first.ban_id));
  });
});
