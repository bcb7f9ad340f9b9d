import { revokeKey } from '../lib/domain/api-keys';
import { httpRoute } from '../lib/http/chain';
import { revokeKeyRoute } from '../lib/routes';

export const handler = httpRoute(revokeKeyRoute, async ({ publisherId, path, actor }) => ({
  body: await revokeKey(publisherId, path.key_id, actor),
}));
