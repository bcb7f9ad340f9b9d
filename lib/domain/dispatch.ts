import { type ChangeRecord, eventsOfChange } from './change-events';
import { type DeliveryRef, recordDeliveries, redactErasedDeliveries } from './deliveries';
import { appendToFeed } from './feed';
import { webhooksConcerning } from './webhooks';

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
  const events = records.flatMap(eventsOfChange);
  if (events.length === 0) return { events: 0, deliveries: 0 };
  // Only the partitions of the publishers these events concern (all that have webhooks for a global ban).
  const webhooks = await webhooksConcerning(events);
  // The feed and the deliveries are independent items: both are written at once, and deliveries
  // are handed to the queue as soon as they are recorded.
  const [refs] = await Promise.all([
    (async () => {
      const recorded = await recordDeliveries(events, webhooks);
      await redactErasedDeliveries(events, webhooks);
      if (recorded.length > 0) await enqueue(recorded);
      return recorded;
    })(),
    appendToFeed(events),
  ]);
  return { events: events.length, deliveries: refs.length };
};
