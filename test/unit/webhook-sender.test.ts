import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/webhook-sender';
import { CLAIM_MS } from '../../lib/domain/deliveries';
import { DELIVERY_ATTEMPT_FAILED_MESSAGE, SENDER_FAILURE_MESSAGE } from '../../lib/log';
import { postWebhook } from '../../lib/outbound/webhook-request';
import { deliveryKey, webhookKey, webhookSecretKey } from '../../lib/storage/keys';
import { captureLogs } from '../support/logs';
import { stubSettings } from '../support/settings';

/**
 * The webhook sender, one queue message at a time, with the SDK clients and the outbound POST
 * mocked: one delivery has one chain of attempts (a duplicate or stale message is dropped, a copy
 * arriving while another attempt holds the delivery comes back after it), and every failure is a
 * log line the stack counts (never the secret, the signature, the body or the URL's path).
 */

vi.mock('../../lib/outbound/webhook-request', () => ({ postWebhook: vi.fn() }));
// The queue the sender puts its next attempts on, part of the store's settings, bound for this file.
stubSettings({ DELIVERY_QUEUE_URL: 'https://sqs.example/queue' }, { storage: true });

const sqs = mockClient(SQSClient);
const ddb = mockClient(DynamoDBDocumentClient);
const logs = captureLogs();
const context = {} as Context;
const secret = `whsec_${'c2VjcmV0'.repeat(4)}`;
const ref = {
  publisher_id: 'pub-a',
  webhook_id: 'wh_0123456789abcdef',
  sk: '2026-11-23T10:00:00.000Z#evt_x',
};
const key = deliveryKey(ref.publisher_id, ref.webhook_id, '2026-11-23T10:00:00.000Z', 'evt_x');
const body = '{"type":"ban.created","ban":{"details_json":"{\\"clip\\":\\"private\\"}"}}';
const stored = (attempts: number, extra: Record<string, unknown> = {}) => ({
  ...key,
  ...ref,
  slot: 0,
  event_id: 'evt_x',
  status: 'pending',
  attempts,
  body,
  first_attempt_at: attempts > 0 ? new Date().toISOString() : null,
  ...extra,
});
const webhook = {
  ...webhookKey(ref.publisher_id, 0),
  webhook_id: ref.webhook_id,
  url: 'https://hooks.example.com/receive/path?token=tok-in-query',
};
const message = (attempt: number, dueAt = 0) =>
  ({
    Records: [{ messageId: 'm-1', body: JSON.stringify({ ref, attempt, due_at: dueAt }), attributes: {} }],
  }) as unknown as SQSEvent;
const sentMessages = () =>
  sqs
    .commandCalls(SendMessageBatchCommand)
    .flatMap((call) => call.args[0].input.Entries ?? [])
    .map((entry) => ({ delay: entry.DelaySeconds, ...JSON.parse(entry.MessageBody ?? '{}') }));

beforeEach(() => {
  sqs.reset();
  ddb.reset();
  vi.mocked(postWebhook).mockReset();
  sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  ddb.on(GetCommand, { Key: webhookKey(ref.publisher_id, 0) }).resolves({ Item: webhook });
  ddb
    .on(GetCommand, { Key: webhookSecretKey(ref.publisher_id, ref.webhook_id) })
    .resolves({ Item: { ...webhookSecretKey(ref.publisher_id, ref.webhook_id), secret } });
});

const conditionFailed = () =>
  Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });

describe('one chain of attempts per delivery', () => {
  it('drops a message for an attempt the delivery has already made, without a POST or a new message', async () => {
    ddb.on(GetCommand, { Key: key }).resolves({ Item: stored(2) });
    // A copy of attempt 2's message, after attempt 2 was made (its own retry, attempt 3, is queued).
    const answer = await handler(message(2), context, () => {});
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(postWebhook).not.toHaveBeenCalled();
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(sentMessages()).toEqual([]);
  });

  it('claims the delivery for this attempt only while it has made the attempts before it and no one holds it', async () => {
    ddb.on(GetCommand, { Key: key }).resolves({ Item: stored(0) });
    ddb.on(UpdateCommand).resolves({ Attributes: stored(0) });
    vi.mocked(postWebhook).mockResolvedValue({ ok: true, status: 204, error: null, durationMs: 5 });
    await handler(message(1), context, () => {});
    const [claim, health, settle] = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(claim?.ConditionExpression).toContain('attribute_not_exists(#claimed) OR #claimed <= :now');
    expect(claim?.ExpressionAttributeValues).toMatchObject({ ':pending': 'pending', ':before': 0 });
    expect(claim?.ExpressionAttributeValues?.[':until']).toBe(
      claim?.ExpressionAttributeValues?.[':now'] + CLAIM_MS,
    );
    // The attempt is recorded on the webhook's item first (its health), then the outcome ends the claim.
    expect(health?.Key).toEqual(webhookKey(ref.publisher_id, 0));
    expect(settle?.UpdateExpression).toMatch(/REMOVE .*#claimed_until/);
    expect(postWebhook).toHaveBeenCalledTimes(1);
    expect(sentMessages()).toEqual([]);
  });

  it('sends the body it claimed, not the one it first read: an erasure redacted it in between', async () => {
    const redacted = '{"type":"ban.created","ban":{"details_json":null,"player_message":null}}';
    ddb.on(GetCommand, { Key: key }).resolves({ Item: stored(0) });
    ddb.on(UpdateCommand).resolves({ Attributes: stored(0, { body: redacted }) });
    vi.mocked(postWebhook).mockResolvedValue({ ok: true, status: 204, error: null, durationMs: 5 });
    await handler(message(1), context, () => {});
    const [claim] = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(claim?.ReturnValues).toBe('ALL_NEW');
    expect(vi.mocked(postWebhook).mock.calls[0]?.[0].body).toBe(redacted);
  });

  it('sends a copy that finds the delivery held by another attempt back for when the claim ends, without a POST', async () => {
    const heldUntil = Date.now() + 30_000;
    ddb
      .on(GetCommand, { Key: key })
      .resolvesOnce({ Item: stored(1) })
      .resolves({ Item: stored(1, { claimed_until: heldUntil }) });
    ddb.on(UpdateCommand).rejects(conditionFailed());
    const answer = await handler(message(2), context, () => {});
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(postWebhook).not.toHaveBeenCalled();
    // The same attempt: when it comes back, the holder has recorded attempt 2 and it is dropped.
    expect(sentMessages()).toEqual([{ ref, attempt: 2, due_at: heldUntil, delay: expect.any(Number) }]);
    expect(sentMessages()[0]?.delay).toBeGreaterThanOrEqual(29);
  });

  it('queues the next attempt, numbered, after a failed one', async () => {
    ddb.on(GetCommand, { Key: key }).resolves({ Item: stored(0) });
    ddb.on(UpdateCommand).resolves({});
    vi.mocked(postWebhook).mockResolvedValue({
      ok: false,
      status: 503,
      error: 'http status 503',
      durationMs: 5,
    });
    await handler(message(1), context, () => {});
    expect(sentMessages()).toEqual([
      { ref, attempt: 2, due_at: expect.any(Number), delay: expect.any(Number) },
    ]);
  });
});

describe('failures are logged and counted', () => {
  it('logs each failed attempt as a warning naming the receiver by its origin only', async () => {
    ddb.on(GetCommand, { Key: key }).resolves({ Item: stored(0) });
    ddb.on(UpdateCommand).resolves({});
    vi.mocked(postWebhook).mockResolvedValue({
      ok: false,
      status: 500,
      error: 'http status 500',
      durationMs: 5,
    });
    await handler(message(1), context, () => {});
    const warnings = logs.entries().filter((entry) => entry.level === 'warn');
    expect(warnings).toEqual([
      expect.objectContaining({
        message: DELIVERY_ATTEMPT_FAILED_MESSAGE,
        publisher_id: 'pub-a',
        webhook_id: ref.webhook_id,
        event_id: 'evt_x',
        attempt: 1,
        status: 500,
        error: 'http status 500',
        receiver: 'https://hooks.example.com',
        next_attempt_at: expect.any(String),
      }),
    ]);
    const written = logs.lines.join('');
    for (const secretPart of [secret, 'tok-in-query', '/receive/path', 'private', 'webhook-signature'])
      expect(written).not.toContain(secretPart);
  });

  it('logs the error line and reports the message when the sender itself fails (storage down)', async () => {
    ddb
      .on(GetCommand)
      .rejects(Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' }));
    const answer = await handler(message(3), context, () => {});
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect(logs.entries().filter((entry) => entry.level === 'error')).toEqual([
      expect.objectContaining({
        message: SENDER_FAILURE_MESSAGE,
        message_id: 'm-1',
        publisher_id: 'pub-a',
        webhook_id: ref.webhook_id,
        attempt: 3,
        error_name: 'ProvisionedThroughputExceededException',
      }),
    ]);
    expect(logs.lines.join('')).not.toContain(secret);
  });

  it('writes no warning or error when a delivery succeeds', async () => {
    ddb.on(GetCommand, { Key: key }).resolves({ Item: stored(0) });
    ddb.on(UpdateCommand).resolves({});
    vi.mocked(postWebhook).mockResolvedValue({ ok: true, status: 200, error: null, durationMs: 5 });
    await handler(message(1), context, () => {});
    expect(logs.entries().filter((entry) => entry.level === 'warn' || entry.level === 'error')).toEqual([]);
  });
});

describe('an erasure while an attempt is in flight', () => {
  it('redacts the pending body only once no attempt holds it, so no later POST carries the details', async () => {
    const { redactErasedDeliveries } = await import('../../lib/domain/deliveries');
    const { eventIdOf } = await import('../../lib/domain/audit');
    const createdAt = '2026-11-23T10:00:00.000Z';
    const ban = {
      ban_id: 7,
      device_id: 'd-1',
      ban_type: 'cheat' as const,
      scope: 'game' as const,
      publisher_id: ref.publisher_id,
      game_id: 'g1',
      reason_code: 'aimbot',
      created_at: createdAt,
      expires_at: null,
      revoked_at: null,
    };
    const pendingKey = deliveryKey(
      ref.publisher_id,
      ref.webhook_id,
      createdAt,
      eventIdOf(ref.publisher_id, 'ban.created', '7'),
    );
    const held = { ...stored(1, { ...pendingKey }), claimed_until: Date.now() + 5_000 };
    // Held by an attempt on the first read; free on the second.
    ddb
      .on(GetCommand, { Key: pendingKey })
      .resolvesOnce({ Item: held })
      .resolves({ Item: { ...held, claimed_until: undefined } });
    ddb.on(UpdateCommand).rejectsOnce(conditionFailed()).resolves({});
    await redactErasedDeliveries(
      [
        {
          event_id: 'evt_erased',
          type: 'ban.erased',
          occurred_at: '2026-11-23T11:00:00.000Z',
          publisher_id: ref.publisher_id,
          device_id: 'd-1',
          ban,
        },
      ],
      [
        {
          ...webhook,
          publisher_id: ref.publisher_id,
          slot: 0,
          events: ['ban.created'],
          games: null,
          created_at: createdAt,
        } as never,
      ],
    );
    const updates = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(updates).toHaveLength(2);
    for (const update of updates)
      expect(update.ConditionExpression).toContain('attribute_not_exists(#claimed) OR #claimed <= :now');
    expect(JSON.parse(String(updates[1]?.ExpressionAttributeValues?.[':redacted'])).ban).toMatchObject({
      details_json: null,
      player_message: null,
    });
  });
});

describe("the webhook's health", () => {
  const healthWrites = () =>
    ddb
      .commandCalls(UpdateCommand)
      .map((call) => call.args[0].input)
      .filter((input) => input.Key?.pk === webhook.pk);

  it('counts a failed attempt in its hour, once: conditional on the webhook, undeleted, and not this attempt already', async () => {
    const now = Date.now();
    const hour = Math.floor(now / 3_600_000);
    ddb.on(GetCommand, { Key: webhookKey(ref.publisher_id, 0) }).resolves({
      // Two hours in the window and one past it, as the attempt reads them.
      Item: { ...webhook, failures: { [`h${hour}`]: 2, [`h${hour - 23}`]: 1, [`h${hour - 24}`]: 5 } },
    });
    ddb.on(GetCommand, { Key: key }).resolves({ Item: stored(0) });
    ddb.on(UpdateCommand).resolves({ Attributes: stored(0) });
    vi.mocked(postWebhook).mockResolvedValue({
      ok: false,
      status: 503,
      error: 'http status 503',
      durationMs: 5,
    });
    await handler(message(1), context, () => {});
    const [write] = healthWrites();
    expect(write?.UpdateExpression).toContain('#f.#h = if_not_exists(#f.#h, :zero) + :one');
    expect(write?.ExpressionAttributeNames?.['#h']).toMatch(/^h\d+$/);
    // Only the hour past the window is removed.
    expect(Object.values(write?.ExpressionAttributeNames ?? {})).toContain(`h${hour - 24}`);
    expect(Object.values(write?.ExpressionAttributeNames ?? {})).not.toContain(`h${hour - 23}`);
    expect(write?.ConditionExpression).toBe(
      '#id = :id AND attribute_not_exists(#deleted) AND (attribute_not_exists(#key) OR #key <> :key)',
    );
    expect(write?.ExpressionAttributeValues).toMatchObject({
      ':id': ref.webhook_id,
      ':outcome': 'failed',
      ':status': 503,
      ':error': 'http status 503',
    });
    expect(String(write?.ExpressionAttributeValues?.[':key'])).toMatch(new RegExp(`^${ref.sk}#1#\\d+$`));
  });

  it('a health write that finds its attempt recorded, or the webhook deleted, changes nothing and the delivery goes on', async () => {
    ddb.on(GetCommand, { Key: key }).resolves({ Item: stored(0) });
    ddb.on(UpdateCommand, { Key: webhookKey(ref.publisher_id, 0) }).rejects(conditionFailed());
    ddb.on(UpdateCommand, { Key: { pk: key.pk, sk: key.sk } }).resolves({ Attributes: stored(0) });
    vi.mocked(postWebhook).mockResolvedValue({ ok: true, status: 204, error: null, durationMs: 5 });
    expect(await handler(message(1), context, () => {})).toEqual({ batchItemFailures: [] });
    const settled = ddb
      .commandCalls(UpdateCommand)
      .map((call) => call.args[0].input)
      .filter((input) => input.Key?.pk === key.pk);
    // The claim, then the outcome.
    expect(settled).toHaveLength(2);
  });

  it('a fault writing the health fails the message: the attempt is made again later, and counted as the POST it is', async () => {
    ddb.on(GetCommand, { Key: key }).resolves({ Item: stored(0) });
    ddb
      .on(UpdateCommand, { Key: webhookKey(ref.publisher_id, 0) })
      .rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    ddb.on(UpdateCommand, { Key: { pk: key.pk, sk: key.sk } }).resolves({ Attributes: stored(0) });
    vi.mocked(postWebhook).mockResolvedValue({ ok: true, status: 204, error: null, durationMs: 5 });
    expect(await handler(message(1), context, () => {})).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm-1' }],
    });
    const settled = ddb
      .commandCalls(UpdateCommand)
      .map((call) => call.args[0].input)
      .filter((input) => input.Key?.pk === key.pk);
    // The claim only: the outcome is not recorded, so the message's next receipt attempts again.
    expect(settled).toHaveLength(1);
  });
});
