import { readFileSync } from 'node:fs';

/**
 * The requests docs/openapi.json's own examples make: each operation's parameter examples (path,
 * query, header) and its request body example, for the suites that call every operation as the
 * document shows it (test/openapi/examples.test.ts, test/conformance).
 */

export type Parameter = { name: string; in: 'path' | 'query' | 'header'; example?: unknown };
export type Operation = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: {
    content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }>;
  };
};

export const documentPaths = (
  JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as {
    paths: Record<string, Record<string, Operation>>;
  }
).paths;

/** Every operation of the document, with its path template and method. */
export const documentOperations = Object.entries(documentPaths).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([method]) => ['get', 'post', 'put', 'delete'].includes(method))
    .map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
);

/** The path (with its query), headers and body the examples of `operation` at `template` make. */
export const exampleRequest = (template: string, operation: Operation) => {
  let path = template;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of operation.parameters ?? []) {
    if (p.example === undefined) continue;
    const value = String(p.example);
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(value));
    else if (p.in === 'query') query.set(p.name, value);
    else headers[p.name] = value;
  }
  const content = operation.requestBody?.content['application/json'];
  const body = content?.example ?? Object.values(content?.examples ?? {})[0]?.value;
  return { path: `${path}${query.size > 0 ? `?${query}` : ''}`, headers, body };
};
