import { deleteWebhook } from '../lib/domain/webhooks';
import { httpRoute } from '../lib/http/chain';
import { deleteWebhookRoute } from '../lib/routes';

export const handler = httpRoute(deleteWebhookRoute, async ({ publisherId, caller, path, actor }) => {
  await deleteWebhook(publisherId, caller.games, path.webhook_id, actor);
  return { statusCode: 204, body: null };
});
