import { listKeys } from '../lib/domain/api-keys';
import { httpRoute } from '../lib/http/chain';
import { listKeysRoute } from '../lib/routes';

export const handler = httpRoute(listKeysRoute, async ({ publisherId, query }) => ({
  body: await listKeys(publisherId, query),
}));
