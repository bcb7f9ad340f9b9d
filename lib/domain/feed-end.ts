import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../storage/client';
import { FEED_ENTRY_PREFIX, FEED_HEAD_SK } from '../storage/keys';

/** The position an entry's sort key names. */
export const seqOf = (sk: unknown) => Number(String(sk).slice(FEED_ENTRY_PREFIX.length));

/**
 * The highest position a feed partition ever had: its head, or its last entry when that is higher
 * (an append whose head update did not land yet, or a partition from before heads). One
 * consistent Query, newest first, of the head and the last entry. Apart from lib/domain/feed.ts so
 * that a reader of the live sets (lib/domain/live-set-copy.ts) reads the same end without the feed.
 */
export const lastSeq = async (partition: string): Promise<number> => {
  const { Items = [] } = await dynamo.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :entry AND :head',
      ExpressionAttributeValues: { ':pk': partition, ':entry': FEED_ENTRY_PREFIX, ':head': FEED_HEAD_SK },
      ScanIndexForward: false,
      Limit: 2,
      ConsistentRead: true,
    }),
  );
  return Math.max(
    0,
    ...Items.map((item) => (item.sk === FEED_HEAD_SK ? Number(item.seq) || 0 : seqOf(item.sk))),
  );
};
