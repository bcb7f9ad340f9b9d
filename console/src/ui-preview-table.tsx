import { DataTable } from './data-table';
import type { PreviewRow } from './preview';

/** A preview's rows: what a change would make of each value, the changed ones marked. */
export const PreviewTable = ({
  label,
  caption,
  after,
  rows,
}: {
  label: string;
  caption: string;
  /** The heading of the column of values after the change ("After saving"). */
  after: string;
  rows: readonly PreviewRow[];
}) => (
  <DataTable label={label} caption={caption} columns={['What', 'Now', after, 'Changes']}>
    {rows.map((r) => (
      <tr key={r.label} class={r.changes ? 'changed' : undefined}>
        <th scope="row">{r.label}</th>
        <td>{r.now}</td>
        <td>{r.after}</td>
        <td>{r.changes ? 'changes' : '—'}</td>
      </tr>
    ))}
  </DataTable>
);
