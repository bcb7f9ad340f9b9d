import { claimAppeal } from '../lib/domain/appeal-claims';
import { httpRoute } from '../lib/http/chain';
import { claimAppealRoute } from '../lib/routes';

export const handler = httpRoute(claimAppealRoute, async ({ publisherId, path, body, actor, caller }) => ({
  body: await claimAppeal(publisherId, path.appeal_id, body, {
    actor,
    scopes: caller.scopes,
    games: caller.games,
  }),
}));
