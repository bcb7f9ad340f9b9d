import { decideAppeal } from '../lib/domain/appeals';
import { httpRoute } from '../lib/http/chain';
import { decideAppealRoute } from '../lib/routes';

export const handler = httpRoute(decideAppealRoute, async ({ publisherId, path, body, actor, caller }) => ({
  body: await decideAppeal(publisherId, path.appeal_id, body, actor, caller.games),
}));
