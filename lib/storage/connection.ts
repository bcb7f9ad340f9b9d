import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

/**
 * Where a DynamoDB client connects: a given endpoint (a local or other compatible store), or AWS
 * itself. A local store takes any credentials, so an endpoint without AWS credentials in the
 * settings gets placeholder ones; AWS uses the SDK's default provider chain. Kept apart from
 * client.ts so the local tools can share it. Nothing here reads the environment: the caller passes
 * what the settings (lib/config.ts) say.
 */
export const connectionConfig = (
  endpoint: string | undefined,
  { region, awsCredentials = false }: { region?: string; awsCredentials?: boolean } = {},
): DynamoDBClientConfig => ({
  endpoint,
  // AWS itself: the SDK's own region (AWS_REGION, else the profile's; none fails the call), never
  // a default that would reach another region's table. A local store answers any region.
  ...(region || endpoint ? { region: region || 'us-east-1' } : {}),
  ...(endpoint && !awsCredentials ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
});
