import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { operations } from '../../lib/http/openapi';
import { operationExamples } from '../../lib/http/openapi-examples';
import { handlerEntry, routes } from '../../lib/routes';

/**
 * The API description must not weigh on the Lambdas: a function's bundle carries its own
 * operation and nothing of the others or of the examples (see lib/http/operations.ts).
 */

const bundle = async (handler: string) => {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(`../../${handlerEntry(handler)}`, import.meta.url))],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    mainFields: ['module', 'main'],
    minify: true,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
};

describe('function bundles', () => {
  it.each(['getPolicy', 'createBan'] as const)(
    'of %s hold its own operation only, and no example',
    async (id) => {
      const route = routes.find((r) => r.id === id);
      const code = await bundle(route?.handler ?? '');
      for (const [other, operation] of Object.entries(operations)) {
        // Descriptions are the bulkiest literal of each operation; minified, quotes may change.
        const text = operation.description.slice(0, 40);
        if (other === id) expect(code).toContain(text);
        else expect(code, other).not.toContain(text);
      }
      expect(code).not.toContain(JSON.stringify(operationExamples.getPolicy.responses[200].updated_at));
    },
    30_000,
  );
});
