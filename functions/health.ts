import { httpRoute } from '../lib/http/chain';

// No storage call: a load balancer check must not depend on (or load) DynamoDB.
export const handler = httpRoute({ auth: false }, () => ({ body: { ok: true } }));
