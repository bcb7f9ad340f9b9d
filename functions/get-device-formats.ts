import { getDeviceFormats } from '../lib/domain/device-formats';
import { httpRoute } from '../lib/http/chain';
import { getDeviceFormatsRoute } from '../lib/routes';

export const handler = httpRoute(getDeviceFormatsRoute, async ({ publisherId }) => ({
  body: await getDeviceFormats(publisherId),
}));
