import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';

/**
 * Every parameter example in docs/openapi.json is one the API accepts: each operation is called
 * with the examples of all its parameters (path, query and header) and its request body example,
 * as the publisher the examples are written for (`acme`, whose feed cursor example is bound to it
 * and `space-raiders`), and no parameter may be refused as invalid. An example may still name
 * something that does not exist (a 404 is an answer about the thing, not about the parameter).
 */

type Parameter = { name: string; in: 'path' | 'query' | 'header'; example?: unknown };
type Operation = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: {
    content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }>;
  };
};

const document = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
  ([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ['get', 'post', 'put', 'delete'].includes(method))
      .map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
);

let api: TestApi;
let key: string;
beforeAll(async () => {
  api = await startTestApi();
  key = (await api.createKey('acme', 'examples')).api_key;
});
afterAll(() => api?.close());

const bodyExampleOf = (operation: Operation) => {
  const content = operation.requestBody?.content['application/json'];
  return content?.example ?? Object.values(content?.examples ?? {})[0]?.value;
};

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
      let url = path;
      const query = new URLSearchParams();
      const headers: Record<string, string> = {};
      for (const p of parameters) {
        const value = String(p.example);
        if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(value));
        else if (p.in === 'query') query.set(p.name, value);
        else headers[p.name] = value;
      }
      const body = bodyExampleOf(operation);
      const res = await api.request(method, `${url}${query.size > 0 ? `?${query}` : ''}`, {
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
