import { httpRoute } from '../lib/http/chain';
import { getPolicyOperation } from '../lib/http/operations';
import { getPolicy } from '../lib/policy';

export const handler = httpRoute(getPolicyOperation, async ({ publisherId }) => ({
  body: await getPolicy(publisherId),
}));
