import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Which suites a stage of `npm test` runs (TEST_STAGE, set by test/support/lane-plan.ts): each
 * suite once, on the store and runtime that proves it.
 *
 * - `bundled`: the bundles `cdk deploy` uploads, on the Lambda's Node (npm run test:bundled, and
 *   test:node24 on an older Node): the bundle checks, the conformance walk of the route table with
 *   the events functions' bundles, and the documentation's examples;
 * - `sources`: everything else but what DynamoDB Local runs (npm run test:ddb-local: the
 *   integration and robustness suites), and ON_EMBEDDED: the crash test, whose store is `npm
 *   start`'s own embedded one (its data folder surviving a kill -9), and the fault loops;
 * - `ddb-local`: the files named to it on DynamoDB Local (npm run test:ddb-local), but ON_EMBEDDED,
 *   which the sources stage runs.
 *
 * Unset (a plain `vitest run`, `npm run test:vitest`): every suite, on the sources and the
 * embedded store.
 */
const BUNDLED = [
  'test/infra/bundles.test.ts',
  'test/infra/bundled-events.test.ts',
  'test/conformance/**/*.test.ts',
  'test/docs/examples.test.ts',
  'test/openapi/examples.test.ts',
];
/**
 * The robustness files whose store is not what they prove, run on the embedded store: the crash
 * test (npm start's own store), the fault loops, whose faults our client raises (before a
 * request is sent, or after it landed) and which prove what the service answers and leaves and
 * what a retry completes, and the bad-input corpus, which proves that a refused request never
 * reaches storage at all. The store's own semantics they lean on (conditions, queries, races) are
 * proven on DynamoDB Local by the integration suite and the rest of this one. On the embedded
 * store they take about a third of the time (59 s against 192 s, measured 2026-11-28).
 */
const ON_EMBEDDED = [
  'events-crash',
  'faults',
  'audit-faults',
  'appeal-faults',
  'dispatch-faults',
  'import-faults',
  'appeal-import-faults',
  'bad-input',
];
const onEmbedded = ON_EMBEDDED.map((name) => `test/robustness/${name}.test.ts`);
const ON_DYNAMODB_LOCAL = ['test/integration/**', `test/robustness/!(${ON_EMBEDDED.join('|')}).test.ts`];

/**
 * The files that replace a module (`vi.mock`) or set the clock before a module's process-wide
 * state (ban ids only grow within a process) need a module registry of their own; every other
 * file shares its worker's (the imports, the AWS SDK and aws-cdk-lib above all, are paid once per
 * worker instead of once per file), with test/support/file-state.ts resetting what the process
 * binds (timers, environment, mocked SDK clients, clock, settings, store) before each file.
 */
const OWN_MODULES = [
  'test/unit/webhook-sender.test.ts',
  'test/unit/webhook-outbound.test.ts',
  'test/client/mirror.test.ts',
  'test/unit/ban-ids.test.ts',
  'test/unit/bans.test.ts',
];

const stage = process.env.TEST_STAGE;
const include = stage === 'bundled' ? BUNDLED : ['test/**/*.test.ts'];
// (The projects below replace a command line's --exclude with theirs: a stage leaves files out here.)
const leftOut =
  stage === 'sources' ? [...BUNDLED, ...ON_DYNAMODB_LOCAL] : stage === 'ddb-local' ? onEmbedded : [];

const exclude = [...configDefaults.exclude, 'test/browser/**', ...leftOut];

export default defineConfig({
  // The shared kernel by name, as tsconfig.json's paths has it (kernel/README.md).
  resolve: {
    alias: [{ find: /^@kernel\//, replacement: fileURLToPath(new URL('./kernel/', import.meta.url)) }],
  },
  test: {
    // The console's browser suite runs once, on its own: npm run test:browser (test/browser/run.ts).
    // The two projects below say which files (arrays of a project that extends these settings
    // add to them, so `include` is given per project only).
    exclude,
    // The settings the unit tests bind from the environment (lib/config.ts): a table name, no logs.
    env: {
      TABLE_NAME: 'unit-test-table',
      LOG_LEVEL: 'silent',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    setupFiles: ['test/support/file-state.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true as const, test: { name: 'shared', include, exclude: OWN_MODULES, isolate: false } },
      ...(stage === 'bundled'
        ? []
        : [{ extends: true as const, test: { name: 'own-modules', include: OWN_MODULES, isolate: true } }]),
    ],
  },
});
