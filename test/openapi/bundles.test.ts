import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { operations } from '../../lib/openapi/operations';
import { handlerEntry, routes } from '../../lib/routes';

/**
 * The API description must not weigh on the Lambdas: a function's bundle carries its own row of
 * the route table (what its chain validates) and nothing of the other rows, of the documentation
 * (descriptions, summaries, response schemas) or of the examples (see lib/routes.ts).
 */

const root = fileURLToPath(new URL('../../', import.meta.url));

const bundle = async (handler: string) => {
  const result = await build({
    entryPoints: [`${root}${handlerEntry(handler)}`],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    mainFields: ['module', 'main'],
    minify: true,
    logLevel: 'silent',
  });
  return { code: result.outputFiles[0]?.text ?? '', inputs: Object.keys(result.metafile.inputs) };
};

/** Modules only the OpenAPI generator may load. */
const generatorOnly = ['lib/openapi/document.ts', 'lib/openapi/operations.ts', 'lib/model/responses.ts'];

describe('function bundles', () => {
  it.each(['getPolicy', 'createBan'] as const)(
    'of %s hold its own operation only, and no documentation or example',
    async (id) => {
      const route = routes.find((r) => r.id === id);
      const { code, inputs } = await bundle(route?.handler ?? '');
      expect(inputs).toContain('lib/routes.ts');
      for (const module of generatorOnly) expect(inputs, module).not.toContain(module);
      for (const other of routes) {
        // A row keeps its id; minified, strings are double-quoted.
        if (other.id === id) expect(code).toContain(JSON.stringify(id));
        else expect(code, other.id).not.toContain(JSON.stringify(other.id));
        expect(code, `${other.id} summary`).not.toContain(operations[other.id].summary.slice(0, 40));
        expect(code, `${other.id} description`).not.toContain(operations[other.id].description.slice(0, 40));
      }
      expect(code).not.toContain(JSON.stringify(operations.getPolicy.responses[200].example.updated_at));
    },
    30_000,
  );
});
