import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client';

/** Items read per request at most when a filter skips most of them; the cursor resumes from there. */
export const READ_BUDGET = 1000;

/**
 * One page of `limit` items of a Query, in its order, from after `start`. Without a filter one
 * Query of `limit + 1` tells whether more follow. With one (DynamoDB applies `Limit` before the
 * filter), Queries of 200 follow each other until `limit + 1` items matched, the partition ended,
 * or READ_BUDGET items were read: the answer may then stop short of `limit`, and `resumeAfter`
 * (the sort key to go on after) still lets the caller page on. `resumeAfter` is null at the end.
 */
export const filteredPage = async <T>(
  input: QueryCommandInput,
  limit: number,
  start: Record<string, unknown> | undefined,
  toValue: (item: Record<string, unknown>) => T,
): Promise<{ items: T[]; resumeAfter: string | null }> => {
  const filtered = input.FilterExpression !== undefined;
  const query = { ...input, Limit: filtered ? 200 : limit + 1 };
  const found: Array<{ sk: string; value: T }> = [];
  let from = start;
  let read = 0;
  for (;;) {
    const page = await dynamo.send(
      new QueryCommand({ ...query, ...(from ? { ExclusiveStartKey: from } : {}) }),
    );
    for (const item of page.Items ?? []) found.push({ sk: String(item.sk), value: toValue(item) });
    read += page.ScannedCount ?? 0;
    if (found.length > limit) {
      const items = found.slice(0, limit);
      return { items: items.map((f) => f.value), resumeAfter: items.at(-1)?.sk ?? null };
    }
    if (!page.LastEvaluatedKey) return { items: found.map((f) => f.value), resumeAfter: null };
    from = page.LastEvaluatedKey;
    if (read >= READ_BUDGET)
      return { items: found.map((f) => f.value), resumeAfter: String(page.LastEvaluatedKey.sk) };
  }
};
