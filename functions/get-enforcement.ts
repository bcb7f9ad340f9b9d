import { getDeviceEnforcement } from '../lib/enforcement';
import { httpRoute } from '../lib/http/chain';
import { getEnforcementOperation } from '../lib/http/operations';

export const handler = httpRoute(getEnforcementOperation, async ({ publisherId, gameId, path }) => ({
  body: await getDeviceEnforcement(publisherId, gameId, path.device_id),
}));
