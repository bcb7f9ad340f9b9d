import { exportPage } from '../lib/domain/exports';
import { httpRoute } from '../lib/http/chain';
import { exportDataRoute } from '../lib/routes';

export const handler = httpRoute(exportDataRoute, async ({ publisherId, path, query, actor }) => ({
  body: await exportPage(publisherId, path.kind, query.cursor, query.limit, actor),
}));
