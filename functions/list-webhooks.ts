import { listWebhooks } from '../lib/domain/webhooks';
import { httpRoute } from '../lib/http/chain';
import { listWebhooksRoute } from '../lib/routes';

export const handler = httpRoute(listWebhooksRoute, async ({ publisherId, caller }) => ({
  body: await listWebhooks(publisherId, caller.games),
}));
