import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import * as clock from '../../lib/clock';
import { mapWithConcurrency } from '../../lib/concurrency';
import { isChangeSource } from '../../lib/domain/change-sources';
import { describeError, log } from '../../lib/log';
import { tableName as boundTable, dynamo } from '../../lib/storage/client';
import { isConditionFailure } from '../../lib/storage/failures';
import { TIME_TO_LIVE_ATTRIBUTE } from '../../lib/storage/table';

/**
 * The local stand-in for DynamoDB's time to live, which neither the embedded store (dynalite) nor
 * DynamoDB Local applies: every `TTL_SWEEP_SECONDS` (default 60; 0 turns it off) the server deletes
 * the items whose `ttl` (seconds since the epoch) has passed, each delete conditional on the `ttl`
 * still being past, so an item written again meanwhile stays. Invariants: no read relies on it (every read applies
 * the retention itself); items whose changes are events carry no `ttl`, so it makes no change
 * record and no event. See docs/data-model.md#local-and-deployed and docs/data-model.md#retention.
 */

export const DEFAULT_TTL_SWEEP_SECONDS = 60;

/** `TTL_SWEEP_SECONDS`: seconds between sweeps (fractions allowed; 0: no sweeper). */
export const ttlSweepSecondsFrom = (env: NodeJS.ProcessEnv): number => {
  const raw = env.TTL_SWEEP_SECONDS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_TTL_SWEEP_SECONDS;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 3600)
    throw new Error(`TTL_SWEEP_SECONDS must be a number of seconds from 0 to 3600, got ${raw}`);
  return seconds;
};

/** Items read per Scan page: the sweep yields to requests between pages. */
const PAGE = 500;
/** Deletes in flight at once. */
const DELETES = 4;

/** Deletes every item whose `ttl` is at or before `nowMs`; answers how many it deleted. */
export const sweepExpired = async (nowMs = clock.now()): Promise<number> => {
  const tableName = boundTable();
  const now = Math.floor(nowMs / 1000);
  let deleted = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#ttl <= :now',
        ProjectionExpression: 'pk, sk',
        ExpressionAttributeNames: { '#ttl': TIME_TO_LIVE_ATTRIBUTE },
        ExpressionAttributeValues: { ':now': now },
        Limit: PAGE,
        ExclusiveStartKey,
      }),
    );
    const expired = (page.Items ?? []).filter((item) => !isChangeSource(String(item.pk), String(item.sk)));
    const done = await mapWithConcurrency(expired, DELETES, async (item) => {
      try {
        await dynamo.send(
          new DeleteCommand({
            TableName: tableName,
            Key: { pk: item.pk, sk: item.sk },
            ConditionExpression: '#ttl <= :now',
            ExpressionAttributeNames: { '#ttl': TIME_TO_LIVE_ATTRIBUTE },
            ExpressionAttributeValues: { ':now': now },
          }),
        );
        return 1;
      } catch (error) {
        if (isConditionFailure(error)) return 0;
        throw error;
      }
    });
    deleted += done.reduce<number>((sum, n) => sum + n, 0);
    ExclusiveStartKey = page.LastEvaluatedKey;
    await new Promise((next) => setImmediate(next));
  } while (ExclusiveStartKey);
  return deleted;
};

export interface TtlSweeper {
  /** Sweeps now (after the one running, if any); answers how many items it deleted. */
  sweep(): Promise<number>;
  /** Stops the timer and waits for a sweep in flight. */
  close(): Promise<void>;
}

export const startTtlSweeper = (intervalSeconds: number): TtlSweeper => {
  let running: Promise<number> = Promise.resolve(0);
  const sweep = () => {
    running = running.then(
      () => sweepExpired(),
      () => sweepExpired(),
    );
    return running;
  };
  const timer =
    intervalSeconds > 0
      ? setInterval(() => {
          sweep().catch((error) => log('warn', 'the local ttl sweep failed', describeError(error)));
        }, intervalSeconds * 1000)
      : undefined;
  timer?.unref();
  return {
    sweep,
    close: async () => {
      clearInterval(timer);
      await running.catch(() => undefined);
    },
  };
};
