import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AttributeValue,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isChangeSource } from '../../lib/domain/change-sources';
import { connectionConfig } from '../../lib/storage/connection';
import {
  CHANGE_ENTRY_PREFIX,
  CHANGE_LOG_PARTITION,
  changeCheckpointKey,
  changeEntryKey,
  FEED_SEQ_DIGITS,
} from '../../lib/storage/keys';

/**
 * The local change log: what DynamoDB Streams is to the deployed table. The local store has no
 * stream, so the local server puts this recorder in front of it: every request passes through
 * unchanged, and a write to an item whose changes are events (lib/domain/change-sources.ts) is
 * recorded with the item's images before and after, in the stream's record shape, in the store
 * itself. Invariants: a write is answered only once its record is stored, so an acknowledged write
 * is dispatched (./events.ts) even if the process dies right after; writes to one item pass one at
 * a time, so the images are exact. How it differs from a stream:
 * docs/data-model.md#local-and-deployed.
 */

export interface ChangeRecorder {
  /** Where the API and the dispatcher reach the store through the recorder. (The keys tool, in
   * another process, reaches the store directly: its writes, keys, are not events.) */
  endpoint: string;
  /** Called after each record is stored. */
  onRecord(listener: () => void): void;
  close(): Promise<void>;
}

type Item = Record<string, AttributeValue>;

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

const readBody = (stream: NodeJS.ReadableStream) =>
  new Promise<Buffer>((done, fail) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => done(Buffer.concat(chunks)));
    stream.on('error', fail);
  });

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A PutItem on condition that the item does not exist (the key's attribute, by name or alias). */
const createsOnly = (operation: string, input: Record<string, unknown>) => {
  if (operation !== 'PutItem' || typeof input.ConditionExpression !== 'string') return false;
  const match = /^attribute_not_exists\((#?\w+)\)$/.exec(input.ConditionExpression.trim());
  if (!match?.[1]) return false;
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const attribute = match[1].startsWith('#') ? names[match[1]] : match[1];
  return attribute === 'pk' || attribute === 'sk';
};

/** The same order of keys everywhere, so two images of one item compare equal when they are. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, entry) =>
    entry && typeof entry === 'object' && !Array.isArray(entry)
      ? Object.fromEntries(Object.entries(entry).sort(([a], [b]) => a.localeCompare(b)))
      : entry,
  );

export const startChangeRecorder = async (store: {
  endpoint: string;
  tableName: string;
}): Promise<ChangeRecorder> => {
  const upstream = new URL(store.endpoint);
  const client = new DynamoDBClient({ ...connectionConfig(store.endpoint), maxAttempts: 3 });
  const listeners: Array<() => void> = [];
  /** The last record's position: read once, then kept here (one process owns the log). */
  let lastSeq = await lastLogged(client, store.tableName);
  // Kept-alive connections to the store: a new connection per request would cost more than the request.
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  /** One chain of writes per item key. */
  const queues = new Map<string, Promise<unknown>>();

  const forward = (method: string, path: string, headers: IncomingHttpHeaders, body: Buffer) =>
    new Promise<Answer>((done, fail) => {
      const req = httpRequest(
        { host: upstream.hostname, port: upstream.port, method, path, headers, agent },
        (res) => {
          readBody(res).then(
            (answer) => done({ status: res.statusCode ?? 502, headers: res.headers, body: answer }),
            fail,
          );
        },
      );
      req.on('error', fail);
      req.end(body);
    });

  const read = async (key: Item) =>
    (await client.send(new GetItemCommand({ TableName: store.tableName, Key: key, ConsistentRead: true })))
      .Item;

  /**
   * Records are put one at a time, each taking its position only when its turn comes: put
   * concurrently, record n + 1 could land before n, the dispatcher could hand on past n while n was
   * still on its way, and n's event would never reach the feed. A put that fails takes no position.
   */
  let logging: Promise<unknown> = Promise.resolve();
  const record = (key: Item, before: Item | undefined, after: Item | undefined): Promise<void> => {
    if (canonical(before && unmarshall(before)) === canonical(after && unmarshall(after)))
      return Promise.resolve();
    const turn = logging.then(() => append(key, before, after));
    logging = turn.catch(() => undefined);
    return turn;
  };

  const append = async (key: Item, before: Item | undefined, after: Item | undefined) => {
    const seq = lastSeq + 1;
    const now = Date.now();
    const change = {
      eventName: before ? (after ? 'MODIFY' : 'REMOVE') : 'INSERT',
      dynamodb: {
        ApproximateCreationDateTime: now / 1000,
        Keys: key,
        ...(after ? { NewImage: after } : {}),
        ...(before ? { OldImage: before } : {}),
        SequenceNumber: String(seq).padStart(FEED_SEQ_DIGITS, '0'),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    };
    const entry = changeEntryKey(seq);
    await client.send(
      new PutItemCommand({
        TableName: store.tableName,
        Item: { pk: { S: entry.pk }, sk: { S: entry.sk }, change: { S: JSON.stringify(change) } },
      }),
    );
    lastSeq = seq;
    for (const listener of listeners) listener();
  };

  /** A write to an item whose changes are events: its images around it, then its record. */
  const recorded = async (operation: string, input: Record<string, unknown>, send: () => Promise<Answer>) => {
    const item = input.Item as Item | undefined;
    const key = (operation === 'PutItem' && item ? { pk: item.pk, sk: item.sk } : input.Key) as Item;
    const id = canonical(key);
    const previous = queues.get(id) ?? Promise.resolve();
    const turn = previous.then(async () => {
      // A put that may only create: when it lands, there was nothing before it (the items writes
      // pass one at a time, so nothing came between), and a refused one is not recorded.
      const before = createsOnly(operation, input) ? undefined : await read(key);
      const answer = await send();
      if (answer.status === 200) {
        const after =
          operation === 'DeleteItem' ? undefined : operation === 'PutItem' ? item : await read(key);
        await record(key, before, after);
      }
      return answer;
    });
    const settled = turn.catch(() => undefined);
    queues.set(id, settled);
    void settled.then(() => {
      if (queues.get(id) === settled) queues.delete(id);
    });
    return turn;
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      const send = () => forward(req.method ?? 'POST', req.url ?? '/', req.headers, body);
      let answer: Answer;
      if (WRITES.has(operation)) {
        const input = JSON.parse(body.toString()) as Record<string, unknown>;
        const item = (input.Item ?? input.Key) as Item | undefined;
        const pk = item?.pk?.S;
        const sk = item?.sk?.S;
        answer =
          input.TableName === store.tableName && pk && sk && isChangeSource(pk, sk)
            ? await recorded(operation, input, send)
            : await send();
      } else {
        answer = await send();
      }
      const { 'transfer-encoding': _chunked, ...headers } = answer.headers;
      res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) });
      res.end(answer.body);
    })().catch(() => {
      // The store or the record failed: answered as a DynamoDB 500, which the SDK retries.
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(
          JSON.stringify({
            __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
            message: 'change log',
          }),
        );
      } else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => done());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    onRecord: (listener) => listeners.push(listener),
    close: async () => {
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
      await Promise.allSettled([...queues.values()]);
      agent.destroy();
      client.destroy();
    },
  };
};

const lastLogged = async (client: DynamoDBClient, tableName: string): Promise<number> => {
  const { Items } = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :entry)',
      ExpressionAttributeValues: { ':pk': { S: CHANGE_LOG_PARTITION }, ':entry': { S: CHANGE_ENTRY_PREFIX } },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const sk = Items?.[0]?.sk?.S;
  // The dispatcher deletes records it has handed on, so the checkpoint may be further on.
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: tableName,
      Key: { pk: { S: changeCheckpointKey().pk }, sk: { S: changeCheckpointKey().sk } },
      ConsistentRead: true,
    }),
  );
  return Math.max(sk ? Number(sk.slice(CHANGE_ENTRY_PREFIX.length)) : 0, Number(Item?.seq?.N ?? 0));
};
