import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  InternalServerError,
  ProvisionedThroughputExceededException,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import { expect } from 'vitest';
import type { ApiResponse } from './api';

/**
 * Fault injection for the storage layer, two ways:
 *
 * - `injectFaults(dynamo)`: a middleware on the process's DynamoDB client that makes chosen calls
 *   (operation + partition-key prefix, the N-th match) fail with a chosen error. By default the
 *   error is raised before the request is sent and without going through the SDK's retries, as the
 *   SDK itself would surface it once every attempt had failed: fast, exact, nothing written.
 *   `attempts: 'each'` raises it inside the retry loop instead, so the SDK's own retry strategy runs
 *   (and `landedAttempts` lets requests reach the store first: the write lands, the answer is lost).
 *   `failThenRetry` runs the cycle most fault cases share: fail a call, see the 503, retry.
 * - `startFaultProxy(upstream)`: an HTTP proxy in front of a real store that answers chosen calls with
 *   DynamoDB's own error responses, resets the connection, or never answers, so the SDK's real
 *   deserialisation, retries and timeouts are exercised end to end.
 */

export type Operation =
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'Query'
  | 'Scan'
  | 'DeleteItem'
  | 'BatchGetItem'
  | 'BatchWriteItem';

export type FaultKind =
  | 'ProvisionedThroughputExceededException'
  | 'ThrottlingException'
  | 'InternalServerError'
  | 'network'
  | 'timeout';

export const faultKinds: readonly FaultKind[] = [
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'InternalServerError',
  'network',
  'timeout',
];

/** The error the SDK hands back for each kind, built as the SDK builds it. */
export const faultError = (kind: FaultKind, attempts = 3): Error => {
  const $metadata = { attempts, totalRetryDelay: 0 };
  switch (kind) {
    case 'ProvisionedThroughputExceededException':
      return new ProvisionedThroughputExceededException({
        message: 'The level of configured provisioned throughput for the table was exceeded.',
        $metadata: { ...$metadata, httpStatusCode: 400 },
      });
    case 'ThrottlingException':
      return new ThrottlingException({
        message: 'Throughput exceeds the current capacity for one or more global secondary indexes.',
        $metadata: { ...$metadata, httpStatusCode: 400 },
      });
    case 'InternalServerError':
      return new InternalServerError({
        message: 'Internal server error',
        $metadata: { ...$metadata, httpStatusCode: 500 },
      });
    case 'network':
      // What node:http rejects with when the peer drops the connection.
      return Object.assign(new Error('read ECONNRESET'), {
        code: 'ECONNRESET',
        errno: -104,
        syscall: 'read',
      });
    case 'timeout':
      // What @smithy/node-http-handler rejects with when a timeout fires.
      return Object.assign(
        new Error('@smithy/node-http-handler - the request socket timed out after 2000 ms of inactivity.'),
        { name: 'TimeoutError', code: 'ETIMEDOUT' },
      );
  }
};

/**
 * The partition key a DynamoDB request addresses, from plain or marshalled input: a batch's, that
 * of its first key or item.
 */
export const partitionKeyOf = (input: Record<string, any> | undefined): string | undefined => {
  const batch: any = input?.RequestItems ? Object.values(input.RequestItems)[0] : undefined;
  if (batch) {
    const first = Array.isArray(batch)
      ? (batch[0]?.PutRequest?.Item ?? batch[0]?.DeleteRequest?.Key)
      : batch.Keys?.[0];
    return partitionKeyOf({ Key: first });
  }
  const raw = input?.Key?.pk ?? input?.Item?.pk ?? input?.ExpressionAttributeValues?.[':pk'];
  if (typeof raw === 'string') return raw;
  if (raw && typeof raw === 'object' && typeof raw.S === 'string') return raw.S;
  return undefined;
};

export interface FaultRule {
  operation: Operation;
  /** Partition keys starting with this; any key when absent. */
  keyPrefix?: string;
  /** Fail the `nth` matching call (1-based, default 1) ... */
  nth?: number;
  /** ... and this many matching calls from there (default 1; Infinity for all). */
  times?: number;
  error: FaultKind | (() => Error);
  /**
   * 'after-retries' (default): the call fails once, as after the SDK's last attempt, before sending.
   * 'each': attempts fail inside the SDK's retry loop, so its retry strategy runs for real.
   */
  attempts?: 'after-retries' | 'each';
  /** With `attempts: 'each'`: how many attempts fail (default all); later ones go through. */
  failAttempts?: number;
  /**
   * With `attempts: 'each'`: how many of the failing attempts reach the store before failing
   * (default 0): the write lands, its answer is lost, as when a timeout fires after the store acted.
   */
  landedAttempts?: number;
}

interface ArmedRule extends Required<Pick<FaultRule, 'operation' | 'nth' | 'times'>> {
  rule: FaultRule;
  seen: number;
}

export interface Injection {
  operation: string;
  key: string | undefined;
  kind: string;
  attempt?: number;
}

interface FaultContext {
  faultRule?: FaultRule;
  faultAttempts?: number;
}

export interface FaultInjector {
  /** Arms a rule; rules are checked in the order armed, and the first match decides. */
  fail(rule: FaultRule): void;
  /** Disarms every rule (keeps the log). */
  clear(): void;
  /** Disarms every rule and empties the logs. */
  reset(): void;
  /** Every fault raised so far, one entry per failed call or attempt. */
  readonly injected: Injection[];
  /** Calls seen so far (operation + partition key, and the sort key of a one-item call), faulted or not. */
  readonly calls: Array<{ operation: string; key: string | undefined; sk?: string | undefined }>;
  remove(): void;
}

type MiddlewareClient = {
  middlewareStack: {
    add(middleware: any, options: Record<string, unknown>): void;
    remove(name: string): boolean;
  };
};

const errorOf = (rule: FaultRule, attempts?: number) =>
  typeof rule.error === 'function' ? rule.error() : faultError(rule.error, attempts);
const kindOf = (rule: FaultRule) => (typeof rule.error === 'function' ? 'custom' : rule.error);

let injectorCount = 0;

/**
 * Adds the fault middleware to a client (the lib's DocumentClient shares its stack with the inner
 * DynamoDBClient, so every command of the process goes through it).
 */
export const injectFaults = (client: MiddlewareClient): FaultInjector => {
  const armed: ArmedRule[] = [];
  const injected: Injection[] = [];
  const calls: Array<{ operation: string; key: string | undefined; sk?: string | undefined }> = [];
  const id = ++injectorCount;
  const callName = `faultInjectorCall${id}`;
  const attemptName = `faultInjectorAttempt${id}`;

  // Once per call, before the SDK's retries: count the call and decide its fate.
  client.middlewareStack.add(
    (next: (args: any) => Promise<any>, context: Record<string, any> & FaultContext) => async (args: any) => {
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      // The authorizer's note of a key's use (lib/domain/api-keys.ts noteKeyUse) is bookkeeping
      // that never fails a request, made at most once per key in a while: neither counted nor
      // faulted, so each case of a suite meets the calls its clean run counted.
      if (operation === 'UpdateItem' && String(args.input?.UpdateExpression).startsWith('SET last_used_at'))
        return next(args);
      const key = partitionKeyOf(args.input);
      const sk = args.input?.Item?.sk ?? args.input?.Key?.sk;
      calls.push({ operation, key, sk: typeof sk === 'string' ? sk : undefined });
      const match = armed.find(
        (a) =>
          a.operation === operation && (a.rule.keyPrefix === undefined || key?.startsWith(a.rule.keyPrefix)),
      );
      if (match) {
        match.seen += 1;
        if (match.seen >= match.nth && match.seen < match.nth + match.times) {
          if ((match.rule.attempts ?? 'after-retries') === 'after-retries') {
            injected.push({ operation, key, kind: kindOf(match.rule) });
            throw errorOf(match.rule);
          }
          context.faultRule = match.rule;
          context.faultAttempts = 0;
        }
      }
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: callName },
  );

  // Once per attempt, inside the retry loop, just before the request is sent.
  client.middlewareStack.add(
    (next: (args: any) => Promise<any>, context: Record<string, any> & FaultContext) => async (args: any) => {
      const rule = context.faultRule;
      if (!rule) return next(args);
      context.faultAttempts = (context.faultAttempts ?? 0) + 1;
      const attempt = context.faultAttempts;
      if (attempt > (rule.failAttempts ?? Number.POSITIVE_INFINITY)) return next(args);
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      const key = partitionKeyOf(args.input);
      if (attempt <= (rule.landedAttempts ?? 0)) await next(args);
      injected.push({ operation, key, kind: kindOf(rule), attempt });
      throw errorOf(rule, attempt);
    },
    { step: 'finalizeRequest', priority: 'low', name: attemptName },
  );

  return {
    fail(rule) {
      armed.push({ rule, operation: rule.operation, nth: rule.nth ?? 1, times: rule.times ?? 1, seen: 0 });
    },
    clear() {
      armed.length = 0;
    },
    reset() {
      armed.length = 0;
      injected.length = 0;
      calls.length = 0;
    },
    injected,
    calls,
    remove() {
      armed.length = 0;
      client.middlewareStack.remove(callName);
      client.middlewareStack.remove(attemptName);
    },
  };
};

/** The 503 a client must see when storage is throttled or down: envelope, Retry-After, no internals. */
export const expectUnavailable = (res: ApiResponse) => {
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
  expect(res.body).toEqual({
    error: { code: 'service_unavailable', message: expect.any(String) },
    request_id: res.headers.get('x-request-id'),
  });
  expect(res.text).not.toMatch(/throttl|provisioned|ECONNRESET|timed? ?out|InternalServerError|dynamo/i);
};

/** The rule's fault really fired, `times` times, on its operation and keys: a case whose call never happens must fail. */
export const expectFired = (faults: FaultInjector, rule: FaultRule, times = 1) => {
  expect(faults.injected).toEqual(
    Array.from({ length: times }, () =>
      expect.objectContaining({ operation: rule.operation, kind: kindOf(rule) }),
    ),
  );
  expect(faults.injected.every((i) => i.key?.startsWith(rule.keyPrefix ?? ''))).toBe(true);
};

/**
 * Fail, then retry: arms `rule`, sends once and expects the 503 (`expectUnavailable`), checks that
 * the fault fired once, disarms it, runs `meanwhile` (what must hold between the failure and the
 * retry), then sends again and gives the retry's answer for the caller to check.
 */
export const failThenRetry = async (
  faults: FaultInjector,
  rule: FaultRule,
  send: () => Promise<ApiResponse>,
  meanwhile?: () => unknown,
): Promise<ApiResponse> => {
  faults.fail(rule);
  expectUnavailable(await send());
  expectFired(faults, rule);
  faults.clear();
  await meanwhile?.();
  return send();
};

/* ------------------------------------------------------------------------------------------------ */

export type WireFault =
  | 'ProvisionedThroughputExceededException'
  | 'ThrottlingException'
  | 'InternalServerError'
  | 'reset'
  | 'hang';

export interface WireRule {
  operation: Operation;
  keyPrefix?: string;
  /** Exactly this partition key (lets concurrent tests arm rules that cannot touch each other). */
  key?: string;
  fault: WireFault;
  /** How many matching requests (attempts, as the store sees them) to fail; default all. */
  times?: number;
}

type Faulted = Array<{ operation: string; key: string | undefined; fault: WireFault }>;

export interface WireFaultHandle {
  /** The requests this rule failed. */
  readonly faulted: Faulted;
  /** Disarms this rule and drops the connections it left hanging. */
  clear(): void;
}

export interface FaultProxy {
  url: string;
  fail(rule: WireRule): WireFaultHandle;
  /** Disarms every rule and drops the connections of requests it left hanging. */
  clear(): void;
  /** Requests the proxy saw that matched an armed rule, and what it did to each. */
  readonly faulted: Faulted;
  close(): Promise<void>;
}

const readAll = (req: IncomingMessage) =>
  new Promise<Buffer>((done, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => done(Buffer.concat(chunks)));
    req.on('error', fail);
  });

/** DynamoDB's JSON error body and status for each error kind, as the service sends them. */
const serviceError = (fault: WireFault): { status: number; body: string } => {
  const type = (name: string) => `com.amazonaws.dynamodb.v20120810#${name}`;
  switch (fault) {
    case 'InternalServerError':
      return { status: 500, body: JSON.stringify({ __type: type(fault), message: 'Internal server error' }) };
    default:
      return { status: 400, body: JSON.stringify({ __type: type(fault), message: `${fault} (injected)` }) };
  }
};

/** Starts a loopback HTTP proxy to a DynamoDB-compatible endpoint, with faults on demand. */
export const startFaultProxy = async (upstream: string): Promise<FaultProxy> => {
  const target = new URL(upstream);
  type Armed = WireRule & { used: number; faulted: Faulted; hanging: Set<Socket> };
  const armed: Armed[] = [];
  const faulted: Faulted = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<Socket>();

  const server: Server = createServer(async (req, res) => {
    const body = await readAll(req);
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    let key: string | undefined;
    try {
      key = partitionKeyOf(JSON.parse(body.toString('utf8')));
    } catch {
      key = undefined;
    }
    const rule = armed.find(
      (r) =>
        r.operation === operation &&
        (r.keyPrefix === undefined || key?.startsWith(r.keyPrefix)) &&
        (r.key === undefined || key === r.key) &&
        r.used < (r.times ?? Number.POSITIVE_INFINITY),
    );
    if (rule) {
      rule.used += 1;
      faulted.push({ operation, key, fault: rule.fault });
      rule.faulted.push({ operation, key, fault: rule.fault });
      if (rule.fault === 'hang') {
        // Never answer: the client's timeout must end it.
        hanging.add(req.socket);
        rule.hanging.add(req.socket);
        return;
      }
      if (rule.fault === 'reset') {
        req.socket.destroy();
        return;
      }
      const { status, body: errorBody } = serviceError(rule.fault);
      res.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0' }).end(errorBody);
      return;
    }
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    forward.on('error', () => req.socket.destroy());
    forward.end(body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    fail: (rule) => {
      const entry: Armed = { ...rule, used: 0, faulted: [], hanging: new Set() };
      armed.push(entry);
      return {
        faulted: entry.faulted,
        clear: () => {
          const index = armed.indexOf(entry);
          if (index >= 0) armed.splice(index, 1);
          for (const socket of entry.hanging) socket.destroy();
        },
      };
    },
    clear: () => {
      armed.length = 0;
      for (const socket of hanging) socket.destroy();
      hanging.clear();
    },
    faulted,
    close: async () => {
      armed.length = 0;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
};
