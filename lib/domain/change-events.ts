import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { Policy } from '../model/responses';
import { BAN_PREFIX } from '../storage/keys';
import { eventIdOf } from './audit';
import { type Ban, banFromItem } from './ban-record';
import { isChangeSource } from './change-sources';
import { policyFromItem } from './policy';

/**
 * What the change feed and webhooks report, derived from the table's own changes: on AWS the
 * table's stream is the outbox (the write path is unchanged), locally the change log captured in
 * front of the store (infra/local/change-log.ts) gives records of the same shape. A change that
 * was stored produces its events whatever became of the request that made it.
 *
 *   ban item inserted              → ban.created  (at the ban's created_at)
 *   ban item revoked_at set        → ban.revoked  (at its revoked_at)
 *   ban item deleted               → ban.erased   (at the change's time): erasure, or a create
 *                                    withdrawn after a fault (then ban.created came before it)
 *   policy item updated            → policy.updated (at its updated_at)
 *
 * Event ids are those of the audit trail for the same change (lib/domain/audit.ts), so one change
 * has one id everywhere, and the same one whenever its record is handed on again.
 */

interface EventBase {
  event_id: string;
  occurred_at: string;
  /** Whose change it is: the ban's owner, or the policy's publisher. */
  publisher_id: string;
}

/** An event as the dispatcher stores and hands it on, before it is shown to a reader. */
export type ChangeEvent =
  | (EventBase & { type: 'ban.created' | 'ban.revoked' | 'ban.erased'; device_id: string; ban: Ban })
  | (EventBase & { type: 'policy.updated'; device_id: null; policy: Policy });

/** A change record: the stream's (DynamoDB Streams, NEW_AND_OLD_IMAGES) or the local log's. */
export type ChangeRecord = Pick<DynamoDBRecord, 'eventName' | 'dynamodb'>;

const imageOf = (image: unknown) => (image ? unmarshall(image as Record<string, AttributeValue>) : undefined);

/** The stream's time of a change (seconds since the epoch) as an API timestamp. */
const changeTime = (record: ChangeRecord) => {
  const seconds = record.dynamodb?.ApproximateCreationDateTime;
  return new Date(typeof seconds === 'number' ? Math.round(seconds * 1000) : Date.now()).toISOString();
};

/**
 * What an event keeps of a ban: what a listing can show. Who made or revoked it is the audit
 * trail's to keep, and the idempotency key is the caller's, so neither is copied into the feed.
 */
const shown = ({ idempotency_key: _key, created_by: _by, revoked_by: _revoker, ...ban }: Ban): Ban => ban;

const banEvent = (
  type: 'ban.created' | 'ban.revoked' | 'ban.erased',
  ban: Ban,
  occurredAt: string,
): ChangeEvent => ({
  event_id: eventIdOf(ban.publisher_id, type, String(ban.ban_id)),
  type,
  occurred_at: occurredAt,
  publisher_id: ban.publisher_id,
  device_id: ban.device_id,
  ban: shown(ban),
});

/** The events one change record stands for: none, or one. */
export const eventsOfChange = (record: ChangeRecord): ChangeEvent[] => {
  const keys = imageOf(record.dynamodb?.Keys);
  if (!keys || !isChangeSource(String(keys.pk), String(keys.sk))) return [];
  const before = imageOf(record.dynamodb?.OldImage);
  const after = imageOf(record.dynamodb?.NewImage);
  if (String(keys.sk).startsWith(BAN_PREFIX)) {
    if (record.eventName === 'INSERT' && after) {
      const ban = banFromItem(after);
      return [banEvent('ban.created', ban, ban.created_at)];
    }
    if (record.eventName === 'MODIFY' && after) {
      const ban = banFromItem(after);
      const wasRevoked = before ? banFromItem(before).revoked_at !== null : false;
      return ban.revoked_at !== null && !wasRevoked ? [banEvent('ban.revoked', ban, ban.revoked_at)] : [];
    }
    if (record.eventName === 'REMOVE' && before) {
      // What was erased is gone: the event says which ban, never its details or its player's message.
      const { details_json: _erased, player_message: _message, ...ban } = banFromItem(before);
      return [banEvent('ban.erased', ban, changeTime(record))];
    }
    return [];
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
