import { httpRoute } from '../lib/http/chain';
import { healthOperation } from '../lib/http/operations';

// No storage call: a load balancer check must not depend on (or load) DynamoDB.
export const handler = httpRoute(healthOperation, () => ({ body: { ok: true } }));
