import { getPolicy } from '../lib/domain/policy';
import { httpRoute } from '../lib/http/chain';
import { getPolicyRoute } from '../lib/routes';

export const handler = httpRoute(getPolicyRoute, async ({ publisherId }) => ({
  body: await getPolicy(publisherId),
}));
