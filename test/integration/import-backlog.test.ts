import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBacklogKey, partitions } from '../../lib/storage/keys';
import { startTestApi } from '../support/api';
import { type Body, isErrorEnvelope, storedItem, storeItem, type TestApi, unique } from '../support/fixtures';

/**
 * An import held within IMPORT_BACKLOG_ROWS rows of its events (lib/domain/import-backlog.ts):
 * a batch sent while its publisher's earlier rows still wait for their events is a 429 that
 * stores nothing, and each publisher's count is its own. Here the limit is 3 rows.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ env: { IMPORT_BACKLOG_ROWS: '3' } });
});
afterAll(async () => {
  await api?.close();
});

const GAME = 'g-backlog';

const publisher = async () => {
  const id = unique('backlog');
  const key = await api.createKey(id, 'import backlog test');
  return { id, key: key.api_key };
};

const row = (overrides: Body = {}): Body => ({
  external_id: unique('ext'),
  device_id: unique('backlog-dev'),
  ban_type: 'cheat',
  scope: 'game',
  reason_code: 'aimbot',
  created_at: '2020-05-06T07:08:09Z',
  ...overrides,
});

const importRows = (key: string, rows: unknown[], extra: Body = {}) =>
  api.request('POST', '/v1/imports', {
    key,
    game: GAME,
    body: { batch_id: unique('batch'), rows, ...extra },
  });

const backlogOf = async (publisherId: string) => {
  const item = await storedItem(importBacklogKey(publisherId));
  return item === undefined ? undefined : { admitted: item.admitted, dispatched: item.dispatched };
};

/** Everything of a publisher's import in the table: its batches, rows and bans. */
const importedItems = async (publisherId: string) =>
  (await api.items()).filter(
    (item) =>
      String(item.pk).startsWith(`${partitions.importBatch}${publisherId}`) ||
      String(item.pk).startsWith(`${partitions.importedRow}${publisherId}#`) ||
      (String(item.pk).startsWith(partitions.device) && item.publisher_id === publisherId),
  );

describe('POST /v1/imports while earlier rows wait for their events', () => {
  it('answers 429 rate_limited with Retry-After and stores nothing, while another publisher imports', async () => {
    const a = await publisher();
    const b = await publisher();
    // Ten rows made, seven through the dispatcher: three wait, the limit.
    await storeItem({ ...importBacklogKey(a.id), admitted: 10, dispatched: 7 });

    const refused = await importRows(a.key, [row(), row()]);
    expect(refused.status).toBe(429);
    expect(isErrorEnvelope(refused.body)).toBe(true);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.body.error.message).toContain('The events of 3 rows of your earlier import batches');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await importedItems(a.id)).toEqual([]);
    expect(await backlogOf(a.id)).toEqual({ admitted: 10, dispatched: 7 });

    // A dry run stores nothing, so it does not wait.
    const dry = await importRows(a.key, [row()], { dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body.counts.created).toBe(1);

    // Another publisher's import is not held by A's backlog.
    const theirs = await importRows(b.key, [row()]);
    expect(theirs.status).toBe(200);
    expect(theirs.body.counts.created).toBe(1);

    // Once two more of A's rows are through, A's batch goes in.
    await storeItem({ ...importBacklogKey(a.id), admitted: 10, dispatched: 9 });
    const admitted = await importRows(a.key, [row(), row()]);
    expect(admitted.status).toBe(200);
    expect(admitted.body.counts.created).toBe(2);
    await api.settle();
    expect(await backlogOf(a.id)).toEqual({ admitted: 12, dispatched: 11 });
  });

  it('counts the rows a batch made once, and the dispatcher counts their events through', async () => {
    const c = await publisher();
    const batch = { batch_id: unique('batch'), rows: [row(), row(), row({ reason_code: '' })] };
    const first = await api.request('POST', '/v1/imports', { key: c.key, game: GAME, body: batch });
    expect(first.status).toBe(200);
    expect(first.body.counts).toMatchObject({ created: 2, refused: 1 });
    await api.settle();
    expect(await backlogOf(c.id)).toEqual({ admitted: 2, dispatched: 2 });

    // The same batch again answers as before and makes nothing, so counts nothing.
    const again = await api.request('POST', '/v1/imports', { key: c.key, game: GAME, body: batch });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // Rows imported before under another batch: already imported, nothing new.
    const repeat = await importRows(c.key, batch.rows.slice(0, 2));
    expect(repeat.body.counts.already_imported).toBe(2);
    await api.settle();
    expect(await backlogOf(c.id)).toEqual({ admitted: 2, dispatched: 2 });

    // A batch whose every row is refused makes nothing and leaves no count for a new publisher.
    const d = await publisher();
    const none = await importRows(d.key, [row({ reason_code: '' })]);
    expect(none.body.counts.refused).toBe(1);
    await api.settle();
    expect(await backlogOf(d.id)).toBeUndefined();
  });
});
