import { issueApiKey } from '../lib/domain/api-keys';
import { httpRoute } from '../lib/http/chain';
import { createKeyRoute } from '../lib/routes';

export const handler = httpRoute(createKeyRoute, async ({ publisherId, caller, body, actor }) => ({
  statusCode: 201,
  body: await issueApiKey(publisherId, caller, body, actor),
}));
