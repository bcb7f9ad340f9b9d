import { createBan } from '../lib/domain/bans';
import { httpRoute } from '../lib/http/chain';
import { createBanRoute } from '../lib/routes';

export const handler = httpRoute(createBanRoute, async ({ publisherId, gameId, body, actor }) => {
  const ban = await createBan(publisherId, gameId, body, actor);
  return { statusCode: ban.status === 'created' ? 201 : 200, body: ban };
});
