import { reportCsv, transparencyReport } from '../lib/domain/transparency';
import { httpRoute } from '../lib/http/chain';
import { transparencyReportRoute } from '../lib/routes';

export const handler = httpRoute(transparencyReportRoute, async ({ publisherId, query }) => {
  const report = await transparencyReport(publisherId, query);
  return query.format === 'csv'
    ? { body: reportCsv(report), contentType: 'text/csv; charset=utf-8' }
    : { body: report };
});
