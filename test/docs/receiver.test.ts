import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';

/**
 * The receiver docs/api.md shows ("Verifying a delivery") is run as written, on a free port
 * instead of 4000: it must take our real deliveries and refuse a forged one.
 */

const docs = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
const section = docs.slice(docs.indexOf('### Verifying a delivery'));
const source = /```js\n([\s\S]*?)\n```/.exec(section)?.[1] ?? '';

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });

let api: TestApi;
let dir: string;
let receiver: ChildProcess | undefined;
let output = '';
beforeAll(async () => {
  api = await startTestApi({ env: { WEBHOOK_RETRY_BASE_MS: '50' } });
  dir = await mkdtemp(join(tmpdir(), 'receiver-'));
});
afterAll(async () => {
  receiver?.kill();
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the receiver of docs/api.md', () => {
  it('is at most 15 lines, verifies our deliveries, and refuses a forged one', async () => {
    expect(source.split('\n').length).toBeLessThanOrEqual(15);
    expect(source).toContain('.listen(4000)');
    const port = await freePort();
    writeFileSync(join(dir, 'receiver.mjs'), source.replace('.listen(4000)', `.listen(${port})`));

    const key = (await api.createKey('receiver-docs')).api_key;
    const hook = await api.request('POST', '/v1/webhooks', {
      key,
      body: { url: `http://127.0.0.1:${port}/` },
    });
    expect(hook.status).toBe(201);
    receiver = spawn(process.execPath, [join(dir, 'receiver.mjs')], {
      env: { ...process.env, WEBHOOK_SECRET: hook.body.secret },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    receiver.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    // Ready when it answers (a forged request: no signature at all).
    let forged = 0;
    for (let tries = 0; tries < 100 && forged === 0; tries += 1) {
      forged = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: {
          'webhook-id': 'evt_x',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
        },
        body: '{}',
      }).then(
        (res) => res.status,
        () => 0,
      );
      if (forged === 0) await new Promise((done) => setTimeout(done, 50));
    }
    expect(forged).toBe(401);

    const made = await api.request('POST', '/v1/bans', {
      key,
      game: 'g1',
      body: { device_id: 'receiver-device', ban_type: 'cheat', scope: 'game', reason_code: 'aimbot' },
    });
    expect(made.status).toBe(201);
    const until = Date.now() + 20_000;
    while (!output.includes('"ban.created"') && Date.now() < until)
      await new Promise((d) => setTimeout(d, 50));
    const [id, body] = [output.split(' ')[0], output.slice(output.indexOf(' ') + 1)];
    expect(id).toMatch(/^evt_/);
    expect(JSON.parse(body)).toMatchObject({
      event_id: id,
      type: 'ban.created',
      ban: { ban_id: made.body.ban_id },
    });
  });
});
