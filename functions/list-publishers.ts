import { listPublishers } from '../lib/domain/publishers';
import { httpRoute } from '../lib/http/chain';
import { listPublishersRoute } from '../lib/routes';

export const handler = httpRoute(listPublishersRoute, async ({ query }) => ({
  body: await listPublishers(query),
}));
