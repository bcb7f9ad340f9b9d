import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import * as clock from '../clock';
import type { Actor, AppealSubject, Policy } from '../model/responses';
import { APPEAL_SK, BAN_PREFIX, partitions } from '../storage/keys';
import { appealFromItem, appealReach, appealSubject } from './appeal-record';
import { eventIdOf } from './audit';
import { type Ban, banFromItem } from './ban-record';
import { isChangeSource } from './change-sources';
import { policyFromItem } from './policy';

/**
 * What the change feed and webhooks report, derived from the table's own changes (bans, policies,
 * appeals): deployed from the table's stream, the outbox; locally from the change log in front of
 * the store (infra/local/change-log.ts), whose records have the same shape. Invariant: a change
 * that was stored has its events whatever became of its request, each under the audit trail's id
 * for the same change, the same whenever its record is handed on again. Which change makes which
 * event, and at what time: docs/data-model.md#the-change-feed.
 */

interface EventBase {
  event_id: string;
  occurred_at: string;
  /** Whose change it is: the ban's owner, or the policy's publisher. */
  publisher_id: string;
  /**
   * Made by an import (the ban's INSERT): in the feed like any other, to no webhook (the batch's
   * `bans.imported` summary stands for them). Later changes of an imported ban are not.
   */
  imported?: true;
}

/** An event as the dispatcher stores and hands it on, before it is shown to a reader. */
export type BanEventType = 'ban.created' | 'ban.revoked' | 'ban.erased' | 'ban.updated';
export type ChangeEvent =
  | (EventBase & { type: BanEventType; device_id: string; ban: Ban })
  | (EventBase & { type: 'policy.updated'; device_id: null; policy: Policy })
  | (EventBase & {
      type: 'appeal.created' | 'appeal.decided';
      device_id: string;
      /** `publisher_id` is the ban's owner, who decides; the filer (maybe another publisher) sees it too. */
      filer_publisher_id: string;
      /** The game a key of the owner bound to games must hold to reach the appeal: a game ban's game. */
      ban_game_id: string | null;
      appeal: AppealSubject;
    });

/** An appeal's event. */
export type AppealEvent = Extract<ChangeEvent, { appeal: AppealSubject }>;

/**
 * Whether a reader of `publisherId` bound to `games` (null: every game) takes an appeal's event:
 * as a key bound to them reads the appeal (appealReach). The feed and webhooks both ask this.
 */
export const readsAppealEvent = (
  event: AppealEvent,
  publisherId: string,
  games: readonly string[] | null,
) => {
  const reach = appealReach(
    {
      ban_publisher_id: event.publisher_id,
      ban_game_id: event.ban_game_id,
      filer_publisher_id: event.filer_publisher_id,
      filer_game_id: event.appeal.filed_by.game_id,
    },
    publisherId,
    games,
  );
  return reach.owner || reach.filer;
};

/**
 * A change record: the stream's (DynamoDB Streams, NEW_AND_OLD_IMAGES) or the local log's. A
 * deletion by time to live carries `userIdentity` `{type: 'Service', principalId:
 * 'dynamodb.amazonaws.com'}`.
 */
export type ChangeRecord = Pick<DynamoDBRecord, 'eventName' | 'dynamodb' | 'userIdentity'>;

/**
 * Whether DynamoDB's time to live made this change: an item past its `ttl` (a feed entry, a
 * settled delivery, an index entry) is housekeeping, never anyone's change, so never an event:
 * above all never a `ban.erased`, which would tell every reader a ban was erased.
 */
export const isTimeToLiveDeletion = (record: ChangeRecord) => {
  const identity = record.userIdentity as { type?: unknown; principalId?: unknown } | undefined;
  return (
    record.eventName === 'REMOVE' &&
    identity?.type === 'Service' &&
    identity.principalId === 'dynamodb.amazonaws.com'
  );
};

const imageOf = (image: unknown) => (image ? unmarshall(image as Record<string, AttributeValue>) : undefined);

/** The stream's time of a change (seconds since the epoch) as an API timestamp. */
const changeTime = (record: ChangeRecord) => {
  const seconds = record.dynamodb?.ApproximateCreationDateTime;
  return new Date(typeof seconds === 'number' ? Math.round(seconds * 1000) : clock.now()).toISOString();
};

/**
 * What an event keeps of a ban: what a listing can show. Who made or revoked it is the audit
 * trail's to keep, and the idempotency key is the caller's, so neither is copied into the feed.
 */
const shown = ({
  idempotency_key: _key,
  created_by: _by,
  revoked_by: _revoker,
  updated_by: _updater,
  ...ban
}: Ban): Ban => ban;

const banEvent = (
  type: BanEventType,
  ban: Ban,
  occurredAt: string,
  subjectId = String(ban.ban_id),
): ChangeEvent => ({
  event_id: eventIdOf(ban.publisher_id, type, subjectId),
  type,
  occurred_at: occurredAt,
  publisher_id: ban.publisher_id,
  device_id: ban.device_id,
  ban: shown(ban),
});

/**
 * Who decided the appeal a change record shows decided (its new image's decision), for the
 * transparency report's count by moderator: the `appeal.decided` event leaves it out, as every
 * event's reader would otherwise see who moderates.
 */
export const deciderOfChange = (record: ChangeRecord): Actor | undefined => {
  const keys = imageOf(record.dynamodb?.Keys);
  if (!keys || !String(keys.pk).startsWith(partitions.appeal) || keys.sk !== APPEAL_SK) return undefined;
  return appealFromItem(imageOf(record.dynamodb?.NewImage))?.decision?.decided_by;
};

/** The events one change record stands for: none, or one. */
export const eventsOfChange = (record: ChangeRecord): ChangeEvent[] => {
  const keys = imageOf(record.dynamodb?.Keys);
  if (!keys || !isChangeSource(String(keys.pk), String(keys.sk))) return [];
  if (isTimeToLiveDeletion(record)) return [];
  const before = imageOf(record.dynamodb?.OldImage);
  const after = imageOf(record.dynamodb?.NewImage);
  if (String(keys.sk).startsWith(BAN_PREFIX)) {
    if (record.eventName === 'INSERT' && after) {
      const ban = banFromItem(after);
      // A ban revoked before it was stored (only an import makes one) has both in its history.
      const made =
        ban.revoked_at === null
          ? [banEvent('ban.created', ban, ban.created_at)]
          : [banEvent('ban.created', ban, ban.created_at), banEvent('ban.revoked', ban, ban.revoked_at)];
      return ban.imported === undefined ? made : made.map((event) => ({ ...event, imported: true as const }));
    }
    if (record.eventName === 'MODIFY' && after) {
      const ban = banFromItem(after);
      const old = before ? banFromItem(before) : undefined;
      const events: ChangeEvent[] = [];
      if (ban.updated_at !== undefined && ban.updated_at !== old?.updated_at)
        events.push(banEvent('ban.updated', ban, ban.updated_at, `${ban.ban_id}\n${ban.updated_at}`));
      if (ban.revoked_at !== null && old?.revoked_at === null)
        events.push(banEvent('ban.revoked', ban, ban.revoked_at));
      return events;
    }
    if (record.eventName === 'REMOVE' && before) {
      // What was erased is gone: the event says which ban, never its details, its player's message
      // (nor its translations) or its statement.
      const {
        details_json: _erased,
        player_message: _message,
        translations: _translations,
        ...ban
      } = banFromItem(before);
      return [banEvent('ban.erased', { ...ban, statement: null }, changeTime(record))];
    }
    return [];
  }
  // An import batch's completion is a webhook summary (importSummariesOfChange), not a feed event.
  if (String(keys.pk).startsWith(partitions.importBatch)) return [];
  if (String(keys.pk).startsWith(partitions.appeal) && keys.sk === APPEAL_SK) {
    const appeal = appealFromItem(after);
    if (!appeal) return [];
    const opened = record.eventName === 'INSERT';
    const decided =
      record.eventName === 'MODIFY' &&
      appeal.decision !== undefined &&
      appealFromItem(before)?.status === 'open';
    if (!opened && !decided) return [];
    const type = opened ? 'appeal.created' : 'appeal.decided';
    return [
      {
        event_id: eventIdOf(appeal.ban_publisher_id, type, appeal.appeal_id),
        type,
        occurred_at: opened ? appeal.created_at : (appeal.decision?.decided_at ?? appeal.created_at),
        publisher_id: appeal.ban_publisher_id,
        filer_publisher_id: appeal.filer_publisher_id,
        ban_game_id: appeal.ban_scope === 'game' ? appeal.ban_game_id : null,
        device_id: appeal.device_id,
        appeal: opened
          ? appealSubject({ ...appeal, status: 'open', decision: undefined })
          : appealSubject(appeal),
      },
    ];
  }
  // The policy: made with its defaults (INSERT) is no change of anyone's; each update is.
  if (record.eventName !== 'MODIFY' || !after) return [];
  const policy = policyFromItem(after);
  const version = typeof after.version === 'number' ? String(after.version) : policy.updated_at;
  return [
    {
      event_id: eventIdOf(policy.publisher_id, 'policy.updated', version),
      type: 'policy.updated',
      occurred_at: policy.updated_at,
      publisher_id: policy.publisher_id,
      device_id: null,
      policy,
    },
  ];
};

/**
 * The one webhook event of an import batch (lib/domain/imports.ts): its counts, when it finished.
 * Not in the feed, which carries the imported bans themselves; their own events go to no webhook.
 */
export interface ImportSummaryEvent {
  event_id: string;
  type: 'bans.imported';
  occurred_at: string;
  publisher_id: string;
  device_id: null;
  import: { batch_id: string; created: number; already_imported: number; changed: number; refused: number };
  /** The games of the bans the batch made: a webhook bound to games takes it when they are all its own. */
  games: string[];
}

const countOf = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) ? value : 0);

/** The summary a change record stands for: a batch record's first completion, or nothing. */
export const importSummariesOfChange = (record: ChangeRecord): ImportSummaryEvent[] => {
  const keys = imageOf(record.dynamodb?.Keys);
  if (!keys || !String(keys.pk).startsWith(partitions.importBatch)) return [];
  if (!isChangeSource(String(keys.pk), String(keys.sk)) || record.eventName !== 'MODIFY') return [];
  const before = imageOf(record.dynamodb?.OldImage);
  const after = imageOf(record.dynamodb?.NewImage);
  if (!after || typeof after.finished_at !== 'string' || before?.finished_at !== undefined) return [];
  const publisherId = String(after.publisher_id);
  const batchId = String(after.batch_id);
  const counts = (after.counts ?? {}) as Record<string, unknown>;
  return [
    {
      event_id: eventIdOf(publisherId, 'bans.imported', batchId),
      type: 'bans.imported',
      occurred_at: after.finished_at,
      publisher_id: publisherId,
      device_id: null,
      import: {
        batch_id: batchId,
        created: countOf(counts.created),
        already_imported: countOf(counts.already_imported),
        changed: countOf(counts.changed),
        refused: countOf(counts.refused),
      },
      games: Array.isArray(after.games) ? after.games.map(String) : [],
    },
  ];
};
