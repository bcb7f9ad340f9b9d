import { sendTestEvent } from '../lib/domain/dispatch';
import { httpRoute } from '../lib/http/chain';
import { testWebhookRoute } from '../lib/routes';

export const handler = httpRoute(testWebhookRoute, async ({ publisherId, caller, path, actor }) => ({
  statusCode: 202,
  body: await sendTestEvent(publisherId, caller.games, path.webhook_id, actor),
}));
