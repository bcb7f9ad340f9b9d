import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A webhook receiver on the loopback, for tests: records every request it gets, answers as told
 * (a status, or never), and checks signatures with the `standardwebhooks` package, independently
 * of our own signing code.
 */

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What to answer a request: a status, or 'hang' (hold it open, never answer). */
export type Answer = number | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Decides each answer; 204 by default. */
  answer: (request: Received, index: number) => Answer;
  /** The requests whose signature verifies with `secret`, parsed. */
  verified(secret: string): any[];
  /** Waits until `check` holds of what was received. */
  waitFor(check: (received: Received[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Stops listening (connections refused) until `open` again on the same port. */
  shut(): Promise<void>;
  open(): Promise<void>;
  close(): Promise<void>;
}

export const startReceiver = async (port = 0): Promise<Receiver> => {
  const sockets = new Set<Socket>();
  const held: ServerResponse[] = [];
  let server: Server | undefined;
  const receiver: Receiver = {
    url: '',
    port,
    received: [],
    answer: () => 204,
    verified: (secret) => {
      const webhook = new Webhook(secret);
      const valid: any[] = [];
      for (const request of receiver.received) {
        try {
          valid.push(webhook.verify(request.body, request.headers as Record<string, string>));
        } catch {
          // not signed with this secret
        }
      }
      return valid;
    },
    waitFor: async (check, timeoutMs = 20_000) => {
      const until = Date.now() + timeoutMs;
      while (!check(receiver.received)) {
        if (Date.now() > until)
          throw new Error(
            `receiver: condition not met in ${timeoutMs} ms (${receiver.received.length} requests)`,
          );
        await new Promise((done) => setTimeout(done, 20));
      }
    },
    open: async () => {
      server = createServer((req, res) => {
        let body = '';
        req.on('data', (chunk) => {
          body += chunk;
        });
        req.on('end', () => {
          const request = { path: req.url ?? '/', headers: req.headers, body, at: Date.now() };
          const index = receiver.received.push(request) - 1;
          const answer = receiver.answer(request, index);
          if (answer === 'hang') {
            held.push(res);
            return;
          }
          res.writeHead(answer);
          res.end();
        });
      });
      server.on('connection', (socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((done, fail) => {
        server?.once('error', fail);
        server?.listen(receiver.port, '127.0.0.1', () => done());
      });
      receiver.port = (server.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${receiver.port}`;
    },
    shut: async () => {
      for (const socket of sockets) socket.destroy();
      held.length = 0;
      await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
      server = undefined;
    },
    close: () => receiver.shut(),
  };
  await receiver.open();
  return receiver;
};
