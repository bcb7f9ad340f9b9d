import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './client';

/**
 * Every item of one partition whose sort key is from `first` to `last`, both included, in sort key
 * order: one consistent Query, more pages only past 1 MB. The daily rollups' read (the appeals'
 * stats, the transparency report): a period's days are one range of one partition.
 */
export const itemsBetween = async (
  pk: string,
  first: string,
  last: string,
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  const pages = paginateQuery(
    { client: dynamo },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeValues: { ':pk': pk, ':first': first, ':last': last },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) items.push(...(page.Items ?? []));
  return items;
};
