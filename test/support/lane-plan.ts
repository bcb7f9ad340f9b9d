/**
 * The stages of `npm test` after the typecheck and lint (test/lanes.ts runs them): a queue of
 * chains, each chain's stages in order, taken by two runners at once, the next chain going to the
 * first runner free. On two cores a stage's wall time depends on what runs beside it: the browser
 * pass and the sources stage each wait (on Chromium, on child processes) about a third of their
 * time, DynamoDB Local's stages compute nearly all of theirs. So the browser pass runs beside the
 * robustness suite, the sources stage beside the integration suite, and the short bundled
 * stage fills the end (measured: docs/testing.md).
 *
 * Each suite runs once on the store and runtime that proves it (vitest.config.ts): the bundles,
 * on the Lambda's Node, by the conformance walk of the route table with the events functions'
 * bundles and the documentation's examples (TEST_STAGE=bundled); the integration and robustness
 * suites on the sources over DynamoDB Local, but for the crash test (about `npm start`'s own
 * embedded store) and the fault loops (their faults are our client's), which run in the vitest
 * stage (TEST_STAGE=sources) on the embedded store.
 *
 * When the stages run on Node 24 (a Node 24 machine, or an older one where
 * infra/supported-node.mjs switched to the pinned Node 24), the bundled stage already is the
 * bundled suite on Node 24: it is asked to prove it (EXPECT_NODE_MAJOR) and the Node 24 stage,
 * which would run the same suites on the same Node again, is left out. Elsewhere it follows the
 * bundled stage in its chain (it reads the assembly that stage synthesized).
 */

export interface Stage {
  name: string;
  script: string;
  /** Passed to the script after `--` (files or folders, for a shard). */
  args?: string[];
  env?: Record<string, string>;
}

export interface LanePlan {
  /** How many chains run at once. */
  runners: number;
  /** The chains in the order the runners take them; each chain's stages run in order, on one runner. */
  chains: Stage[][];
  /** Stages left out, each with the reason printed in the summary. */
  covered: { name: string; by: string }[];
}

export const LAMBDA_NODE_MAJOR = '24';

export const lanePlan = (nodeMajor: string): LanePlan => {
  const onLambdaNode = nodeMajor === LAMBDA_NODE_MAJOR;
  const bundled: Stage = onLambdaNode
    ? { name: 'bundled', script: 'test:bundled', env: { EXPECT_NODE_MAJOR: LAMBDA_NODE_MAJOR } }
    : { name: 'bundled', script: 'test:bundled' };
  // DynamoDB Local's suites in two parts (the robustness suite, the integration suite), each with
  // an emulator of its own.
  const ddbLocal = (part: string, args: string[]): Stage => ({
    name: `ddb-${part}`,
    script: 'test:ddb-local',
    args,
    env: { TEST_STAGE: 'ddb-local' },
  });
  return {
    runners: 2,
    chains: [
      [{ name: 'browser', script: 'test:browser' }],
      // Not the crash test and the fault loops (TEST_STAGE=ddb-local, vitest.config.ts): the
      // vitest stage runs them on the embedded store.
      [ddbLocal('robust', ['test/robustness'])],
      [{ name: 'vitest', script: 'test:vitest', env: { TEST_STAGE: 'sources' } }],
      // One stage, one emulator: its halves ran one after the other on one runner anyway, and each
      // paid for an emulator's start and warm-up.
      [ddbLocal('integ', ['test/integration'])],
      [bundled, ...(onLambdaNode ? [] : [{ name: 'node24', script: 'test:node24' }])],
    ],
    covered: onLambdaNode
      ? [{ name: 'node24', by: `the bundled stage ran on Node ${LAMBDA_NODE_MAJOR}` }]
      : [],
  };
};
