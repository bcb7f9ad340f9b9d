/** The table's key schema, shared by the CDK stack and the local store so they cannot drift. */
export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk' } as const;

/** Default table name for local runs; deployed stacks let CloudFormation name the table. */
export const LOCAL_TABLE_NAME = 'device-bans';

/**
 * The attribute DynamoDB's time to live reads (seconds since the epoch): set only on items that are
 * useless after a time: index entries of bans that ended (lib/domain/expiring-bans.ts), change feed
 * entries and markers, settled deliveries (lib/domain/retention.ts). Deployed, DynamoDB deletes them
 * within days of it; locally the server's sweeper does (infra/local/ttl-sweeper.ts). No read relies
 * on the deletion (docs/data-model.md).
 */
export const TIME_TO_LIVE_ATTRIBUTE = 'ttl';
