import { listCheatBans } from '../lib/domain/bans';
import { httpRoute } from '../lib/http/chain';
import { listCheatBansRoute } from '../lib/routes';

export const handler = httpRoute(listCheatBansRoute, async ({ publisherId, gameId, path, query }) => ({
  body: await listCheatBans(publisherId, gameId, path.device_id, query),
}));
