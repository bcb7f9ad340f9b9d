import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { lanePlan, type Stage } from './support/lane-plan';
import { failureReport } from './support/lane-report';

/**
 * `npm test` after the typecheck and lint: the chains of stages of test/support/lane-plan.ts, taken
 * in order by two runners at once, each chain's stages in order. On a 2-core machine the run takes
 * about the stages' CPU time over two (docs/testing.md has the measured figures).
 *
 * The chains share nothing on disk but what a chain makes for itself in order (cdk.out/test) and
 * ports are all chosen free. A failed stage stops its chain; every other chain runs, so one run
 * shows every failure. Each line of output is prefixed by its stage.
 */

const plan = lanePlan(process.versions.node.split('.')[0] ?? '');

type Outcome = {
  name: string;
  status: 'passed' | 'failed' | 'not run';
  /** When it started, in seconds since the stages began. */
  start?: number;
  seconds: number;
  cpu?: number;
  /** A failed stage's account of its failure (failureReport). */
  report?: string[];
};

/**
 * Each stage's CPU time (user and system, its every process), what the lanes are balanced by: GNU
 * time where the machine has it (Debian's `time` package), else not shown.
 */
const GNU_TIME = '/usr/bin/time';
const CPU_MARK = '[lanes:cpu]';
const timed = existsSync(GNU_TIME);

/**
 * Node's compile cache (V8 code cache on disk) for every process of every stage: the same modules
 * (the AWS SDK, aws-cdk-lib, the sources) are compiled once per run instead of once per process.
 * Measured on the sources stage: 14 % less CPU time. Inside node_modules, so `npm ci` clears it.
 */
const COMPILE_CACHE = fileURLToPath(new URL('../node_modules/.cache/node-compile-cache', import.meta.url));

const children = new Set<ReturnType<typeof spawn>>();

const runStage = (stage: Stage): Promise<{ passed: boolean; cpu?: number; lines: string[] }> =>
  new Promise((done) => {
    const npm = ['npm', 'run', '--silent', stage.script, ...(stage.args ? ['--', ...stage.args] : [])];
    const [command = 'npm', ...args] = timed ? [GNU_TIME, '-f', `${CPU_MARK} %U %S`, ...npm] : npm;
    let cpu: number | undefined;
    const lines: string[] = [];
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so an interrupt reaches everything a stage started (Java, Chromium).
      detached: true,
      env: {
        ...process.env,
        FORCE_COLOR: process.env.FORCE_COLOR ?? '1',
        NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? COMPILE_CACHE,
        ...stage.env,
      },
    });
    children.add(child);
    const prefix = `[${stage.name}] `;
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream }).on('line', (line) => {
        if (line.startsWith(CPU_MARK)) {
          const [user = 0, system = 0] = line.slice(CPU_MARK.length).trim().split(' ').map(Number);
          cpu = Math.round(user + system);
          return;
        }
        lines.push(line);
        process.stdout.write(`${prefix}${line}\n`);
      });
    child.on('close', (code) => {
      children.delete(child);
      done({ passed: code === 0, cpu, lines });
    });
  });

const runChain = async (stages: Stage[]): Promise<Outcome[]> => {
  const outcomes: Outcome[] = [];
  let failed = false;
  for (const stage of stages) {
    if (failed) {
      outcomes.push({ name: stage.name, status: 'not run', seconds: 0 });
      continue;
    }
    const stageStarted = Date.now();
    const { passed, cpu, lines } = await runStage(stage);
    outcomes.push({
      name: stage.name,
      status: passed ? 'passed' : 'failed',
      start: Math.round((stageStarted - started) / 1000),
      seconds: Math.round((Date.now() - stageStarted) / 1000),
      ...(cpu === undefined ? {} : { cpu }),
      ...(passed ? {} : { report: failureReport(lines) }),
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
// Each runner takes the next chain of the queue when it is free.
const queue = [...plan.chains];
const runner = async (): Promise<Outcome[]> => {
  const outcomes: Outcome[] = [];
  for (let chain = queue.shift(); chain; chain = queue.shift()) outcomes.push(...(await runChain(chain)));
  return outcomes;
};
const finished = (await Promise.all(Array.from({ length: plan.runners }, runner))).flat();
// The summary in the plan's order, whichever runner ran each stage.
const order = plan.chains.flat().map((stage) => stage.name);
const results = finished.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
const wall = Math.round((Date.now() - started) / 1000);
for (const { name, report } of results)
  if (report) {
    console.log(`\n[lanes] ${name} failed; what it said of its failure:`);
    for (const line of report) console.log(`[lanes:${name}] ${line}`);
  }
console.log('\n[lanes] stage       status    start s  seconds  cpu s');
for (const { name, status, start, seconds, cpu } of results)
  console.log(
    `[lanes] ${name.padEnd(11)} ${status.padEnd(9)} ${String(start ?? '-').padEnd(8)} ${String(seconds).padEnd(8)} ${cpu ?? '-'}`,
  );
for (const { name, by } of plan.covered) console.log(`[lanes] ${name.padEnd(11)} left out: ${by}`);
console.log(`[lanes] on Node ${process.version}`);
const cpuTotal = results.reduce((sum, r) => sum + (r.cpu ?? 0), 0);
console.log(
  `[lanes] wall time ${wall} s (the stages' sum: ${results.reduce((s, r) => s + r.seconds, 0)} s` +
    `${timed ? `; their CPU time: ${cpuTotal} s` : ''})`,
);
process.exit(results.every((r) => r.status === 'passed') ? 0 : 1);
