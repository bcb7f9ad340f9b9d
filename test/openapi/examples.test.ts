import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { documentOperations, exampleRequest } from '../support/examples';

/**
 * Every parameter example in docs/openapi.json is one the API accepts: each operation is called
 * with the examples of all its parameters (path, query and header) and its request body example,
 * as the publisher the examples are written for (`acme`, whose feed cursor example is bound to it
 * and `space-raiders`), and no parameter may be refused as invalid. An example may still name
 * something that does not exist (a 404 is an answer about the thing, not about the parameter).
 */

const operations = documentOperations;

let api: TestApi;
let key: string;
beforeAll(async () => {
  api = await startTestApi();
  key = (await api.createKey('acme', 'examples')).api_key;
});
afterAll(() => api?.close());

describe('parameter examples', () => {
  const withExamples = operations.filter(({ operation }) =>
    (operation.parameters ?? []).some((p) => p.example !== undefined),
  );

  it('the document gives examples for the parameters of most operations', () => {
    expect(withExamples.length).toBeGreaterThan(10);
  });

  it.each(withExamples.map((o) => [o.operation.operationId, o] as const))(
    '%s accepts every parameter example it documents',
    async (_id, { path, method, operation }) => {
      const parameters = operation.parameters ?? [];
      for (const p of parameters) expect(p.example, `${operation.operationId} ${p.name}`).not.toBeUndefined();
      const { path: url, headers, body } = exampleRequest(path, operation);
      const res = await api.request(method, url, {
        key,
        headers,
        ...(body === undefined ? {} : { body }),
      });
      const refused = (res.body?.error?.details ?? []).map((d: { field: string }) => d.field);
      expect(refused, `${method} ${url}: ${res.text}`).toEqual([]);
      expect(res.status, `${method} ${url}: ${res.text}`).not.toBe(400);
    },
  );
});
