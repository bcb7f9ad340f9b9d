import { deviceData } from '../lib/domain/exports';
import { httpRoute } from '../lib/http/chain';
import { deviceDataRoute } from '../lib/routes';

export const handler = httpRoute(deviceDataRoute, async ({ publisherId, path, actor }) => ({
  body: await deviceData(publisherId, path.device_id, actor),
}));
