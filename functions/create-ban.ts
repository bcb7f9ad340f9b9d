import { createBan } from '../lib/bans';
import { httpRoute } from '../lib/http/chain';
import { createBanRequestSchema } from '../lib/http/schemas';

export const handler = httpRoute(
  { game: true, body: createBanRequestSchema },
  async ({ publisherId, gameId, body }) => {
    const ban = await createBan(publisherId, gameId, body);
    return { statusCode: ban.status === 'created' ? 201 : 200, body: ban };
  },
);
