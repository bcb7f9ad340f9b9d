import { Worker } from 'node:worker_threads';
import type { LocalEvents, LocalEventsOptions } from './events';

/**
 * `npm start`'s events on a worker thread of their own (./events-worker.ts), so the dispatcher
 * and the delivery attempts do not wait behind the API's requests and the store on the main
 * thread (docs/performance.md, part 7). The same code as on the main thread; the options, records
 * and the clock's offset are signalled by message, and drain and close answer by message.
 *
 * A closed API's thread is kept, idle and unreferenced (it holds no process open), for the next
 * API this process starts: loading the thread's modules (tsx, the SDK, the domain) was about
 * 0.9 CPU-s for each local API a test run started. One thread serves one API at a time; a second
 * API at once gets a thread of its own.
 */

type Reply = { type: string; id?: number; message?: string };

let idle: Worker | undefined;

const newWorker = () =>
  new Worker(new URL('./events-worker.mjs', import.meta.url), {
    // Not the main thread's loader flags: the worker registers tsx itself.
    execArgv: [],
  });

export const startLocalEventsThread = async (options: LocalEventsOptions): Promise<LocalEvents> => {
  const worker = idle ?? newWorker();
  idle = undefined;
  worker.ref();
  const { recorder, ...rest } = options;
  const ready = await new Promise<Reply>((done, fail) => {
    const exited = (code: number) => fail(new Error(`the events thread exited (${code}) before it started`));
    worker.once('message', (reply: Reply) => {
      worker.off('error', fail);
      worker.off('exit', exited);
      done(reply);
    });
    worker.once('error', fail);
    worker.once('exit', exited);
    worker.postMessage({
      type: 'start',
      options: {
        storeEndpoint: rest.storeEndpoint,
        tableName: rest.tableName,
        settings: rest.settings,
        bundles: rest.bundles,
      },
    });
  });
  if (ready.type !== 'ready') {
    await worker.terminate();
    throw new Error(`the events thread could not start: ${ready.message ?? ready.type}`);
  }
  let open = true;
  recorder.onRecord(() => {
    if (open) worker.postMessage({ type: 'record' });
  });
  let next = 0;
  const waiting = new Map<number, () => void>();
  let whenClosed: (() => void) | undefined;
  const onMessage = (message: Reply) => {
    if (message.type === 'drained' && message.id !== undefined) {
      waiting.get(message.id)?.();
      waiting.delete(message.id);
    } else if (message.type === 'closed') whenClosed?.();
  };
  worker.on('message', onMessage);
  let closing: Promise<void> | undefined;
  return {
    enqueue: (refs, dueAt, attempt) => worker.postMessage({ type: 'enqueue', refs, dueAt, attempt }),
    // The thread has a clock of its own (its own globalThis): it is told the offset.
    setClockOffset: (offsetMs) => worker.postMessage({ type: 'clock', offsetMs }),
    drain: () =>
      new Promise<void>((done) => {
        const id = next++;
        waiting.set(id, done);
        worker.postMessage({ type: 'drain', id });
      }),
    close: () => {
      closing ??= (async () => {
        open = false;
        await new Promise<void>((done) => {
          whenClosed = done;
          worker.postMessage({ type: 'close' });
        });
        worker.off('message', onMessage);
        for (const done of waiting.values()) done();
        waiting.clear();
        // Kept for the next API of this process, or ended if one is kept already.
        if (idle) await worker.terminate();
        else {
          worker.unref();
          idle = worker;
        }
      })();
      return closing;
    },
  };
};
