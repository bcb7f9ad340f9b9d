import { listSocialBans } from '../lib/bans';
import { httpRoute } from '../lib/http/chain';
import { listSocialBansOperation } from '../lib/http/operations';

export const handler = httpRoute(listSocialBansOperation, async ({ publisherId, gameId, path, query }) => ({
  body: await listSocialBans(publisherId, gameId, path.device_id, query),
}));
