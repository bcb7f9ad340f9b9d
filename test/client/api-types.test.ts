import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiTypes, operationsFile, operationTable, typesFile } from '../../console/generate-types';

/**
 * The API's generated files, client/src/api-types.ts (the types) and client/src/operations.ts (the
 * method table): the client package ships them and the console imports them. Both typed clients
 * are only as true as they are: they follow the document, character for character.
 */
describe("the API's generated types", () => {
  it('are what openapi-typescript makes of docs/openapi.json today (regenerate: npx tsx console/generate-types.ts)', async () => {
    expect(readFileSync(typesFile, 'utf8')).toBe(await apiTypes());
  });
});

describe("the API's generated method table", () => {
  it('is what console/generate-types.ts makes of docs/openapi.json today (regenerate: npx tsx console/generate-types.ts)', () => {
    expect(readFileSync(operationsFile, 'utf8')).toBe(operationTable());
  });

  it('refuses an operation without a usable x-retry', () => {
    const document = (retry: unknown) => ({
      paths: { '/v1/things': { get: { operationId: 'listThings', 'x-retry': retry } } },
    });
    expect(operationTable(document('read'))).toContain(
      "listThings: { method: 'GET', path: '/v1/things', pathParams: [], game: false, retry: 'read' },",
    );
    expect(() => operationTable(document(undefined))).toThrow(/listThings: x-retry is undefined/);
    expect(() => operationTable(document('sometimes'))).toThrow(/listThings: x-retry is "sometimes"/);
  });
});
