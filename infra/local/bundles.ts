import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { constants, Script } from 'node:vm';
import { HANDLER_METADATA_KEY } from '../stack/handler-metadata';

/**
 * Loads handlers from a synthesized cloud assembly (`cdk synth -o <dir>`) instead of the
 * TypeScript sources: the very `index.mjs` files `cdk deploy` uploads, so the local gateway and
 * the integration suite can prove the deployed code (ESM, bundled SDK and all).
 *
 * Each Lambda in the stack's templates (the parent's and its nested stacks') carries the route
 * table's handler name in its metadata (infra/stack/handler-metadata.ts) next to CDK's
 * `aws:asset:path`.
 */

interface Manifest {
  artifacts?: Record<string, { type: string; properties?: { templateFile?: string } }>;
}

interface Template {
  Resources?: Record<string, { Type: string; Metadata?: Record<string, unknown> }>;
}

/**
 * A stack's template and its nested stacks' (an `AWS::CloudFormation::Stack` whose template is an
 * asset of the assembly, named by its `aws:asset:path`), depth first.
 */
const templatesOf = (dir: string, templateFile: string): Template[] => {
  const template = readJson<Template>(join(dir, templateFile));
  const nested = Object.values(template.Resources ?? {})
    .filter((resource) => resource.Type === 'AWS::CloudFormation::Stack')
    .map((resource) => resource.Metadata?.['aws:asset:path'])
    .filter((file): file is string => typeof file === 'string');
  return [template, ...nested.flatMap((file) => templatesOf(dir, file))];
};

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

/** Handler name → absolute path of its bundle, for every stack in the assembly and its nested stacks. */
export const bundlePaths = (cdkOutDir: string): Map<string, string> => {
  const dir = resolve(cdkOutDir);
  const manifest = readJson<Manifest>(join(dir, 'manifest.json'));
  const paths = new Map<string, string>();
  for (const artifact of Object.values(manifest.artifacts ?? {})) {
    const templateFile = artifact.properties?.templateFile;
    if (artifact.type !== 'aws:cloudformation:stack' || !templateFile) continue;
    for (const resource of templatesOf(dir, templateFile).flatMap((t) => Object.values(t.Resources ?? {}))) {
      const handler = resource.Metadata?.[HANDLER_METADATA_KEY];
      const asset = resource.Metadata?.['aws:asset:path'];
      if (resource.Type !== 'AWS::Lambda::Function' || typeof handler !== 'string') continue;
      if (typeof asset !== 'string') {
        throw new Error(`${handler} has no bundled asset in ${dir}: synthesize with bundling enabled`);
      }
      const file = join(dir, asset, 'index.mjs');
      const known = paths.get(handler);
      if (known && known !== file) {
        throw new Error(`${dir} holds different bundles of ${handler}: synthesize a single stack`);
      }
      paths.set(handler, file);
    }
  }
  if (paths.size === 0) throw new Error(`no bundled handlers found in ${dir}`);
  return paths;
};

/**
 * Node's own `import()`, out of reach of test runners that rewrite dynamic imports (vitest would
 * otherwise transform each bundle instead of loading it the way Lambda's runtime does).
 */
const nativeImport = new Script('(specifier) => import(specifier)', {
  importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
}).runInThisContext() as (specifier: string) => Promise<unknown>;

/** Imports a handler's bundle by its name in the route table (startLocalApi's `bundles`). */
export const bundleLoader = (cdkOutDir: string) => {
  const paths = bundlePaths(cdkOutDir);
  return async (handler: string): Promise<{ handler: unknown }> => {
    const file = paths.get(handler);
    if (!file) throw new Error(`no bundle for handler ${handler} in ${cdkOutDir}`);
    return (await nativeImport(pathToFileURL(file).href)) as { handler: unknown };
  };
};
