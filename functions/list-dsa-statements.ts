import { listDsaStatements } from '../lib/domain/dsa-statements';
import { httpRoute } from '../lib/http/chain';
import { listDsaStatementsRoute } from '../lib/routes';

export const handler = httpRoute(listDsaStatementsRoute, async ({ publisherId, query }) => ({
  body: await listDsaStatements(publisherId, query),
}));
