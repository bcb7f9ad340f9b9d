import { randomBytes } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, paginateQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Scope } from '@kernel/scopes';
import * as clock from '../clock';
import { mapWithConcurrency } from '../concurrency';
import { settings } from '../config';
import {
  type CreateWebhookRequest,
  type FeedEventType,
  feedEventTypes,
  WEBHOOK_MAX_PER_PUBLISHER,
} from '../model/requests';
import type { Actor, NewWebhook, Webhook, WebhookHealth, WebhookList } from '../model/responses';
import { checkWebhookUrl, originOf } from '../outbound/webhook-address';
import { newWebhookSecret } from '../outbound/webhook-signature';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import {
  WEBHOOK_INDEX_PARTITION,
  WEBHOOK_SLOT_PREFIX,
  webhookIndexKey,
  webhookKey,
  webhookPartition,
  webhookSecretKey,
} from '../storage/keys';
import type { Grantor } from './api-keys';
import { eventKeysOf, recordEvent, undoUnrecorded } from './audit';
import { type ChangeEvent, readsAppealEvent } from './change-events';
import { IntegrityError, InvalidInputError, NotFoundError } from './errors';

/**
 * Webhooks: where a publisher's events are POSTed, signed with the webhook's secret (shown once,
 * when made); making and deleting one are audited. Invariants: at most ten per publisher, held by
 * slots without a transaction; the secret is an item of its own that only the roles that make,
 * delete or sign with it can read; a webhook's health lives on its slot (recordAttempt), so the
 * listing stays one Query. Items and reasons: docs/data-model.md#webhooks-and-deliveries and
 * docs/data-model.md#webhook-secrets.
 */

/** A webhook as stored: the listed fields and its slot (the secret is an item of its own). */
export interface StoredWebhook extends Webhook {
  publisher_id: string;
  slot: number;
  /** Set when a deletion began (its event may still be being recorded): no longer listed or sent to. */
  deleted_at?: string;
  /** How its deliveries have been going, as read (healthOf). */
  health?: WebhookHealth;
}

const HOUR_MS = 3_600_000;
/** The failures the health counts: those of the current hour and the 23 before it. */
export const HEALTH_WINDOW_HOURS = 24;
/** The item's map of failed attempts per hour: `h<hours since the epoch>` → count. */
const FAILURES = 'failures';
const hourOf = (ms: number) => Math.floor(ms / HOUR_MS);
const bucketOf = (hour: number) => `h${hour}`;
const hourOfBucket = (bucket: string) => (/^h\d+$/.test(bucket) ? Number(bucket.slice(1)) : Number.NaN);
const inWindow = (hour: number, now: number) =>
  hour > hourOf(now) - HEALTH_WINDOW_HOURS && hour <= hourOf(now);

const stringOrNull = (value: unknown) => (typeof value === 'string' ? value : null);

/** A webhook's health from its item, at `now`: older buckets still stored are not counted. */
export const healthOf = (item: Record<string, unknown>, now = clock.now()): WebhookHealth => {
  const failures = item[FAILURES];
  let failures24h = 0;
  if (failures && typeof failures === 'object') {
    for (const [bucket, count] of Object.entries(failures)) {
      if (inWindow(hourOfBucket(bucket), now) && typeof count === 'number') failures24h += count;
    }
  }
  const outcome = item.last_outcome;
  return {
    last_attempt_at: stringOrNull(item.last_attempt_at),
    last_outcome: outcome === 'delivered' || outcome === 'failed' ? outcome : null,
    last_status: typeof item.last_status === 'number' ? item.last_status : null,
    last_error: stringOrNull(item.last_error),
    last_delivered_at: stringOrNull(item.last_delivered_at),
    failures_24h: failures24h,
  };
};

/** One attempt's outcome, as the sender records it on the webhook's item. */
export interface AttemptRecord {
  /** Unique to one POST (delivery, attempt number, the claim's time): a repeat of the write adds nothing. */
  key: string;
  /** When the attempt ended. */
  at: number;
  ok: boolean;
  status: number | null;
  error: string | null;
}

/**
 * Records one attempt's outcome on its webhook's item (read by the sender just before, as `item`):
 * the latest attempt, and a failure counted in its hour's bucket, the buckets older than the window
 * that the read saw removed (so the item holds about 24). Exactly once per POST: the write is
 * conditional on the item not holding this attempt's key already (an SDK retry of a write that
 * landed changes nothing), and on the webhook being the same and not deleted (a deleted webhook's
 * slot gets no health back). A POST made again after a failed write is another attempt, counted.
 */
export const recordAttempt = async (item: Record<string, unknown>, attempt: AttemptRecord): Promise<void> => {
  const key = { pk: String(item.pk), sk: String(item.sk) };
  const hour = hourOf(attempt.at);
  const at = new Date(attempt.at).toISOString();
  const stored = item[FAILURES];
  const buckets = stored && typeof stored === 'object' ? Object.keys(stored) : undefined;
  const write = (mapExists: boolean) => {
    const names: Record<string, string> = {
      '#key': 'last_attempt_key',
      '#deleted': 'deleted_at',
      '#id': 'webhook_id',
      '#f': FAILURES,
    };
    const values: Record<string, unknown> = {
      ':key': attempt.key,
      ':id': item.webhook_id,
      ':at': at,
      ':outcome': attempt.ok ? 'delivered' : 'failed',
      ':status': attempt.status,
      ':error': attempt.ok ? null : attempt.error,
    };
    const sets = [
      'last_attempt_key = :key',
      'last_attempt_at = :at',
      'last_outcome = :outcome',
      'last_status = :status',
      'last_error = :error',
    ];
    if (attempt.ok) sets.push('last_delivered_at = :at');
    const removes: string[] = [];
    if (!attempt.ok) {
      names['#h'] = bucketOf(hour);
      if (mapExists) {
        sets.push('#f.#h = if_not_exists(#f.#h, :zero) + :one');
        Object.assign(values, { ':zero': 0, ':one': 1 });
      } else {
        sets.push('#f = :first');
        values[':first'] = { [bucketOf(hour)]: 1 };
      }
    }
    if (mapExists) {
      (buckets ?? [])
        .filter((bucket) => !(hourOfBucket(bucket) > hour - HEALTH_WINDOW_HOURS))
        .forEach((bucket, index) => {
          names[`#old${index}`] = bucket;
          removes.push(`#f.#old${index}`);
        });
    }
    const update = `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`;
    const condition = `#id = :id AND attribute_not_exists(#deleted) AND (attribute_not_exists(#key) OR #key <> :key)${
      mapExists || attempt.ok ? '' : ' AND attribute_not_exists(#f)'
    }`;
    return dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: update,
        ConditionExpression: condition,
        // DynamoDB refuses a name the expressions do not use (`#f` when no bucket changes).
        ExpressionAttributeNames: Object.fromEntries(
          Object.entries(names).filter(([name]) => `${update} ${condition}`.includes(name)),
        ),
        ExpressionAttributeValues: values,
      }),
    );
  };
  try {
    await write(buckets !== undefined);
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // A webhook made before health was kept, whose map another attempt has just begun: count into it.
    if (buckets === undefined && !attempt.ok) {
      try {
        await write(true);
      } catch (again) {
        if (!isConditionFailure(again)) throw again;
      }
    }
    // Otherwise: recorded already, or the webhook was deleted meanwhile.
  }
};

/** Whether this process may call loopback http:// URLs: the local server's development mode only. */
export const allowsLoopback = () => settings().webhookAllowLoopback;

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((entry) => typeof entry === 'string');

const webhookFromItem = (item: Record<string, unknown>): StoredWebhook => {
  const { publisher_id, webhook_id, url, events, games, created_at, sk, deleted_at } = item;
  const slot = Number(String(sk).slice(WEBHOOK_SLOT_PREFIX.length));
  if (
    typeof publisher_id !== 'string' ||
    typeof webhook_id !== 'string' ||
    typeof url !== 'string' ||
    typeof created_at !== 'string' ||
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
    slot,
    ...(typeof deleted_at === 'string' ? { deleted_at } : {}),
    health: healthOf(item),
  };
};

export const toWebhookView = ({ webhook_id, url, events, games, created_at }: StoredWebhook): Webhook => ({
  webhook_id,
  url,
  events,
  games,
  created_at,
});

/** Every webhook of one publisher, those being deleted included, oldest first. */
const storedWebhooks = async (publisherId: string): Promise<StoredWebhook[]> => {
  const found: StoredWebhook[] = [];
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :slot)',
      ExpressionAttributeValues: { ':pk': webhookPartition(publisherId), ':slot': WEBHOOK_SLOT_PREFIX },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) for (const item of page.Items ?? []) found.push(webhookFromItem(item));
  return found.sort((a, b) => a.created_at.localeCompare(b.created_at));
};

/** A publisher's live webhooks, oldest first. */
export const publisherWebhooks = async (publisherId: string): Promise<StoredWebhook[]> =>
  (await storedWebhooks(publisherId)).filter((webhook) => webhook.deleted_at === undefined);

/** The publishers that have (or recently had) webhooks: the receivers of a global ban are among them. */
const indexedPublishers = async (): Promise<string[]> => {
  const found: string[] = [];
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': WEBHOOK_INDEX_PARTITION },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) for (const item of page.Items ?? []) found.push(String(item.sk));
  return found;
};

/** Publishers' webhooks read at once (one Query each). */
const WEBHOOK_READ_CONCURRENCY = 10;

const webhooksOf = async (publisherIds: Iterable<string>): Promise<StoredWebhook[]> =>
  (await mapWithConcurrency([...new Set(publisherIds)], WEBHOOK_READ_CONCURRENCY, publisherWebhooks)).flat();

/**
 * The webhooks a batch of events may go to (the dispatcher's read): each event's owner's, and for
 * a global ban every publisher's that has any. Nobody else's partition is read.
 */
export const webhooksConcerning = async (events: readonly ChangeEvent[]): Promise<StoredWebhook[]> => {
  const owners = events.flatMap((event) =>
    'filer_publisher_id' in event ? [event.publisher_id, event.filer_publisher_id] : [event.publisher_id],
  );
  const global = events.some((event) => 'ban' in event && event.ban.scope === 'global');
  return webhooksOf(global ? [...owners, ...(await indexedPublishers())] : owners);
};

/** Every publisher's webhooks (the local dispatcher's restart, which finds what is still pending). */
export const allWebhooks = async () => webhooksOf(await indexedPublishers());

/** The secret a webhook's deliveries are signed with; undefined once the webhook is deleted. */
export const webhookSecret = async (publisherId: string, webhookId: string): Promise<string | undefined> => {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName(),
      Key: webhookSecretKey(publisherId, webhookId),
      ConsistentRead: true,
    }),
  );
  return typeof Item?.secret === 'string' ? Item.secret : undefined;
};

/** Whether a key bound to `games` (null: every game) reaches a webhook: all the webhook's games are its own. */
const reaches = (games: readonly string[] | null, webhook: Pick<StoredWebhook, 'games'>) =>
  games === null || (webhook.games?.every((game) => games.includes(game)) ?? false);

/** The publisher's webhooks a key bound to `games` (null: every game) sees: those within its games. */
export const listWebhooks = async (
  publisherId: string,
  games: readonly string[] | null,
): Promise<WebhookList> => ({
  items: (await publisherWebhooks(publisherId))
    .filter((webhook) => reaches(games, webhook))
    .map((webhook) => ({ ...toWebhookView(webhook), health: webhook.health ?? healthOf({}) })),
});

/** One of the publisher's webhooks, if a key bound to `games` reaches it; otherwise not found (404). */
export const reachableWebhook = async (
  publisherId: string,
  games: readonly string[] | null,
  webhookId: string,
): Promise<StoredWebhook> => {
  const webhook = (await publisherWebhooks(publisherId)).find((found) => found.webhook_id === webhookId);
  if (!webhook || !reaches(games, webhook)) throw new NotFoundError('No such webhook');
  return webhook;
};

/** The read scope each event type needs: a webhook is a standing read of what it carries. */
const readScopeOf = (type: FeedEventType): Scope => (type === 'policy.updated' ? 'policy:read' : 'bans:read');
// Appeal events say which ban was contested and how it was decided: what `bans:read` reads in the feed.

/**
 * Registers a webhook. A webhook is a standing read credential, so it needs what reading its
 * events needs: `bans:read` for ban events and `policy:read` for policy events, and a key bound to
 * games may ask only for its own games (leaving `games` out, every game, is more): 400 `not_held`,
 * like minting a key. The URL is checked for what can be judged without the network (https, no
 * credentials, no private or loopback address literal); where its name resolves is checked again
 * at every delivery, on the address actually connected to. The secret is written first, then the
 * webhook into a free slot, then the publisher into the index, then the event; a failure before
 * the event withdraws the webhook and its secret.
 */
export const createWebhook = async (
  publisherId: string,
  caller: Grantor,
  request: CreateWebhookRequest,
  actor: Actor,
): Promise<NewWebhook> => {
  const checked = checkWebhookUrl(request.url, { allowLoopback: allowsLoopback() });
  if (!checked.ok) throw new InvalidInputError('url', 'not_allowed', checked.reason);
  const events = feedEventTypes.filter((type) => (request.events ?? feedEventTypes).includes(type));
  const lacking = [...new Set(events.map(readScopeOf))].filter((scope) => !caller.scopes.includes(scope));
  if (lacking.length > 0)
    throw new InvalidInputError(
      'events',
      'not_held',
      `need ${lacking.join(' and ')}, which the calling key lacks: a webhook carries what reading them shows`,
    );
  const games = request.games ? [...new Set(request.games)].sort() : null;
  if (caller.games) {
    if (!games)
      throw new InvalidInputError('games', 'not_held', 'are required: the calling key is bound to games');
    const outside = games.filter((game) => !caller.games?.includes(game));
    if (outside.length > 0)
      throw new InvalidInputError(
        'games',
        'not_held',
        `may not include ${outside.join(', ')}: the calling key is not bound to it`,
      );
  }
  const taken = new Set((await storedWebhooks(publisherId)).map((webhook) => webhook.slot));
  const secret = newWebhookSecret();
  const webhook: Omit<StoredWebhook, 'slot'> = {
    publisher_id: publisherId,
    webhook_id: `wh_${randomBytes(12).toString('base64url')}`,
    url: checked.url.href,
    events,
    games,
    created_at: new Date(clock.now()).toISOString(),
  };
  const secretKey = webhookSecretKey(publisherId, webhook.webhook_id);
  await dynamo.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...secretKey, secret },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  let slot: number | undefined;
  try {
    for (let free = 0; free < WEBHOOK_MAX_PER_PUBLISHER && slot === undefined; free += 1) {
      if (taken.has(free)) continue;
      try {
        await dynamo.send(
          new PutCommand({
            TableName: tableName(),
            // An empty map of failures per hour: the sender counts into it (recordAttempt).
            Item: { ...webhookKey(publisherId, free), ...webhook, [FAILURES]: {} },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        slot = free;
      } catch (error) {
        // Another create took this slot since the read: try the next free one.
        if (!isConditionFailure(error)) throw error;
      }
    }
    if (slot === undefined)
      throw new InvalidInputError(
        'url',
        'limit_reached',
        `cannot be added: a publisher has at most ${WEBHOOK_MAX_PER_PUBLISHER} webhooks; delete one first`,
      );
    // A deletion of the publisher's last webhook drops the index entry only if no create counted
    // itself in since it looked (deleteWebhook).
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: webhookIndexKey(publisherId),
        UpdateExpression: 'ADD #generation :one',
        ExpressionAttributeNames: { '#generation': 'generation' },
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    await recordEvent(publisherId, webhook.webhook_id, webhook.created_at, actor, {
      type: 'webhook.created',
      webhook: { webhook_id: webhook.webhook_id, url_origin: originOf(webhook.url), events, games },
    });
  } catch (error) {
    await undoUnrecorded(
      [
        ...eventKeysOf(publisherId, 'webhook.created', webhook.webhook_id, webhook.created_at, actor),
        ...(slot === undefined ? [] : [webhookKey(publisherId, slot)]),
        secretKey,
      ],
      `webhook ${webhook.webhook_id}`,
    );
    throw error;
  }
  const { publisher_id: _publisher, ...view } = webhook;
  return { ...view, secret };
};

/**
 * Deletes one of the publisher's webhooks a key bound to `games` reaches; any other is not found
 * (404), like an unknown one. Retry-safe without a transaction: the webhook is marked deleted
 * first (no longer listed or sent to), then `webhook.deleted` is recorded, then its secret and the
 * webhook go; a retry after a fault finds the mark and finishes, recording the event once. The
 * publisher leaves the index when its last webhook goes, unless a create counted itself in since.
 */
export const deleteWebhook = async (
  publisherId: string,
  games: readonly string[] | null,
  webhookId: string,
  actor: Actor,
): Promise<void> => {
  const found = (await storedWebhooks(publisherId)).find((webhook) => webhook.webhook_id === webhookId);
  if (!found || !reaches(games, found)) throw new NotFoundError('No such webhook');
  const { Item: index } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: webhookIndexKey(publisherId), ConsistentRead: true }),
  );
  const key = webhookKey(publisherId, found.slot);
  let deletedAt: string;
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET deleted_at = if_not_exists(deleted_at, :now)',
        ConditionExpression: 'webhook_id = :id',
        ExpressionAttributeValues: { ':now': new Date(clock.now()).toISOString(), ':id': webhookId },
        ReturnValues: 'ALL_NEW',
      }),
    );
    deletedAt = String(Attributes?.deleted_at);
  } catch (error) {
    // Deleted meanwhile by another request, which records the event: gone either way.
    if (isConditionFailure(error)) return;
    throw error;
  }
  await recordEvent(publisherId, webhookId, deletedAt, actor, {
    type: 'webhook.deleted',
    webhook: { webhook_id: webhookId, url_origin: originOf(found.url) },
  });
  await dynamo.send(
    new DeleteCommand({ TableName: tableName(), Key: webhookSecretKey(publisherId, webhookId) }),
  );
  try {
    await dynamo.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: key,
        ConditionExpression: 'webhook_id = :id',
        ExpressionAttributeValues: { ':id': webhookId },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  if (index && (await storedWebhooks(publisherId)).length === 0) {
    try {
      await dynamo.send(
        new DeleteCommand({
          TableName: tableName(),
          Key: webhookIndexKey(publisherId),
          ConditionExpression: '#generation = :seen',
          ExpressionAttributeNames: { '#generation': 'generation' },
          ExpressionAttributeValues: { ':seen': index.generation },
        }),
      );
    } catch (error) {
      // A create counted itself in since: the publisher keeps its place.
      if (!isConditionFailure(error)) throw error;
    }
  }
};

/** The webhooks one event goes to: the owner's that ask for it, and for a global ban everyone's. */
export const receiversOf = (event: ChangeEvent, webhooks: readonly StoredWebhook[]): StoredWebhook[] =>
  // The events an import made go to no webhook: its batch's one `bans.imported` summary stands for them.
  event.imported === true
    ? []
    : webhooks.filter((webhook) => {
        if (!webhook.events.includes(event.type)) return false;
        // An appeal's events go to its ban's owner and its filer: a webhook bound to games takes what
        // a key bound to them reads.
        if ('appeal' in event) return readsAppealEvent(event, webhook.publisher_id, webhook.games);
        if (webhook.publisher_id !== event.publisher_id)
          return event.type !== 'policy.updated' && event.ban.scope === 'global';
        if (event.type === 'policy.updated' || event.ban.scope !== 'game') return true;
        return webhook.games === null || webhook.games.includes(event.ban.game_id);
      });
