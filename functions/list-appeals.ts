import { listAppeals } from '../lib/domain/appeals';
import { httpRoute } from '../lib/http/chain';
import { listAppealsRoute } from '../lib/routes';

export const handler = httpRoute(listAppealsRoute, async ({ publisherId, query }) => ({
  body: await listAppeals(publisherId, query),
}));
