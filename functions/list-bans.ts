import { listAllBans } from '../lib/bans';
import { httpRoute } from '../lib/http/chain';
import { devicePathSchema, listAllBansQuerySchema } from '../lib/http/schemas';

export const handler = httpRoute(
  { game: true, path: devicePathSchema, query: listAllBansQuerySchema },
  async ({ publisherId, gameId, path, query }) => ({
    body: await listAllBans(publisherId, gameId, path.device_id, query),
  }),
);
