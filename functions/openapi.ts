import document from '../docs/openapi.json' with { type: 'json' };
import { httpRoute } from '../lib/http/chain';
import { openApiRoute } from '../lib/routes';

// The committed file, bundled in: serving it reads nothing, and a test keeps it equal to the code.
export const handler = httpRoute(openApiRoute, () => ({ body: document }));
