import { revokeBan } from '../lib/bans';
import { httpRoute } from '../lib/http/chain';
import { revokeBanOperation } from '../lib/http/operations';

export const handler = httpRoute(revokeBanOperation, async ({ publisherId, path, body }) => ({
  body: await revokeBan(publisherId, path.device_id, path.ban_id, body.reason_code),
}));
