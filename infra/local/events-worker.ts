import { parentPort, workerData } from 'node:worker_threads';
import type { DeliveryRef } from '../../lib/domain/deliveries';
import { describeError, log } from '../../lib/log';
import { startLocalEvents } from './events';

/**
 * The local dispatcher's thread (./events-thread.ts): the same startLocalEvents, told of each
 * record by a message, answering drain and close. Its storage client reaches the store through
 * the recorder, like the API's: the settings are the main thread's, passed when it started.
 */

type Message =
  | { type: 'record' }
  | { type: 'drain'; id: number }
  | { type: 'close' }
  | { type: 'clock'; offsetMs: number }
  | { type: 'enqueue'; refs: DeliveryRef[]; dueAt: number; attempt: number };

const port = parentPort;
if (!port) throw new Error('events-worker.ts runs as a worker thread only');
const listeners: Array<() => void> = [];
try {
  const events = await startLocalEvents({
    recorder: { onRecord: (listener) => listeners.push(listener) },
    storeEndpoint: workerData.storeEndpoint,
    tableName: workerData.tableName,
    settings: workerData.settings,
    bundles: workerData.bundles,
  });
  port.on('message', (message: Message) => {
    if (message.type === 'record') for (const listener of listeners) listener();
    else if (message.type === 'enqueue') events.enqueue(message.refs, message.dueAt, message.attempt);
    else if (message.type === 'clock') events.setClockOffset(message.offsetMs);
    else if (message.type === 'drain')
      void events.drain().then(() => port.postMessage({ type: 'drained', id: message.id }));
    else if (message.type === 'close')
      void events.close().then(() => {
        port.postMessage({ type: 'closed' });
        // Ends this thread only, whatever keep-alive sockets the storage client still holds.
        process.exit(0);
      });
  });
  port.postMessage({ type: 'ready' });
} catch (error) {
  log('error', 'the local events thread could not start', describeError(error));
  port.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
}
