import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../lib/routes';

/** The README's typed-client instructions, followed to the letter in a scratch folder. */

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

const readmeSnippet = async (language: string) => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## OpenAPI description'));
  const block = section.match(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``))?.[1];
  if (!block) throw new Error(`the README's OpenAPI section has no ${language} block`);
  return block;
};

let dir: string;
let types: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'openapi-client-'));
  // The README's command: `npx openapi-typescript docs/openapi.json -o src/device-bans-api.d.ts`.
  await run(bin('openapi-typescript'), ['docs/openapi.json', '-o', join(dir, 'device-bans-api.d.ts')], {
    cwd: root,
  });
  types = await readFile(join(dir, 'device-bans-api.d.ts'), 'utf8');
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const compile = async (source: string) => {
  await writeFile(join(dir, 'client.ts'), source);
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2022', 'DOM'],
        module: 'preserve',
        moduleResolution: 'bundler',
        strict: true,
        noEmit: true,
        types: [],
      },
      files: ['client.ts'],
    }),
  );
  return run(bin('tsc'), ['-p', join(dir, 'tsconfig.json')]).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
};

describe('a TypeScript client generated from docs/openapi.json', () => {
  it('has a type for every path and operation', () => {
    for (const route of routes) {
      expect(types).toContain(`"${route.path}": {`);
      expect(types).toContain(`${route.id}: {`);
    }
  });

  it("compiles the README's client snippet against the generated types", async () => {
    expect(await compile(await readmeSnippet('ts'))).toBe('');
  }, 60_000);

  it('refuses a request body the API would refuse', async () => {
    const snippet = await readmeSnippet('ts');
    const errors = await compile(snippet.replace("scope: 'global'", "scope: 'galaxy'"));
    expect(errors).toMatch(/galaxy/);
  }, 60_000);
});
