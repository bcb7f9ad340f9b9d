/**
 * The stages of `npm test` after the typecheck and lint, in two lanes that run at the same time,
 * each lane's stages in order (test/lanes.ts runs them):
 *
 *   1: vitest on the sources → the robustness suite on DynamoDB Local → half the integration suite there
 *   2: the bundled synth and stage → (Node 24) → the browser pass → the other half
 *
 * Each suite runs once on the store and runtime that proves it (vitest.config.ts): the bundles,
 * on the Lambda's Node, by the conformance walk of the route table with the events functions'
 * bundles and the documentation's examples (TEST_STAGE=bundled); the integration and robustness
 * suites on the sources over DynamoDB Local, but for the crash test, which is about `npm start`'s
 * own embedded store and runs in the vitest stage (TEST_STAGE=sources).
 *
 * When the lanes themselves run on Node 24 (a Node 24 machine, or an older one where
 * infra/supported-node.mjs switched to the pinned Node 24), the bundled stage already is the
 * bundled suite on Node 24: it is asked to prove it (EXPECT_NODE_MAJOR) and the Node 24 stage,
 * which would run the same suites on the same Node again, is left out.
 */

export interface Stage {
  name: string;
  script: string;
  /** Passed to the script after `--` (files or folders, for a shard). */
  args?: string[];
  env?: Record<string, string>;
}

export interface LanePlan {
  lanes: Stage[][];
  /** Stages left out, each with the reason printed in the summary. */
  covered: { name: string; by: string }[];
}

export const LAMBDA_NODE_MAJOR = '24';

export const lanePlan = (nodeMajor: string): LanePlan => {
  const onLambdaNode = nodeMajor === LAMBDA_NODE_MAJOR;
  const bundled: Stage = onLambdaNode
    ? { name: 'bundled', script: 'test:bundled', env: { EXPECT_NODE_MAJOR: LAMBDA_NODE_MAJOR } }
    : { name: 'bundled', script: 'test:bundled' };
  // DynamoDB Local's suites in three parts (the robustness suite, the integration suite in halves),
  // placed so that the lanes' CPU times come out close (measured: docs/testing.md); each part
  // starts an emulator of its own.
  const ddbLocal = (part: string, args: string[]): Stage => ({
    name: `ddb-${part}`,
    script: 'test:ddb-local',
    args,
  });
  return {
    lanes: [
      [
        { name: 'vitest', script: 'test:vitest', env: { TEST_STAGE: 'sources' } },
        // The crash test ran on `npm start`'s own store in the vitest stage: the store it is about.
        ddbLocal('robust', ['test/robustness', '--exclude', 'test/robustness/events-crash.test.ts']),
        ddbLocal('integ-2', ['test/integration', '--shard=2/2']),
      ],
      [
        bundled,
        ...(onLambdaNode ? [] : [{ name: 'node24', script: 'test:node24' }]),
        { name: 'browser', script: 'test:browser' },
        ddbLocal('integ-1', ['test/integration', '--shard=1/2']),
      ],
    ],
    covered: onLambdaNode
      ? [{ name: 'node24', by: `the bundled stage ran on Node ${LAMBDA_NODE_MAJOR}` }]
      : [],
  };
};
