import { randomBytes } from 'node:crypto';
import { DeleteCommand, PutCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import {
  type CreateWebhookRequest,
  type FeedEventType,
  feedEventTypes,
  WEBHOOK_MAX_PER_PUBLISHER,
} from '../model/requests';
import type { NewWebhook, Webhook, WebhookList } from '../model/responses';
import { checkWebhookUrl } from '../outbound/webhook-address';
import { newWebhookSecret } from '../outbound/webhook-signature';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import { WEBHOOK_PARTITION, webhookKey, webhookPrefix } from '../storage/keys';
import type { ChangeEvent } from './change-events';
import { IntegrityError, InvalidInputError, NotFoundError } from './errors';

/**
 * Webhooks: where a publisher's events are POSTed, signed with the webhook's secret (shown once,
 * when made; kept in the table because every delivery signs with it). Item (lib/storage/keys.ts):
 *   webhook   `WEBHOOKS#ALL` / `<publisher_id>#<slot 0-9>`
 * One partition for all, so the dispatcher finds every receiver of a global ban in one Query;
 * ten slots per publisher, so the limit holds without a transaction.
 */

/** A webhook as stored: the listed fields, its slot and the signing secret. */
export interface StoredWebhook extends Webhook {
  publisher_id: string;
  slot: number;
  secret: string;
}

/** Whether this process may call loopback http:// URLs: the local server's development mode only. */
export const allowsLoopback = () => process.env.WEBHOOK_ALLOW_LOOPBACK === '1';

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((entry) => typeof entry === 'string');

const webhookFromItem = (item: Record<string, unknown>): StoredWebhook => {
  const { publisher_id, webhook_id, url, events, games, created_at, secret, sk } = item;
  const slot = Number(String(sk).split('#').at(-1));
  if (
    typeof publisher_id !== 'string' ||
    typeof webhook_id !== 'string' ||
    typeof url !== 'string' ||
    typeof created_at !== 'string' ||
    typeof secret !== 'string' ||
    !isStrings(events) ||
    !(games === null || isStrings(games)) ||
    !Number.isInteger(slot)
  ) {
    throw new IntegrityError('stored webhook is malformed');
  }
  return {
    publisher_id,
    webhook_id,
    url,
    events: events as FeedEventType[],
    games,
    created_at,
    secret,
    slot,
  };
};

export const toWebhookView = ({ webhook_id, url, events, games, created_at }: StoredWebhook): Webhook => ({
  webhook_id,
  url,
  events,
  games,
  created_at,
});

const queryWebhooks = async (prefix?: string): Promise<StoredWebhook[]> => {
  const found: StoredWebhook[] = [];
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName,
      KeyConditionExpression: prefix === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': WEBHOOK_PARTITION,
        ...(prefix === undefined ? {} : { ':prefix': prefix }),
      },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) for (const item of page.Items ?? []) found.push(webhookFromItem(item));
  return found;
};

/** A publisher's webhooks, oldest first. */
export const publisherWebhooks = async (publisherId: string): Promise<StoredWebhook[]> =>
  (await queryWebhooks(webhookPrefix(publisherId))).sort((a, b) => a.created_at.localeCompare(b.created_at));

/** Every publisher's webhooks (the dispatcher's read). */
export const allWebhooks = () => queryWebhooks();

export const listWebhooks = async (publisherId: string): Promise<WebhookList> => ({
  items: (await publisherWebhooks(publisherId)).map(toWebhookView),
});

/**
 * Registers a webhook. The URL is checked for what can be judged without the network (https, no
 * credentials, no private or loopback address literal); where its name resolves is checked again
 * at every delivery, on the address actually connected to.
 */
export const createWebhook = async (
  publisherId: string,
  request: CreateWebhookRequest,
): Promise<NewWebhook> => {
  const checked = checkWebhookUrl(request.url, { allowLoopback: allowsLoopback() });
  if (!checked.ok) throw new InvalidInputError('url', 'not_allowed', checked.reason);
  const events = feedEventTypes.filter((type) => (request.events ?? feedEventTypes).includes(type));
  const games = request.games ? [...new Set(request.games)].sort() : null;
  const taken = new Set((await publisherWebhooks(publisherId)).map((webhook) => webhook.slot));
  const webhook: Omit<StoredWebhook, 'slot'> = {
    publisher_id: publisherId,
    webhook_id: `wh_${randomBytes(12).toString('base64url')}`,
    url: checked.url.href,
    events,
    games,
    created_at: new Date().toISOString(),
    secret: newWebhookSecret(),
  };
  for (let slot = 0; slot < WEBHOOK_MAX_PER_PUBLISHER; slot += 1) {
    if (taken.has(slot)) continue;
    try {
      await dynamo.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...webhookKey(publisherId, slot), ...webhook },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      const { publisher_id: _publisher, secret, ...view } = webhook;
      return { ...view, secret };
    } catch (error) {
      // Another create took this slot since the read: try the next free one.
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new InvalidInputError(
    'url',
    'limit_reached',
    `cannot be added: a publisher has at most ${WEBHOOK_MAX_PER_PUBLISHER} webhooks; delete one first`,
  );
};

/** Deletes one of the publisher's webhooks; another publisher's id is not found (404), like an unknown one. */
export const deleteWebhook = async (publisherId: string, webhookId: string): Promise<void> => {
  const webhook = (await publisherWebhooks(publisherId)).find((found) => found.webhook_id === webhookId);
  if (!webhook) throw new NotFoundError('No such webhook');
  try {
    await dynamo.send(
      new DeleteCommand({
        TableName: tableName,
        Key: webhookKey(publisherId, webhook.slot),
        ConditionExpression: 'webhook_id = :id',
        ExpressionAttributeValues: { ':id': webhookId },
      }),
    );
  } catch (error) {
    // Deleted meanwhile by another request: gone either way.
    if (!isConditionFailure(error)) throw error;
  }
};

/** The webhooks one event goes to: the owner's that ask for it, and for a global ban everyone's. */
export const receiversOf = (event: ChangeEvent, webhooks: readonly StoredWebhook[]): StoredWebhook[] =>
  webhooks.filter((webhook) => {
    if (!webhook.events.includes(event.type)) return false;
    if (webhook.publisher_id !== event.publisher_id)
      return event.type !== 'policy.updated' && event.ban.scope === 'global';
    if (event.type === 'policy.updated' || event.ban.scope !== 'game') return true;
    return webhook.games === null || webhook.games.includes(event.ban.game_id);
  });
