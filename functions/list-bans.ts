import { listAllBans } from '../lib/domain/bans';
import { httpRoute } from '../lib/http/chain';
import { listBansRoute } from '../lib/routes';

export const handler = httpRoute(listBansRoute, async ({ publisherId, gameId, path, query }) => ({
  body: await listAllBans(publisherId, gameId, path.device_id, query),
}));
