import { getEnforcementBatch } from '../lib/enforcement';
import { httpRoute } from '../lib/http/chain';
import { enforcementBatchRequestSchema } from '../lib/http/schemas';

export const handler = httpRoute(
  { game: true, body: enforcementBatchRequestSchema },
  async ({ publisherId, gameId, body }) => ({
    body: await getEnforcementBatch(publisherId, gameId, body.device_ids),
  }),
);
