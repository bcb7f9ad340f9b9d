import { createWebhook } from '../lib/domain/webhooks';
import { httpRoute } from '../lib/http/chain';
import { createWebhookRoute } from '../lib/routes';

export const handler = httpRoute(createWebhookRoute, async ({ publisherId, caller, body, actor }) => ({
  statusCode: 201,
  body: await createWebhook(publisherId, caller, body, actor),
}));
