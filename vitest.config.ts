import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The console's browser suite runs once, on its own: npm run test:browser (test/browser/run.ts).
    exclude: [...configDefaults.exclude, 'test/browser/**'],
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
