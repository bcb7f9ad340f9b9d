/** The table's key schema, shared by the CDK stack and the local store so they cannot drift. */
export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk' } as const;

/** Default table name for local runs; deployed stacks let CloudFormation name the table. */
export const LOCAL_TABLE_NAME = 'device-bans';
