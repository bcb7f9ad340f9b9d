import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { consoleTypes, typesFile } from '../../console/generate-types';

/** The console's typed client is only as true as its generated types: they follow the document. */
describe("the console's API types", () => {
  it('are what openapi-typescript makes of docs/openapi.json today (regenerate: npx tsx console/generate-types.ts)', async () => {
    expect(readFileSync(typesFile, 'utf8')).toBe(await consoleTypes());
  });
});
