import { listGamesUsed } from '../lib/domain/games-used';
import { httpRoute } from '../lib/http/chain';
import { listGamesRoute } from '../lib/routes';

export const handler = httpRoute(listGamesRoute, async ({ publisherId, caller }) => ({
  body: await listGamesUsed(publisherId, caller.games),
}));
