import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, vi } from 'vitest';
import { setClock } from '../../lib/clock';
import { configure, settingsFrom } from '../../lib/config';

/**
 * Run before each test file (vitest.config.ts `setupFiles`). Most files share their worker's
 * modules (`isolate: false`: the imports are paid once per worker, not once per file), so what a
 * file changed in the process must not reach the next one: real timers, the environment and
 * globals as they were, spies restored, the service's clock back to the wall clock, and the
 * settings (with the store, and so every per-store cache) bound afresh from the environment.
 */
vi.useRealTimers();
vi.unstubAllEnvs();
vi.unstubAllGlobals();
vi.restoreAllMocks();
setClock(undefined);
configure(settingsFrom(process.env));

/**
 * The SDK clients the unit tests mock (aws-sdk-client-mock stubs `send` on the class's
 * prototype): restored after each file, so the next file's client reaches its store again.
 */
const MOCKED_CLIENTS = [DynamoDBDocumentClient, SQSClient, APIGatewayClient];
afterAll(() => {
  for (const client of MOCKED_CLIENTS) {
    const send = client.prototype.send as { restore?: () => void };
    if (typeof send.restore === 'function') send.restore();
  }
});
