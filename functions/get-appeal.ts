import { getAppeal } from '../lib/domain/appeals';
import { httpRoute } from '../lib/http/chain';
import { getAppealRoute } from '../lib/routes';

export const handler = httpRoute(getAppealRoute, async ({ publisherId, path, caller }) => ({
  body: await getAppeal(publisherId, path.appeal_id, caller),
}));
