import { putReasons } from '../lib/domain/reasons';
import { httpRoute } from '../lib/http/chain';
import { putReasonsRoute } from '../lib/routes';

export const handler = httpRoute(putReasonsRoute, async ({ publisherId, body, actor }) => ({
  body: await putReasons(publisherId, body, actor),
}));
