import { getEnforcementBatch } from '../lib/domain/enforcement';
import { httpRoute } from '../lib/http/chain';
import { getEnforcementBatchRoute } from '../lib/routes';

export const handler = httpRoute(getEnforcementBatchRoute, async ({ publisherId, gameId, body }) => ({
  body: await getEnforcementBatch(publisherId, gameId, body.device_ids),
}));
