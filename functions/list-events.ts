import { readFeed } from '../lib/domain/feed';
import { httpRoute } from '../lib/http/chain';
import { listEventsRoute } from '../lib/routes';

export const handler = httpRoute(listEventsRoute, async ({ publisherId, gameId, query, caller }) => ({
  body: await readFeed(publisherId, gameId, query, caller.games),
}));
