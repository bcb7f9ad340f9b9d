import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

type Doc = Record<string, unknown>;
const at = (value: unknown, key: string): unknown =>
  value && typeof value === 'object' ? (value as Doc)[key] : undefined;
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** An attribute value as the DocumentClient takes it (plain) or as the wire carries it ({ S: ... }). */
const plain = (value: unknown): string =>
  value && typeof value === 'object'
    ? String(at(value, 'S') ?? at(value, 'N') ?? JSON.stringify(value))
    : String(value);

/** One item, named by its key: `pk sk`. */
const itemOf = (key: unknown) => `${plain(at(key, 'pk'))} ${plain(at(key, 'sk'))}`;

/**
 * The items a command writes, one entry per item written: PutItem, UpdateItem and DeleteItem
 * write one; a TransactWriteItems writes each of its Put, Update and Delete (a ConditionCheck
 * writes nothing); a BatchWriteItem each of its requests. Every other command writes nothing.
 */
export const itemsWritten = (command: string, input: unknown): string[] => {
  switch (command) {
    case 'PutItem':
      return [itemOf(at(input, 'Item'))];
    case 'UpdateItem':
    case 'DeleteItem':
      return [itemOf(at(input, 'Key'))];
    case 'TransactWriteItems':
      return list(at(input, 'TransactItems')).flatMap((t) => {
        const put = at(t, 'Put');
        const write = at(t, 'Update') ?? at(t, 'Delete');
        return put ? [itemOf(at(put, 'Item'))] : write ? [itemOf(at(write, 'Key'))] : [];
      });
    case 'BatchWriteItem':
      return Object.values((at(input, 'RequestItems') ?? {}) as Doc)
        .flatMap(list)
        .map((r) => {
          const put = at(r, 'PutRequest');
          return put ? itemOf(at(put, 'Item')) : itemOf(at(at(r, 'DeleteRequest'), 'Key'));
        });
    default:
      return [];
  }
};

/**
 * Watches a DocumentClient from the outermost step of its middleware stack: counts the calls by
 * command and the writes by item (its pk and sk), and measures the wall-clock time during which at
 * least one call was in flight (calls made in parallel overlap, so their durations are not summed).
 */
export const probeStorage = (client: DynamoDBDocumentClient) => {
  const counts = new Map<string, number>();
  const writes = new Map<string, number>();
  let inFlight = 0;
  let busySince = 0;
  let busyMs = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      counts.set(name, (counts.get(name) ?? 0) + 1);
      for (const item of itemsWritten(name, args.input)) writes.set(item, (writes.get(item) ?? 0) + 1);
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
      writes.clear();
      busyMs = 0;
    },
    calls: () => Object.fromEntries(counts),
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    /** Writes per item since the last reset, most written first. */
    writes: () => [...writes.entries()].sort(([, a], [, b]) => b - a),
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

/** The benchmark's one percentile: of the values in any order; 0 of none. */
export const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
