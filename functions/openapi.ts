import document from '../docs/openapi.json' with { type: 'json' };
import { httpRoute } from '../lib/http/chain';
import { openApiRoute } from '../lib/routes';

// The committed file, bundled in (a test keeps it equal to the code), served with the server that
// answers first, so a tool pointed at it calls this deployment rather than a template.
export const handler = httpRoute(openApiRoute, ({ baseUrl }) => ({
  body: {
    ...document,
    servers: [{ url: baseUrl, description: 'The server that served this document.' }, ...document.servers],
  },
}));
