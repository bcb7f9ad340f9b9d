import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { connectionConfig } from './connection';

/**
 * The one DocumentClient of a process, made at module scope so that Lambda reuses it (and its
 * keep-alive connections) across invocations.
 *
 * Retries and timeouts: 3 attempts with the SDK's standard jittered backoff, a 1 s connect
 * timeout and a 2 s request timeout. The worst case (3 × 2 s plus backoff) stays well inside the
 * functions' 10 s timeout, so a DynamoDB outage ends as our 503 rather than a Lambda timeout.
 */
const endpoint = process.env.DYNAMODB_ENDPOINT || undefined;

export const tableName = process.env.TABLE_NAME ?? '';

export const dynamo = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    ...connectionConfig(endpoint),
    maxAttempts: 3,
    // Without throwOnRequestTimeout the SDK only logs a warning when requestTimeout passes and
    // keeps waiting, so a hung request would run into the Lambda timeout instead of our 503.
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true },
  }),
  { marshallOptions: { removeUndefinedValues: true } },
);

if (!tableName) {
  // Fail at start-up, loudly, rather than with a confusing DynamoDB validation error later.
  throw new Error('TABLE_NAME is not set');
}
