/**
 * The stages of `npm test` after the typecheck and lint, in two lanes that run at the same time,
 * each lane's stages in order (test/lanes.ts runs them):
 *
 *   sources:  vitest (unit, openapi, infra, client, host, docs, the crash test) → the browser pass
 *   deployed: the bundled synth and suite → the same bundles on Node 24 → DynamoDB Local
 *
 * Each suite runs once on the store and runtime that proves it: the integration suite on the
 * bundles over the embedded store (the bundled stage) and on the sources over DynamoDB Local; the
 * robustness suite on DynamoDB Local, but for the crash test, which is about `npm start`'s own
 * embedded store and runs in the vitest stage (TEST_STAGE=sources, vitest.config.ts).
 *
 * When the lanes themselves run on Node 24 (a Node 24 machine, or an older one where
 * infra/supported-node.mjs switched to the pinned Node 24), the bundled stage already is the
 * bundled suite on Node 24: it is asked to prove it (EXPECT_NODE_MAJOR) and the Node 24 stage,
 * which would run the same suites on the same Node again, is left out.
 */

export interface Stage {
  name: string;
  script: string;
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
  return {
    lanes: [
      [
        { name: 'vitest', script: 'test:vitest', env: { TEST_STAGE: 'sources' } },
        { name: 'browser', script: 'test:browser' },
      ],
      [
        bundled,
        ...(onLambdaNode ? [] : [{ name: 'node24', script: 'test:node24' }]),
        { name: 'ddb-local', script: 'test:ddb-local' },
      ],
    ],
    covered: onLambdaNode
      ? [{ name: 'node24', by: `the bundled stage ran on Node ${LAMBDA_NODE_MAJOR}` }]
      : [],
  };
};
