import { searchBannedDevices } from '../lib/domain/banned-devices';
import { httpRoute } from '../lib/http/chain';
import { listDevicesRoute } from '../lib/routes';

export const handler = httpRoute(listDevicesRoute, async ({ publisherId, query, caller }) => ({
  body: await searchBannedDevices(publisherId, query, caller.games),
}));
