import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { wantedLocales } from '@kernel/locales';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { BATCH_CONCURRENCY, getDeviceEnforcement, getEnforcementBatch } from '../../lib/domain/enforcement';
import { defaultPolicyFlags } from '../../lib/domain/policy';
import { banKey } from '../../lib/storage/keys';

const ddb = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({
    Item: { publisher_id: 'pub-a', ...defaultPolicyFlags, updated_at: '2026-01-01T00:00:00.000Z' },
  });
  ddb.on(QueryCommand).resolves({ Items: [] });
});

describe('storage calls for enforcement', () => {
  it('reads the policy once and queries the device once', async () => {
    const result = await getDeviceEnforcement('pub-a', 'g', 'dev-1');
    expect(result.restricted).toEqual({ cheat: false, social: false });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(1);
    expect(ddb.calls()).toHaveLength(2);
  });

  it('reads a ban in the wanted language with the same two calls: picking reads nothing more', async () => {
    ddb.on(QueryCommand).resolves({
      Items: [
        {
          ...banKey('dev-1', 7),
          ban_id: 7,
          device_id: 'dev-1',
          ban_type: 'cheat',
          scope: 'global',
          publisher_id: 'pub-b',
          game_id: 'g-b',
          reason_code: 'aimbot',
          player_message: 'Banned for cheat software.',
          translations: { de: { player_message: 'Wegen Cheat-Software gesperrt.' } },
          created_at: '2026-01-01T00:00:00.000Z',
          expires_at: null,
          revoked_at: null,
        },
      ],
    });
    const result = await getDeviceEnforcement(
      'pub-a',
      'g',
      'dev-1',
      wantedLocales({ acceptLanguage: 'de-AT' }),
    );
    expect(result.bans[0]).toMatchObject({
      message_locale: 'de',
      player_message: 'Wegen Cheat-Software gesperrt.',
      translations: null,
    });
    expect(ddb.calls()).toHaveLength(2);
  });

  it('answers a batch of 100 with 1 policy read and 100 queries, never more than the concurrency bound in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    ddb.on(QueryCommand).callsFake(async () => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((done) => setTimeout(done, 2));
      inFlight -= 1;
      return { Items: [] };
    });
    const ids = Array.from({ length: 100 }, (_, i) => `dev-${i}`);

    const batch = await getEnforcementBatch('pub-a', 'g', ids);

    expect(batch.results.map((r) => r.device_id)).toEqual(ids);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(100);
    expect(peak).toBe(BATCH_CONCURRENCY);
  });

  it('queries a repeated id once and answers it at every position', async () => {
    const batch = await getEnforcementBatch('pub-a', 'g', ['a', 'b', 'a']);
    expect(batch.results.map((r) => r.device_id)).toEqual(['a', 'b', 'a']);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(2);
  });

  it('gives an invalid id its own error entry without a query', async () => {
    const batch = await getEnforcementBatch('pub-a', 'g', ['ok-1', 'bad#id', '..']);
    expect(batch.results[1]).toEqual({
      device_id: 'bad#id',
      error: {
        code: 'invalid_request',
        message: expect.stringContaining('device_ids.1'),
        details: [{ field: 'device_ids.1', issue: 'invalid_format' }],
      },
    });
    expect(batch.results[2]).toMatchObject({
      device_id: '..',
      error: { details: [{ field: 'device_ids.2', issue: 'invalid_format' }] },
    });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(1);
  });
});
