import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, runTs, startTs } from '../support/processes';
import { signIn } from '../support/sign-in';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'bans-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const keys = (args: string[], dataDir: string) =>
  runTs('infra/keys-cli.ts', args, childEnv({ DATA_DIR: dataDir }));
const start = (dataDir: string) =>
  startTs(
    'infra/local/main.ts',
    childEnv({ DATA_DIR: dataDir, PORT: '0' }),
    /listening on http:\/\/127\.0\.0\.1:\d+[\s\S]*(curl|already has a key)[\s\S]*(Add more with|list them with)/,
  );
const urlOf = (output: string) =>
  (/listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output) as RegExpExecArray)[1] as string;
const call = async (
  url: string,
  path: string,
  key: string,
  init: RequestInit = {},
): Promise<{ status: number; body: any }> => {
  const res = await fetch(`${url}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${key}`, ...init.headers },
  });
  return { status: res.status, body: await res.json() };
};

describe('npm start', () => {
  // Each start of npm start as a process costs seconds of CPU: one fresh start and one restart
  // carry the banner's, the key's, the people's sign-in and the restart's behaviour. The fresh
  // start serves this describe's cases in order; the last stops it and starts it again.
  let dataDir: string;
  let first: Awaited<ReturnType<typeof start>>;
  let firstStopped = false;
  let key: string;
  let created: { status: number; body: any };
  beforeAll(async () => {
    dataDir = tempDir();
    first = await start(dataDir);
  }, 90_000);
  afterAll(async () => {
    if (first && !firstStopped) await first.stop('SIGTERM');
  });

  it("makes a development key on first start, prints a curl that works and the console's address", async () => {
    const output = first.output();
    const url = urlOf(output);
    key = (/bsk_[A-Za-z0-9_-]{43}/.exec(output) as RegExpExecArray)[0];
    expect(output).toContain(`Console: ${url}/console/`);
    expect(output).toContain('loopback http:// receivers allowed');
    expect((await fetch(`${url}/console/`)).status).toBe(200);
    expect(output).toMatch(/^\s+admin\s+\S+@dev-publisher\.local\s+\S+$/m);

    const curl = output
      .split('\n')
      .find((line) => line.trim().startsWith('curl -s') && line.includes('/v1/policy')) as string;
    const { stdout } = await promisify(execFile)('sh', ['-c', curl.trim()]);
    expect(JSON.parse(stdout)).toMatchObject({ publisher_id: 'dev-publisher', enforce_game: true });

    created = await call(url, '/v1/bans', key, {
      method: 'POST',
      headers: { 'X-Game-Id': 'dev-game', 'Content-Type': 'application/json' },
      body: JSON.stringify({
        device_id: 'persisted-device',
        ban_type: 'social',
        scope: 'game',
        reason_code: 'spam',
      }),
    });
    expect(created.status).toBe(201);
  });

  describe('signing in locally', () => {
    const users = (args: string[], dataDir: string) =>
      runTs('infra/users-cli.ts', args, childEnv({ DATA_DIR: dataDir }));
    const issuerOf = (output: string) =>
      (
        /Sign-in: local OpenID provider at (http:\/\/127\.0\.0\.1:\d+)/.exec(output) as RegExpExecArray
      )[1] as string;

    // On the describe's fresh start (its printed people): the first case disables only the person
    // it adds, the second then disables the admin.
    it('prints three people of dev-publisher, each signs in through the printed provider with their role; npm run users adds and disables', async () => {
      const url = urlOf(first.output());
      const issuer = issuerOf(first.output());
      const printed = [
        ...first.output().matchAll(/^\s+(viewer|moderator|admin)\s+(\S+@dev-publisher\.local)\s+(\S+)$/gm),
      ];
      expect(printed.map((m) => m[1])).toEqual(['viewer', 'moderator', 'admin']);
      for (const [, role, email, password] of printed) {
        const result = await signIn(issuer, `${url}/console/`, email as string, password as string);
        expect(result.ok, `${role} signs in`).toBe(true);
        if (!result.ok) continue;
        const policy = await call(url, '/v1/policy', result.tokens.access_token);
        expect(policy.status).toBe(200);
        expect(policy.body.publisher_id).toBe('dev-publisher');
        const write = await call(url, '/v1/policy', result.tokens.access_token, {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ enforce_global: true }),
        });
        expect(write.status, role).toBe(role === 'admin' ? 200 : 403);
      }

      const made = await users(
        [
          'create',
          '--publisher',
          'dev-publisher',
          '--email',
          'Carol@Studio.example',
          '--role',
          'viewer',
          '--json',
        ],
        dataDir,
      );
      expect(made.code).toBe(0);
      const carol = JSON.parse(made.stdout);
      expect(carol).toMatchObject({ email: 'carol@studio.example', role: 'viewer', status: 'enabled' });
      expect((await signIn(issuer, `${url}/console/`, 'carol@studio.example', carol.password)).ok).toBe(true);
      const listed = await users(['list', '--publisher', 'dev-publisher', '--json'], dataDir);
      expect(JSON.parse(listed.stdout).map((p: { email: string }) => p.email)).toEqual([
        'admin@dev-publisher.local',
        'carol@studio.example',
        'moderator@dev-publisher.local',
        'viewer@dev-publisher.local',
      ]);
      expect(listed.stdout).not.toContain('password');
      expect((await users(['disable', '--email', 'carol@studio.example'], dataDir)).code).toBe(0);
      expect((await signIn(issuer, `${url}/console/`, 'carol@studio.example', carol.password)).ok).toBe(
        false,
      );
      expect(
        (
          await users(
            ['create', '--publisher', 'dev-publisher', '--email', 'x@y.example', '--role', 'owner'],
            dataDir,
          )
        ).code,
      ).toBe(2);
      // Three sign-ins and the CLI as processes: 30 s or more beside the browser pass on two cores.
    }, 90_000);

    it('npm run users -- disable lists the keys the person made, and --revoke-keys revokes them', async () => {
      const run = first;
      const url = urlOf(run.output());
      const [, email, password] = /^\s+admin\s+(\S+@dev-publisher\.local)\s+(\S+)$/m.exec(run.output()) ?? [];
      const signedIn = await signIn(
        issuerOf(run.output()),
        `${url}/console/`,
        email as string,
        password as string,
      );
      if (!signedIn.ok) throw new Error(`the admin signs in: ${signedIn.status}`);
      const made = await call(url, '/v1/keys', signedIn.tokens.access_token, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'admin-tool', scopes: ['policy:read'] }),
      });
      expect(made.status).toBe(201);
      const listed = await users(['disable', '--email', email as string], dataDir);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain(
        `key ${made.body.key_id} "admin-tool" live, expires ${made.body.expires_at}`,
      );
      expect(listed.stdout).toContain('1 key(s) they made still work: revoke them with --revoke-keys');
      expect((await call(url, '/v1/policy', made.body.api_key)).status).toBe(200);
      const revoked = await users(
        ['disable', '--email', email as string, '--revoke-keys', '--json'],
        dataDir,
      );
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(JSON.parse(revoked.stdout)).toMatchObject({
        email,
        status: 'disabled',
        revoked_keys: [made.body.key_id],
        keys: [{ key_id: made.body.key_id, revoked_at: expect.any(String) }],
      });
      expect((await call(url, '/v1/policy', made.body.api_key)).status).toBe(401);
      // The development key npm start made is no person's: it still works.
      const devKey = (/bsk_[A-Za-z0-9_-]{43}/.exec(run.output()) as RegExpExecArray)[0];
      expect((await call(url, '/v1/policy', devKey)).status).toBe(200);
    }, 90_000);
  });

  it('keeps data across a restart without printing secrets again, and stops cleanly', async () => {
    expect(first.errors()).not.toContain('pruning the change log failed');
    firstStopped = true;
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(first.errors()).not.toMatch(/pruning|ValidationException/);

    const second = await start(dataDir);
    expect(second.output()).toContain('already has a key');
    expect(second.output()).not.toMatch(/bsk_/);
    // The people's passwords are printed once, on the first start only.
    expect(second.output()).not.toMatch(/@dev-publisher\.local\s+\S+$/m);
    expect(second.output()).toContain('npm run users -- list --publisher dev-publisher');
    const listed = await call(urlOf(second.output()), '/v1/device/persisted-device/bans/social', key, {
      headers: { 'X-Game-Id': 'dev-game' },
    });
    expect(listed.body.items.map((b: { ban_id: number }) => b.ban_id)).toEqual([created.body.ban_id]);
    expect(await second.stop('SIGINT')).toBe(0);
  });
});

describe('the start banner', () => {
  it('says loopback receivers are refused when WEBHOOK_ALLOW_LOOPBACK=0, and the API refuses one', async () => {
    const run = await startTs(
      'infra/local/main.ts',
      childEnv({ DATA_DIR: tempDir(), PORT: '0', WEBHOOK_ALLOW_LOOPBACK: '0' }),
      /listening on http:\/\/127\.0\.0\.1:\d+[\s\S]*(curl|already has a key)[\s\S]*(Add more with|list them with)/,
    );
    expect(run.output()).toContain('loopback receivers refused (WEBHOOK_ALLOW_LOOPBACK=0)');
    expect(run.output()).not.toContain('receivers allowed');
    const key = (/bsk_[A-Za-z0-9_-]{43}/.exec(run.output()) as RegExpExecArray)[0];
    const res = await call(urlOf(run.output()), '/v1/webhooks', key, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook' }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'url', issue: 'not_allowed' }]);
    expect(await run.stop('SIGTERM')).toBe(0);
  });
});

describe('npm run keys', () => {
  it('creates, lists and revokes keys with or without npm start running', async () => {
    const dataDir = tempDir();

    const made = await keys(['create', '--publisher', 'acme', '--json'], dataDir);
    expect(made.code).toBe(0);
    const lines = made.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const key = JSON.parse(lines[0] as string);
    expect(Object.keys(key).sort()).toEqual(['api_key', 'games', 'key_id', 'publisher_id', 'scopes']);
    expect(key).toMatchObject({
      publisher_id: 'acme',
      key_id: expect.stringMatching(/^key_/),
      api_key: expect.stringMatching(/^bsk_/),
      scopes: [
        'bans:read',
        'bans:write',
        'policy:read',
        'policy:write',
        'keys:manage',
        'audit:read',
        'appeals:write',
        'appeals:decide',
        'people:manage',
        'bans:import',
        'data:export',
      ],
      games: null,
    });

    // With the server running on the same folder, the tool goes through the server's store.
    const server = await start(dataDir);
    const url = urlOf(server.output());
    const policy = await call(url, '/v1/policy', key.api_key);
    expect(policy).toMatchObject({
      status: 200,
      body: { publisher_id: 'acme', enforce_social_global: false },
    });

    const second = JSON.parse(
      (await keys(['create', '--publisher', 'acme', '--name', 'ci', '--json'], dataDir)).stdout,
    );
    expect((await call(url, '/v1/policy', second.api_key)).status).toBe(200);

    const reader = JSON.parse(
      (
        await keys(
          ['create', '--publisher', 'acme', '--scopes', 'bans:read', '--games', 'g1,g2', '--json'],
          dataDir,
        )
      ).stdout,
    );
    expect(reader).toMatchObject({ scopes: ['bans:read'], games: ['g1', 'g2'] });
    expect((await call(url, '/v1/policy', reader.api_key)).status).toBe(403);

    const revoked = await keys(['revoke', key.key_id], dataDir);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(key.key_id);
    expect(revoked.stdout).not.toContain(key.api_key);
    expect((await call(url, '/v1/policy', key.api_key)).status).toBe(401);
    expect((await call(url, '/v1/policy', second.api_key)).status).toBe(200);
    expect(await server.stop()).toBe(0);

    // And without it, straight on the folder.
    const listed = await keys(['list', '--publisher', 'acme', '--json'], dataDir);
    expect(listed.code).toBe(0);
    const listing = JSON.parse(listed.stdout);
    expect(listing).toEqual([
      expect.objectContaining({ key_id: key.key_id, name: 'default', revoked_at: expect.any(String) }),
      expect.objectContaining({ key_id: second.key_id, name: 'ci', revoked_at: null }),
      expect.objectContaining({ key_id: reader.key_id, scopes: ['bans:read'], games: ['g1', 'g2'] }),
    ]);
    expect(listed.stdout).not.toContain('bsk_');
  });

  // Each refusal is read in-process (test/host/keys-command.test.ts); here, the tool as a process.
  it.each([
    [['create', '--publisher', 'Bad#Id'], 2, '--publisher'],
    [['revoke', 'key_AAAAAAAAAAAA'], 1, 'No key key_AAAAAAAAAAAA'],
  ])('answers %j with nothing on stdout, exit code %i and %j on stderr', async (args, code, says) => {
    const run = await keys(args, tempDir());
    expect(run.code).toBe(code);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(says);
    if (code === 2) expect(run.stderr).toContain('Usage:\n  npm run keys -- create');
  });

  it('create against a deployed table without USAGE_PLAN_ID exits 2 before any AWS call', async () => {
    const run = await runTs(
      'infra/keys-cli.ts',
      ['create', '--publisher', 'acme'],
      childEnv({
        TABLE_NAME: 'DeviceBans-dev-Table',
        USAGE_PLAN_ID: '',
        AWS_REGION: 'eu-west-1',
        // Any call would fail to connect and exit 1, not 2.
        AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
        AWS_ACCESS_KEY_ID: 'none',
        AWS_SECRET_ACCESS_KEY: 'none',
      }),
    );
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('USAGE_PLAN_ID');
  });

  it("against AWS takes its region from the SDK's own resolution (the profile's), and fails without one", async () => {
    // API Gateway played by a server that notes the region each request was signed for, and refuses it.
    const regions: string[] = [];
    const server = createServer((req, res) => {
      regions.push(/Credential=[^/]+\/\d+\/([^/]+)\//.exec(String(req.headers.authorization))?.[1] ?? '');
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'refused by the test' }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const dir = tempDir();
    const config = join(dir, 'config');
    writeFileSync(config, '[default]\nregion = ap-southeast-2\n');
    const run = (configFile: string) => {
      const {
        AWS_REGION: _r,
        AWS_DEFAULT_REGION: _d,
        AWS_PROFILE: _p,
        ...env
      } = childEnv({
        TABLE_NAME: 'DeviceBans-dev-Table',
        USAGE_PLAN_ID: 'plan1',
        AWS_CONFIG_FILE: configFile,
        AWS_ENDPOINT_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        AWS_ACCESS_KEY_ID: 'none',
        AWS_SECRET_ACCESS_KEY: 'none',
      });
      return runTs('infra/keys-cli.ts', ['quota', '--publisher', 'acme'], env);
    };
    try {
      const fromProfile = await run(config);
      expect(fromProfile.code).toBe(1);
      expect(fromProfile.stderr).toContain('refused by the test');
      expect(regions.length).toBeGreaterThan(0);
      expect(new Set(regions)).toEqual(new Set(['ap-southeast-2']));
      regions.length = 0;
      const none = await run(join(dir, 'absent'));
      expect(none.code).toBe(1);
      expect(none.stderr).toContain('no AWS region: set AWS_REGION');
      expect(regions).toEqual([]);
    } finally {
      server.close();
    }
  }, 120_000);

  it('quota has nothing to do locally: the local gateway counts every publisher', async () => {
    const run = await keys(['quota', '--publisher', 'acme'], tempDir());
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Nothing to do');
  });
});
