import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishApiUrl, runningApiUrl, type Store } from '../../infra/local/store';

/**
 * A running `npm start` says in DATA_DIR/api.json where its API listens, so `npm run import` finds
 * it without --url; the file is taken back on close and ignored once its process has gone.
 */

const storeIn = (dataDir: string | undefined, embedded = true): Store => ({
  endpoint: 'http://127.0.0.1:1',
  tableName: 't',
  embedded,
  dataDir,
  close: async () => {},
});

describe("the local API's URL in DATA_DIR", () => {
  it('is found while published, and not once taken back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-url-'));
    expect(runningApiUrl(dir)).toBeUndefined();
    const unpublish = publishApiUrl(storeIn(dir), 'http://127.0.0.1:4567');
    expect(runningApiUrl(dir)).toBe('http://127.0.0.1:4567');
    unpublish();
    expect(runningApiUrl(dir)).toBeUndefined();
  });

  it('is ignored when the process that wrote it is gone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-url-'));
    writeFileSync(join(dir, 'api.json'), JSON.stringify({ url: 'http://127.0.0.1:4567', pid: 2 ** 22 + 1 }));
    expect(runningApiUrl(dir)).toBeUndefined();
  });

  it('is not published by a server that does not own an embedded store in a folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-url-'));
    publishApiUrl(storeIn(dir, false), 'http://127.0.0.1:4567');
    publishApiUrl(storeIn(undefined), 'http://127.0.0.1:4567');
    expect(runningApiUrl(dir)).toBeUndefined();
  });
});
