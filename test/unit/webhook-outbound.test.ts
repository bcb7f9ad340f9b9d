import { createHmac } from 'node:crypto';
import type * as Dns from 'node:dns';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkWebhookUrl, isForbiddenAddress } from '../../lib/outbound/webhook-address';
import { postWebhook } from '../../lib/outbound/webhook-request';
import { newWebhookSecret, signatureOf, webhookHeaders } from '../../lib/outbound/webhook-signature';

/**
 * Names the tests resolve themselves, so the DNS path of a delivery (the `lookup` it connects
 * through) is exercised without a network. Any other name goes to the real resolver.
 */
const fakeDns = vi.hoisted(() => new Map<string, { address: string; family: number }[] | { code: string }>());
vi.mock('node:dns', async (importOriginal) => {
  const actual = await importOriginal<typeof Dns>();
  const lookup = ((hostname: string, options: Dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    const fake = fakeDns.get(hostname);
    if (fake === undefined) return actual.lookup(hostname, options, callback as never);
    if ('code' in fake) return callback(Object.assign(new Error(`lookup ${hostname}`), fake));
    return options.all ? callback(null, fake) : callback(null, fake[0]?.address, fake[0]?.family);
  }) as typeof Dns.lookup;
  return { ...actual, default: { ...actual, lookup }, lookup };
});

const now = () => Math.floor(Date.now() / 1000);

describe('webhook signatures', () => {
  it('verify with the standardwebhooks library, and fail once the body changes by one byte', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'ban.created', data: { device_id: 'dev-1', ban_id: 42 } });
    const headers = webhookHeaders(secret, 'msg_01', now(), body);

    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    const tampered = body.replace('dev-1', 'dev-2');
    expect(() => new Webhook(secret).verify(tampered, headers)).toThrow('No matching signature found');
  });

  it('match the Standard Webhooks example and an HMAC computed here with node:crypto', () => {
    // The example signature published with the Standard Webhooks libraries.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    const body = '{"test": 2432232314}';
    const expected = `v1,${createHmac('sha256', Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'))
      .update(`${id}.1614265330.${body}`)
      .digest('base64')}`;

    expect(expected).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    expect(signatureOf(secret, id, 1614265330, body)).toBe(expected);
  });

  it('come with exactly the delivery headers', () => {
    const secret = newWebhookSecret();
    expect(webhookHeaders(secret, 'msg_02', 1_700_000_000, '{}')).toEqual({
      'content-type': 'application/json',
      'webhook-id': 'msg_02',
      'webhook-timestamp': '1700000000',
      'webhook-signature': signatureOf(secret, 'msg_02', 1_700_000_000, '{}'),
      'user-agent': 'device-ban-service-webhooks/1',
    });
  });

  it('refuse a secret that is not whsec_ and base64, and a timestamp that is not whole seconds', () => {
    expect(() => signatureOf('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'm', 1, '{}')).toThrow('whsec_');
    expect(() => signatureOf('whsec_not base64!', 'm', 1, '{}')).toThrow('whsec_');
    expect(() => signatureOf('whsec_', 'm', 1, '{}')).toThrow('whsec_');
    expect(() => signatureOf(newWebhookSecret(), 'm', 1.5, '{}')).toThrow('whole seconds');
  });
});

describe('new webhook secrets', () => {
  it('are whsec_ and the base64 of 32 bytes, different every time', () => {
    const secrets = Array.from({ length: 100 }, newWebhookSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });
});

describe('forbidden addresses', () => {
  it.each([
    // IPv4: public, then each forbidden block
    ['8.8.8.8', false, false],
    ['93.184.216.34', false, false],
    ['0.0.0.0', true, true],
    ['10.0.0.5', true, true],
    ['100.64.0.1', true, true],
    ['100.128.0.1', false, false],
    ['127.0.0.1', true, false],
    ['127.255.255.254', true, false],
    ['169.254.169.254', true, true],
    ['172.16.0.1', true, true],
    ['172.31.255.255', true, true],
    ['172.32.0.1', false, false],
    ['192.0.0.8', true, true],
    ['192.0.2.1', true, true],
    ['192.88.99.1', true, true],
    ['192.168.1.1', true, true],
    ['198.18.0.1', true, true],
    ['198.19.255.255', true, true],
    ['198.51.100.7', true, true],
    ['203.0.113.9', true, true],
    ['224.0.0.1', true, true],
    ['240.0.0.1', true, true],
    ['255.255.255.255', true, true],
    // IPv6
    ['2606:4700:4700::1111', false, false],
    ['::', true, true],
    ['::1', true, false],
    ['fc00::1', true, true],
    ['fd12:3456::1', true, true],
    ['fe80::1', true, true],
    ['fe80::1%eth0', true, true],
    ['fec0::1', true, true],
    ['ff02::1', true, true],
    ['2001:db8::1', true, true],
    ['100::1', true, true],
    ['2001::1', true, true],
    ['::127.0.0.1', true, true],
    // IPv4 inside IPv6: judged by the IPv4 address
    ['::ffff:8.8.8.8', false, false],
    ['::ffff:10.0.0.5', true, true],
    ['::ffff:169.254.169.254', true, true],
    ['::ffff:a9fe:a9fe', true, true],
    ['::ffff:127.0.0.1', true, false],
    ['::ffff:7f00:1', true, false],
    ['64:ff9b::8.8.8.8', false, false],
    ['64:ff9b::10.0.0.5', true, true],
    ['64:ff9b::a9fe:a9fe', true, true],
    ['64:ff9b::127.0.0.1', true, true],
    ['2002:0808:0808::1', false, false],
    ['2002:0a00:0005::1', true, true],
    // not IP literals at all
    ['', true, true],
    ['localhost', true, true],
    ['example.com', true, true],
    ['127.1', true, true],
    ['[::1]', true, true],
  ])('%s: forbidden %s, with loopback allowed %s', (ip, refused, refusedWithLoopback) => {
    expect(isForbiddenAddress(ip, false)).toBe(refused);
    expect(isForbiddenAddress(ip, true)).toBe(refusedWithLoopback);
  });
});

describe('webhook URLs at registration', () => {
  it.each([
    ['https://hooks.example.com/device-ban', false, null],
    ['https://hooks.example.com:8443/a?b=c', false, null],
    ['https://93.184.216.34/hook', false, null],
    ['https://[2606:4700:4700::1111]/hook', false, null],
    ['http://hooks.example.com/device-ban', false, 'must be an https URL'],
    ['http://hooks.example.com/device-ban', true, 'must be an https URL'],
    ['http://127.0.0.1:8080/hook', false, 'must be an https URL'],
    ['http://127.0.0.1:8080/hook', true, null],
    ['http://localhost:8080/hook', true, null],
    ['http://[::1]:8080/hook', true, null],
    ['https://127.0.0.1:8443/hook', true, null],
    ['https://127.0.0.1:8443/hook', false, 'must not point at a private, loopback or link-local address'],
    ['http://10.0.0.1/hook', true, 'must be an https URL'],
    ['https://10.0.0.1/hook', true, 'must not point at a private, loopback or link-local address'],
    ['https://169.254.169.254/', false, 'must not point at a private, loopback or link-local address'],
    ['https://169.254.169.254/', true, 'must not point at a private, loopback or link-local address'],
    ['https://[::ffff:127.0.0.1]/', false, 'must not point at a private, loopback or link-local address'],
    ['https://[fd00::1]/', false, 'must not point at a private, loopback or link-local address'],
    ['https://0x7f000001/', false, 'must not point at a private, loopback or link-local address'],
    ['https://localhost/hook', false, 'must not point at a private, loopback or link-local address'],
    ['https://api.localhost/hook', false, 'must not point at a private, loopback or link-local address'],
    ['https://user:pass@hooks.example.com/', false, 'must not contain a username or password'],
    ['https://user@hooks.example.com/', false, 'must not contain a username or password'],
    ['https://hooks.example.com/#part', false, 'must not contain a fragment'],
    ['https://hooks.example.com/#', false, 'must not contain a fragment'],
    ['ftp://hooks.example.com/', false, 'must be an https URL'],
    ['ftp://hooks.example.com/', true, 'must be an https URL'],
    ['/relative/path', false, 'must be an absolute URL'],
    ['not a url', false, 'must be an absolute URL'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, false, 'must be at most 2048 characters'],
  ])('%s (loopback allowed: %s) → %s', (raw, allowLoopback, reason) => {
    const result = checkWebhookUrl(raw, { allowLoopback });
    if (reason === null) expect(result).toMatchObject({ ok: true, url: new URL(raw) });
    else expect(result).toEqual({ ok: false, reason });
  });
});

type Seen = { method?: string; url?: string; headers: IncomingHttpHeaders; body: string };
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  fakeDns.clear();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }
});

/** A real receiver on 127.0.0.1 that records every request in full before `handle` answers it. */
const receiver = async (handle: Handler) => {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      handle(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { seen, port, base: `http://127.0.0.1:${port}` };
};

const answering =
  (status: number, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, headers).end();
  };

const delivery = (url: string, extra: { timeoutMs?: number; allowLoopback?: boolean } = {}) => {
  const body = JSON.stringify({ type: 'ban.created', data: { ban_id: 7 } });
  const headers = webhookHeaders(newWebhookSecret(), 'msg_test', now(), body);
  return { url, headers, body, allowLoopback: extra.allowLoopback ?? true, timeoutMs: extra.timeoutMs };
};

describe('posting a webhook', () => {
  it('is ok on a 2xx', async () => {
    const { base, seen } = await receiver(answering(204));
    const result = await postWebhook(delivery(`${base}/hook`));
    expect(result).toMatchObject({ ok: true, status: 204, error: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(seen).toHaveLength(1);
  });

  it('sends exactly the headers and body given, as one POST to the path and query', async () => {
    const { base, port, seen } = await receiver(answering(200));
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'ban.lifted', data: { ban_id: 8, note: 'é ✓' } });
    const input = {
      url: `${base}/hooks/bans?tenant=acme`,
      headers: webhookHeaders(secret, 'msg_exact', now(), body),
      body,
      allowLoopback: true,
    };
    await postWebhook(input);

    expect(seen).toHaveLength(1);
    const [request] = seen as [Seen];
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hooks/bans?tenant=acme');
    expect(request.body).toBe(input.body);
    expect(request.headers).toEqual({
      ...input.headers,
      host: `127.0.0.1:${port}`,
      'content-length': String(Buffer.byteLength(input.body)),
      connection: 'close',
    });
    // And what arrived is what a receiver verifies.
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toEqual(
      JSON.parse(body),
    );
  });

  it('is not ok on a 500, and reports the status', async () => {
    const { base } = await receiver(answering(500));
    expect(await postWebhook(delivery(`${base}/hook`))).toMatchObject({
      ok: false,
      status: 500,
      error: 'http status 500',
    });
  });

  it('does not follow a redirect', async () => {
    const { base, seen } = await receiver((req, res) =>
      req.url === '/first' ? res.writeHead(302, { location: '/second' }).end() : res.writeHead(204).end(),
    );
    expect(await postWebhook(delivery(`${base}/first`))).toMatchObject({
      ok: false,
      status: 302,
      error: 'redirect not followed',
    });
    // Give a follower, had there been one, the time to make its request.
    await new Promise((done) => setTimeout(done, 100));
    expect(seen.map(({ url }) => url)).toEqual(['/first']);
  });

  it('gives up at its timeout on a receiver that never answers', async () => {
    const { base, seen } = await receiver(() => {});
    const started = Date.now();
    const result = await postWebhook(delivery(`${base}/hook`, { timeoutMs: 300 }));
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout after 300 ms' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(seen).toHaveLength(1);
  });

  it('counts a body that never ends against the same timeout', async () => {
    const { base } = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('still going');
    });
    const started = Date.now();
    const result = await postWebhook(delivery(`${base}/hook`, { timeoutMs: 300 }));
    expect(result).toMatchObject({ ok: false, status: 200, error: 'timeout after 300 ms' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('stops reading a large answer after 64 KiB', async () => {
    const { base } = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      // Far more than is read, and never ended: only the 64 KiB cap settles the attempt.
      res.write(Buffer.alloc(1024 * 1024));
    });
    const result = await postWebhook(delivery(`${base}/hook`, { timeoutMs: 5_000 }));
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('refuses a loopback receiver without allowLoopback, and sends nothing', async () => {
    const { seen, port } = await receiver(answering(204));
    const http = await postWebhook(delivery(`http://127.0.0.1:${port}/hook`, { allowLoopback: false }));
    expect(http).toMatchObject({ ok: false, status: null, error: 'url refused: must be an https URL' });
    const https = await postWebhook(delivery(`https://127.0.0.1:${port}/hook`, { allowLoopback: false }));
    expect(https).toMatchObject({
      ok: false,
      status: null,
      error: 'url refused: must not point at a private, loopback or link-local address',
    });
    expect(seen).toHaveLength(0);
  });

  it('refuses a name when any address it resolves to is forbidden, naming none of them', async () => {
    fakeDns.set('hooks.example.test', [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ]);
    const result = await postWebhook(delivery('https://hooks.example.test/hook', { allowLoopback: false }));
    // The error is the publisher's to read: it must not tell what our resolver answered.
    expect(result).toMatchObject({ ok: false, status: null, error: 'address not allowed' });
    expect(JSON.stringify(result)).not.toMatch(/10\.0\.0\.5|93\.184/);
  });

  it('refuses a name that resolves to loopback without allowLoopback, and sends nothing', async () => {
    const { seen, port } = await receiver(answering(204));
    fakeDns.set('rebind.example.test', [{ address: '127.0.0.1', family: 4 }]);
    const result = await postWebhook(
      delivery(`https://rebind.example.test:${port}/hook`, { allowLoopback: false }),
    );
    expect(result).toMatchObject({ ok: false, status: null, error: 'address not allowed' });
    expect(seen).toHaveLength(0);
  });

  it('connects to the address its lookup checked', async () => {
    const { seen, port } = await receiver(answering(204));
    fakeDns.set('localhost', [{ address: '127.0.0.1', family: 4 }]);
    const result = await postWebhook(delivery(`http://localhost:${port}/hook`));
    expect(result).toMatchObject({ ok: true, status: 204 });
    expect(seen).toHaveLength(1);
  });

  it('sends plain http only to loopback, whatever the name resolves to', async () => {
    fakeDns.set('localhost', [{ address: '93.184.216.34', family: 4 }]);
    expect(await postWebhook(delivery('http://localhost:8080/hook'))).toMatchObject({
      ok: false,
      error: 'address not allowed',
    });
  });

  it('reports a name that does not resolve', async () => {
    fakeDns.set('nowhere.example.test', { code: 'ENOTFOUND' });
    expect(await postWebhook(delivery('https://nowhere.example.test/hook'))).toMatchObject({
      ok: false,
      status: null,
      error: 'dns: ENOTFOUND',
    });
  });

  it('answers a closed port with an error instead of throwing', async () => {
    const { port } = await receiver(answering(204));
    const server = servers.pop() as Server;
    await new Promise<void>((done) => server.close(() => done()));
    expect(await postWebhook(delivery(`http://127.0.0.1:${port}/hook`))).toMatchObject({
      ok: false,
      status: null,
      error: 'connection refused',
    });
  });
});
