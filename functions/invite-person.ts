import { invitePerson } from '../lib/domain/people-admin';
import { httpRoute } from '../lib/http/chain';
import { invitePersonRoute } from '../lib/routes';

export const handler = httpRoute(invitePersonRoute, async ({ publisherId, body, actor }) => ({
  statusCode: 201,
  body: await invitePerson(publisherId, body, actor),
}));
