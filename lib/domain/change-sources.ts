import { APPEAL_SK, BAN_PREFIX, partitions } from '../storage/keys';

/**
 * The items whose changes are events (lib/domain/change-events.ts): bans, policies and appeals.
 * The stack's stream filter and the local change log's recorder both use this list, so it imports
 * nothing that reaches the table.
 */
export const changeSources = [
  { pkPrefix: partitions.device, skPrefix: BAN_PREFIX },
  { pkPrefix: partitions.publisher, skPrefix: 'POLICY' },
  { pkPrefix: partitions.appeal, skPrefix: APPEAL_SK },
] as const;

export const isChangeSource = (pk: string, sk: string) =>
  changeSources.some((source) => pk.startsWith(source.pkPrefix) && sk.startsWith(source.skPrefix));
