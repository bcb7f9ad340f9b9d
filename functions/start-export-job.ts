import { startExportJob } from '../lib/domain/export-jobs';
import { httpRoute } from '../lib/http/chain';
import { startExportJobRoute } from '../lib/routes';

export const handler = httpRoute(startExportJobRoute, async ({ publisherId, body, actor }) => ({
  statusCode: 202,
  body: await startExportJob(publisherId, body.kinds, actor),
}));
