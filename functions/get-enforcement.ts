import { getDeviceEnforcement } from '../lib/domain/enforcement';
import { httpRoute } from '../lib/http/chain';
import { getEnforcementRoute } from '../lib/routes';

export const handler = httpRoute(getEnforcementRoute, async ({ publisherId, gameId, path }) => ({
  body: await getDeviceEnforcement(publisherId, gameId, path.device_id),
}));
