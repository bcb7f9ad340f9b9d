import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { Context, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eventIdOf } from '../../lib/domain/audit';
import { type ChangeRecord, eventsOfChange, importSummariesOfChange } from '../../lib/domain/change-events';
import { DEFAULT_RETRY_BASE_MS, RETRY_WINDOW_BASES, retryDelayMs } from '../../lib/domain/deliveries';
import { defaultPolicyFlags } from '../../lib/domain/policy';
import { banKey, importBatchKey, policyKey, publisherKeyKey } from '../../lib/storage/keys';
import { stubSettings, unstubSettings } from '../support/settings';

/**
 * The events derived from change records (stream or local log), the retry schedule, and the
 * queue functions' handling of messages, with the SDK clients mocked.
 */

const ban = {
  ...banKey('device-1', 42),
  ban_id: 42,
  device_id: 'device-1',
  ban_type: 'cheat',
  scope: 'game',
  publisher_id: 'pub-a',
  game_id: 'g1',
  reason_code: 'aimbot',
  details_json: '{"clip":"c"}',
  created_at: '2026-11-23T10:00:00.000Z',
  expires_at: null,
  revoked_at: null,
};
const policy = {
  ...policyKey('pub-a'),
  publisher_id: 'pub-a',
  ...defaultPolicyFlags,
  updated_at: '2026-11-23T09:00:00.000Z',
};

const record = (
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  before?: Record<string, unknown>,
  after?: Record<string, unknown>,
  at?: number,
): ChangeRecord => {
  const item = (after ?? before) as Record<string, unknown>;
  return {
    eventName,
    dynamodb: {
      Keys: marshall({ pk: item.pk, sk: item.sk }) as never,
      ...(before ? { OldImage: marshall(before) as never } : {}),
      ...(after ? { NewImage: marshall(after) as never } : {}),
      ...(at === undefined ? {} : { ApproximateCreationDateTime: at }),
    },
  };
};

describe('events of a change record', () => {
  it('makes ban.created and ban.revoked of an imported ban stored revoked, each at its own time, marked as an import', () => {
    const imported = {
      ...ban,
      created_at: '2019-03-04T12:00:00.000Z',
      revoked_at: '2019-03-05T00:00:00.000Z',
      revoke_reason_code: 'appeal_granted',
      imported: { batch_id: 'b1', external_id: 'x1' },
    };
    const events = eventsOfChange(record('INSERT', undefined, imported));
    expect(events.map((e) => [e.type, e.occurred_at, e.event_id, e.imported])).toEqual([
      ['ban.created', '2019-03-04T12:00:00.000Z', eventIdOf('pub-a', 'ban.created', '42'), true],
      ['ban.revoked', '2019-03-05T00:00:00.000Z', eventIdOf('pub-a', 'ban.revoked', '42'), true],
    ]);
    // A later change of the imported ban is no import's: sent like any other.
    const revokedLater = { ...imported, revoked_at: null };
    const later = eventsOfChange(
      record('MODIFY', revokedLater, { ...revokedLater, revoked_at: '2026-11-23T11:00:00.000Z' }),
    );
    expect(later.map((e) => [e.type, e.imported])).toEqual([['ban.revoked', undefined]]);
    // A native ban's INSERT is not marked.
    expect(eventsOfChange(record('INSERT', undefined, ban))[0]?.imported).toBeUndefined();
  });

  it("makes one bans.imported summary of an import batch's first completion, and no feed event", () => {
    const started = {
      ...importBatchKey('pub-a', 'b1'),
      publisher_id: 'pub-a',
      batch_id: 'b1',
      started_at: '2026-11-23T10:00:00.000Z',
    };
    const done = {
      ...started,
      finished_at: '2026-11-23T10:00:02.000Z',
      counts: { created: 2, already_imported: 1, changed: 0, refused: 3 },
      games: ['g1'],
    };
    expect(eventsOfChange(record('INSERT', undefined, started))).toEqual([]);
    expect(eventsOfChange(record('MODIFY', started, done))).toEqual([]);
    expect(importSummariesOfChange(record('INSERT', undefined, started))).toEqual([]);
    expect(importSummariesOfChange(record('MODIFY', started, done))).toEqual([
      {
        event_id: eventIdOf('pub-a', 'bans.imported', 'b1'),
        type: 'bans.imported',
        occurred_at: '2026-11-23T10:00:02.000Z',
        publisher_id: 'pub-a',
        device_id: null,
        import: { batch_id: 'b1', created: 2, already_imported: 1, changed: 0, refused: 3 },
        games: ['g1'],
      },
    ]);
    // A repeat of the batch completes it again: no second summary.
    expect(importSummariesOfChange(record('MODIFY', done, { ...done }))).toEqual([]);
    expect(importSummariesOfChange(record('INSERT', undefined, ban))).toEqual([]);
  });

  it('makes ban.created of an inserted ban, with the id the audit trail gives the same change', () => {
    const [event, ...more] = eventsOfChange(record('INSERT', undefined, ban));
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      type: 'ban.created',
      event_id: eventIdOf('pub-a', 'ban.created', '42'),
      occurred_at: ban.created_at,
      publisher_id: 'pub-a',
      device_id: 'device-1',
      ban: { ban_id: 42, details_json: '{"clip":"c"}' },
    });
  });

  it('makes ban.revoked only of the change that sets revoked_at', () => {
    const revoked = { ...ban, revoked_at: '2026-11-23T11:00:00.000Z', revoke_reason_code: 'appeal' };
    expect(eventsOfChange(record('MODIFY', ban, revoked))).toEqual([
      expect.objectContaining({
        type: 'ban.revoked',
        event_id: eventIdOf('pub-a', 'ban.revoked', '42'),
        occurred_at: revoked.revoked_at,
      }),
    ]);
    // Any other change of a ban item, or of one revoked already, is no event.
    expect(eventsOfChange(record('MODIFY', revoked, { ...revoked, reason_code: 'other' }))).toEqual([]);
    expect(eventsOfChange(record('MODIFY', ban, { ...ban, reason_code: 'other' }))).toEqual([]);
  });

  it('makes ban.erased of a deleted ban, at the change time, without its details', () => {
    const at = Date.UTC(2026, 10, 23, 12, 0, 0, 250) / 1000;
    const [event] = eventsOfChange(record('REMOVE', ban, undefined, at));
    expect(event).toMatchObject({ type: 'ban.erased', occurred_at: '2026-11-23T12:00:00.250Z' });
    expect(event?.type === 'ban.erased' && 'details_json' in event.ban).toBe(false);
  });

  it('makes policy.updated of each update of the policy, named by its version, and nothing of its creation', () => {
    const updated = { ...policy, enforce_global: false, version: 3, updated_at: '2026-11-23T12:00:00.000Z' };
    expect(eventsOfChange(record('INSERT', undefined, policy))).toEqual([]);
    expect(eventsOfChange(record('MODIFY', policy, updated))).toEqual([
      expect.objectContaining({
        type: 'policy.updated',
        event_id: eventIdOf('pub-a', 'policy.updated', '3'),
        occurred_at: updated.updated_at,
        device_id: null,
        policy: expect.objectContaining({ enforce_global: false }),
      }),
    ]);
  });

  it('ignores every other item: keys, markers, audit events', () => {
    const key = { ...publisherKeyKey('pub-a', 'key_abcdefghijkl'), name: 'k' };
    const marker = { pk: ban.pk, sk: 'ERASURE#pub-a', publisher_id: 'pub-a' };
    for (const item of [key, marker, { pk: 'AUDIT#pub-a', sk: 'EVENT#x' }]) {
      expect(eventsOfChange(record('INSERT', undefined, item))).toEqual([]);
      expect(eventsOfChange(record('REMOVE', item))).toEqual([]);
    }
  });
});

describe('the retry schedule', () => {
  it('doubles from the base up to 120 bases, jittered between half and the whole', () => {
    const base = 1_000;
    expect([1, 2, 3, 8, 20].map((n) => retryDelayMs(n, base, () => 1))).toEqual([
      1_000, 2_000, 4_000, 120_000, 120_000,
    ]);
    expect([1, 2, 3].map((n) => retryDelayMs(n, base, () => 0))).toEqual([500, 1_000, 2_000]);
  });

  it('retries for 24 hours at the default base, then gives up, however the jitter falls', () => {
    expect(DEFAULT_RETRY_BASE_MS * RETRY_WINDOW_BASES).toBe(24 * 3_600_000);
    for (const random of [() => 0, () => 1, Math.random]) {
      // Attempts happen while less than the window has passed since the first one.
      let elapsed = 0;
      let attempts = 1;
      while (elapsed < DEFAULT_RETRY_BASE_MS * RETRY_WINDOW_BASES) {
        elapsed += retryDelayMs(attempts, DEFAULT_RETRY_BASE_MS, random);
        attempts += 1;
      }
      expect(attempts).toBeGreaterThan(20);
      expect(attempts).toBeLessThan(60);
    }
  });
});

describe('the queue functions', () => {
  const sqs = mockClient(SQSClient);
  const ddb = mockClient(DynamoDBDocumentClient);
  const context = {} as Context;
  beforeEach(() => {
    stubSettings({ DELIVERY_QUEUE_URL: 'https://sqs.example/queue' }, { storage: true });
    sqs.reset();
    ddb.reset();
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  });
  afterEach(() => {
    unstubSettings({ storage: true });
    vi.resetModules();
  });
  const message = (body: unknown, messageId = 'm-1') =>
    ({ Records: [{ messageId, body: JSON.stringify(body) }] }) as unknown as SQSEvent;
  const ref = {
    publisher_id: 'pub-a',
    webhook_id: 'wh_0123456789abcdef',
    sk: '2026-11-23T10:00:00.000Z#evt_x',
  };

  it('hands a message that is not due yet on again, at most 15 minutes later, without attempting it', async () => {
    const { handler } = await import('../../functions/webhook-sender');
    const dueAt = Date.now() + 3_600_000;
    const answer = await handler(message({ ref, attempt: 3, due_at: dueAt }), context, () => {});
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(ddb.calls()).toHaveLength(0);
    const sent = sqs.commandCalls(SendMessageBatchCommand)[0]?.args[0].input;
    expect(sent?.Entries?.[0]).toMatchObject({ DelaySeconds: 900 });
    // The same attempt: handing a message on never starts another chain.
    expect(JSON.parse(sent?.Entries?.[0]?.MessageBody ?? '{}')).toEqual({ ref, attempt: 3, due_at: dueAt });
  });

  it('reports a malformed message as failed (SQS retries it, then dead-letters it), and a settled delivery as done', async () => {
    const { handler } = await import('../../functions/webhook-sender');
    ddb.on(GetCommand).resolves({ Item: { status: 'delivered' } });
    const answer = await handler(
      {
        Records: [
          { messageId: 'bad', body: '{"ref":{}}' },
          { messageId: 'done', body: JSON.stringify({ ref, attempt: 1, due_at: 0 }) },
        ],
      } as unknown as SQSEvent,
      context,
      () => {},
    );
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] });
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(0);
  });
});
