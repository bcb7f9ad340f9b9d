import { mintPlayerLink } from '../lib/domain/player-links';
import { httpRoute } from '../lib/http/chain';
import { createPlayerLinkRoute } from '../lib/routes';

export const handler = httpRoute(createPlayerLinkRoute, async ({ publisherId, gameId, body, caller }) => ({
  statusCode: 201,
  body: await mintPlayerLink(publisherId, gameId, body, caller),
}));
