import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './client';
import { isConditionFailure } from './failures';

/**
 * Puts `item` unless an item holds its key already: undefined when this put made it, else the
 * item that holds the key (one consistent GetItem after the failed condition), which may be this
 * very put's when its answer was lost and the SDK's retry then failed the condition against it:
 * the caller tells the two apart by what the item holds. Undefined for an item gone in between.
 */
export const claimOrRead = async (
  item: Record<string, unknown> & { pk: string; sk: string },
): Promise<{ claimed: true } | { claimed: false; holder: Record<string, unknown> | undefined }> => {
  try {
    await dynamo.send(
      new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return { claimed: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true }),
  );
  return { claimed: false, holder: Item };
};
