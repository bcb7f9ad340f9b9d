import { listAllBans } from '../lib/bans';
import { httpRoute } from '../lib/http/chain';
import { listBansOperation } from '../lib/http/operations';

export const handler = httpRoute(listBansOperation, async ({ publisherId, gameId, path, query }) => ({
  body: await listAllBans(publisherId, gameId, path.device_id, query),
}));
