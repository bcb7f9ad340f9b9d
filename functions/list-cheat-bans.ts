import { listCheatBans } from '../lib/bans';
import { httpRoute } from '../lib/http/chain';
import { devicePathSchema, listBansQuerySchema } from '../lib/http/schemas';

export const handler = httpRoute(
  { game: true, path: devicePathSchema, query: listBansQuerySchema },
  async ({ publisherId, gameId, path, query }) => ({
    body: await listCheatBans(publisherId, gameId, path.device_id, query),
  }),
);
