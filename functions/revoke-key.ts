import { revokeKey } from '../lib/domain/api-keys';
import { httpRoute } from '../lib/http/chain';
import { revokeKeyRoute } from '../lib/routes';

export const handler = httpRoute(revokeKeyRoute, async ({ publisherId, caller, path, actor }) => ({
  body: await revokeKey(publisherId, caller, path.key_id, actor),
}));
