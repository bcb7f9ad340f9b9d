import { getReasons } from '../lib/domain/reasons';
import { httpRoute } from '../lib/http/chain';
import { getReasonsRoute } from '../lib/routes';

export const handler = httpRoute(getReasonsRoute, async ({ publisherId }) => ({
  body: await getReasons(publisherId),
}));
