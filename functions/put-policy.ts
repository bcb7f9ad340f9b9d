import { updatePolicy } from '../lib/domain/policy';
import { httpRoute } from '../lib/http/chain';
import { updatePolicyRoute } from '../lib/routes';

export const handler = httpRoute(updatePolicyRoute, async ({ publisherId, body, actor }) => ({
  body: await updatePolicy(publisherId, body, actor),
}));
