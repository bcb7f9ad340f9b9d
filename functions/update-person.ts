import { updatePerson } from '../lib/domain/people-admin';
import { httpRoute } from '../lib/http/chain';
import { updatePersonRoute } from '../lib/routes';

export const handler = httpRoute(updatePersonRoute, async ({ publisherId, path, body, actor }) => ({
  body: await updatePerson(publisherId, path.person_id, body, actor),
}));
