import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bundlePaths } from '../../infra/local/bundles';
import { type LocalApi, startLocalApi } from '../../infra/local/server';
import { type Receiver, startReceiver } from '../support/receiver';

/**
 * The deployed events functions run locally from their bundles: with `bundles`, the local events
 * thread hands change records to the dispatcher's bundle as a stream batch and each delivery
 * attempt to the sender's bundle as a queue message (infra/local/events.ts), so the conformance
 * walk's event path (test/conformance) exercises the code `cdk deploy` uploads. Run on the
 * assembly of `npm test`'s bundled stage (API_BUNDLES), or skipped without one.
 */

const cdkOut = process.env.API_BUNDLES ?? '';

describe.skipIf(!cdkOut)('the events functions from their bundles', () => {
  let api: LocalApi;
  let assembly: string;
  let receiver: Receiver;
  const calls = () =>
    existsSync(join(assembly, 'calls.log')) ? readFileSync(join(assembly, 'calls.log'), 'utf8') : '';

  // The assembly as synthesized, but the dispatcher's and the sender's bundles each behind a
  // wrapper that notes its call and hands the event to the real bundle: what ran is known.
  beforeAll(async () => {
    assembly = mkdtempSync(join(tmpdir(), 'cdk-out-wrapped-'));
    const paths = bundlePaths(cdkOut);
    const wrapped = new Map(
      ['events-dispatcher', 'webhook-sender'].map((handler) => [
        dirname(paths.get(handler) as string),
        handler,
      ]),
    );
    for (const entry of readdirSync(cdkOut)) {
      const source = resolve(cdkOut, entry);
      const handler = wrapped.get(source);
      if (!handler) {
        symlinkSync(source, join(assembly, entry));
        continue;
      }
      mkdirSync(join(assembly, entry));
      writeFileSync(
        join(assembly, entry, 'index.mjs'),
        `import { appendFileSync } from 'node:fs';\n` +
          `import * as bundle from ${JSON.stringify(pathToFileURL(join(source, 'index.mjs')).href)};\n` +
          `export const handler = async (event, ...rest) => {\n` +
          `  appendFileSync(${JSON.stringify(join(assembly, 'calls.log'))}, '${handler}\\n');\n` +
          '  return bundle.handler(event, ...rest);\n};\n',
      );
    }
    [api, receiver] = await Promise.all([
      startLocalApi({
        port: 0,
        env: { DATA_DIR: ':memory:', TABLE_NAME: '', DYNAMODB_ENDPOINT: '' },
        bundles: assembly,
        identityPort: false,
        console: false,
      }),
      startReceiver(),
    ]);
  });
  afterAll(async () => {
    await api?.close();
    await receiver?.close();
    if (assembly) rmSync(assembly, { recursive: true, force: true });
  });

  test('a ban reaches the feed through the bundled dispatcher and a webhook through the bundled sender', async () => {
    const { createApiKey } = await import('../../lib/domain/api-keys');
    const key = (await createApiKey('events-bundles')).api_key;
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'X-Game-Id': 'g1' };
    const hook = await fetch(`${api.url}/v1/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${receiver.url}/hook` }),
    });
    expect(hook.status).toBe(201);
    const ban = await fetch(`${api.url}/v1/bans`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        device_id: 'dev-events',
        ban_type: 'cheat',
        scope: 'game',
        reason_code: 'aimbot',
      }),
    });
    expect(ban.status).toBe(201);
    await api.events?.drain();
    await receiver.waitFor((received) => received.length === 1);
    const secret = ((await hook.json()) as { secret: string }).secret;
    expect(receiver.verified(secret).map((body) => body.type)).toEqual(['ban.created']);
    const feed = await fetch(`${api.url}/v1/events`, { headers });
    expect(
      ((await feed.json()) as { items: Array<{ type: string }> }).items.map((item) => item.type),
    ).toEqual(['ban.created']);
    const ran = calls().trim().split('\n');
    expect(ran).toContain('events-dispatcher');
    expect(ran).toContain('webhook-sender');
  });
});
