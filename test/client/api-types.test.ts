import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientTypesFile, consoleTypes } from '../../console/generate-types';

/**
 * One generator for both copies of the API's types: the client package's (client/src/api-types.ts,
 * which it ships, so it cannot import the console's) is what openapi-typescript makes of
 * docs/openapi.json today, character for character, as the console's is (test/openapi).
 */
describe("the client package's API types", () => {
  it('are what the generator makes of docs/openapi.json today (regenerate: npx tsx console/generate-types.ts)', async () => {
    expect(readFileSync(clientTypesFile, 'utf8')).toBe(await consoleTypes());
  });
});
