import { restrictionDimensionNames, restrictionDimensions } from '@kernel/transparency';
import { formatDuration, type Schemas } from './api';
import { DataTable } from './data-table';
import type { ModeratorName } from './transparency';

/**
 * The transparency report's numbers for the period, as a table: every dimension with each of its
 * values, then revocations and appeals. The charts show the same; this is what a reader copies.
 */

type Report = Schemas['TransparencyReport'];

/** A dimension's name in words. */
export const dimensionWords: Record<(typeof restrictionDimensionNames)[number], string> = {
  type: 'Type',
  scope: 'Scope',
  ground: 'Ground',
  category: 'Category',
  automated_detection: 'Detected by automated means',
  automated_decision: 'Decided by automated means',
};

/** A value as the page shows it: words, not the API's underscores. */
export const valueWords = (dimension: string, value: string) =>
  dimension === 'automated_detection' ? (value === 'true' ? 'yes' : 'no') : value.replaceAll('_', ' ');

const seconds = (value: number | null) => (value === null ? '—' : `${value} s (${formatDuration(value)})`);

export const ReportTable = ({ report, moderatorName }: { report: Report; moderatorName: ModeratorName }) => {
  const rows: Array<[string, string, string | number]> = [['Restrictions', 'all', report.restrictions.total]];
  for (const dimension of restrictionDimensionNames) {
    const counts = report.restrictions[`by_${dimension}`] as Record<string, number>;
    for (const value of restrictionDimensions[dimension])
      rows.push([dimensionWords[dimension], valueWords(dimension, value), counts[value] ?? 0]);
  }
  for (const [code, count] of Object.entries(report.restrictions.by_reason))
    rows.push(['Reason', code, count]);
  rows.push(['Revocations', 'all', report.revocations]);
  const { appeals } = report;
  for (const name of ['received', 'decided', 'upheld', 'overturned', 'shortened'] as const)
    rows.push(['Appeals', name, appeals[name]]);
  rows.push(['Time to decision', 'median', seconds(appeals.median_seconds_to_decision)]);
  rows.push(['Time to decision', '90th percentile', seconds(appeals.p90_seconds_to_decision)]);
  for (const row of appeals.by_moderator)
    for (const name of ['decided', 'upheld', 'overturned', 'shortened'] as const)
      rows.push([`Moderator ${name}`, moderatorName(row.moderator), row[name]]);
  return (
    <DataTable
      label="Transparency report table"
      caption={`Counts from ${report.from} to ${report.to} (UTC, ${report.days} ${report.days === 1 ? 'day' : 'days'})`}
      columns={['Dimension', 'Value', 'Count']}
    >
      {rows.map(([dimension, value, count]) => (
        <tr key={`${dimension}-${value}`} data-dimension={dimension} data-value={value}>
          <th scope="row">{dimension}</th>
          <td>{value}</td>
          <td>{count}</td>
        </tr>
      ))}
    </DataTable>
  );
};
