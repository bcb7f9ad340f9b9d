/**
 * DynamoDB failures that a client retry can fix: throttling, server-side faults, and the network
 * or timeout errors of the SDK's HTTP client. The HTTP layer answers these 503
 * `service_unavailable`; anything else coming from storage is a bug (500).
 */
const transientNames = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'TransactionConflictException',
  'ResourceNotFoundException',
  // Cognito's (the people routes, ./user-pool.ts): throttled, or failing on its side.
  'TooManyRequestsException',
  'InternalErrorException',
]);

const transientCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

export const isTransientStoreFailure = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const { name } = error;
  const code = (error as { code?: unknown }).code;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return (
    transientNames.has(name) ||
    (typeof code === 'string' && transientCodes.has(code)) ||
    (typeof status === 'number' && status >= 500)
  );
};

export const isConditionFailure = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';
