import { filePlayerAppeal, openPlayerLink } from '../lib/domain/player-links';
import { httpRoute } from '../lib/http/chain';
import { filePlayerAppealRoute } from '../lib/routes';

export const handler = httpRoute(filePlayerAppealRoute, async ({ playerLink, body }) => {
  const filed = await filePlayerAppeal(await openPlayerLink(playerLink), body);
  return { statusCode: filed.result === 'created' ? 201 : 200, body: filed };
});
