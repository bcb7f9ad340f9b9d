import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { LocalEvents, LocalEventsOptions } from './events';

/**
 * `npm start`'s events on a worker thread of their own (./events-worker.ts), so the dispatcher
 * and the delivery attempts do not wait behind the API's requests and the store on the main
 * thread (docs/performance.md, part 7). The same code as on the main thread; records and the
 * clock's offset are signalled by message, and drain and close answer by message.
 */
export const startLocalEventsThread = async (options: LocalEventsOptions): Promise<LocalEvents> => {
  const worker = new Worker(new URL('./events-worker.mjs', import.meta.url), {
    workerData: {
      storeEndpoint: options.storeEndpoint,
      tableName: options.tableName,
      settings: options.settings,
      bundles: options.bundles,
    },
    // Not the main thread's loader flags: the worker registers tsx itself.
    execArgv: [],
  });
  const ready = await new Promise<{ type: string; message?: string }>((done, fail) => {
    worker.once('message', done);
    worker.once('error', fail);
    worker.once('exit', (code) => fail(new Error(`the events thread exited (${code}) before it started`)));
  });
  if (ready.type !== 'ready')
    throw new Error(`the events thread could not start: ${ready.message ?? ready.type}`);
  options.recorder.onRecord(() => worker.postMessage({ type: 'record' }));
  let next = 0;
  const waiting = new Map<number, () => void>();
  worker.on('message', (message: { type: string; id?: number }) => {
    if (message.type === 'drained' && message.id !== undefined) {
      waiting.get(message.id)?.();
      waiting.delete(message.id);
    }
  });
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
        const exited = once(worker, 'exit');
        worker.postMessage({ type: 'close' });
        await exited;
      })();
      return closing;
    },
  };
};
