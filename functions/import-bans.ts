import { importBans } from '../lib/domain/imports';
import { httpRoute } from '../lib/http/chain';
import { importBansRoute } from '../lib/routes';

export const handler = httpRoute(importBansRoute, async ({ publisherId, gameId, body, actor, caller }) => ({
  statusCode: 200,
  body: await importBans(publisherId, gameId, body, actor, caller.games),
}));
