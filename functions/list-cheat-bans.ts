import { listCheatBans } from '../lib/bans';
import { httpRoute } from '../lib/http/chain';
import { listCheatBansOperation } from '../lib/http/operations';

export const handler = httpRoute(listCheatBansOperation, async ({ publisherId, gameId, path, query }) => ({
  body: await listCheatBans(publisherId, gameId, path.device_id, query),
}));
