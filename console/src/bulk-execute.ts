import { useEffect, useRef, useState } from 'preact/hooks';
import { BULK_CONCURRENCY, failed, type Outcome, type Run, type Task } from './bulk-run';

/**
 * A bulk run under way: each device's task, BULK_CONCURRENCY at a time, each outcome shown as it
 * comes, until done or stopped. Stop ends it, and so does a new question (another list or game:
 * its report is then marked), or the view going; Retry failed sends the failures again.
 */
export const useBulkRun = (question: string) => {
  const [run, setRun] = useState<Run | null>(null);
  /** The run under way: Stop, or a change of list or game, ends it. */
  const active = useRef<{ stopped: Run['stopped'] } | null>(null);

  // A new list or game is a new question: a run for the old one stops, its report marked.
  useEffect(() => {
    if (active.current && run?.running && run.question !== question) {
      active.current.stopped = 'changed';
      setRun((r) => (r ? { ...r, stopped: 'changed' } : r));
    }
  }, [question]);
  useEffect(
    () => () => {
      if (active.current) active.current.stopped = 'stop';
    },
    [],
  );

  /** Runs `base`'s task on `devices`, BULK_CONCURRENCY at a time, until done or stopped. */
  const execute = async (base: Run, devices: string[]) => {
    const token: { stopped: Run['stopped'] } = { stopped: null };
    active.current = token;
    const pending = Object.fromEntries(devices.map((d) => [d, { kind: 'pending' } as Outcome]));
    setRun({ ...base, outcomes: { ...base.outcomes, ...pending }, running: true, stopped: null });
    let next = 0;
    const worker = async () => {
      while (token.stopped === null && next < devices.length) {
        const device = devices[next++] as string;
        const outcome = await base
          .task(device)
          .catch(
            (error: unknown): Outcome => ({ kind: 'failed', code: 'console_error', text: String(error) }),
          );
        setRun((r) => (r ? { ...r, outcomes: { ...r.outcomes, [device]: outcome } } : r));
      }
    };
    await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, devices.length) }, worker));
    if (active.current === token) active.current = null;
    setRun((r) =>
      r
        ? {
            ...r,
            running: false,
            stopped: token.stopped,
            outcomes: Object.fromEntries(
              Object.entries(r.outcomes).map(([d, o]) => [
                d,
                o.kind === 'pending' ? { kind: 'not_sent' } : o,
              ]),
            ) as Record<string, Outcome>,
          }
        : r,
    );
  };

  return {
    run,
    /** A run of `task` on `devices`, unless one is under way. */
    start: (label: string, devices: string[], task: Task) => {
      if (active.current) return;
      void execute({ label, question, devices, outcomes: {}, running: true, stopped: null, task }, devices);
    },
    /** The failed and unsent devices of the last run, sent again, while the question is the same. */
    retry: () => {
      if (!run || run.running || run.question !== question) return;
      void execute(
        run,
        run.devices.filter((d) => failed(run.outcomes[d] ?? { kind: 'pending' })),
      );
    },
    stop: () => {
      if (active.current) active.current.stopped = 'stop';
    },
  };
};
