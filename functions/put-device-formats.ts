import { putDeviceFormats } from '../lib/domain/device-formats';
import { httpRoute } from '../lib/http/chain';
import { putDeviceFormatsRoute } from '../lib/routes';

export const handler = httpRoute(putDeviceFormatsRoute, async ({ publisherId, body, actor }) => ({
  body: await putDeviceFormats(publisherId, body, actor),
}));
