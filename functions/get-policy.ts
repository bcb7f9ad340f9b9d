import { httpRoute } from '../lib/http/chain';
import { getPolicy } from '../lib/policy';

export const handler = httpRoute({}, async ({ publisherId }) => ({ body: await getPolicy(publisherId) }));
