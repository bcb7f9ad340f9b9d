import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorStatus } from '../../lib/http/errors';
import { buildOpenApiDocument, OPENAPI_FILE, serializeOpenApiDocument } from '../../lib/openapi/document';
import { operations } from '../../lib/openapi/operations';
import { routes } from '../../lib/routes';
import { startTestApi, type TestApi } from '../support/api';

const committedText = readFileSync(new URL(`../../${OPENAPI_FILE}`, import.meta.url), 'utf8');
const committed = JSON.parse(committedText);
const operationOf = (route: (typeof routes)[number]) =>
  committed.paths[route.path][route.method.toLowerCase()];

describe('docs/openapi.json', () => {
  it('is exactly what the code generates (if not, run `npm run openapi` and commit the result)', () => {
    expect(serializeOpenApiDocument(buildOpenApiDocument())).toBe(committedText);
  });

  it('describes every route of the route table, by its id, with authentication where the route has it', () => {
    const documented = Object.entries(committed.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
    for (const route of routes) {
      const operation = operationOf(route);
      expect(operation.operationId).toBe(route.id);
      expect(operation.summary).toBe(operations[route.id].summary);
      // Operations without their own `security` inherit the document's bearer requirement; the
      // player's page's take its link instead, and answer 401 for a bad one.
      const playerLink = 'playerLink' in route.request && route.request.playerLink === true;
      expect(operation.security).toEqual(route.auth ? undefined : playerLink ? [{ playerLink: [] }] : []);
      expect(Object.keys(operation.responses)).toContain(route.auth || playerLink ? '401' : '200');
    }
    expect(committed.security).toEqual([{ bearerAuth: [] }]);
    expect(committed.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(committed.components.securitySchemes.playerLink).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Player-Link',
    });
  });

  it('requires X-Game-Id exactly on the routes that read it', () => {
    const withGame = routes.filter((route) =>
      (operationOf(route).parameters ?? []).some(
        (p: { name: string; in: string; required: boolean }) =>
          p.name === 'X-Game-Id' && p.in === 'header' && p.required,
      ),
    );
    expect(withGame.map((r) => r.id).sort()).toEqual([
      'createAppeal',
      'createBan',
      'createPlayerLink',
      'getEnforcement',
      'getEnforcementBatch',
      'getEnforcementSnapshot',
      'importBans',
      'listBans',
      'listCheatBans',
      'listEvents',
      'listSocialBans',
      'previewPolicy',
      'revokeBan',
    ]);
  });

  it('documents the query integers as the integers the server accepts, with their defaults', () => {
    const params = operationOf(routes.find((r) => r.id === 'listSocialBans') as (typeof routes)[number])
      .parameters as { name: string; required: boolean; schema: object }[];
    const byName = Object.fromEntries(params.map((p) => [p.name, p]));
    expect(byName.limit).toMatchObject({
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    });
    expect(byName.cursor).toMatchObject({ required: false, schema: { type: 'integer', minimum: 1 } });
    expect(byName.status).toMatchObject({
      required: false,
      schema: { enum: ['active', 'inactive', 'all'], default: 'active' },
    });
    expect(byName.device_id).toMatchObject({ in: 'path', required: true, schema: { type: 'string' } });
  });

  it('forbids undocumented fields in every object it describes', () => {
    const open: string[] = [];
    const visit = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (schema.type === 'object' && schema.properties && schema.additionalProperties !== false)
        open.push(at);
      for (const [key, child] of Object.entries(schema)) visit(child, `${at}/${key}`);
    };
    visit(committed.components.schemas, '#/components/schemas');
    // Only the served document itself is open (OpenAPI has many more fields than we check).
    expect(open.every((at) => at.startsWith('#/components/schemas/OpenApiDocument'))).toBe(true);
  });

  it('answers every error with the one Error envelope, narrowed to the codes of its status', () => {
    for (const [name, response] of Object.entries(committed.components.responses) as [string, any][]) {
      const schema = response.content['application/json'].schema;
      expect(schema.allOf[0], name).toEqual({ $ref: '#/components/schemas/Error' });
      const codes = schema.allOf[1].properties.error.properties.code.enum as string[];
      const statuses = new Set(codes.map((code) => errorStatus[code as keyof typeof errorStatus]));
      expect(statuses.size, name).toBe(1);
      expect(Object.keys(response.content['application/json'].examples).sort(), name).toEqual(
        [...codes].sort(),
      );
    }
    expect([...committed.components.schemas.Error.properties.error.properties.code.enum].sort()).toEqual(
      Object.keys(errorStatus).sort(),
    );
  });

  it('lists the errors each operation can answer, from what it takes', () => {
    const statuses = (id: string) =>
      Object.keys(operationOf(routes.find((r) => r.id === id) as (typeof routes)[number]).responses);
    // 503 everywhere: any function may fail to answer in time, and the gateway says so.
    expect(statuses('health')).toEqual(['200', '400', '429', '500', '503']);
    expect(statuses('getPolicy')).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(statuses('createBan')).toEqual([
      '200',
      '201',
      '400',
      '401',
      '403',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    expect(statuses('revokeBan')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
  });
});

describe('GET /openapi.json', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api?.close());

  it('serves the committed document, without authentication, with its own address as the first server', async () => {
    const res = await api.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const { servers, ...rest } = res.body;
    const { servers: committedServers, ...committedRest } = committed;
    expect(rest).toEqual(committedRest);
    expect(servers).toEqual([
      { url: api.url, description: 'The server that served this document.' },
      ...committedServers,
    ]);
  });
});
