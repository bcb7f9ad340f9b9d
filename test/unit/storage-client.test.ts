import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toApiError } from '../../lib/http/errors';
import { tableName as boundTable, configureStorage, dynamo } from '../../lib/storage/client';

/** A DynamoDB endpoint that accepts connections and never answers. */
let server: Server;
const sockets: Socket[] = [];
beforeAll(async () => {
  server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  configureStorage({
    tableName: 'unit-test-table',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  });
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((done) => server.close(() => done()));
});

describe('the storage client', () => {
  it('gives up on a request that hangs after its timeout and retries, and that failure is a 503', async () => {
    const tableName = boundTable();
    const started = Date.now();
    const error = await dynamo
      .send(new GetCommand({ TableName: tableName, Key: { pk: 'a', sk: 'b' } }))
      .catch((e: unknown) => e);
    const elapsed = Date.now() - started;

    expect(error).toBeInstanceOf(Error);
    expect(toApiError(error)).toMatchObject({ code: 'service_unavailable', headers: { 'Retry-After': '1' } });
    // 3 attempts of 2 s each plus backoff: well inside the functions' 10 s timeout.
    expect(elapsed).toBeGreaterThanOrEqual(5_500);
    expect(elapsed).toBeLessThan(9_500);
    expect(sockets.length).toBe(3);
  }, 15_000);
});

describe('DYNAMODB_REQUEST_TIMEOUT_MS', () => {
  it('is 2 s unless set, an integer from 100 to 30000 ms, and refused otherwise, naming itself', async () => {
    const { parseRequestTimeoutMs } = await import('../../lib/config');
    expect(parseRequestTimeoutMs(undefined)).toBe(2_000);
    expect(parseRequestTimeoutMs('')).toBe(2_000);
    expect(parseRequestTimeoutMs('10000')).toBe(10_000);
    for (const bad of ['99', '30001', '1.5', 'soon'])
      expect(() => parseRequestTimeoutMs(bad), bad).toThrow(/DYNAMODB_REQUEST_TIMEOUT_MS/);
  });
});
