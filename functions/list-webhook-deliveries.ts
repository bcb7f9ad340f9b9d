import { listDeliveries } from '../lib/domain/deliveries';
import { httpRoute } from '../lib/http/chain';
import { listWebhookDeliveriesRoute } from '../lib/routes';

export const handler = httpRoute(
  listWebhookDeliveriesRoute,
  async ({ publisherId, caller, path, query }) => ({
    body: await listDeliveries(publisherId, caller.games, path.webhook_id, query),
  }),
);
