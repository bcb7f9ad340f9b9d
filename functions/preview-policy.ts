import { previewPolicyReach } from '../lib/domain/policy-reach';
import { httpRoute } from '../lib/http/chain';
import { previewPolicyRoute } from '../lib/routes';

export const handler = httpRoute(previewPolicyRoute, async ({ publisherId, gameId, body }) => ({
  body: await previewPolicyReach(publisherId, gameId, body),
}));
