import { httpRoute } from '../lib/http/chain';
import { updatePolicyOperation } from '../lib/http/operations';
import { updatePolicy } from '../lib/policy';

export const handler = httpRoute(updatePolicyOperation, async ({ publisherId, body }) => ({
  body: await updatePolicy(publisherId, body),
}));
