import document from '../docs/openapi.json' with { type: 'json' };
import { httpRoute } from '../lib/http/chain';
import { openApiOperation } from '../lib/http/operations';

// The committed file, bundled in: serving it reads nothing, and a test keeps it equal to the code.
export const handler = httpRoute(openApiOperation, () => ({ body: document }));
