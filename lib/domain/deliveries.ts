import { GetCommand, PutCommand, paginateQuery, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../concurrency';
import type { DeliveriesQuery, FeedEventType } from '../model/requests';
import type { Delivery, DeliveryList, Policy } from '../model/responses';
import { postWebhook } from '../outbound/webhook-request';
import { webhookHeaders } from '../outbound/webhook-signature';
import { dynamo, tableName } from '../storage/client';
import type { DeliveryRef } from '../storage/delivery-queue';
import { isConditionFailure } from '../storage/failures';
import { deliveryKey, deliveryPartition, webhookKey } from '../storage/keys';
import { eventIdOf } from './audit';
import type { ChangeEvent } from './change-events';
import { IntegrityError, InvalidInputError, NotFoundError } from './errors';
import { toFeedEvent } from './feed';
import { getPolicy } from './policy';
import { allowsLoopback, allWebhooks, publisherWebhooks, receiversOf, type StoredWebhook } from './webhooks';

/**
 * Deliveries: one event to one webhook, tried until the receiver answers 2xx, for at least 24
 * hours, then kept as failed (the feed still has the event to replay). Item (lib/storage/keys.ts):
 *   delivery   `DELIVERY#<publisher_id>#<webhook_id>` / `<occurred_at>#<event_id>`
 * holding the exact body (the same on every attempt, so the receiver's dedup by `webhook-id`
 * sees one event), the state and the last attempt's outcome. The body is dropped once the
 * delivery is settled. The queue that wakes each attempt is SQS on AWS and timers locally; this
 * module decides what an attempt does, and when the next one is due.
 */

export type { DeliveryRef } from '../storage/delivery-queue';

/** The delay before the first retry, doubled each time up to 120 bases, each drawn from 50-100% of that. */
export const DEFAULT_RETRY_BASE_MS = 30_000;
/** Retries go on for this many bases after the first attempt: 24 hours at the default base. */
export const RETRY_WINDOW_BASES = 2880;
const MAX_DELAY_BASES = 120;

/** `WEBHOOK_RETRY_BASE_MS` (documented): tests and local runs shorten the whole schedule with it. */
export const retryBaseMs = () => {
  const value = Number(process.env.WEBHOOK_RETRY_BASE_MS ?? DEFAULT_RETRY_BASE_MS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_RETRY_BASE_MS;
};

/** The wait after failed attempt `attempts` (1 = the first): exponential, capped, jittered. */
export const retryDelayMs = (attempts: number, baseMs: number, random = Math.random) =>
  Math.round(
    Math.min(baseMs * 2 ** Math.max(0, attempts - 1), baseMs * MAX_DELAY_BASES) * (0.5 + random() / 2),
  );

/**
 * Records the deliveries of a batch of events to every webhook that asks for them, each once
 * (a conditional put keyed by the event), and returns those still to attempt: new ones, and
 * pending ones a dispatcher that died may not have handed to the queue.
 */
export const recordDeliveries = async (
  events: readonly ChangeEvent[],
  webhooks: readonly StoredWebhook[],
): Promise<DeliveryRef[]> => {
  const policies = new Map<string, Promise<Policy>>();
  const policyOf = (publisherId: string) => {
    let policy = policies.get(publisherId);
    if (!policy) {
      policy = getPolicy(publisherId);
      policies.set(publisherId, policy);
    }
    return policy;
  };
  const pairs = events.flatMap((event) =>
    receiversOf(event, webhooks).map((webhook) => ({ event, webhook })),
  );
  const recorded = await mapWithConcurrency(pairs, RECORD_CONCURRENCY, async ({ event, webhook }) => {
    const key = deliveryKey(webhook.publisher_id, webhook.webhook_id, event.occurred_at, event.event_id);
    const now = new Date().toISOString();
    const body = JSON.stringify(toFeedEvent(event, await policyOf(webhook.publisher_id), now));
    const ref = { publisher_id: webhook.publisher_id, webhook_id: webhook.webhook_id, sk: key.sk };
    try {
      await dynamo.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...key,
            ...ref,
            slot: webhook.slot,
            event_id: event.event_id,
            type: event.type,
            occurred_at: event.occurred_at,
            body,
            status: 'pending',
            attempts: 0,
            created_at: now,
            first_attempt_at: null,
            last_attempt_at: null,
            last_status: null,
            last_error: null,
            next_attempt_at: now,
            delivered_at: null,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return ref;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const { Item } = await dynamo.send(
        new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
      );
      return Item?.status === 'pending' && Item.attempts === 0 ? ref : undefined;
    }
  });
  return recorded.filter((ref) => ref !== undefined);
};

/** Deliveries recorded at once: they are independent items. */
const RECORD_CONCURRENCY = 10;

/**
 * An erasure reaches deliveries not yet made too: the owner's pending deliveries of the erased
 * ban's earlier events (the only ones that carry its details) lose the details from their body.
 */
export const redactErasedDeliveries = async (
  events: readonly ChangeEvent[],
  webhooks: readonly StoredWebhook[],
): Promise<void> => {
  for (const event of events) {
    if (event.type !== 'ban.erased') continue;
    const earlier = [
      { type: 'ban.created' as const, at: event.ban.created_at },
      ...(event.ban.revoked_at ? [{ type: 'ban.revoked' as const, at: event.ban.revoked_at }] : []),
    ];
    for (const webhook of webhooks.filter((found) => found.publisher_id === event.publisher_id)) {
      for (const { type, at } of earlier) {
        const eventId = eventIdOf(event.publisher_id, type, String(event.ban.ban_id));
        const key = deliveryKey(webhook.publisher_id, webhook.webhook_id, at, eventId);
        const { Item } = await dynamo.send(
          new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
        );
        if (Item?.status !== 'pending' || typeof Item.body !== 'string') continue;
        const body = JSON.parse(Item.body) as { ban?: { details_json?: unknown } };
        if (!body.ban || body.ban.details_json === null) continue;
        body.ban.details_json = null;
        try {
          await dynamo.send(
            new UpdateCommand({
              TableName: tableName,
              Key: key,
              UpdateExpression: 'SET #body = :redacted',
              ConditionExpression: '#body = :body',
              ExpressionAttributeNames: { '#body': 'body' },
              ExpressionAttributeValues: { ':redacted': JSON.stringify(body), ':body': Item.body },
            }),
          );
        } catch (error) {
          // Settled meanwhile (its body dropped): nothing left to redact.
          if (!isConditionFailure(error)) throw error;
        }
      }
    }
  }
};

/** What became of an attempt: settled (nothing more to do) or to be tried again at `retryAt`. */
export type AttemptOutcome = { settled: true } | { settled: false; retryAt: number };

const settle = (
  ref: DeliveryRef,
  attempts: number,
  changes: Record<string, unknown>,
  remove: string[] = [],
): Promise<unknown> => {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':pending': 'pending', ':before': attempts - 1 };
  const sets = Object.entries(changes).map(([field, value]) => {
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    return `#${field} = :${field}`;
  });
  for (const field of remove) names[`#${field}`] = field;
  return dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { pk: deliveryPartition(ref.publisher_id, ref.webhook_id), sk: ref.sk },
      UpdateExpression: `SET ${sets.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.map((f) => `#${f}`).join(', ')}` : ''}`,
      // Only the attempt that read this state may write the next: a duplicate queue message's
      // attempt that lost the race changes nothing.
      ConditionExpression: '#status = :pending AND #attempts = :before',
      ExpressionAttributeNames: { ...names, '#attempts': 'attempts' },
      ExpressionAttributeValues: values,
    }),
  );
};

/**
 * Makes one attempt of a pending delivery: signs the stored body for this moment, POSTs it
 * (lib/outbound: no redirects, 10 s, no private addresses), and records the outcome. A delivery
 * already settled, or whose webhook was deleted, is left as it is.
 */
export const attemptDelivery = async (ref: DeliveryRef, now = Date.now()): Promise<AttemptOutcome> => {
  const key = { pk: deliveryPartition(ref.publisher_id, ref.webhook_id), sk: ref.sk };
  const { Item: delivery } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
  );
  if (delivery?.status !== 'pending' || typeof delivery.body !== 'string') return { settled: true };
  const attempts = Number(delivery.attempts ?? 0) + 1;
  const nowIso = new Date(now).toISOString();
  const { Item: webhook } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: webhookKey(ref.publisher_id, Number(delivery.slot)),
      ConsistentRead: true,
    }),
  );
  try {
    if (
      webhook?.webhook_id !== ref.webhook_id ||
      typeof webhook.secret !== 'string' ||
      typeof webhook.url !== 'string'
    ) {
      await settle(
        ref,
        attempts,
        { status: 'failed', last_attempt_at: nowIso, last_error: 'webhook deleted', next_attempt_at: null },
        ['body'],
      );
      return { settled: true };
    }
    const eventId = String(delivery.event_id);
    const result = await postWebhook({
      url: webhook.url,
      headers: webhookHeaders(webhook.secret, eventId, Math.floor(now / 1000), delivery.body),
      body: delivery.body,
      allowLoopback: allowsLoopback(),
    });
    const firstAttemptAt = typeof delivery.first_attempt_at === 'string' ? delivery.first_attempt_at : nowIso;
    const outcome = {
      attempts,
      first_attempt_at: firstAttemptAt,
      last_attempt_at: nowIso,
      last_status: result.status,
      last_error: result.error,
    };
    if (result.ok) {
      await settle(
        ref,
        attempts,
        { ...outcome, status: 'delivered', delivered_at: new Date().toISOString(), next_attempt_at: null },
        ['body'],
      );
      return { settled: true };
    }
    const base = retryBaseMs();
    if (now - Date.parse(firstAttemptAt) >= base * RETRY_WINDOW_BASES) {
      await settle(ref, attempts, { ...outcome, status: 'failed', next_attempt_at: null }, ['body']);
      return { settled: true };
    }
    const retryAt = now + retryDelayMs(attempts, base);
    await settle(ref, attempts, { ...outcome, next_attempt_at: new Date(retryAt).toISOString() });
    return { settled: false, retryAt };
  } catch (error) {
    // Another attempt of the same delivery recorded its outcome first: that one goes on.
    if (isConditionFailure(error)) return { settled: true };
    throw error;
  }
};

const deliveryFromItem = (item: Record<string, unknown>): Delivery => {
  const { event_id, type, occurred_at, status, attempts } = item;
  if (typeof event_id !== 'string' || typeof occurred_at !== 'string' || typeof attempts !== 'number') {
    throw new IntegrityError('stored delivery is malformed');
  }
  const orNull = <T>(value: unknown, kind: 'string' | 'number') =>
    typeof value === kind ? (value as T) : null;
  return {
    event_id,
    type: type as FeedEventType,
    occurred_at,
    status: status as Delivery['status'],
    attempts,
    last_attempt_at: orNull(item.last_attempt_at, 'string'),
    last_status: orNull(item.last_status, 'number'),
    last_error: orNull(item.last_error, 'string'),
    next_attempt_at: status === 'pending' ? orNull(item.next_attempt_at, 'string') : null,
    delivered_at: orNull(item.delivered_at, 'string'),
  };
};

const DELIVERY_CURSOR = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#evt_[A-Za-z0-9_-]{24}$/;

/** One page of a webhook's deliveries, newest event first. Another publisher's webhook is not found. */
export const listDeliveries = async (
  publisherId: string,
  webhookId: string,
  query: DeliveriesQuery,
): Promise<DeliveryList> => {
  if (!(await publisherWebhooks(publisherId)).some((webhook) => webhook.webhook_id === webhookId)) {
    throw new NotFoundError('No such webhook');
  }
  const pk = deliveryPartition(publisherId, webhookId);
  let start: Record<string, string> | undefined;
  if (query.cursor !== undefined) {
    const sk = Buffer.from(query.cursor, 'base64url').toString();
    if (!DELIVERY_CURSOR.test(sk))
      throw new InvalidInputError('cursor', 'invalid', 'must be a next_cursor this API returned');
    start = { pk, sk };
  }
  const page = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: query.limit + 1,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  const items = (page.Items ?? []).slice(0, query.limit);
  const more = (page.Items?.length ?? 0) > query.limit;
  return {
    items: items.map(deliveryFromItem),
    next_cursor: more ? Buffer.from(String(items.at(-1)?.sk)).toString('base64url') : null,
  };
};

/** Every delivery still pending, with when it is due (the local dispatcher's restart reads these). */
export const pendingDeliveries = async (): Promise<Array<DeliveryRef & { dueAt: number }>> => {
  const pending: Array<DeliveryRef & { dueAt: number }> = [];
  for (const webhook of await allWebhooks()) {
    const pages = paginateQuery(
      { client: dynamo },
      {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pk': deliveryPartition(webhook.publisher_id, webhook.webhook_id),
          ':pending': 'pending',
        },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        pending.push({
          publisher_id: webhook.publisher_id,
          webhook_id: webhook.webhook_id,
          sk: String(item.sk),
          dueAt: Date.parse(String(item.next_attempt_at)) || Date.now(),
        });
      }
    }
  }
  return pending;
};
