import { httpRoute } from '../lib/http/chain';
import { policyPatchSchema } from '../lib/http/schemas';
import { updatePolicy } from '../lib/policy';

export const handler = httpRoute({ body: policyPatchSchema }, async ({ publisherId, body }) => ({
  body: await updatePolicy(publisherId, body),
}));
