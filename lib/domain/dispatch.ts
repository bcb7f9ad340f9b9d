import { type ChangeRecord, eventsOfChange } from './change-events';
import { type DeliveryRef, recordDeliveries, redactErasedDeliveries } from './deliveries';
import { appendToFeed } from './feed';
import { allWebhooks } from './webhooks';

/**
 * The dispatcher: what happens to a batch of changes, on AWS (the stream's function,
 * functions/events-dispatcher.ts) and locally (infra/local/change-log.ts) alike. The events go
 * to the feed first, then their deliveries are recorded and handed to the queue. Every step is
 * safe to repeat, so a batch handed on again after a failure half-way changes nothing twice.
 */
export const dispatchChanges = async (
  records: readonly ChangeRecord[],
  enqueue: (refs: readonly DeliveryRef[]) => Promise<void>,
): Promise<{ events: number; deliveries: number }> => {
  const events = records.flatMap(eventsOfChange);
  if (events.length === 0) return { events: 0, deliveries: 0 };
  await appendToFeed(events);
  const webhooks = await allWebhooks();
  const refs = await recordDeliveries(events, webhooks);
  await redactErasedDeliveries(events, webhooks);
  if (refs.length > 0) await enqueue(refs);
  return { events: events.length, deliveries: refs.length };
};
