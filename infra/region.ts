/**
 * The operator tools' AWS region is the SDK's own choice (AWS_REGION, else the profile's region in
 * ~/.aws/config): never a default, which would point them at another region's table or pool. The
 * SDK fails a call without one; this says what to set.
 */
export const regionMissing = (error: unknown): string | undefined =>
  /region is missing/i.test(String((error as Error | undefined)?.message))
    ? 'no AWS region: set AWS_REGION, or a region in your AWS profile (~/.aws/config)'
    : undefined;
