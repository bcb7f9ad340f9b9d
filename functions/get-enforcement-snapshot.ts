import { readEnforcementSnapshot } from '../lib/domain/enforcement-snapshot';
import { httpRoute } from '../lib/http/chain';
import { getEnforcementSnapshotRoute } from '../lib/routes';

export const handler = httpRoute(getEnforcementSnapshotRoute, async ({ publisherId, gameId, query }) => ({
  body: await readEnforcementSnapshot(publisherId, gameId, query),
}));
