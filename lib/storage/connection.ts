import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

/**
 * Where a DynamoDB client connects: a given endpoint (a local or other compatible store), or AWS
 * itself. A local store takes any credentials, so an endpoint without AWS credentials in the
 * environment gets placeholder ones; AWS uses the SDK's default provider chain. Kept apart from
 * client.ts, whose module-scope client needs a table name, so the local tools can share it.
 */
export const connectionConfig = (endpoint: string | undefined): DynamoDBClientConfig => ({
  endpoint,
  // AWS itself: the SDK's own region (AWS_REGION, else the profile's; none fails the call), never
  // a default that would reach another region's table. A local store answers any region.
  ...(process.env.AWS_REGION || endpoint ? { region: process.env.AWS_REGION || 'us-east-1' } : {}),
  ...(endpoint && !process.env.AWS_ACCESS_KEY_ID
    ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
    : {}),
});
