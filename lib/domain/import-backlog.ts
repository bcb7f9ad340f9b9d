import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../concurrency';
import { settings } from '../config';
import { dynamo, tableName } from '../storage/client';
import { importBacklogKey } from '../storage/keys';
import { SlowDownError } from './errors';

/**
 * An import must not starve enforcement. Its rows are bans, and each ban's events go through the
 * same dispatcher, and into the same feed partitions, as the bans a publisher makes meanwhile: an
 * import let run ahead of its events would leave those new bans queued behind a million imported
 * ones, and every mirror that follows the feed (the game servers' login gates) without them until
 * the import's events were through. So each publisher's import is held within
 * `IMPORT_BACKLOG_ROWS` rows (lib/config.ts) of its events: an item counts the rows the import
 * made (`admitted`, added by the route once their bans are stored) and the imported bans whose
 * events the dispatcher has appended (`dispatched`, added once their feed, live set and rollups
 * are written); while the first is that far ahead of the second, the next batch is a 429 with
 * Retry-After, and nothing of it is stored.
 *
 * The counts may only err towards letting an import on: a row whose count was lost (the request
 * failed after its ban was stored; a retry finds it imported and does not count it again) and a
 * dispatch counted twice (a batch of changes handed on again) both leave `dispatched` ahead, never
 * `admitted`. An item that says more were dispatched than admitted is no backlog.
 */

/**
 * Rows a second the wait is reckoned at, about a deployed dispatcher's pace: a slower one (the
 * local server's) is asked again sooner than needed, at the cost of one read.
 */
const ROWS_PER_SECOND = 500;
const MAX_RETRY_AFTER_SECONDS = 30;

/** A publisher's imported rows whose events are not yet dispatched (consistent read). */
export const importBacklog = async (publisherId: string): Promise<number> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: importBacklogKey(publisherId), ConsistentRead: true }),
  );
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  return Math.max(0, count(Item?.admitted) - count(Item?.dispatched));
};

/** Refuses (a SlowDownError) an import batch while the publisher's backlog is at its limit. */
export const admitImport = async (publisherId: string): Promise<void> => {
  const limit = settings().importBacklogRows;
  if (limit === 0) return;
  const behind = await importBacklog(publisherId);
  if (behind < limit) return;
  throw new SlowDownError(
    `The events of ${behind} rows of your earlier import batches are still being written (at most ${limit} may wait); send this batch again after Retry-After seconds`,
    Math.min(MAX_RETRY_AFTER_SECONDS, Math.ceil(behind / ROWS_PER_SECOND)),
  );
};

const add = async (publisherId: string, attribute: 'admitted' | 'dispatched', rows: number) => {
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: importBacklogKey(publisherId),
      UpdateExpression: 'ADD #count :rows',
      ExpressionAttributeNames: { '#count': attribute },
      ExpressionAttributeValues: { ':rows': rows },
    }),
  );
};

/** Counts rows an import batch made (their bans stored): the route's part. */
export const noteImported = async (publisherId: string, rows: number): Promise<void> => {
  if (rows > 0) await add(publisherId, 'admitted', rows);
};

/** Counts imported bans whose events were appended, by publisher: the dispatcher's part. */
export const noteDispatched = async (byPublisher: ReadonlyMap<string, number>): Promise<void> => {
  await mapWithConcurrency([...byPublisher], 4, ([publisherId, rows]) =>
    rows > 0 ? add(publisherId, 'dispatched', rows) : Promise.resolve(),
  );
};
