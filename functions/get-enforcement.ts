import { getDeviceEnforcement } from '../lib/enforcement';
import { httpRoute } from '../lib/http/chain';
import { devicePathSchema } from '../lib/http/schemas';

export const handler = httpRoute(
  { game: true, path: devicePathSchema },
  async ({ publisherId, gameId, path }) => ({
    body: await getDeviceEnforcement(publisherId, gameId, path.device_id),
  }),
);
