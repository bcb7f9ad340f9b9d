import { getEnforcementBatch } from '../lib/enforcement';
import { httpRoute } from '../lib/http/chain';
import { getEnforcementBatchOperation } from '../lib/http/operations';

export const handler = httpRoute(getEnforcementBatchOperation, async ({ publisherId, gameId, body }) => ({
  body: await getEnforcementBatch(publisherId, gameId, body.device_ids),
}));
