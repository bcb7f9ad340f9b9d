import { useRef, useState } from 'preact/hooks';
import type { AnyAnswer } from './api';
import { errorMessage, type Message, useBusy } from './ui';

/**
 * One request's state, which every view kept by hand beside each call: `busy` (the form's
 * buttons disabled; a second run while busy is ignored unless `latest`), the current-answer guard
 * (only the answer of the latest run is acted on, however late an older one comes), and the
 * message: a refusal explained (api.ts `explain`, with its field issues and its Retry-After in
 * words), or a success the view sets. No view counts a Retry-After down today, so neither does this.
 */
export const useRequest = ({ latest = false }: { latest?: boolean } = {}) => {
  const { busy, run: runBusy } = useBusy();
  const [message, setMessage] = useState<Message>(null);
  const asked = useRef(0);
  /**
   * Sends `send()`; on a success of the latest run, `done(answer)`; on a refusal, its message.
   * `accept` says what counts as the success asked for (any 2xx unless told).
   */
  const run = <A extends AnyAnswer>(
    send: () => Promise<A>,
    done: (answer: Extract<A, { ok: true }>) => void,
    accept: (answer: A) => boolean = (answer) => answer.ok,
  ) => {
    setMessage(null);
    return runBusy(
      async () => {
        const question = ++asked.current;
        const answer = await send();
        if (question !== asked.current) return;
        if (!accept(answer) || !answer.ok) {
          setMessage(errorMessage(answer));
          return;
        }
        done(answer as Extract<A, { ok: true }>);
      },
      { supersedes: latest },
    );
  };
  /** Forgets the message, and drops the answer of any run under way. */
  const forget = () => {
    asked.current += 1;
    setMessage(null);
  };
  return { busy, run, message, setMessage, forget };
};

export type Request = ReturnType<typeof useRequest>;
