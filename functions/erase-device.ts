import { eraseDevice } from '../lib/domain/bans';
import { httpRoute } from '../lib/http/chain';
import { eraseDeviceRoute } from '../lib/routes';

export const handler = httpRoute(eraseDeviceRoute, async ({ publisherId, path, actor }) => ({
  body: await eraseDevice(publisherId, path.device_id, actor),
}));
