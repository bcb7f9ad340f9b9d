import { deleteWebhook } from '../lib/domain/webhooks';
import { httpRoute } from '../lib/http/chain';
import { deleteWebhookRoute } from '../lib/routes';

export const handler = httpRoute(deleteWebhookRoute, async ({ publisherId, path }) => {
  await deleteWebhook(publisherId, path.webhook_id);
  return { statusCode: 204, body: null };
});
