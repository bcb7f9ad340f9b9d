import {
  type AttributeValue,
  BatchWriteItemCommand,
  type BatchWriteItemCommandOutput,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { setClockOffset } from '../../lib/clock';
import { configure, type Settings } from '../../lib/config';
import type { ChangeRecord } from '../../lib/domain/change-events';
import type { DeliveryRef } from '../../lib/domain/deliveries';
import { describeError, log, SENDER_FAILURE_MESSAGE } from '../../lib/log';
import { eventsDispatcherFunction, webhookSenderFunction } from '../../lib/routes';
import { connectionConfig } from '../../lib/storage/connection';
import { type DeliveryMessage, useLocalDeliveryQueue } from '../../lib/storage/delivery-queue';
import {
  CHANGE_ENTRY_PREFIX,
  CHANGE_LOG_PARTITION,
  changeCheckpointKey,
  changeEntryKey,
  LAST_SEQ,
} from '../../lib/storage/keys';
import { bundleLoader } from './bundles';
import type { ChangeRecorder } from './change-log';

/**
 * The local half of events: the same dispatcher the stream drives on AWS (lib/domain/dispatch.ts),
 * run over the local change log (./change-log.ts), and timers in place of the SQS queue, each
 * attempt the same as the sender function's (lib/domain/deliveries.ts). With `bundles`, the
 * dispatcher and the sender are the deployed functions' own bundles.
 *
 * Nothing is lost when the process dies: the log keeps each record until the dispatcher has
 * handed it on (a checkpoint, then the record is deleted), and each delivery's state is in the
 * table, so a restart reads on from the checkpoint and schedules every pending delivery again.
 */

export interface LocalEvents {
  /** Resolves when every record logged so far has been dispatched (tests, and closing). */
  drain(): Promise<void>;
  /** Schedules attempt `attempt` of these deliveries at `dueAt`: the local queue (lib/storage/delivery-queue.ts). */
  enqueue(refs: readonly DeliveryRef[], dueAt: number, attempt: number): void;
  /** Moves this dispatcher's clock (lib/clock.ts) by `offsetMs` from the wall clock, as the API's. */
  setClockOffset(offsetMs: number): void;
  close(): Promise<void>;
}

const BATCH = 100;
/** How often the log is read when nothing signals a record (another process's writes). */
const POLL_MS = 1_000;
/** The wait before trying again when the store failed. */
const RETRY_MS = 1_000;

export interface LocalEventsOptions {
  /** Tells the dispatcher a record was stored (the recorder itself, or the thread's messages). */
  recorder: Pick<ChangeRecorder, 'onRecord'>;
  storeEndpoint: string;
  tableName: string;
  /** The settings the thread binds (lib/config.ts): the main thread's, its store the recorder's. */
  settings: Settings;
  /**
   * A cloud assembly whose dispatcher and sender bundles to run (./bundles.ts), handed the change
   * records as a stream batch and each attempt as a queue message, as Lambda hands them on; the
   * TypeScript sources when absent.
   */
  bundles?: string;
}

type Enqueue = (refs: readonly DeliveryRef[]) => Promise<void>;

interface EventFunctions {
  dispatch(records: ChangeRecord[], enqueue: Enqueue): Promise<void>;
  /**
   * Runs one attempt; a later attempt it owes is scheduled through `schedule`. `retry` when it
   * failed as a whole, as a queue message SQS hands on again.
   */
  attempt(
    ref: DeliveryRef,
    attempt: number,
    dueAt: number,
    schedule: (dueAt: number, next: number) => void,
  ): Promise<'done' | 'retry'>;
}

/** The dispatcher and the sender's attempt from the TypeScript sources. */
const sourceFunctions = async (): Promise<EventFunctions> => {
  const { dispatchChanges } = await import('../../lib/domain/dispatch');
  const { attemptDelivery } = await import('../../lib/domain/deliveries');
  return {
    dispatch: async (records, enqueue) => {
      await dispatchChanges(records, enqueue);
    },
    attempt: async (ref, attempt, _dueAt, schedule) => {
      const outcome = await attemptDelivery(ref, attempt);
      if (!outcome.settled) schedule(outcome.retryAt, outcome.attempt);
      return 'done';
    },
  };
};

/**
 * The deployed functions' bundles: the dispatcher handed a stream batch, the sender a queue
 * message per attempt. Both queue what follows through lib/storage/delivery-queue.ts, which finds
 * the local queue (`useLocalDeliveryQueue`) set on this thread by the caller.
 */
const bundledFunctions = async (cdkOutDir: string): Promise<EventFunctions> => {
  const load = bundleLoader(cdkOutDir);
  const dispatcher = (await load(eventsDispatcherFunction.handler)).handler as (event: {
    Records: ChangeRecord[];
  }) => Promise<void>;
  const sender = (await load(webhookSenderFunction.handler)).handler as (event: {
    Records: Array<{ messageId: string; body: string; attributes: Record<string, string> }>;
  }) => Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }>;
  let messages = 0;
  return {
    dispatch: (records) => dispatcher({ Records: records }),
    attempt: async (ref, attempt, dueAt) => {
      messages += 1;
      const messageId = `local-${messages}`;
      const { batchItemFailures } = await sender({
        Records: [
          {
            messageId,
            body: JSON.stringify({ ref, attempt, due_at: dueAt } satisfies DeliveryMessage),
            attributes: { ApproximateReceiveCount: '1' },
          },
        ],
      });
      return batchItemFailures.length > 0 ? 'retry' : 'done';
    },
  };
};

/**
 * The dispatcher and the delivery timers, on the calling thread. `npm start` runs them on a
 * thread of their own (./events-thread.ts), so they do not queue behind the API's requests.
 */
export const startLocalEvents = async (options: LocalEventsOptions): Promise<LocalEvents> => {
  configure(options.settings);
  const functions = options.bundles ? await bundledFunctions(options.bundles) : await sourceFunctions();
  const { pendingDeliveries } = await import('../../lib/domain/deliveries');
  const { tableName } = options;
  const client = new DynamoDBClient({
    ...connectionConfig(options.storeEndpoint, options.settings.storage),
    maxAttempts: 3,
  });
  let closed = false;

  // The queue: one timer per pending delivery, an attempt when it fires.
  const timers = new Map<string, NodeJS.Timeout>();
  const attempts = new Set<Promise<void>>();
  const schedule = (ref: DeliveryRef, attempt: number, dueAt: number) => {
    const id = `${ref.publisher_id}\n${ref.webhook_id}\n${ref.sk}`;
    if (closed || timers.has(id)) return;
    const timer = setTimeout(
      () => {
        timers.delete(id);
        const running = functions
          .attempt(ref, attempt, dueAt, (retryAt, next) => schedule(ref, next, retryAt))
          .then((result) => {
            // The bundled sender logged its failure already, as deployed; the message comes back.
            if (result === 'retry') schedule(ref, attempt, Date.now() + RETRY_MS);
          })
          .catch((error) => {
            // As the deployed sender's failed message comes back: the same attempt, later (a
            // claim it left makes that attempt wait for the claim's end).
            log('error', SENDER_FAILURE_MESSAGE, { ...ref, attempt, ...describeError(error) });
            schedule(ref, attempt, Date.now() + RETRY_MS);
          })
          .finally(() => attempts.delete(running));
        attempts.add(running);
      },
      Math.max(0, dueAt - Date.now()),
    );
    timers.set(id, timer);
  };
  const enqueue = async (refs: readonly DeliveryRef[]) => {
    for (const ref of refs) schedule(ref, 1, Date.now());
  };
  // The bundles queue through the module's local queue, a global of this thread.
  if (options.bundles)
    useLocalDeliveryQueue(async (refs, dueAt, attempt) => {
      for (const ref of refs) schedule(ref, attempt, dueAt);
    });

  // The dispatcher: reads the log from the checkpoint, one batch at a time, in order.
  const checkpoint = changeCheckpointKey();
  /** The last record handed on (the checkpoint, as stored): records up to it may still await pruning. */
  let handedOn = Number(
    (
      await client.send(
        new GetItemCommand({
          TableName: tableName,
          Key: { pk: { S: checkpoint.pk }, sk: { S: checkpoint.sk } },
          ConsistentRead: true,
        }),
      )
    ).Item?.seq?.N ?? 0,
  );
  const recordsBetween = (from: number, to: number, limit?: number) =>
    client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': { S: CHANGE_LOG_PARTITION },
          ':from': { S: changeEntryKey(from).sk },
          ':to': { S: changeEntryKey(to).sk },
        },
        ...(limit === undefined ? {} : { Limit: limit }),
        ConsistentRead: true,
      }),
    );
  const dispatchOnce = async (): Promise<number> => {
    const { Items = [] } = await recordsBetween(handedOn + 1, LAST_SEQ, BATCH);
    if (Items.length === 0) return 0;
    const records = Items.map((item) => JSON.parse(item.change?.S ?? '{}') as ChangeRecord);
    await functions.dispatch(records, enqueue);
    const last = Number((Items.at(-1)?.sk?.S ?? '').slice(CHANGE_ENTRY_PREFIX.length));
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { pk: { S: checkpoint.pk }, sk: { S: checkpoint.sk }, seq: { N: String(last) } },
      }),
    );
    handedOn = last;
    // Handed on: the log keeps only what is still to dispatch. Pruned aside, off the dispatch path.
    pruning = pruning
      .then(() => prune(Items))
      .catch((error) => {
        log('warn', 'pruning the change log failed; the next start prunes it', describeError(error));
      });
    return Items.length;
  };

  /** Deletes records handed on, 25 a request. */
  const prune = async (items: ReadonlyArray<Record<string, AttributeValue>>) => {
    for (let start = 0; start < items.length; start += 25) {
      let requests: WriteRequest[] | undefined = items.slice(start, start + 25).map((item) => ({
        DeleteRequest: { Key: { pk: item.pk as AttributeValue, sk: item.sk as AttributeValue } },
      }));
      while (requests && requests.length > 0) {
        const answer: BatchWriteItemCommandOutput = await client.send(
          new BatchWriteItemCommand({ RequestItems: { [tableName]: requests } }),
        );
        requests = answer.UnprocessedItems?.[tableName];
      }
    }
  };
  let pruning: Promise<void> = Promise.resolve();

  let running: Promise<void> | undefined;
  let again = false;
  const pump = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          while (!closed && (await dispatchOnce()) === BATCH) {}
        } catch (error) {
          log('warn', 'dispatching the change log failed; trying again', describeError(error));
          await new Promise((done) => setTimeout(done, RETRY_MS));
          again = !closed;
        }
      } while (again && !closed);
    })().finally(() => {
      running = undefined;
      // A record logged after the loop's last look but before this line asked for a pass that the
      // loop will not make: make it now (drain() then awaits it too).
      if (again && !closed) void pump();
    });
    return running;
  };

  options.recorder.onRecord(() => void pump());
  const poller = setInterval(() => void pump(), POLL_MS);
  // What a previous run left: records handed on but not pruned, records not yet dispatched,
  // deliveries not yet settled.
  // Nothing was ever handed on (a fresh store): nothing to prune, and no range to ask for.
  pruning =
    handedOn === 0
      ? Promise.resolve()
      : recordsBetween(1, handedOn)
          .then(({ Items = [] }) => prune(Items))
          .catch((error) => log('warn', 'pruning the change log failed', describeError(error)));
  for (const { ref, attempt, dueAt } of await pendingDeliveries()) schedule(ref, attempt, dueAt);
  void pump();

  return {
    enqueue: (refs, dueAt, attempt) => {
      for (const ref of refs) schedule(ref, attempt, dueAt);
    },
    setClockOffset,
    drain: async () => {
      await pump();
      // Dispatched, and the records handed on pruned too: once drain returns, what a change record
      // held (an erased appeal's contact) is gone from the log, as it is from the items.
      for (;;) {
        if (running) {
          await running;
          continue;
        }
        const current = pruning;
        await current;
        if (current === pruning && !running) return;
      }
    },
    close: async () => {
      closed = true;
      clearInterval(poller);
      if (options.bundles) useLocalDeliveryQueue(undefined);
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await running;
      await pruning;
      await Promise.allSettled([...attempts]);
      client.destroy();
    },
  };
};

/** The record key of position `seq` (for tests that look into the log). */
export const changeEntry = changeEntryKey;
