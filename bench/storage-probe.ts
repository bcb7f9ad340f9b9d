import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Watches a DocumentClient from the outermost step of its middleware stack: counts the calls by
 * command, and measures the wall-clock time during which at least one call was in flight (calls
 * made in parallel overlap, so their durations are not summed).
 */
export const probeStorage = (client: DynamoDBDocumentClient) => {
  const counts = new Map<string, number>();
  let inFlight = 0;
  let busySince = 0;
  let busyMs = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      counts.set(name, (counts.get(name) ?? 0) + 1);
      if (inFlight++ === 0) busySince = performance.now();
      try {
        return await next(args);
      } finally {
        if (--inFlight === 0) busyMs += performance.now() - busySince;
      }
    },
    { step: 'initialize', priority: 'high', name: 'benchStorageProbe' },
  );
  return {
    reset: () => {
      counts.clear();
      busyMs = 0;
    },
    calls: () => Object.fromEntries(counts),
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    busyMs: () => busyMs,
  };
};

export const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

export const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
};
