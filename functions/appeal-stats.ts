import { appealStats } from '../lib/domain/appeals';
import { httpRoute } from '../lib/http/chain';
import { appealStatsRoute } from '../lib/routes';

export const handler = httpRoute(appealStatsRoute, async ({ publisherId }) => ({
  body: await appealStats(publisherId),
}));
