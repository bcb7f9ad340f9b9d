import { randomBytes } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ReportModerator } from '@kernel/transparency';
import * as clock from '../clock';
import type { Actor, WebhookTest, WebhookTestEvent } from '../model/responses';
import { originOf } from '../outbound/webhook-address';
import { dynamo, tableName } from '../storage/client';
import { queueDeliveries } from '../storage/delivery-queue';
import { deliveryKey } from '../storage/keys';
import { actorIdOf, eventKeysOf, recordEvent, undoUnrecorded } from './audit';
import {
  type ChangeEvent,
  type ChangeRecord,
  deciderOfChange,
  eventsOfChange,
  importSummariesOfChange,
} from './change-events';
import {
  type DeliveryRef,
  deliveryFromItem,
  newDeliveryItem,
  recordDeliveries,
  recordImportDeliveries,
  redactErasedDeliveries,
} from './deliveries';
import { appendToFeed } from './feed';
import { noteGamesUsed } from './games-used';
import { noteDispatched } from './import-backlog';
import { countInDirectory } from './publishers';
import { countInReport } from './transparency-rollups';
import { publisherWebhooks, reachableWebhook, webhooksConcerning } from './webhooks';

/**
 * The dispatcher: what happens to a batch of changes, on AWS (the stream's function,
 * functions/events-dispatcher.ts) and locally (infra/local/change-log.ts) alike. The events go
 * to the feed while their deliveries are recorded and handed to the queue (so a webhook may
 * arrive a moment before the feed shows its event). Every step is safe to repeat, so a batch
 * handed on again after a failure half-way changes nothing twice.
 */
export const dispatchChanges = async (
  records: readonly ChangeRecord[],
  enqueue: (refs: readonly DeliveryRef[]) => Promise<void>,
): Promise<{ events: number; deliveries: number }> => {
  const deciders = new Map<string, ReportModerator>();
  const events = records.flatMap((record) => {
    const made = eventsOfChange(record);
    noteDeciders(record, made, deciders);
    return made;
  });
  const summaries = records.flatMap(importSummariesOfChange);
  if (events.length === 0 && summaries.length === 0) return { events: 0, deliveries: 0 };
  // Only the partitions of the publishers these events concern (all that have webhooks for a global ban).
  const webhooks = events.length === 0 ? [] : await webhooksConcerning(events);
  // The feed, the deliveries, the directory's counts (lib/domain/publishers.ts) and the games
  // used (lib/domain/games-used.ts) are independent items: all are written at once, and deliveries are handed to the queue as soon as they are recorded.
  const [refs] = await Promise.all([
    (async () => {
      const recorded = [
        ...(await recordDeliveries(events, webhooks)),
        // An import batch's one summary, to its publisher's webhooks only (never in the feed).
        ...(summaries.length === 0
          ? []
          : await recordImportDeliveries(
              summaries,
              (
                await Promise.all(
                  [...new Set(summaries.map((summary) => summary.publisher_id))].map(publisherWebhooks),
                )
              ).flat(),
            )),
      ];
      await redactErasedDeliveries(events, webhooks);
      if (recorded.length > 0) await enqueue(recorded);
      return recorded;
    })(),
    appendToFeed(events),
    countInDirectory(events),
    noteGamesUsed(events),
    // The transparency report's daily rollups (lib/domain/transparency-rollups.ts).
    countInReport(events, deciders),
  ]);
  // Last, once all of the above is written: the imported bans now through (lib/domain/import-backlog.ts).
  await noteDispatched(importedBansByPublisher(events));
  return { events: events.length, deliveries: refs.length };
};

/** Each publisher's imported bans among the events: one `ban.created` each. */
const importedBansByPublisher = (events: readonly ChangeEvent[]) => {
  const counts = new Map<string, number>();
  for (const event of events)
    if (event.type === 'ban.created' && event.imported === true)
      counts.set(event.publisher_id, (counts.get(event.publisher_id) ?? 0) + 1);
  return counts;
};

/** Who decided each `appeal.decided` event's appeal, read from its change record (the event leaves it out). */
const noteDeciders = (
  record: ChangeRecord,
  events: readonly ChangeEvent[],
  deciders: Map<string, ReportModerator>,
) => {
  const decided = events.filter((event) => event.type === 'appeal.decided');
  if (decided.length === 0) return;
  const actor = deciderOfChange(record);
  const id = actor ? actorIdOf(actor) : null;
  if (!actor || id === null) return;
  for (const event of decided) deciders.set(event.event_id, { type: actor.type, id });
};

/**
 * Sends a signed `webhook.test` event to one of the publisher's webhooks (one a key bound to
 * `games` reaches; any other is not found), through the same path as every event: a stored
 * delivery, the queue, the sender's signed attempts and retries, the deliveries listing. The test
 * is not in the feed and goes to no other webhook. Each call is a new event (a random id), audited
 * as `webhook.tested` (who sent it, to which webhook). If the trail or the queue refuses it, the
 * delivery and its event are withdrawn, so nothing is left pending that no attempt follows.
 */
export const sendTestEvent = async (
  publisherId: string,
  games: readonly string[] | null,
  webhookId: string,
  actor: Actor,
): Promise<WebhookTest> => {
  const webhook = await reachableWebhook(publisherId, games, webhookId);
  const now = new Date(clock.now()).toISOString();
  const event: WebhookTestEvent = {
    event_id: `evt_${randomBytes(18).toString('base64url')}`,
    type: 'webhook.test',
    occurred_at: now,
    device_id: null,
    publisher_id: publisherId,
    webhook_id: webhookId,
  };
  const key = deliveryKey(publisherId, webhookId, now, event.event_id);
  const ref = { publisher_id: publisherId, webhook_id: webhookId, sk: key.sk };
  const item = newDeliveryItem(key, ref, webhook.slot, event, JSON.stringify(event), now);
  await dynamo.send(
    new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
  try {
    await recordEvent(publisherId, event.event_id, now, actor, {
      type: 'webhook.tested',
      webhook: { webhook_id: webhookId, url_origin: originOf(webhook.url) },
      test_event_id: event.event_id,
    });
    await queueDeliveries([ref]);
  } catch (error) {
    await undoUnrecorded(
      [key, ...eventKeysOf(publisherId, 'webhook.tested', event.event_id, now, actor)],
      `test event ${event.event_id}`,
    );
    throw error;
  }
  return { webhook_id: webhookId, ...deliveryFromItem(item) };
};
