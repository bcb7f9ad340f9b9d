import { revokeBan } from '../lib/domain/bans';
import { httpRoute } from '../lib/http/chain';
import { revokeBanRoute } from '../lib/routes';

export const handler = httpRoute(
  revokeBanRoute,
  async ({ publisherId, gameId, path, body, actor, caller }) => ({
    body: await revokeBan(
      publisherId,
      gameId,
      path.device_id,
      path.ban_id,
      body.reason_code,
      actor,
      caller.games,
    ),
  }),
);
