import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lanePlan } from '../support/lane-plan';
import { childEnv, runTs } from '../support/processes';

/**
 * infra/supported-node.mjs, which package.json's start, test and CLI scripts run through: on a
 * Node older than 22 (this machine's may be 20) the tool runs on the pinned Node 24, said once
 * however many scripts it starts; on 22 or later, on this Node, silently. And `npm start` on a
 * fresh store prints no warning (oidc-provider's and the SDK's were its Node's and its adapter's).
 */

const LAUNCHER = 'infra/supported-node.mjs';
const olderNode = Number(process.versions.node.split('.')[0]) < 22;
const NOTICE = /\[node\] Node v\d+\.\d+\.\d+ is past its end of life: running on .* \(Node 24\)\./g;

const launch = (args: string[], env: NodeJS.ProcessEnv) => {
  const child = spawn(process.execPath, [LAUNCHER, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return { child, out: () => stdout, err: () => stderr };
};

describe('the supported-Node launcher', () => {
  it('runs a tool on Node 22 or later, and says so once when it had to switch, nested scripts included', async () => {
    // The tool starts the launcher again, as `npm test` starts `npm run test:vitest`.
    const nested = `const { execFileSync } = require('node:child_process');
console.log('outer', process.versions.node);
console.log(execFileSync('node', ['${LAUNCHER}', 'tsx', '-e', "console.log('inner', process.versions.node)"], { encoding: 'utf8' }).trim());`;
    const run = launch(['tsx', '-e', nested], childEnv({}));
    const code = await new Promise((done) => run.child.once('exit', done));
    expect(code, run.err()).toBe(0);
    const majors = [...run.out().matchAll(/(outer|inner) (\d+)\./g)].map((m) => Number(m[2]));
    expect(majors).toHaveLength(2);
    for (const major of majors) expect(major).toBeGreaterThanOrEqual(22);
    expect([...run.err().matchAll(NOTICE)]).toHaveLength(olderNode ? 1 : 0);
    if (olderNode) expect(majors).toEqual([24, 24]);
  }, 120_000);

  it('refuses a tool it does not know', async () => {
    const run = await runTs(LAUNCHER, ['explode'], childEnv({}));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage: node infra/supported-node.mjs <tsx|vitest>');
  });

  it('npm start on a fresh store serves /health and prints no warning', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'supported-node-')), 'data');
    const run = launch(['tsx', 'infra/local/main.ts'], childEnv({ DATA_DIR: dataDir, PORT: '0' }));
    try {
      // The banner printed in full (the key and its examples) is the wait: the output, not a clock.
      const ready = /listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*(Add more with|list them with)/;
      while (!ready.test(run.out()) && run.child.exitCode === null)
        await new Promise((done) => run.child.stdout?.once('data', done));
      const url = ready.exec(run.out())?.[1];
      expect(url, run.err()).toBeDefined();
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      expect(run.err().replace(NOTICE, '').trim()).toBe('');
      expect(`${run.out()}\n${run.err()}`).not.toMatch(/warn/i);
    } finally {
      run.child.kill('SIGTERM');
      await new Promise((done) => run.child.once('exit', done));
    }
  }, 120_000);
});

describe('what goes through the launcher', () => {
  const scripts: Record<string, string> = JSON.parse(readFileSync('package.json', 'utf8')).scripts;

  it('starts npm start, the CLIs and every stage of npm test through it', () => {
    for (const name of ['start', 'keys', 'users', 'openapi'])
      expect(scripts[name], name).toMatch(/^node infra\/supported-node\.mjs tsx /);
    // The typecheck and lint may run on any Node; the stages (test/lanes.ts) must not.
    expect(scripts.test).toMatch(/&& node infra\/supported-node\.mjs tsx test\/lanes\.ts$/);
  });

  it('runs the bundled suite once on Node 24 when the stages run on it, and twice on Node 22', () => {
    const names = (major: string) => lanePlan(major).chains.map((chain) => chain.map((stage) => stage.name));
    expect(lanePlan('24').runners).toBe(2);
    expect(names('24')).toEqual([['browser'], ['ddb-robust'], ['vitest'], ['ddb-integ'], ['bundled']]);
    const bundled = lanePlan('24').chains[4]?.[0];
    expect(bundled?.env).toEqual({ EXPECT_NODE_MAJOR: '24' });
    expect(lanePlan('24').covered).toEqual([{ name: 'node24', by: 'the bundled stage ran on Node 24' }]);
    // On Node 22 the Node 24 run follows the bundled stage in its chain: it reads that synth.
    expect(names('22')).toEqual([
      ['browser'],
      ['ddb-robust'],
      ['vitest'],
      ['ddb-integ'],
      ['bundled', 'node24'],
    ]);
    expect(lanePlan('22').chains[4]?.[0]?.env).toBeUndefined();
    expect(lanePlan('22').covered).toEqual([]);
    // The sources stage leaves the integration and robustness suites to DynamoDB Local, whose
    // parts are the robustness suite and the integration suite.
    expect(lanePlan('24').chains[2]?.[0]?.env).toEqual({ TEST_STAGE: 'sources' });
    const ddbLocal = lanePlan('24')
      .chains.flat()
      .filter((stage) => stage.script === 'test:ddb-local')
      .map((stage) => stage.args?.join(' '));
    expect(lanePlan('24').chains[1]?.[0]?.env).toEqual({ TEST_STAGE: 'ddb-local' });
    expect(ddbLocal.sort()).toEqual(['test/integration', 'test/robustness']);
  });
});
