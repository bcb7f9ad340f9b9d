import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, openStore } from '../../infra/local/store';
import { connectionConfig } from '../../lib/storage/connection';

/**
 * The embedded store (dynalite over LevelDB) must let go of what each read holds: every Query and
 * Scan opens a LevelDB iterator, which stays attached to its database, with its memory (and on
 * disk its snapshot), until it is closed. The iterators are counted where LevelDB keeps them:
 * `attachResource` when one opens, `detachResource` when it closes.
 */

type Level = { prototype: Record<string, (this: unknown, resource: unknown) => unknown> };

/** The resources of dynalite's stores now open, counted from the abstract-level copies they use. */
const openResources = () => {
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const stores = [fromDynalite.resolve('memory-level'), fromDynalite.resolve('level')];
  stores.push(createRequire(fromDynalite.resolve('level')).resolve('classic-level'));
  const open = new Set<unknown>();
  const undo: Array<() => void> = [];
  const levels = new Set(
    stores.map((store) => createRequire(store)('abstract-level').AbstractLevel as Level),
  );
  for (const { prototype } of levels) {
    const attach = prototype.attachResource as (typeof prototype)[string];
    const detach = prototype.detachResource as (typeof prototype)[string];
    prototype.attachResource = function (resource) {
      open.add(resource);
      return attach.call(this, resource);
    };
    prototype.detachResource = function (resource) {
      open.delete(resource);
      return detach.call(this, resource);
    };
    undo.push(() => Object.assign(prototype, { attachResource: attach, detachResource: detach }));
  }
  return {
    count: () => open.size,
    stop: () => {
      for (const restore of undo) restore();
    },
  };
};

const ITEMS = 12;
const READS = 25;

let resources: ReturnType<typeof openResources>;
const folder = mkdtempSync(join(tmpdir(), 'local-store-'));
beforeAll(() => {
  resources = openResources();
});
afterAll(() => {
  resources?.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe.each([
  ['in memory', ':memory:'],
  ['on disk', join(folder, 'data')],
])('the embedded store %s', (_, dataDir) => {
  it('closes the LevelDB iterator of every Query and Scan, ended early by a limit or read to the end', async () => {
    const store = await openStore({ env: { DATA_DIR: dataDir } });
    const client = new DynamoDBClient(connectionConfig(store.endpoint));
    try {
      await ensureTable(store);
      const TableName = store.tableName;
      for (let i = 0; i < ITEMS; i++)
        await client.send(
          new PutItemCommand({
            TableName,
            Item: { pk: { S: 'P#1' }, sk: { S: `S#${String(i).padStart(2, '0')}` } },
          }),
        );
      const query = (input: Partial<QueryCommandInput>) =>
        client.send(
          new QueryCommand({
            TableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': { S: 'P#1' } },
            ...input,
          }),
        );
      const scan = (input: Partial<ScanCommandInput>) =>
        client.send(new ScanCommand({ TableName, ...input }));
      await expect.poll(resources.count).toBe(0);

      for (let i = 0; i < READS; i++) {
        expect((await query({ Limit: 5 })).Items).toHaveLength(5);
        expect((await query({})).Items).toHaveLength(ITEMS);
        expect((await query({ ScanIndexForward: false, Limit: 3 })).Items?.[0]?.sk).toEqual({ S: 'S#11' });
        expect((await scan({ Limit: 4 })).Items).toHaveLength(4);
        expect((await scan({})).Items).toHaveLength(ITEMS);
      }
      // Closing is asynchronous, just after the answer: every one of the 125 reads' iterators closes.
      await expect.poll(resources.count).toBe(0);
    } finally {
      client.destroy();
      await store.close();
    }
  });
});

describe("an iterator dynalite's stream returned", () => {
  it('has ended for a read the stream started ahead: no rejection, nothing uncaught', async () => {
    await openStore({ env: { DATA_DIR: ':memory:' } }).then((store) => store.close());
    const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
    const { MemoryLevel } = createRequire(fromDynalite.resolve('memory-level'))('memory-level');
    const db = new MemoryLevel();
    try {
      await db.put('a', '1');
      await db.put('b', '2');
      const iterator = db.values();
      expect(await iterator.next()).toBe('1');
      await iterator.return();
      // Before the patch: a LEVEL_ITERATOR_NOT_OPEN rejection, which the stream turns into an error event.
      await expect(iterator.next()).resolves.toBeUndefined();
      // An iterator closed any other way still refuses to read.
      const closed = db.values();
      await closed.close();
      await expect(closed.next()).rejects.toMatchObject({ code: 'LEVEL_ITERATOR_NOT_OPEN' });
    } finally {
      await db.close();
    }
  });
});
