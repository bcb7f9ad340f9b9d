import { DataTable } from './data-table';
import { type CatalogueReason, durationWords } from './reasons';

/** The reason catalogue editor's table: each reason, and with `policy:write` its Edit and Remove. */
export const ReasonsTable = ({
  reasons,
  writeMissing,
  busy,
  onEdit,
  onRemove,
}: {
  reasons: readonly CatalogueReason[];
  writeMissing: boolean;
  busy: boolean;
  onEdit: (index: number) => void;
  onRemove: (index: number) => void;
}) => (
  <DataTable
    label="Reason catalogue table"
    caption={`Reasons (${reasons.length})`}
    columns={[
      'Code',
      'Label',
      'Type',
      'Scope',
      'Duration',
      'Player message',
      // Not DataTable's `actions`: this table's actions column is not pinned at the end.
      ...(writeMissing ? [] : ['Actions']),
    ]}
  >
    {reasons.map((reason, i) => (
      <tr key={reason.code}>
        <td>
          <code>{reason.code}</code>
        </td>
        <td>{reason.label}</td>
        <td>{reason.ban_type}</td>
        <td>{reason.scope}</td>
        <td>{durationWords(reason.duration_seconds)}</td>
        <td>{reason.player_message ?? '—'}</td>
        {!writeMissing && (
          <td>
            <button
              type="button"
              class="secondary"
              disabled={busy}
              aria-label={`Edit ${reason.code}`}
              onClick={() => onEdit(i)}
            >
              Edit
            </button>{' '}
            <button
              type="button"
              class="secondary"
              disabled={busy}
              aria-label={`Remove ${reason.code}`}
              onClick={() => onRemove(i)}
            >
              Remove
            </button>
          </td>
        )}
      </tr>
    ))}
  </DataTable>
);
