import { openPlayerLink, playerPage } from '../lib/domain/player-links';
import { httpRoute } from '../lib/http/chain';
import { getPlayerPageRoute } from '../lib/routes';

export const handler = httpRoute(getPlayerPageRoute, async ({ playerLink }) => ({
  body: await playerPage(await openPlayerLink(playerLink)),
}));
