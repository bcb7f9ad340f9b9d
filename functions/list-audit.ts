import { listAuditEvents } from '../lib/domain/audit';
import { httpRoute } from '../lib/http/chain';
import { listAuditRoute } from '../lib/routes';

export const handler = httpRoute(listAuditRoute, async ({ publisherId, query }) => ({
  body: await listAuditEvents(publisherId, query),
}));
