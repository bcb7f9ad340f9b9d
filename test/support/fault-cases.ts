import { expect } from 'vitest';
import { AUDIT_BY_ACTOR_PREFIX, AUDIT_BY_DEVICE_PREFIX, partitions } from '../../lib/storage/keys';
import type { ApiResponse } from './api';
import type { FaultInjector, FaultRule, Operation } from './faults';

/**
 * A write under a fault at each of its storage calls, then its retry: the shape of the audit and
 * appeal fault suites. A clean run lists the request's storage calls; then, for every one of them,
 * a new case fails that call (before it reaches the store, and, for writes, after it landed with
 * its answer lost), checks what the 503 left, retries the same request and checks the outcome.
 */
export interface WriteCase<C> {
  setup(): Promise<C>;
  send(ctx: C): Promise<ApiResponse>;
  /** What must hold after the failed request. */
  afterFailure(ctx: C): Promise<void>;
  /** What must hold after the retry. */
  afterRetry(ctx: C, res: ApiResponse): Promise<void>;
  /**
   * Fault the audit event's index copies too. They are put by one code path for every change
   * (lib/domain/audit.ts recordEvent), so a few cases of audit-faults.test.ts fault them (a change
   * that is undone, one that a retry completes) rather than every case of every suite.
   */
  faultIndexCopies?: boolean;
}

export const writeCase = <C>(c: WriteCase<C>) => c;

const prefixOf = (key: string | undefined) =>
  Object.values(partitions)
    .filter((prefix) => key?.startsWith(prefix))
    .sort((a, b) => b.length - a.length)[0] ?? '';
const WRITES: readonly string[] = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'];
/** The dispatcher's own calls, made in the background from the change log (dispatch-faults.test.ts). */
const DISPATCHED: readonly string[] = [
  partitions.feed,
  partitions.delivery,
  partitions.webhook,
  partitions.webhookIndex,
];

/** What kind of item a call addresses: its sort key up to the first `#` (BAN, IDEM, EVT...). */
export const kindOf = (sk: string | undefined) => sk?.split('#')[0] ?? '';

/**
 * The calls of a clean run worth a fault of their own: where one step repeats over several items
 * of one kind (an erasure deleting each ban, an event appended to each of its feeds), its first
 * and its last call. A fault at the first meets nothing of the step done, one at the last all but
 * one; a fault in between meets the same code with a state between those two.
 */
export const firstAndLastOfEachStep = <T extends { step: string }>(calls: readonly T[]): T[] =>
  calls.filter(
    ({ step }, i) =>
      calls.findIndex((c) => c.step === step) === i || calls.findLastIndex((c) => c.step === step) === i,
  );

/**
 * One fault rule per storage call of a clean run (the n-th call of its operation on its kind of
 * partition), a repeated step's first and last only (firstAndLastOfEachStep).
 */
const rulesFor = async (faults: FaultInjector, op: WriteCase<any>) => {
  const ctx = await op.setup();
  faults.reset();
  const res = await op.send(ctx);
  expect(res.status).toBeLessThan(300);
  const seen = new Map<string, number>();
  const steps: Array<{ id: string; step: string; operation: Operation; keyPrefix: string; nth: number }> = [];
  for (const call of faults.calls) {
    const keyPrefix = prefixOf(call.key);
    if (DISPATCHED.includes(keyPrefix)) continue;
    const id = `${call.operation} ${keyPrefix}`;
    const nth = (seen.get(id) ?? 0) + 1;
    seen.set(id, nth);
    const copy =
      keyPrefix === partitions.audit &&
      (call.sk?.startsWith(AUDIT_BY_ACTOR_PREFIX) || call.sk?.startsWith(AUDIT_BY_DEVICE_PREFIX));
    if (copy && !op.faultIndexCopies) continue;
    steps.push({
      id,
      step: `${id} ${kindOf(call.sk)}`,
      operation: call.operation as Operation,
      keyPrefix,
      nth,
    });
  }
  const kept = firstAndLastOfEachStep(steps);
  const rules: Array<{ name: string; rule: FaultRule }> = [];
  for (const { id, operation, keyPrefix, nth } of kept) {
    rules.push({
      name: `${id}#${nth} before it reaches the store`,
      rule: { operation, keyPrefix, nth, error: 'InternalServerError' },
    });
    if (WRITES.includes(operation))
      rules.push({
        name: `${id}#${nth} after it landed, its answer lost`,
        rule: { operation, keyPrefix, nth, error: 'timeout', attempts: 'each', landedAttempts: 1 },
      });
  }
  faults.reset();
  return rules;
};

/** Runs every case of `op`; answers how many were run and how many faults were injected. */
export const faultAtEveryCall = async (faults: FaultInjector, op: WriteCase<any>) => {
  const rules = await rulesFor(faults, op);
  expect(rules.length).toBeGreaterThan(2);
  let cases = 0;
  let injected = 0;
  for (const { name, rule } of rules) {
    const ctx = await op.setup();
    faults.reset();
    faults.fail(rule);
    const failed = await op.send(ctx);
    try {
      if (faults.injected.length === 0) {
        // A conditional write whose condition failed in the clean run (the event was recorded
        // already, the policy existed): nothing lands, so there is no answer to lose.
        expect(rule.landedAttempts).toBe(1);
        await op.afterRetry(ctx, failed);
        continue;
      }
      expect(failed.status).toBe(503);
      await op.afterFailure(ctx);
      injected += faults.injected.length;
      faults.reset();
      await op.afterRetry(ctx, await op.send(ctx));
      cases += 1;
    } catch (error) {
      throw new Error(`${name}: ${(error as Error).message}`);
    }
  }
  return { cases, injected };
};
