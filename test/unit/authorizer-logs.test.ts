import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler } from '../../functions/authorizer';
import { AUTHORIZER_FAILURE_MESSAGE } from '../../lib/log';
import { captureLogs } from '../support/logs';

/**
 * The stack alarms on the authorizer's failure line (infra/stack/alarms.ts), not on its Errors
 * metric, which every refused key would raise: refusals must not write that line, faults must.
 */

const ddb = mockClient(DynamoDBDocumentClient);
const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/v1/policy';
const key = `bsk_${'A'.repeat(43)}`;
const logs = captureLogs();
beforeEach(() => ddb.reset());

const errorLines = () => logs.entries().filter((entry) => entry.level === 'error');

describe('authorizer logs', () => {
  it('writes no error line for an unknown or malformed key', async () => {
    ddb.on(GetCommand).resolves({});
    await expect(handler({ type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn })).rejects.toThrow(
      'Unauthorized',
    );
    await expect(handler({ type: 'TOKEN', authorizationToken: 'Bearer x', methodArn })).rejects.toThrow(
      'Unauthorized',
    );
    expect(errorLines()).toEqual([]);
  });

  it('writes the failure line, without the key, when the key lookup fails', async () => {
    ddb.on(GetCommand).rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    await expect(handler({ type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn })).rejects.toThrow(
      'throttled',
    );
    expect(errorLines()).toEqual([
      expect.objectContaining({ message: AUTHORIZER_FAILURE_MESSAGE, error_name: 'ThrottlingException' }),
    ]);
    expect(logs.lines.join('')).not.toContain(key);
  });
});
