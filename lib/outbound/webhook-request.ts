import { lookup as dnsLookup } from 'node:dns';
import { type ClientRequest, request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkWebhookUrl, ipLiteralOf, isForbiddenAddress, isLoopbackAddress } from './webhook-address';

/**
 * One delivery attempt of a webhook: a single POST, never retried or redirected here.
 *
 * node:http rather than fetch, for the `lookup` hook: the addresses we judge are the addresses the
 * socket connects to, so a name cannot pass the check and then resolve somewhere else (DNS
 * rebinding). A literal IP host never reaches `lookup`, so it is judged before sending.
 */

const DEFAULT_TIMEOUT_MS = 10_000;
// Receivers owe us a status, not a body: read a little (so a small answer ends cleanly), then hang up.
const MAX_RESPONSE_BYTES = 64 * 1024;
// Marks an error whose message is already the reason we report.
const REFUSED = 'ERR_WEBHOOK_REFUSED';
/** An attempt refused for where it would connect: the same words whatever the address. */
export const ADDRESS_NOT_ALLOWED = 'address not allowed';

export type WebhookAttempt = { ok: boolean; status: number | null; error: string | null; durationMs: number };

const refusal = (message: string): NodeJS.ErrnoException =>
  Object.assign(new Error(message), { code: REFUSED });

/** Resolves every address of the host and refuses them all if any one is forbidden. */
const guardedLookup =
  (allowLoopback: boolean, loopbackOnly: boolean): LookupFunction =>
  (hostname, options, callback) => {
    dnsLookup(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses) => {
      if (error) return callback(refusal(`dns: ${error.code ?? error.message}`), '');
      if (addresses.length === 0) return callback(refusal('dns: no address'), '');
      const bad = addresses.find(
        ({ address }) =>
          isForbiddenAddress(address, allowLoopback) || (loopbackOnly && !isLoopbackAddress(address)),
      );
      // Never which address: the answer is the publisher's to read, and must not map our network.
      if (bad) return callback(refusal(ADDRESS_NOT_ALLOWED), '');
      // Node asks for every address when it races IPv6 against IPv4 (autoSelectFamily): all checked.
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      return callback(null, first?.address ?? '', first?.family);
    });
  };

const reasonOf = (error: NodeJS.ErrnoException): string => {
  switch (error.code) {
    case REFUSED:
      return error.message;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case undefined:
      return error.message;
    default:
      return /CERT|TLS|SSL/.test(error.code) ? `tls: ${error.code}` : `network: ${error.code}`;
  }
};

const outcomeOf = (status: number): { ok: boolean; error: string | null } => {
  if (status >= 200 && status < 300) return { ok: true, error: null };
  // A redirect could lead anywhere, past every check made here: the receiver must give its real URL.
  if (status >= 300 && status < 400) return { ok: false, error: 'redirect not followed' };
  return { ok: false, error: `http status ${status}` };
};

/** POSTs `body` once. Never throws: every failure is an ok:false answer with a short `error`. */
export const postWebhook = (input: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs?: number;
  allowLoopback: boolean;
}): Promise<WebhookAttempt> => {
  const started = performance.now();
  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const answer = (ok: boolean, status: number | null, error: string | null): WebhookAttempt => ({
    ok,
    status,
    error,
    durationMs: Math.round(performance.now() - started),
  });

  // Registration checked the URL, but the rules (or the setting) may have changed since.
  const checked = checkWebhookUrl(input.url, { allowLoopback: input.allowLoopback });
  if (!checked.ok) return Promise.resolve(answer(false, null, `url refused: ${checked.reason}`));
  const { url } = checked;
  const literal = ipLiteralOf(url);
  if (literal && isForbiddenAddress(literal, input.allowLoopback)) {
    return Promise.resolve(answer(false, null, ADDRESS_NOT_ALLOWED));
  }

  const options: RequestOptions = {
    method: 'POST',
    hostname: literal ?? url.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body)) },
    // A socket of its own: nothing pooled is shared between tenants' receivers or attempts.
    agent: false,
    // http is only ever allowed to loopback (checkWebhookUrl), so a name must resolve to loopback.
    lookup: guardedLookup(input.allowLoopback, url.protocol === 'http:'),
  };

  return new Promise((resolve) => {
    let settled = false;
    let status: number | null = null;
    let req: ClientRequest | undefined;
    const finish = (result: WebhookAttempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req?.destroy();
      resolve(result);
    };
    // One deadline for the whole attempt: connect, headers and body together.
    const timer = setTimeout(() => finish(answer(false, status, `timeout after ${timeoutMs} ms`)), timeoutMs);

    try {
      req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(options);
    } catch (error) {
      // Only a malformed header gets here (http.request validates them at once).
      finish(answer(false, null, `request refused: ${reasonOf(error as NodeJS.ErrnoException)}`));
      return;
    }
    // Kept for the request's life: destroying it later may emit errors nobody else would catch.
    req.on('error', (error: NodeJS.ErrnoException) => finish(answer(false, status, reasonOf(error))));
    req.on('response', (res) => {
      status = res.statusCode ?? null;
      const settle = () => {
        const outcome = status === null ? { ok: false, error: 'no status' } : outcomeOf(status);
        finish(answer(outcome.ok, status, outcome.error));
      };
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= MAX_RESPONSE_BYTES) settle();
      });
      res.on('end', settle);
      // A body cut short after the status arrived: the receiver has answered, the status stands.
      res.on('error', settle);
      res.on('close', settle);
    });
    req.end(input.body);
  });
};
