import { fileAppeal } from '../lib/domain/appeals';
import { httpRoute } from '../lib/http/chain';
import { createAppealRoute } from '../lib/routes';

export const handler = httpRoute(createAppealRoute, async ({ publisherId, gameId, body, actor }) => {
  const appeal = await fileAppeal(publisherId, gameId, body, actor);
  return { statusCode: appeal.result === 'created' ? 201 : 200, body: appeal };
});
