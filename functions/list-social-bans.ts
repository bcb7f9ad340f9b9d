import { listSocialBans } from '../lib/domain/bans';
import { httpRoute } from '../lib/http/chain';
import { listSocialBansRoute } from '../lib/routes';

export const handler = httpRoute(listSocialBansRoute, async ({ publisherId, gameId, path, query }) => ({
  body: await listSocialBans(publisherId, gameId, path.device_id, query),
}));
