import { parentPort } from 'node:worker_threads';
import { setClockOffset } from '../../lib/clock';
import type { DeliveryRef } from '../../lib/domain/deliveries';
import { describeError, log } from '../../lib/log';
import { type LocalEvents, type LocalEventsOptions, startLocalEvents } from './events';

/**
 * The local dispatcher's thread (./events-thread.ts): the same startLocalEvents, started by a
 * message with the main thread's options (its storage client reaches the store through the
 * recorder, like the API's), told of each record by a message, answering drain and close. Once
 * closed it waits for the next start: a process that starts local APIs one after another (a test
 * run) loads this thread's modules once, not once per API.
 */

type Message =
  | { type: 'start'; options: Omit<LocalEventsOptions, 'recorder'> }
  | { type: 'record' }
  | { type: 'drain'; id: number }
  | { type: 'close' }
  | { type: 'clock'; offsetMs: number }
  | { type: 'enqueue'; refs: DeliveryRef[]; dueAt: number; attempt: number };

const port = parentPort;
if (!port) throw new Error('events-worker.ts runs as a worker thread only');
const listeners: Array<() => void> = [];
let events: LocalEvents | undefined;

port.on('message', (message: Message) => {
  if (message.type === 'start') {
    // A start afresh: no listener, and the wall clock, of the API before.
    listeners.length = 0;
    setClockOffset(0);
    startLocalEvents({ ...message.options, recorder: { onRecord: (listener) => listeners.push(listener) } })
      .then((started) => {
        events = started;
        port.postMessage({ type: 'ready' });
      })
      .catch((error: unknown) => {
        log('error', 'the local events thread could not start', describeError(error));
        port.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
      });
  } else if (message.type === 'record') for (const listener of listeners) listener();
  else if (message.type === 'enqueue') events?.enqueue(message.refs, message.dueAt, message.attempt);
  else if (message.type === 'clock') events?.setClockOffset(message.offsetMs);
  else if (message.type === 'drain') {
    const id = message.id;
    void (events?.drain() ?? Promise.resolve()).then(() => port.postMessage({ type: 'drained', id }));
  } else if (message.type === 'close') {
    const closing = events;
    events = undefined;
    listeners.length = 0;
    void (closing?.close() ?? Promise.resolve()).then(() => {
      setClockOffset(0);
      port.postMessage({ type: 'closed' });
    });
  }
});
