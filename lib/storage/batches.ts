import {
  BatchGetCommand,
  type BatchGetCommandInput,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  type BatchWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../concurrency';
import { dynamo, tableName } from './client';

/**
 * BatchGetItem and BatchWriteItem over any number of keys or items: split into DynamoDB's limits
 * (100 keys, 25 writes a call), and what a call leaves unprocessed (throttled, or over its size)
 * sent again with a growing wait. A call that fails outright throws as a single-item call would
 * (the HTTP layer answers 503); what it left is the caller's retry to complete, so only writes
 * that may land twice belong here (plain puts of items whose content a retry repeats).
 */

type Key = Record<string, unknown>;
type Item = Record<string, unknown>;
type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

const GET_LIMIT = 100;
const WRITE_LIMIT = 25;
/** Rounds for what a call leaves unprocessed before giving up (a 503; the retry completes). */
const UNPROCESSED_ROUNDS = 8;
const BASE_WAIT_MS = 25;

const chunks = <T>(values: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(values.length / size) }, (_, i) => values.slice(i * size, (i + 1) * size));

const wait = (round: number) =>
  new Promise<void>((done) => setTimeout(done, BASE_WAIT_MS * 2 ** round * (0.5 + Math.random() / 2)));

/** Unprocessed keys or items after every round: thrown as DynamoDB's own throttling, a 503. */
const stillUnprocessed = (what: string) =>
  Object.assign(new Error(`${what} left unprocessed after ${UNPROCESSED_ROUNDS} rounds`), {
    name: 'ProvisionedThroughputExceededException',
  });

/** The items of `keys` that exist (consistent reads), in no particular order. */
export const batchGetItems = async (keys: readonly Key[]): Promise<Item[]> => {
  const found: Item[] = [];
  for (const chunk of chunks(keys, GET_LIMIT)) {
    let request: BatchGetCommandInput['RequestItems'] = {
      [tableName()]: { Keys: chunk, ConsistentRead: true },
    };
    for (let round = 0; request && Object.keys(request).length > 0; round += 1) {
      if (round === UNPROCESSED_ROUNDS) throw stillUnprocessed('BatchGetItem keys');
      if (round > 0) await wait(round - 1);
      const answer: BatchGetCommandOutput = await dynamo.send(new BatchGetCommand({ RequestItems: request }));
      found.push(...(answer.Responses?.[tableName()] ?? []));
      request = answer.UnprocessedKeys;
    }
  }
  return found;
};

const keyText = (key: Key) => `${String(key.pk)}\n${String(key.sk)}`;

/**
 * Whether each of `keys` names an item that exists (consistent reads), in the keys' order: one
 * BatchGetItem per 100 distinct keys, where a GetItem each would be as many calls.
 */
export const whichExist = async (keys: readonly Key[]): Promise<boolean[]> => {
  const distinct = [...new Map(keys.map((key) => [keyText(key), key])).values()];
  const found = new Set((await batchGetItems(distinct)).map(keyText));
  return keys.map((key) => found.has(keyText(key)));
};

/** BatchWriteItem calls in flight at once. */
const WRITE_CONCURRENCY = 4;

/** Puts every item (unconditionally: a batch write has no condition), 25 a call, 4 calls at once. */
export const batchPutItems = async (items: readonly Item[]): Promise<void> => {
  await mapWithConcurrency(chunks(items, WRITE_LIMIT), WRITE_CONCURRENCY, async (chunk) => {
    let request: Record<string, WriteRequest[]> | undefined = {
      [tableName()]: chunk.map((Item) => ({ PutRequest: { Item } })),
    };
    for (let round = 0; request && Object.keys(request).length > 0; round += 1) {
      if (round === UNPROCESSED_ROUNDS) throw stillUnprocessed('BatchWriteItem writes');
      if (round > 0) await wait(round - 1);
      const answer = await dynamo.send(new BatchWriteCommand({ RequestItems: request }));
      request = answer.UnprocessedItems as Record<string, WriteRequest[]> | undefined;
    }
  });
};
