import { listPeople } from '../lib/domain/people-admin';
import { httpRoute } from '../lib/http/chain';
import { listPeopleRoute } from '../lib/routes';

export const handler = httpRoute(listPeopleRoute, async ({ publisherId }) => ({
  body: await listPeople(publisherId),
}));
