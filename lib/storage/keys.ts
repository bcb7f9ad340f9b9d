import { createHash } from 'node:crypto';

/**
 * Every item key of the one table, and nothing else: the entity modules, the stack's IAM
 * conditions (dynamodb:LeadingKeys), the tests and the benchmark all build keys here, so a key's
 * spelling has one home. See docs/data-model.md for the chart.
 *
 * The character rules of the ids (lib/model/requests.ts) keep '#' out of every component but the
 * last, so no two keys of different items can be equal.
 */

/** The partitions the table holds, by the prefix of their `pk`. */
export const partitions = {
  apiKey: 'APIKEY#',
  keyId: 'KEYID#',
  publisher: 'PUBLISHER#',
  counter: 'COUNTER#',
  device: 'DEVICE#',
  idempotency: 'IDEM#',
  audit: 'AUDIT#',
  feed: 'FEED#',
  webhook: 'WEBHOOKS#',
  /** Which publishers have webhooks (the dispatcher's read for a global ban). */
  webhookIndex: 'WEBHOOKINDEX#',
  /** Each webhook's signing secret, apart: only the sender reads it, and the routes that make or delete it. */
  webhookSecret: 'WEBHOOKSECRET#',
  delivery: 'DELIVERY#',
  /** Each appeal, by its id (lib/domain/appeals.ts): its owner or its filer reads it by id. */
  appeal: 'APPEAL#',
  /** Each publisher's appeal queue (open, decided) and its daily rollups. */
  appealQueue: 'APPEALS#',
  /** The devices each publisher has banned, by id (lib/domain/banned-devices.ts): the prefix search. */
  bannedDevices: 'BANNED#',
  /** Each publisher's bans with an expiry, by when they end (lib/domain/expiring-bans.ts). */
  expiringBans: 'EXPIRING#',
  /** The games each publisher has made bans in (lib/domain/games-used.ts), kept by the dispatcher. */
  gamesUsed: 'GAMES#',
  /** The directory of publishers that made global bans (lib/domain/publishers.ts): one item each, in one partition. */
  directory: 'DIRECTORY#',
  /** Which change events the directory has counted, kept a few days (lib/domain/publishers.ts). */
  directoryMarker: 'DIRECTORYMARK#',
  /** The table's own random id (lib/domain/deployment.ts): one item, which the feed's readers name. */
  deployment: 'DEPLOYMENT#',
  /** Which publisher holds each display name's confusable skeleton (lib/domain/publishers.ts). */
  displayName: 'DISPLAYNAME#',
  /** The local change log (infra/local/change-log.ts): never written in a deployed stage. */
  changeLog: 'CHANGELOG#',
  /** The local identity provider's people (infra/local/people.ts): deployed, Cognito keeps them. */
  localPerson: 'LOCALPERSON#',
  localPersonEmail: 'LOCALEMAIL#',
  /** Each player's page link, by the SHA-256 of its secret (lib/domain/player-links.ts). */
  playerLink: 'PLAYERLINK#',
  /** Each publisher's transparency rollups, one item per UTC day (lib/domain/transparency.ts), kept by the dispatcher. */
  report: 'REPORT#',
  /** Which change events the transparency rollups have counted, kept a few days (lib/domain/transparency.ts). */
  reportMarker: 'REPORTMARK#',
  /** The imported ban id slots of one second or millisecond (lib/domain/ban-ids.ts). */
  importSlot: 'IMPORTSLOT#',
  /** Each publisher's imported rows, by the SHA-256 of their external id (lib/domain/imports.ts). */
  importedRow: 'IMPORTED#',
  /** Each publisher's import batches (lib/domain/imports.ts): a batch's completion is a change. */
  importBatch: 'IMPORT#',
  /**
   * Each publisher's imported rows against their events dispatched (lib/domain/import-backlog.ts):
   * written by the import and by the dispatcher, so a partition of its own, never a change source.
   */
  importBacklog: 'IMPORTBACKLOG#',
  /** Each publisher's export jobs (lib/domain/export-jobs.ts): state and checkpoint, kept as long as their files. */
  exportJob: 'EXPORTJOB#',
} as const;
export type Partition = keyof typeof partitions;

/**
 * One player's page link: keyed by the SHA-256 of its secret, as an API key is, so the table never
 * holds a secret that opens a page.
 */
export const playerLinkKey = (secretHash: string) => ({
  pk: `${partitions.playerLink}${secretHash}`,
  sk: 'LINK',
});

/** The IAM `dynamodb:LeadingKeys` pattern that matches exactly the partitions of one kind. */
export const leadingKeyPattern = (partition: Partition): string => `${partitions[partition]}*`;

/** Key lookup (the authorizer's one read): the SHA-256 of the key, never the key. */
export const apiKeyKey = (keyHash: string) => ({ pk: `${partitions.apiKey}${keyHash}`, sk: 'APIKEY' });

/** Key id → its publisher and hash, so an operator can revoke by the public id alone. */
export const keyIdKey = (keyId: string) => ({ pk: `${partitions.keyId}${keyId}`, sk: 'KEYID' });

export const publisherPartition = (publisherId: string) => `${partitions.publisher}${publisherId}`;
export const PUBLISHER_KEY_PREFIX = 'KEY#';

/** A publisher's key, listed under the publisher. */
export const publisherKeyKey = (publisherId: string, keyId: string) => ({
  pk: publisherPartition(publisherId),
  sk: `${PUBLISHER_KEY_PREFIX}${keyId}`,
});
/** A publisher's live keys take one slot each, so the cap holds however many mint at once. */
export const KEY_SLOT_PREFIX = 'KEYSLOT#';
export const keySlotKey = (publisherId: string, slot: number) => ({
  pk: publisherPartition(publisherId),
  sk: `${KEY_SLOT_PREFIX}${String(slot).padStart(3, '0')}`,
});

/** A person of the local identity provider, by subject; and the email that names them, once. */
export const localPersonKey = (sub: string) => ({ pk: `${partitions.localPerson}${sub}`, sk: 'PERSON' });
export const localPersonEmailKey = (email: string) => ({
  pk: `${partitions.localPersonEmail}${email}`,
  sk: 'EMAIL',
});

export const policyKey = (publisherId: string) => ({ pk: publisherPartition(publisherId), sk: 'POLICY' });

/** The publisher's reason catalogue (lib/domain/reasons.ts): beside its policy, not an enforcement change. */
export const reasonsKey = (publisherId: string) => ({ pk: publisherPartition(publisherId), sk: 'REASONS' });

/** The device id formats the publisher declares (lib/domain/device-formats.ts): beside its policy. */
export const deviceFormatsKey = (publisherId: string) => ({
  pk: publisherPartition(publisherId),
  sk: 'DEVICE_FORMATS',
});

/** The publisher's own profile (its `display_name`, lib/domain/publishers.ts): beside its policy. */
export const profileKey = (publisherId: string) => ({ pk: publisherPartition(publisherId), sk: 'PROFILE' });

/** The games the publisher has made bans in (lib/domain/games-used.ts): one string set. */
export const gamesUsedKey = (publisherId: string) => ({
  pk: `${partitions.gamesUsed}${publisherId}`,
  sk: 'GAMES',
});

/**
 * The holder of a display name's confusable skeleton (lib/domain/display-names.ts), under the
 * skeleton's SHA-256 (base64url): one item each, so two publishers cannot both take one.
 */
export const displayNameKey = (skeletonDigest: string) => ({
  pk: `${partitions.displayName}${skeletonDigest}`,
  sk: 'NAME',
});

/**
 * The one item naming the table's deployment (lib/domain/deployment.ts): in a partition of its own,
 * so a role may read and create it and nothing else there.
 */
export const deploymentKey = () => ({ pk: `${partitions.deployment}TABLE`, sk: 'DEPLOYMENT' });

/**
 * The directory (`GET /v1/publishers`, lib/domain/publishers.ts): one item per publisher that made
 * a global ban, all in one partition, sorted by publisher id, so a page is one Query. Each change
 * event it counted is marked on the item for a while, then by an item of its own under the event
 * id (with a `ttl`), so a change record handed on again is counted once.
 */
export const DIRECTORY_PARTITION = `${partitions.directory}ALL`;
export const directoryKey = (publisherId: string) => ({ pk: DIRECTORY_PARTITION, sk: publisherId });
export const directoryMarkerKey = (eventId: string) => ({
  pk: `${partitions.directoryMarker}${eventId}`,
  sk: 'COUNTED',
});

/** A publisher's transparency rollups: one item per UTC day, so a period is one key range. */
export const reportPartition = (publisherId: string) => `${partitions.report}${publisherId}`;
export const REPORT_DAY_PREFIX = 'DAY#';
export const reportDayKey = (publisherId: string, day: string) => ({
  pk: reportPartition(publisherId),
  sk: `${REPORT_DAY_PREFIX}${day}`,
});
/** A change event the rollups counted, once its mark left the day's item. */
export const reportMarkerKey = (eventId: string) => ({
  pk: `${partitions.reportMarker}${eventId}`,
  sk: 'COUNTED',
});

/** One of the ban id counters (lib/domain/ban-ids.ts): several, so that no one item is hot. */
export const counterKey = (shard: number) => ({
  pk: `${partitions.counter}${String(shard).padStart(2, '0')}`,
  sk: 'BAN_ID',
});

/**
 * The slot counter of one bucket of imported ban ids (lib/domain/ban-ids.ts): region `A` counts
 * per second since 1990, region `B` per millisecond since the ban id epoch.
 */
export const importSlotKey = (region: 'A' | 'B', bucket: number) => ({
  pk: `${partitions.importSlot}${region}#${bucket}`,
  sk: 'SLOT',
});

/**
 * A publisher's record of one imported row, by the SHA-256 (base64url) of its external id: any
 * external id, whatever characters it holds, stays out of key syntax.
 */
export const importedRowKey = (publisherId: string, externalId: string) => ({
  pk: `${partitions.importedRow}${publisherId}#${createHash('sha256').update(externalId).digest('base64url')}`,
  sk: 'ROW',
});

export const IMPORT_BATCH_PREFIX = 'BATCH#';
/** A publisher's import batch, by the client's batch id (lib/domain/imports.ts). */
export const importBatchKey = (publisherId: string, batchId: string) => ({
  pk: `${partitions.importBatch}${publisherId}`,
  sk: `${IMPORT_BATCH_PREFIX}${batchId}`,
});

/** How far a publisher's import is ahead of its events (lib/domain/import-backlog.ts). */
export const importBacklogKey = (publisherId: string) => ({
  pk: `${partitions.importBacklog}${publisherId}`,
  sk: 'BACKLOG',
});

export const devicePartition = (deviceId: string) => `${partitions.device}${deviceId}`;
export const BAN_PREFIX = 'BAN#';
/** Ban ids are zero-padded so that the sort key orders them numerically (newest last). */
export const BAN_ID_DIGITS = 16;

export const banKey = (deviceId: string, banId: number) => ({
  pk: devicePartition(deviceId),
  sk: `${BAN_PREFIX}${String(banId).padStart(BAN_ID_DIGITS, '0')}`,
});

export const ERASURE_PREFIX = 'ERASURE#';

/**
 * A publisher's erasure of a device while it runs (lib/domain/bans.ts): in the device's own
 * partition, so the Query that finds the bans to erase finds an unfinished erasure too.
 */
export const erasureKey = (deviceId: string, publisherId: string) => ({
  pk: devicePartition(deviceId),
  sk: `${ERASURE_PREFIX}${publisherId}`,
});

/** The idempotency key's scope is (publisher, game, key): the record holds the whole ban. */
export const idempotencyKey = (publisherId: string, gameId: string, key: string) => ({
  pk: `${partitions.idempotency}${publisherId}#${gameId}#${key}`,
  sk: 'IDEM',
});

export const auditPartition = (publisherId: string) => `${partitions.audit}${publisherId}`;
export const AUDIT_EVENT_PREFIX = 'EVENT#';

/**
 * One audit event of a publisher. The sort key starts with the time it happened, so the partition
 * reads newest first; the event id after it (derived from what happened, lib/domain/audit.ts)
 * makes it unique and the same on every retry that records it again.
 */
export const auditEventKey = (publisherId: string, occurredAt: string, eventId: string) => ({
  pk: auditPartition(publisherId),
  sk: `${AUDIT_EVENT_PREFIX}${occurredAt}#${eventId}`,
});

/**
 * The audit trail's indexes, in the trail's own partition (so every role that records an event may
 * write them): a copy of each event under who made it (`BY#`) and, for an event about a device,
 * under the device (`DEV#`), each followed by the event's own `<occurred_at>#<event_id>`, so a
 * person's or a device's events read newest first with one Query, narrowed to a time range by the
 * sort key. An actor id is any printable ASCII (a person's `sub`), so it is kept in base64url: no
 * `#` in it. Both prefixes sort before `EVENT#`.
 */
export const AUDIT_BY_ACTOR_PREFIX = 'BY#';
export const AUDIT_BY_DEVICE_PREFIX = 'DEV#';
export const auditActorPrefix = (actorId: string) =>
  `${AUDIT_BY_ACTOR_PREFIX}${Buffer.from(actorId).toString('base64url')}#`;
export const auditDevicePrefix = (deviceId: string) => `${AUDIT_BY_DEVICE_PREFIX}${deviceId}#`;
export const auditIndexKey = (publisherId: string, prefix: string, occurredAt: string, eventId: string) => ({
  pk: auditPartition(publisherId),
  sk: `${prefix}${occurredAt}#${eventId}`,
});

/**
 * The change feed (lib/domain/feed.ts), in three kinds of partition, so that a reader reads
 * exactly what it may see and nothing is copied per reader: a publisher's own events (its policy,
 * its publisher bans), its game bans per game, and every publisher's global bans. Ids cannot
 * contain '#', so no two of these partitions can be the same.
 */
export const publisherFeedPartition = (publisherId: string) => `${partitions.feed}PUB#${publisherId}`;
export const gameFeedPartition = (publisherId: string, gameId: string) =>
  `${partitions.feed}GAME#${publisherId}#${gameId}`;
export const GLOBAL_FEED_PARTITION = `${partitions.feed}GLOBAL`;
export const FEED_ENTRY_PREFIX = 'SEQ#';
/** Positions are zero-padded so the sort key orders them numerically. */
export const FEED_SEQ_DIGITS = 16;
/**
 * The highest position: the upper end of a range read to the end. The largest safe integer (16
 * digits), not 10^16 - 1, which a double cannot hold: it rounds to 10^16, whose 17-digit key would
 * sort before every position from 2 * 10^15 on.
 */
export const LAST_SEQ = Number.MAX_SAFE_INTEGER;
export const feedEntryKey = (partition: string, seq: number) => ({
  pk: partition,
  sk: `${FEED_ENTRY_PREFIX}${String(seq).padStart(FEED_SEQ_DIGITS, '0')}`,
});
/**
 * A feed partition's high-water mark (`seq`: the highest position ever appended, with when that
 * entry's event happened and was appended), never expiring, so positions are not reused once time
 * to live has deleted the entries. Its sort key is outside the `SEQ#` prefix (entries alone begin
 * with it) yet sorts right after every entry ('~' after '#'), so a Query of the entries after a
 * position that runs to `FEED_HEAD_SK` ends with it.
 */
export const FEED_HEAD_SK = 'SEQ~HEAD';
export const feedHeadKey = (partition: string) => ({ pk: partition, sk: FEED_HEAD_SK });
/** Which position an event took in a feed partition: written before it is appended, so a retry finds it. */
export const feedMarkerKey = (partition: string, eventId: string) => ({
  pk: partition,
  sk: `EVENT#${eventId}`,
});

/**
 * The live set beside each feed partition (lib/domain/live-set.ts): one item per ban of that
 * partition that may still restrict a device (the ban as its latest event holds it), or its
 * tombstone once revoked or erased. `GET /v1/enforcement/snapshot` reads them in key order.
 */
export const LIVE_BAN_PREFIX = 'LIVE#';
export const liveBanKey = (partition: string, deviceId: string, banId: number) => ({
  pk: partition,
  sk: `${LIVE_BAN_PREFIX}${deviceId}#${String(banId).padStart(BAN_ID_DIGITS, '0')}`,
});

/**
 * A publisher's webhooks, one partition each (a read never touches another publisher's), in ten
 * slots: a webhook takes a free slot with a conditional put, so eleven cannot exist even when
 * created at once. The index names the publishers that have any (a global ban goes to all of them);
 * the signing secrets live apart, where only the sender's role reads them.
 */
export const webhookPartition = (publisherId: string) => `${partitions.webhook}${publisherId}`;
export const WEBHOOK_SLOT_PREFIX = 'SLOT#';
export const webhookKey = (publisherId: string, slot: number) => ({
  pk: webhookPartition(publisherId),
  sk: `${WEBHOOK_SLOT_PREFIX}${slot}`,
});
export const WEBHOOK_INDEX_PARTITION = `${partitions.webhookIndex}ALL`;
export const webhookIndexKey = (publisherId: string) => ({ pk: WEBHOOK_INDEX_PARTITION, sk: publisherId });
export const webhookSecretKey = (publisherId: string, webhookId: string) => ({
  pk: `${partitions.webhookSecret}${publisherId}#${webhookId}`,
  sk: 'SECRET',
});

/** One webhook's deliveries, oldest event first by sort key (read newest first). */
export const deliveryPartition = (publisherId: string, webhookId: string) =>
  `${partitions.delivery}${publisherId}#${webhookId}`;
export const deliveryKey = (publisherId: string, webhookId: string, occurredAt: string, eventId: string) => ({
  pk: deliveryPartition(publisherId, webhookId),
  sk: `${occurredAt}#${eventId}`,
});

/** The local change log: the changes captured in front of the local store, in the order they were made. */
export const CHANGE_LOG_PARTITION = `${partitions.changeLog}LOCAL`;
export const CHANGE_ENTRY_PREFIX = 'ENTRY#';
export const changeEntryKey = (seq: number) => ({
  pk: CHANGE_LOG_PARTITION,
  sk: `${CHANGE_ENTRY_PREFIX}${String(seq).padStart(FEED_SEQ_DIGITS, '0')}`,
});
/** How far the local dispatcher has handed the log on (the stream's checkpoint, on AWS Lambda's side). */
export const changeCheckpointKey = () => ({ pk: CHANGE_LOG_PARTITION, sk: 'CHECKPOINT' });

/** An appeal, by its id: what the owner decides and the filer follows. */
export const APPEAL_SK = 'APPEAL';
/**
 * The one appeal a publisher can file of a ban: its id, derived from the ban id and the filing
 * publisher, so each publisher that enforces a ban has an appeal of its own and a retry names the
 * same one. Appeals filed when a ban had one appeal in all kept the id of the ban alone.
 */
export const appealIdOf = (banId: number, filerPublisherId: string) =>
  `apl_${createHash('sha256').update(`appeal\n${banId}\n${filerPublisherId}`).digest('base64url').slice(0, 22)}`;
/**
 * On the ban item, one attribute per publisher that filed an appeal of it: `appeal#<publisher_id>`
 * holds that appeal's id, status, outcome and the time of its last change (no publisher id
 * contains '#', so no ban field begins so), which listings show without reading the appeal.
 */
export const BAN_APPEAL_PREFIX = 'appeal#';
export const banAppealAttribute = (filerPublisherId: string) => `${BAN_APPEAL_PREFIX}${filerPublisherId}`;
export const appealKey = (appealId: string) => ({ pk: `${partitions.appeal}${appealId}`, sk: APPEAL_SK });

/**
 * A publisher's appeals queue: an entry per open appeal, oldest first (`OPEN#<created_at>#<id>`),
 * moved on decision to `DONE#<decided_at>#<id>` (read newest first), and a rollup per complete
 * day of decisions (`DAY#<yyyy-mm-dd>`) for the stats. Entries hold a copy of the appeal, so a
 * page of the queue is one Query.
 */
/**
 * A device the publisher has banned, one item per ban: `<device_id>#<ban id, padded>`, so the
 * partition sorts by device id (no device id character sorts before `#`) and a prefix of a device
 * id is a prefix of its items' keys; no two creates write one item.
 */
export const bannedDevicesPartition = (publisherId: string) => `${partitions.bannedDevices}${publisherId}`;
export const BANNED_DEVICE_SEPARATOR = '#';
export const bannedDeviceKey = (publisherId: string, deviceId: string, banId: number) => ({
  pk: bannedDevicesPartition(publisherId),
  sk: `${deviceId}${BANNED_DEVICE_SEPARATOR}${String(banId).padStart(BAN_ID_DIGITS, '0')}`,
});
/** The first key after every item of a device: `~` sorts after the ban ids' digits. */
export const afterBannedDevice = (deviceId: string) => `${deviceId}${BANNED_DEVICE_SEPARATOR}~`;

/**
 * The same ban's entry by its device id reversed (`#<id reversed>#<ban id>`), so the end of an id
 * (a report quotes the tail digits) is a prefix of its keys and a suffix search is a Query. '#'
 * begins no device id, so these sort before every entry by id; same partition, same grants, and an
 * erasure deletes both. Device ids are ASCII, so reversing their characters is exact.
 */
export const REVERSED_DEVICE_PREFIX = '#';
export const reversedDeviceId = (deviceId: string) => [...deviceId].reverse().join('');
export const reversedBannedDeviceKey = (publisherId: string, deviceId: string, banId: number) => ({
  pk: bannedDevicesPartition(publisherId),
  sk: `${REVERSED_DEVICE_PREFIX}${reversedDeviceId(deviceId)}${BANNED_DEVICE_SEPARATOR}${String(banId).padStart(BAN_ID_DIGITS, '0')}`,
});
export const afterReversedBannedDevice = (deviceId: string) =>
  `${REVERSED_DEVICE_PREFIX}${reversedDeviceId(deviceId)}${BANNED_DEVICE_SEPARATOR}~`;
/** Where the entries by id begin: '$' sorts after the reversed entries' '#' and before every device id character. */
export const BANNED_DEVICES_BY_ID_FROM = '$';
/** Both entries of one ban in the index of banned devices. */
export const bannedDeviceKeys = (publisherId: string, deviceId: string, banId: number) => [
  bannedDeviceKey(publisherId, deviceId, banId),
  reversedBannedDeviceKey(publisherId, deviceId, banId),
];

/**
 * A ban with an expiry, under its publisher: `<expires_at>#<ban id, padded>`, so the partition sorts
 * by when bans end (timestamps are all of one width, UTC, millisecond) and no two bans share an item.
 */
export const expiringBansPartition = (publisherId: string) => `${partitions.expiringBans}${publisherId}`;
export const expiringBanKey = (publisherId: string, expiresAt: string, banId: number) => ({
  pk: expiringBansPartition(publisherId),
  sk: `${expiresAt}#${String(banId).padStart(BAN_ID_DIGITS, '0')}`,
});

export const appealQueuePartition = (publisherId: string) => `${partitions.appealQueue}${publisherId}`;
export const OPEN_APPEAL_PREFIX = 'OPEN#';
export const DECIDED_APPEAL_PREFIX = 'DONE#';
export const APPEAL_DAY_PREFIX = 'DAY#';
export const openAppealKey = (publisherId: string, createdAt: string, appealId: string) => ({
  pk: appealQueuePartition(publisherId),
  sk: `${OPEN_APPEAL_PREFIX}${createdAt}#${appealId}`,
});
export const decidedAppealKey = (publisherId: string, decidedAt: string, appealId: string) => ({
  pk: appealQueuePartition(publisherId),
  sk: `${DECIDED_APPEAL_PREFIX}${decidedAt}#${appealId}`,
});
export const appealDayKey = (publisherId: string, day: string) => ({
  pk: appealQueuePartition(publisherId),
  sk: `${APPEAL_DAY_PREFIX}${day}`,
});

/**
 * One export job of a publisher (lib/domain/export-jobs.ts): its state, its checkpoint (where the
 * next part file starts) and the part files written so far.
 */
export const exportJobKey = (publisherId: string, exportId: string) => ({
  pk: `${partitions.exportJob}${publisherId}`,
  sk: `JOB#${exportId}`,
});
