import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import document from '../../docs/openapi.json' with { type: 'json' };

/**
 * Contract enforcement for the integration suite: every response must be one the committed
 * docs/openapi.json documents for that method and path, with its headers, and a body its schema
 * accepts (the schemas forbid undocumented fields). The only responses outside the document are
 * the gateway's own 404/405 for a method and path that name no operation, and those must still be
 * the error envelope.
 */

interface HeaderObject {
  required?: boolean;
}
interface ResponseObject {
  headers?: Record<string, HeaderObject | { $ref: string }>;
  content?: Record<string, unknown>;
}
type Ref = { $ref: string };
type Operations = Record<string, { responses: Record<string, ResponseObject | Ref> }>;

const DOC_ID = 'https://device-ban-service.local/openapi.json';
const JSON_MEDIA_TYPE = 'application/json';

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
// The document is added whole so that its `#/components/...` references resolve; only schemas in
// it are compiled, and these two keywords hold everything else.
ajv.addVocabulary(['paths', 'components']);
ajv.addSchema({ $id: DOC_ID, paths: document.paths, components: document.components });

const pointer = (...segments: string[]) =>
  segments.map((s) => s.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

const validators = new Map<string, ValidateFunction>();
const validatorAt = (jsonPointer: string) => {
  let validate = validators.get(jsonPointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOC_ID}#/${jsonPointer}` });
    validators.set(jsonPointer, validate);
  }
  return validate;
};

const resolve = <T>(node: T | Ref): { value: T; at: string } => {
  if (node && typeof node === 'object' && '$ref' in node) {
    const at = node.$ref.replace(/^#\//, '');
    const value = at
      .split('/')
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((n, key) => (n as Record<string, unknown>)[key], document);
    return { value: value as T, at };
  }
  return { value: node as T, at: '' };
};

const templates = Object.keys(document.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`),
}));

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

let checked = 0;
/** How many responses this process has checked against the document. */
export const contractChecks = () => checked;

export interface CheckedResponse {
  method: string;
  /** The request path, query included. */
  path: string;
  status: number;
  headers: Headers;
  text: string;
}

export const checkResponse = ({ method, path, status, headers, text }: CheckedResponse) => {
  const pathname = new URL(path, 'http://api').pathname;
  const where = `${method} ${pathname} → ${status}`;
  const fail = (problem: string): never => {
    throw new ContractViolation(`${where}: ${problem}\nbody: ${text.slice(0, 2000)}`);
  };

  const template = templates.find((t) => t.pattern.test(pathname))?.template;
  const operation = template
    ? (document.paths as Record<string, Operations>)[template]?.[method.toLowerCase()]
    : undefined;

  let responsePointer: string;
  let response: ResponseObject;
  if (!operation || !template) {
    // The gateway's own answer for a method and path that name no operation.
    if (status !== 404 && status !== 405) fail('no operation is documented for this method and path');
    responsePointer = pointer('components', 'schemas', 'Error');
    response = { content: { [JSON_MEDIA_TYPE]: {} } };
  } else {
    const documented = operation.responses[String(status)];
    if (!documented) {
      fail(`undocumented status; documented: ${Object.keys(operation.responses).join(', ')}`);
    }
    const resolved = resolve<ResponseObject>(documented as ResponseObject | Ref);
    response = resolved.value;
    const base = resolved.at || pointer('paths', template, method.toLowerCase(), 'responses', String(status));
    responsePointer = `${base}/${pointer('content', JSON_MEDIA_TYPE, 'schema')}`;
  }

  for (const [name, header] of Object.entries(response.headers ?? {})) {
    if (resolve<HeaderObject>(header).value.required && !headers.has(name)) fail(`header ${name} is missing`);
  }
  if (!response.content) {
    checked += 1;
    return;
  }
  const contentType = headers.get('content-type') ?? '';
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  // Another media type the operation documents (the transparency report's CSV): a body of it, not JSON.
  if (mediaType !== JSON_MEDIA_TYPE && mediaType in response.content) {
    if (text.length === 0) fail(`the ${mediaType} body is empty`);
    checked += 1;
    return;
  }
  if (mediaType !== JSON_MEDIA_TYPE) {
    fail(`Content-Type ${contentType || '(none)'} is not ${JSON_MEDIA_TYPE}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    fail('the body is not JSON');
  }
  const validate = validatorAt(responsePointer);
  if (!validate(body)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message}`);
    fail(`the body does not match ${responsePointer}:\n  ${problems.join('\n  ')}`);
  }
  checked += 1;
};
