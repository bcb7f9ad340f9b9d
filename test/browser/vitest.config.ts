import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The console's browser suite (`npm run test:browser`, through test/browser/run.ts). The default
 * `vitest run` leaves test/browser out (vitest.config.ts), so these run once, here.
 *
 * One file at a time: each starts its own `npm start` and Chromium, and the machines this runs on
 * have two cores; two browsers and two servers at once would make the timings meaningless and
 * the waits flaky.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../', import.meta.url)),
  // The shared kernel by name, as tsconfig.json's paths has it (kernel/README.md).
  resolve: {
    alias: [{ find: /^@kernel\//, replacement: fileURLToPath(new URL('../../kernel/', import.meta.url)) }],
  },
  test: {
    include: ['test/browser/**/*.test.ts'],
    fileParallelism: false,
    env: {
      LOG_LEVEL: 'silent',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    testTimeout: 60_000,
    hookTimeout: 90_000,
  },
});
