import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * `npm test` after the typecheck and lint: the suites in two lanes that run at the same time, each
 * lane's stages in order. The stages wait on servers, sockets, Java and Chromium more than they
 * compute, so two at once on a 2-core machine take about the time of the longer lane, not the sum
 * (docs/testing.md has the measured figures).
 *
 *   sources:  vitest (unit, integration, robustness, openapi, infra, host, docs) → the browser pass
 *   deployed: the bundled synth and suite → the same bundles on Node 24 → DynamoDB Local
 *
 * The lanes share nothing on disk but what the second lane makes in order (cdk.out/test, which only
 * it reads) and ports are all chosen free. A failed stage stops its lane; the other lane runs to its
 * end, so one run shows every failure. Each line of output is prefixed by its stage.
 */

interface Stage {
  name: string;
  script: string;
}

const lanes: Stage[][] = [
  [
    { name: 'vitest', script: 'test:vitest' },
    { name: 'browser', script: 'test:browser' },
  ],
  [
    { name: 'bundled', script: 'test:bundled' },
    { name: 'node24', script: 'test:node24' },
    { name: 'ddb-local', script: 'test:ddb-local' },
  ],
];

type Outcome = { name: string; status: 'passed' | 'failed' | 'not run'; seconds: number };

const children = new Set<ReturnType<typeof spawn>>();

const runStage = (stage: Stage): Promise<boolean> =>
  new Promise((done) => {
    const child = spawn('npm', ['run', '--silent', stage.script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so an interrupt reaches everything a stage started (Java, Chromium).
      detached: true,
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '1' },
    });
    children.add(child);
    const prefix = `[${stage.name}] `;
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${prefix}${line}\n`));
    child.on('close', (code) => {
      children.delete(child);
      done(code === 0);
    });
  });

const runLane = async (stages: Stage[]): Promise<Outcome[]> => {
  const outcomes: Outcome[] = [];
  let failed = false;
  for (const stage of stages) {
    if (failed) {
      outcomes.push({ name: stage.name, status: 'not run', seconds: 0 });
      continue;
    }
    const started = Date.now();
    const passed = await runStage(stage);
    outcomes.push({
      name: stage.name,
      status: passed ? 'passed' : 'failed',
      seconds: Math.round((Date.now() - started) / 1000),
    });
    failed = !passed;
  }
  return outcomes;
};

const stopAll = (signal: NodeJS.Signals) => {
  for (const child of children) {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  }
};
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    stopAll(signal);
    process.exit(130);
  });

const started = Date.now();
const results = (await Promise.all(lanes.map(runLane))).flat();
const wall = Math.round((Date.now() - started) / 1000);
console.log('\n[lanes] stage       status    seconds');
for (const { name, status, seconds } of results)
  console.log(`[lanes] ${name.padEnd(11)} ${status.padEnd(9)} ${seconds}`);
console.log(`[lanes] wall time ${wall} s (the stages' sum: ${results.reduce((s, r) => s + r.seconds, 0)} s)`);
process.exit(results.every((r) => r.status === 'passed') ? 0 : 1);
