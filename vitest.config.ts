import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * `npm test`'s sources stage (TEST_STAGE=sources, test/support/lane-plan.ts) leaves out what the
 * DynamoDB Local stage runs from the same sources: the integration suite (run on the embedded store
 * by the bundled stage) and the robustness suite, but for the crash test, whose store is the
 * embedded one of `npm start` itself (its data folder surviving a kill -9).
 */
const onDynamoDbLocal =
  process.env.TEST_STAGE === 'sources'
    ? ['test/integration/**', 'test/robustness/!(events-crash).test.ts']
    : [];

export default defineConfig({
  // The shared kernel by name, as tsconfig.json's paths has it (kernel/README.md).
  resolve: {
    alias: [{ find: /^@kernel\//, replacement: fileURLToPath(new URL('./kernel/', import.meta.url)) }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The console's browser suite runs once, on its own: npm run test:browser (test/browser/run.ts).
    exclude: [...configDefaults.exclude, 'test/browser/**', ...onDynamoDbLocal],
    // Unit tests mock the client, but lib/storage/client.ts insists on a table name at import.
    env: {
      TABLE_NAME: 'unit-test-table',
      LOG_LEVEL: 'silent',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
