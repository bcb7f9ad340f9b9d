import { revokeBan } from '../lib/bans';
import { httpRoute } from '../lib/http/chain';
import { banPathSchema, revokeBanRequestSchema } from '../lib/http/schemas';

export const handler = httpRoute(
  { game: true, path: banPathSchema, body: revokeBanRequestSchema },
  async ({ publisherId, path, body }) => ({
    body: await revokeBan(publisherId, path.device_id, path.ban_id, body.reason_code),
  }),
);
