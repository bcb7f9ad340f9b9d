import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The benchmark's floor: the least a DynamoDB-backed Lambda can be. It creates the DocumentClient
 * at module scope and sends one GetItem. Every function of the service is measured against it.
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { pk?: string }) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pk ?? 'floor', sk: 'floor' } }),
  );
  return { statusCode: 200, body: JSON.stringify(Item ?? null) };
};
