import { releaseAppealClaim } from '../lib/domain/appeal-claims';
import { httpRoute } from '../lib/http/chain';
import { releaseAppealClaimRoute } from '../lib/routes';

export const handler = httpRoute(releaseAppealClaimRoute, async ({ publisherId, path, actor, caller }) => ({
  body: await releaseAppealClaim(publisherId, path.appeal_id, {
    actor,
    scopes: caller.scopes,
    games: caller.games,
  }),
}));
