import { useState } from 'preact/hooks';
import type { AnyAnswer } from './api';
import { useRequest } from './use-request';

/** What the success of a read carries. */
export type Body<A extends AnyAnswer> = Extract<A, { ok: true }>['body'];

/**
 * A read and what it read: its request (use-request.ts: busy, the current-answer guard, a refusal
 * explained) and the body of its latest success. A refusal replaces what an earlier read showed,
 * unless `keep`: then that stays beside the refusal.
 */
export const useRead = <A extends AnyAnswer>({ latest = false, keep = false } = {}) => {
  const request = useRequest({ latest });
  const [value, setValue] = useState<Body<A> | null>(null);
  /** Sends `send()`; on a success of the latest run, keeps its body and then runs `then(answer)`. */
  const read = (send: () => Promise<A>, then?: (answer: Extract<A, { ok: true }>) => void) =>
    request.run(
      send,
      (answer) => {
        setValue(answer.body);
        then?.(answer);
      },
      // Asked of the latest run's answer only, so only its refusal drops what was read.
      (answer) => {
        if (!answer.ok && !keep) setValue(null);
        return answer.ok;
      },
    );
  return { ...request, value, setValue, read };
};
