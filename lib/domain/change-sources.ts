import { APPEAL_SK, BAN_PREFIX, IMPORT_BATCH_PREFIX, partitions } from '../storage/keys';

/**
 * The items whose changes are events (lib/domain/change-events.ts): bans, policies, appeals, and
 * import batches (whose completion is the `bans.imported` webhook event).
 * The stack's stream filter and the local change log's recorder both use this list, so it imports
 * nothing that reaches the table.
 */
export const changeSources = [
  { pkPrefix: partitions.device, skPrefix: BAN_PREFIX },
  { pkPrefix: partitions.publisher, skPrefix: 'POLICY' },
  { pkPrefix: partitions.appeal, skPrefix: APPEAL_SK },
  { pkPrefix: partitions.importBatch, skPrefix: IMPORT_BATCH_PREFIX },
] as const;

export const isChangeSource = (pk: string, sk: string) =>
  changeSources.some((source) => pk.startsWith(source.pkPrefix) && sk.startsWith(source.skPrefix));
