import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiTypes, typesFile } from '../../console/generate-types';

/**
 * The API's one generated types file, client/src/api-types.ts: the client package ships it and the
 * console imports it. Both typed clients are only as true as it is: it follows the document,
 * character for character.
 */
describe("the API's generated types", () => {
  it('are what openapi-typescript makes of docs/openapi.json today (regenerate: npx tsx console/generate-types.ts)', async () => {
    expect(readFileSync(typesFile, 'utf8')).toBe(await apiTypes());
  });
});
