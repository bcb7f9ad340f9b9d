import { useEffect, useState } from 'preact/hooks';
import type { AnyAnswer } from './api';
import { useRequest } from './use-request';

/** What the success of a read carries. */
export type Body<A extends AnyAnswer> = Extract<A, { ok: true }>['body'];

/** The answer a read function gives: `useRead<AnswerOf<typeof readStats>>()`. */
export type AnswerOf<F extends (...args: never[]) => Promise<AnyAnswer>> = Awaited<ReturnType<F>>;

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

/**
 * useRead, sent at mount and again each time `version` changes (Read again, a change made
 * elsewhere): each read a new question, only the latest one's answer kept.
 */
export const useReadEach = <A extends AnyAnswer>(
  send: () => Promise<A>,
  version: unknown,
  { keep = false }: { keep?: boolean } = {},
) => {
  const request = useRead<A>({ latest: true, keep });
  useEffect(() => {
    void request.read(send);
  }, [version]);
  return request;
};
