import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The console's browser suite (`npm run test:browser`, through test/browser/run.ts). The default
 * `vitest run` leaves test/browser out (vitest.config.ts), so these run once, here.
 *
 * Two files at a time, each with its own server (`npm start`'s, in its worker: support/server.ts)
 * and its own connection to the pass's one Chromium (test/browser/run.ts): a page mostly waits on
 * the browser and the server, so two files fill the time one leaves idle. The files share their
 * worker's modules (`isolate: false`): each keeps its server, browser and data in its own module.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../', import.meta.url)),
  // The shared kernel by name, as tsconfig.json's paths has it (kernel/README.md).
  resolve: {
    alias: [{ find: /^@kernel\//, replacement: fileURLToPath(new URL('../../kernel/', import.meta.url)) }],
  },
  test: {
    include: ['test/browser/**/*.test.ts'],
    maxWorkers: 2,
    isolate: false,
    env: {
      LOG_LEVEL: 'silent',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    testTimeout: 60_000,
    hookTimeout: 90_000,
    // vitest's own default, 1 s, is a race on a loaded 2-core machine: a page that answers in 1.2 s
    // is right, not failing. Ten seconds, as the page helpers (support/console.ts) wait.
    expect: { poll: { timeout: 10_000 } },
  },
});
