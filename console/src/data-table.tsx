import type { ComponentChildren } from 'preact';
import { TableScroll } from './ui';

/**
 * The console's one table shape: a focusable scroller (TableScroll), a caption, a header row of
 * column names with the actions column pinned at the end, and a row saying so when there is
 * nothing to list. The rows are the view's own (`children`), each `<tr>` with its cells.
 */
export const DataTable = ({
  label,
  caption,
  columns,
  actions = false,
  count,
  empty,
  children,
}: {
  /** The scroller's accessible name, e.g. "Keys table". */
  label: string;
  caption?: ComponentChildren;
  columns: readonly ComponentChildren[];
  /** Whether the rows end with an actions cell (`<td class="sticky-end">`). */
  actions?: boolean;
  /** How many rows there are: with `empty`, none shows that line instead. */
  count?: number;
  empty?: string;
  children: ComponentChildren;
}) => (
  <TableScroll label={label}>
    <table>
      {caption !== undefined && <caption>{caption}</caption>}
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={String(column)} scope="col">
              {column}
            </th>
          ))}
          {actions && (
            <th scope="col" class="sticky-end">
              Actions
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {empty !== undefined && count === 0 && (
          <tr>
            <td colSpan={columns.length + (actions ? 1 : 0)}>{empty}</td>
          </tr>
        )}
        {children}
      </tbody>
    </table>
  </TableScroll>
);
