import { putPublisher } from '../lib/domain/publishers';
import { httpRoute } from '../lib/http/chain';
import { putPublisherRoute } from '../lib/routes';

export const handler = httpRoute(putPublisherRoute, async ({ publisherId, body, actor }) => ({
  body: await putPublisher(publisherId, body, actor),
}));
