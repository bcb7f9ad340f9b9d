import { describe, expect, it } from 'vitest';
import {
  apiKeyKey,
  appealDayKey,
  appealKey,
  auditEventKey,
  banKey,
  bannedDeviceKey,
  CHANGE_LOG_PARTITION,
  changeCheckpointKey,
  changeEntryKey,
  counterKey,
  decidedAppealKey,
  deliveryKey,
  deploymentKey,
  directoryKey,
  directoryMarkerKey,
  displayNameKey,
  erasureKey,
  expiringBanKey,
  exportJobKey,
  feedEntryKey,
  feedMarkerKey,
  GLOBAL_FEED_PARTITION,
  gameFeedPartition,
  gamesUsedKey,
  idempotencyKey,
  importBacklogKey,
  importBatchKey,
  importedRowKey,
  importSlotKey,
  keyIdKey,
  keySlotKey,
  leadingKeyPattern,
  localPersonEmailKey,
  localPersonKey,
  openAppealKey,
  partitions,
  playerLinkKey,
  policyKey,
  profileKey,
  publisherFeedPartition,
  publisherKeyKey,
  reportDayKey,
  reportMarkerKey,
  webhookIndexKey,
  webhookKey,
  webhookSecretKey,
} from '../../lib/storage/keys';

/**
 * The stored key of every item, spelled out once: this is the table's format (docs/data-model.md),
 * which a deployed table already holds. Everything else builds keys through lib/storage/keys.ts.
 */
describe('item keys', () => {
  it('spell each item exactly as the data model documents it', () => {
    expect(apiKeyKey('ab12')).toEqual({ pk: 'APIKEY#ab12', sk: 'APIKEY' });
    expect(keyIdKey('key_1')).toEqual({ pk: 'KEYID#key_1', sk: 'KEYID' });
    expect(publisherKeyKey('acme', 'key_1')).toEqual({ pk: 'PUBLISHER#acme', sk: 'KEY#key_1' });
    expect(policyKey('acme')).toEqual({ pk: 'PUBLISHER#acme', sk: 'POLICY' });
    expect(profileKey('acme')).toEqual({ pk: 'PUBLISHER#acme', sk: 'PROFILE' });
    expect(directoryKey('acme')).toEqual({ pk: 'DIRECTORY#ALL', sk: 'acme' });
    expect(directoryMarkerKey('evt_x')).toEqual({ pk: 'DIRECTORYMARK#evt_x', sk: 'COUNTED' });
    expect(reportDayKey('acme', '2026-03-01')).toEqual({ pk: 'REPORT#acme', sk: 'DAY#2026-03-01' });
    expect(reportMarkerKey('evt_x')).toEqual({ pk: 'REPORTMARK#evt_x', sk: 'COUNTED' });
    expect(exportJobKey('acme', 'exp_1')).toEqual({ pk: 'EXPORTJOB#acme', sk: 'JOB#exp_1' });
    expect(counterKey(7)).toEqual({ pk: 'COUNTER#07', sk: 'BAN_ID' });
    expect(deploymentKey()).toEqual({ pk: 'DEPLOYMENT#TABLE', sk: 'DEPLOYMENT' });
    expect(banKey('dev-1', 42)).toEqual({ pk: 'DEVICE#dev-1', sk: 'BAN#0000000000000042' });
    expect(idempotencyKey('acme', 'g1', 'k:1')).toEqual({ pk: 'IDEM#acme#g1#k:1', sk: 'IDEM' });
    expect(auditEventKey('acme', '2026-11-23T08:00:00.000Z', 'evt_x')).toEqual({
      pk: 'AUDIT#acme',
      sk: 'EVENT#2026-11-23T08:00:00.000Z#evt_x',
    });
    expect(importSlotKey('A', 1_167_609_600)).toEqual({ pk: 'IMPORTSLOT#A#1167609600', sk: 'SLOT' });
    expect(importSlotKey('B', 29_030_400_000)).toEqual({ pk: 'IMPORTSLOT#B#29030400000', sk: 'SLOT' });
    // The SHA-256 of the external id, base64url: no external id reaches the key's syntax.
    expect(importedRowKey('acme', 'sb#1')).toEqual({
      pk: 'IMPORTED#acme#_NZtA5Z1EDjh4ZaBH7k7s5y_-hkavjNfYW_1d5CL1TE',
      sk: 'ROW',
    });
    expect(importBatchKey('acme', 'f00d:1')).toEqual({ pk: 'IMPORT#acme', sk: 'BATCH#f00d:1' });
    expect(importBacklogKey('acme')).toEqual({ pk: 'IMPORTBACKLOG#acme', sk: 'BACKLOG' });
    expect(erasureKey('dev-1', 'acme')).toEqual({ pk: 'DEVICE#dev-1', sk: 'ERASURE#acme' });
    expect(feedEntryKey(publisherFeedPartition('acme'), 7)).toEqual({
      pk: 'FEED#PUB#acme',
      sk: 'SEQ#0000000000000007',
    });
    expect(feedEntryKey(gameFeedPartition('acme', 'g1'), 12)).toEqual({
      pk: 'FEED#GAME#acme#g1',
      sk: 'SEQ#0000000000000012',
    });
    expect(feedMarkerKey(GLOBAL_FEED_PARTITION, 'evt_x')).toEqual({ pk: 'FEED#GLOBAL', sk: 'EVENT#evt_x' });
    expect(webhookKey('acme', 3)).toEqual({ pk: 'WEBHOOKS#acme', sk: 'SLOT#3' });
    expect(webhookIndexKey('acme')).toEqual({ pk: 'WEBHOOKINDEX#ALL', sk: 'acme' });
    expect(webhookSecretKey('acme', 'wh_1')).toEqual({ pk: 'WEBHOOKSECRET#acme#wh_1', sk: 'SECRET' });
    expect(keySlotKey('acme', 7)).toEqual({ pk: 'PUBLISHER#acme', sk: 'KEYSLOT#007' });
    expect(deliveryKey('acme', 'wh_1', '2026-11-23T08:00:00.000Z', 'evt_x')).toEqual({
      pk: 'DELIVERY#acme#wh_1',
      sk: '2026-11-23T08:00:00.000Z#evt_x',
    });
    expect(changeEntryKey(5)).toEqual({ pk: 'CHANGELOG#LOCAL', sk: 'ENTRY#0000000000000005' });
    expect(changeCheckpointKey()).toEqual({ pk: 'CHANGELOG#LOCAL', sk: 'CHECKPOINT' });
    expect(appealKey('apl_1')).toEqual({ pk: 'APPEAL#apl_1', sk: 'APPEAL' });
    expect(openAppealKey('acme', '2026-11-23T08:00:00.000Z', 'apl_1')).toEqual({
      pk: 'APPEALS#acme',
      sk: 'OPEN#2026-11-23T08:00:00.000Z#apl_1',
    });
    expect(decidedAppealKey('acme', '2026-11-24T08:00:00.000Z', 'apl_1')).toEqual({
      pk: 'APPEALS#acme',
      sk: 'DONE#2026-11-24T08:00:00.000Z#apl_1',
    });
    expect(appealDayKey('acme', '2026-11-24')).toEqual({ pk: 'APPEALS#acme', sk: 'DAY#2026-11-24' });
  });

  it('order ban sort keys numerically', () => {
    const sks = [9, 10, 100, 1_000_000_000_000].map((id) => banKey('d', id).sk);
    expect([...sks].sort()).toEqual(sks);
  });

  it('give each partition a LeadingKeys pattern that matches its keys and no other kind', () => {
    const samples: Record<keyof typeof partitions, string> = {
      apiKey: apiKeyKey('ab12').pk,
      keyId: keyIdKey('key_1').pk,
      publisher: policyKey('acme').pk,
      counter: counterKey(0).pk,
      device: banKey('dev-1', 1).pk,
      bannedDevices: bannedDeviceKey('acme', 'dev-1', 7).pk,
      exportJob: exportJobKey('acme', 'exp_1').pk,
      expiringBans: expiringBanKey('acme', '2026-01-01T00:00:00.000Z', 7).pk,
      gamesUsed: gamesUsedKey('acme').pk,
      idempotency: idempotencyKey('acme', 'g1', 'k').pk,
      audit: auditEventKey('acme', '2026-01-01T00:00:00.000Z', 'evt_1').pk,
      feed: feedEntryKey(gameFeedPartition('acme', 'g1'), 1).pk,
      webhook: webhookKey('acme', 0).pk,
      webhookIndex: webhookIndexKey('acme').pk,
      webhookSecret: webhookSecretKey('acme', 'wh_1').pk,
      delivery: deliveryKey('acme', 'wh_1', '2026-01-01T00:00:00.000Z', 'evt_1').pk,
      changeLog: CHANGE_LOG_PARTITION,
      localPerson: localPersonKey('sub-1').pk,
      localPersonEmail: localPersonEmailKey('a@b.c').pk,
      appeal: appealKey('apl_1').pk,
      appealQueue: openAppealKey('acme', '2026-01-01T00:00:00.000Z', 'apl_1').pk,
      directory: directoryKey('acme').pk,
      directoryMarker: directoryMarkerKey('evt_1').pk,
      displayName: displayNameKey('c2tlbGV0b24').pk,
      deployment: deploymentKey().pk,
      playerLink: playerLinkKey('ab12').pk,
      report: reportDayKey('acme', '2026-01-01').pk,
      reportMarker: reportMarkerKey('evt_1').pk,
      importSlot: importSlotKey('A', 1).pk,
      importedRow: importedRowKey('acme', 'row-1').pk,
      importBatch: importBatchKey('acme', 'b1').pk,
      importBacklog: importBacklogKey('acme').pk,
    };
    const matches = (pattern: string, pk: string) =>
      new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace('*', '.*')}$`).test(pk);
    for (const partition of Object.keys(partitions) as Array<keyof typeof partitions>) {
      for (const [other, pk] of Object.entries(samples)) {
        expect(matches(leadingKeyPattern(partition), pk), `${partition} vs ${other}`).toBe(
          other === partition,
        );
      }
    }
  });
});
