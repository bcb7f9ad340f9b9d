import { listExpiringBans } from '../lib/domain/expiring-bans';
import { httpRoute } from '../lib/http/chain';
import { listExpiringBansRoute } from '../lib/routes';

export const handler = httpRoute(listExpiringBansRoute, async ({ publisherId, query, caller }) => ({
  body: await listExpiringBans(publisherId, query, caller.games),
}));
