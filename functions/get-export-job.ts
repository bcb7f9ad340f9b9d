import { getExportJob } from '../lib/domain/export-job-status';
import { httpRoute } from '../lib/http/chain';
import { getExportJobRoute } from '../lib/routes';

export const handler = httpRoute(getExportJobRoute, async ({ publisherId, path }) => ({
  body: await getExportJob(publisherId, path.export_id),
}));
