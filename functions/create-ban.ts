import { createBan } from '../lib/bans';
import { httpRoute } from '../lib/http/chain';
import { createBanOperation } from '../lib/http/operations';

export const handler = httpRoute(createBanOperation, async ({ publisherId, gameId, body }) => {
  const ban = await createBan(publisherId, gameId, body);
  return { statusCode: ban.status === 'created' ? 201 : 200, body: ban };
});
