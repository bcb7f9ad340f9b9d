import { reportCsv, transparencyReport } from '../lib/domain/transparency';
import { httpRoute } from '../lib/http/chain';
import { preferredMediaType } from '../lib/http/media-types';
import { transparencyReportRoute } from '../lib/routes';

const CSV = 'text/csv; charset=utf-8';

export const handler = httpRoute(transparencyReportRoute, async ({ publisherId, query, accept }) => {
  const report = await transparencyReport(publisherId, query);
  // `format` decides; without it the Accept header does, and caches must key the answer by it.
  const format =
    query.format ??
    (preferredMediaType(accept, ['application/json', 'text/csv']) === 'text/csv' ? 'csv' : 'json');
  const headers = query.format === undefined ? { Vary: 'Accept' } : undefined;
  return format === 'csv'
    ? { body: reportCsv(report), contentType: CSV, headers }
    : { body: report, headers };
});
