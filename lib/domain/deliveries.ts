import { GetCommand, PutCommand, paginateQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as clock from '../clock';
import { mapWithConcurrency } from '../concurrency';
import { settings } from '../config';
import { DELIVERY_ATTEMPT_FAILED_MESSAGE, log } from '../log';
import type { DeliveriesQuery, DeliveryEventType } from '../model/requests';
import type { Delivery, DeliveryList, Policy } from '../model/responses';
import { originOf } from '../outbound/webhook-address';
import { postWebhook } from '../outbound/webhook-request';
import { webhookHeaders } from '../outbound/webhook-signature';
import { dynamo, tableName } from '../storage/client';
import type { DeliveryRef } from '../storage/delivery-queue';
import { isConditionFailure } from '../storage/failures';
import { filteredPage } from '../storage/filtered-pages';
import { deliveryKey, deliveryPartition, webhookKey } from '../storage/keys';
import { TIME_TO_LIVE_ATTRIBUTE } from '../storage/table';
import { eventIdOf } from './audit';
import type { ChangeEvent, ImportSummaryEvent } from './change-events';
import { cursorOf, sortKeyOf } from './cursors';
import { IntegrityError } from './errors';
import { toFeedEvent } from './feed';
import { getPolicy } from './policy';
import { retentionMs, ttlFrom } from './retention';
import {
  allowsLoopback,
  allWebhooks,
  reachableWebhook,
  receiversOf,
  recordAttempt,
  type StoredWebhook,
  webhookSecret,
} from './webhooks';

/**
 * Deliveries: one event to one webhook, tried until the receiver answers 2xx, for at least 24
 * hours, then kept as failed (the feed still has the event to replay). This module decides what
 * an attempt does and when the next one is due; SQS deployed, timers locally, wake each attempt.
 * Invariant: the exact body is stored once, so every attempt sends the same bytes and a receiver
 * that deduplicates by `webhook-id` sees one event. Item, retention and reasons:
 * docs/data-model.md#webhooks-and-deliveries.
 */

/** The delay before the first retry, doubled each time up to 120 bases, each drawn from 50-100% of that. */
export { DEFAULT_RETRY_BASE_MS } from '../config';
export type { DeliveryRef } from '../storage/delivery-queue';
/** Retries go on for this many bases after the first attempt: 24 hours at the default base. */
export const RETRY_WINDOW_BASES = 2880;
const MAX_DELAY_BASES = 120;

/** `WEBHOOK_RETRY_BASE_MS` of the bound settings: tests and local runs shorten the whole schedule with it. */
export const retryBaseMs = () => settings().webhookRetryBaseMs;

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
    const now = new Date(clock.now()).toISOString();
    const body = JSON.stringify(toFeedEvent(event, await policyOf(webhook.publisher_id), now));
    return recordDelivery(webhook, event, body, now);
  });
  return recorded.filter((ref) => ref !== undefined);
};

/** Records one delivery once; the ref when it is still to attempt. */
const recordDelivery = async (
  webhook: StoredWebhook,
  event: { event_id: string; type: DeliveryEventType; occurred_at: string },
  body: string,
  now: string,
): Promise<DeliveryRef | undefined> => {
  const key = deliveryKey(webhook.publisher_id, webhook.webhook_id, event.occurred_at, event.event_id);
  const ref = { publisher_id: webhook.publisher_id, webhook_id: webhook.webhook_id, sk: key.sk };
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: newDeliveryItem(key, ref, webhook.slot, event, body, now),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return ref;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const { Item } = await dynamo.send(
      new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
    );
    return Item?.status === 'pending' && Item.attempts === 0 ? ref : undefined;
  }
};

/**
 * Records the deliveries of import batches' summaries (`bans.imported`) to the publisher's webhooks
 * that take `ban.created` (the events the summary stands for), a webhook bound to games only when
 * every game the batch made bans in is one of its own.
 */
export const recordImportDeliveries = async (
  summaries: readonly ImportSummaryEvent[],
  webhooks: readonly StoredWebhook[],
): Promise<DeliveryRef[]> => {
  const pairs = summaries.flatMap((summary) =>
    webhooks
      .filter(
        (webhook) =>
          webhook.publisher_id === summary.publisher_id &&
          webhook.events.includes('ban.created') &&
          (webhook.games === null || summary.games.every((game) => webhook.games?.includes(game))),
      )
      .map((webhook) => ({ summary, webhook })),
  );
  const recorded = await mapWithConcurrency(pairs, RECORD_CONCURRENCY, ({ summary, webhook }) => {
    const { games: _games, ...event } = summary;
    return recordDelivery(webhook, event, JSON.stringify(event), new Date(clock.now()).toISOString());
  });
  return recorded.filter((ref) => ref !== undefined);
};

/**
 * The device and ban an event is about, read from the body it sends (a ban event's `ban`, an
 * appeal event's `appeal`). Stored beside the body, which a settled delivery drops, so a listing
 * names them without another read.
 */
const subjectOf = (body: unknown): Pick<Delivery, 'device_id' | 'ban_id'> => {
  let event: { device_id?: unknown; ban?: { ban_id?: unknown }; appeal?: { ban_id?: unknown } } = {};
  try {
    if (typeof body === 'string') event = JSON.parse(body) ?? {};
  } catch {
    // A body that is not JSON names nothing; the delivery is still listed.
  }
  const banId = event.ban?.ban_id ?? event.appeal?.ban_id;
  return {
    device_id: typeof event.device_id === 'string' ? event.device_id : null,
    ban_id: typeof banId === 'number' ? banId : null,
  };
};

/** A delivery as first stored: pending, due now, not yet attempted. */
export const newDeliveryItem = (
  key: { pk: string; sk: string },
  ref: DeliveryRef,
  slot: number,
  event: { event_id: string; type: DeliveryEventType; occurred_at: string },
  body: string,
  now: string,
) => ({
  ...key,
  ...ref,
  slot,
  event_id: event.event_id,
  type: event.type,
  occurred_at: event.occurred_at,
  ...subjectOf(body),
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
});

/** Deliveries recorded at once: they are independent items. */
const RECORD_CONCURRENCY = 10;

/**
 * How long a redaction waits for an attempt in flight: longer than an attempt takes (a 10 s POST
 * and its writes). A claim still held after that belongs to an attempt that died: the redaction
 * then goes ahead regardless of it.
 */
const REDACT_WAIT_MS = 20_000;
const REDACT_POLL_MS = 100;

/**
 * Drops an erased ban's details, player message (and its translations) and statement from one
 * pending delivery's body, once no attempt holds it: an attempt sends the body it claimed, so a
 * redaction made while one is in flight would not reach that attempt's POST. Waiting for it (at
 * most its claim) means every attempt that starts after the erasure is dispatched sends the
 * redacted body.
 */
const redactDelivery = async (key: Record<string, string>) => {
  for (const until = clock.now() + REDACT_WAIT_MS; ; ) {
    const waited = clock.now() > until;
    const { Item } = await dynamo.send(
      new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
    );
    if (Item?.status !== 'pending' || typeof Item.body !== 'string') return;
    const body = JSON.parse(Item.body) as {
      ban?: { details_json?: unknown; player_message?: unknown; statement?: unknown; translations?: unknown };
    };
    const ban = body.ban;
    if (
      !ban ||
      (ban.details_json === null &&
        (ban.player_message ?? null) === null &&
        (ban.statement ?? null) === null &&
        (ban.translations ?? null) === null)
    )
      return;
    ban.details_json = null;
    ban.player_message = null;
    ban.statement = null;
    if (ban.translations !== undefined) ban.translations = null;
    const now = clock.now();
    try {
      await dynamo.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'SET #body = :redacted',
          ConditionExpression: waited
            ? '#body = :body'
            : '#body = :body AND (attribute_not_exists(#claimed) OR #claimed <= :now)',
          ExpressionAttributeNames: waited
            ? { '#body': 'body' }
            : { '#body': 'body', '#claimed': 'claimed_until' },
          ExpressionAttributeValues: waited
            ? { ':redacted': JSON.stringify(body), ':body': Item.body }
            : { ':redacted': JSON.stringify(body), ':body': Item.body, ':now': now },
        }),
      );
      return;
    } catch (error) {
      // Settled, redacted or claimed meanwhile: read it again (an attempt in flight ends soon).
      if (!isConditionFailure(error)) throw error;
      await new Promise((done) => setTimeout(done, REDACT_POLL_MS));
    }
  }
};

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
        await redactDelivery(key);
      }
    }
  }
};

/**
 * What became of an attempt: settled (nothing more to do here: delivered, failed for good, or the
 * message was stale) or attempt `attempt` to be made at `retryAt`.
 */
export type AttemptOutcome = { settled: true } | { settled: false; retryAt: number; attempt: number };

/**
 * How long an attempt holds its delivery (`claimed_until`): a second copy of the same message
 * arriving meanwhile does not POST too, but comes back when the claim ends (by then the attempt
 * has recorded its outcome, and the copy is stale). Longer than an attempt takes (a 10 s POST and
 * two writes), shorter than SQS's visibility timeout, so a crashed attempt's message finds it free.
 */
export const CLAIM_MS = 60_000;

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
  // The claim ends with the attempt it covered.
  for (const field of [...remove, 'claimed_until']) names[`#${field}`] = field;
  const removed = [...remove, 'claimed_until'];
  return dynamo.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: { pk: deliveryPartition(ref.publisher_id, ref.webhook_id), sk: ref.sk },
      UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removed.map((f) => `#${f}`).join(', ')}`,
      // Only the attempt that read this state may write the next: a duplicate queue message's
      // attempt that lost the race changes nothing.
      ConditionExpression: '#status = :pending AND #attempts = :before',
      ExpressionAttributeNames: { ...names, '#attempts': 'attempts' },
      ExpressionAttributeValues: values,
    }),
  );
};

/**
 * Claims attempt `attempt` of a delivery for this sender until `now + CLAIM_MS`: only while the
 * delivery is pending, has made exactly the attempts before this one, and no other attempt holds
 * it. Answers the body claimed, or the held claim's end when another attempt holds it (0: none
 * to make).
 */
const claim = async (ref: DeliveryRef, attempt: number, now: number): Promise<{ body: string } | number> => {
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: deliveryPartition(ref.publisher_id, ref.webhook_id), sk: ref.sk },
        UpdateExpression: 'SET #claimed = :until',
        ConditionExpression:
          '#status = :pending AND #attempts = :before AND (attribute_not_exists(#claimed) OR #claimed <= :now)',
        ExpressionAttributeNames: {
          '#claimed': 'claimed_until',
          '#status': 'status',
          '#attempts': 'attempts',
        },
        ExpressionAttributeValues: {
          ':until': now + CLAIM_MS,
          ':pending': 'pending',
          ':before': attempt - 1,
          ':now': now,
        },
        // The body as claimed: what this attempt sends. A redaction (an erasure) changes the body
        // only while no attempt holds it, so nothing sent after it carries what it removed.
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { body: String(Attributes?.body ?? '') };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const { Item: held } = await dynamo.send(
      new GetCommand({
        TableName: tableName(),
        Key: { pk: deliveryPartition(ref.publisher_id, ref.webhook_id), sk: ref.sk },
        ConsistentRead: true,
      }),
    );
    const until = Number(held?.claimed_until);
    // Settled or moved on meanwhile: nothing for this message to do (0: drop it).
    return held?.status === 'pending' && Number(held.attempts) === attempt - 1 && until > now ? until : 0;
  }
};

/**
 * Makes attempt `attempt` of a pending delivery: claims it, signs the stored body for this moment,
 * POSTs it (lib/outbound: no redirects, 10 s, no private addresses), and records the outcome. A
 * message for any other attempt than the delivery's next (a duplicate, or one outrun by its chain)
 * is dropped, so one delivery has one chain of attempts; one held by another attempt comes back
 * when that claim ends. A delivery already settled, or whose webhook was deleted, is left as it is.
 */
export const attemptDelivery = async (
  ref: DeliveryRef,
  attempt: number,
  now = clock.now(),
): Promise<AttemptOutcome> => {
  const key = { pk: deliveryPartition(ref.publisher_id, ref.webhook_id), sk: ref.sk };
  const { Item: delivery } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
  );
  if (delivery?.status !== 'pending' || typeof delivery.body !== 'string') return { settled: true };
  const attempts = Number(delivery.attempts ?? 0) + 1;
  if (attempts !== attempt) return { settled: true };
  const claimed = await claim(ref, attempt, now);
  if (claimed === 0) return { settled: true };
  if (typeof claimed === 'number') return { settled: false, retryAt: claimed, attempt };
  const nowIso = new Date(now).toISOString();
  const [{ Item: webhook }, secret] = await Promise.all([
    dynamo.send(
      new GetCommand({
        TableName: tableName(),
        Key: webhookKey(ref.publisher_id, Number(delivery.slot)),
        ConsistentRead: true,
      }),
    ),
    webhookSecret(ref.publisher_id, ref.webhook_id),
  ]);
  try {
    if (
      webhook?.webhook_id !== ref.webhook_id ||
      webhook.deleted_at !== undefined ||
      secret === undefined ||
      typeof webhook.url !== 'string'
    ) {
      await settle(
        ref,
        attempts,
        {
          status: 'failed',
          last_attempt_at: nowIso,
          last_error: 'webhook deleted',
          next_attempt_at: null,
          ...ttlFrom(clock.now()),
        },
        ['body'],
      );
      return { settled: true };
    }
    const eventId = String(delivery.event_id);
    const result = await postWebhook({
      url: webhook.url,
      headers: webhookHeaders(secret, eventId, Math.floor(now / 1000), claimed.body),
      body: claimed.body,
      allowLoopback: allowsLoopback(),
    });
    // The webhook's health counts this POST, before the delivery moves on: a fault here fails the
    // message, and the attempt made again later is counted as the POST it is.
    await recordAttempt(webhook, {
      key: `${ref.sk}#${attempt}#${now}`,
      at: clock.now(),
      ok: result.ok,
      status: result.status,
      error: result.error,
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
        {
          ...outcome,
          status: 'delivered',
          delivered_at: new Date(clock.now()).toISOString(),
          next_attempt_at: null,
          ...ttlFrom(clock.now()),
        },
        ['body'],
      );
      return { settled: true };
    }
    const base = retryBaseMs();
    const givenUp = now - Date.parse(firstAttemptAt) >= base * RETRY_WINDOW_BASES;
    const retryAt = now + retryDelayMs(attempts, base);
    // Never the URL's path or query (they may carry a token), the secret, the signature or the body.
    log('warn', DELIVERY_ATTEMPT_FAILED_MESSAGE, {
      publisher_id: ref.publisher_id,
      webhook_id: ref.webhook_id,
      event_id: eventId,
      attempt: attempts,
      status: result.status,
      error: result.error,
      receiver: originOf(webhook.url),
      next_attempt_at: givenUp ? null : new Date(retryAt).toISOString(),
    });
    if (givenUp) {
      await settle(
        ref,
        attempts,
        { ...outcome, status: 'failed', next_attempt_at: null, ...ttlFrom(clock.now()) },
        ['body'],
      );
      return { settled: true };
    }
    await settle(ref, attempts, { ...outcome, next_attempt_at: new Date(retryAt).toISOString() });
    return { settled: false, retryAt, attempt: attempts + 1 };
  } catch (error) {
    // Another attempt of the same delivery recorded its outcome first: that one goes on.
    if (isConditionFailure(error)) return { settled: true };
    throw error;
  }
};

export const deliveryFromItem = (item: Record<string, unknown>): Delivery => {
  const { event_id, type, occurred_at, status, attempts } = item;
  if (typeof event_id !== 'string' || typeof occurred_at !== 'string' || typeof attempts !== 'number') {
    throw new IntegrityError('stored delivery is malformed');
  }
  const orNull = <T>(value: unknown, kind: 'string' | 'number') =>
    typeof value === kind ? (value as T) : null;
  return {
    event_id,
    type: type as DeliveryEventType,
    occurred_at,
    // Null for a delivery stored before these were kept.
    device_id: orNull(item.device_id, 'string'),
    ban_id: orNull(item.ban_id, 'number'),
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
  games: readonly string[] | null,
  webhookId: string,
  query: DeliveriesQuery,
): Promise<DeliveryList> => {
  // A webhook outside a bound key's games is not found, as in the webhook listing.
  await reachableWebhook(publisherId, games, webhookId);
  const pk = deliveryPartition(publisherId, webhookId);
  const start =
    query.cursor === undefined
      ? undefined
      : { pk, sk: sortKeyOf(`deliveries ${pk}`, query.cursor, (sk) => DELIVERY_CURSOR.test(sk)) };
  // A settled delivery past the retention is gone, whether or not time to live deleted it yet:
  // its ttl passed, or (one settled before ttls) its last attempt is older than the retention.
  const now = clock.now();
  const kept = '(#status = :pending OR ((attribute_not_exists(#ttl) OR #ttl > :now) AND #last > :cutoff))';
  const page = await filteredPage(
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: query.status ? `#status = :status AND ${kept}` : kept,
      ExpressionAttributeNames: {
        '#status': 'status',
        '#ttl': TIME_TO_LIVE_ATTRIBUTE,
        '#last': 'last_attempt_at',
      },
      ExpressionAttributeValues: {
        ':pk': pk,
        ':pending': 'pending',
        ':now': Math.floor(now / 1000),
        ':cutoff': new Date(now - retentionMs()).toISOString(),
        ...(query.status ? { ':status': query.status } : {}),
      },
      ScanIndexForward: false,
      ConsistentRead: true,
    },
    query.limit,
    start,
    deliveryFromItem,
  );
  return {
    items: page.items,
    next_cursor: page.resumeAfter === null ? null : cursorOf(`deliveries ${pk}`, page.resumeAfter),
  };
};

/** Every delivery still pending, with when it is due (the local dispatcher's restart reads these). */
export const pendingDeliveries = async (): Promise<
  Array<{ ref: DeliveryRef; attempt: number; dueAt: number }>
> => {
  const pending: Array<{ ref: DeliveryRef; attempt: number; dueAt: number }> = [];
  for (const webhook of await allWebhooks()) {
    const pages = paginateQuery(
      { client: dynamo },
      {
        TableName: tableName(),
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
          ref: { publisher_id: webhook.publisher_id, webhook_id: webhook.webhook_id, sk: String(item.sk) },
          attempt: Number(item.attempts ?? 0) + 1,
          // A claim a stopped run left holds the delivery until it ends.
          dueAt: Math.max(
            Date.parse(String(item.next_attempt_at)) || clock.now(),
            Number(item.claimed_until ?? 0),
          ),
        });
      }
    }
  }
  return pending;
};
