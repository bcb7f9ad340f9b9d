import { httpRoute } from '../lib/http/chain';
import { healthRoute } from '../lib/routes';

// No storage call: a load balancer check must not depend on (or load) DynamoDB.
export const handler = httpRoute(healthRoute, () => ({ body: { ok: true } }));
