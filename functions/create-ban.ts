import { createBan } from '../lib/domain/bans';
import { httpRoute } from '../lib/http/chain';
import { createBanRoute } from '../lib/routes';

export const handler = httpRoute(createBanRoute, async ({ publisherId, gameId, body, actor, caller }) => {
  const ban = await createBan(publisherId, gameId, body, actor, caller.games);
  return { statusCode: ban.status === 'created' ? 201 : 200, body: ban };
});
