import { useState } from 'preact/hooks';
import type { AnyAnswer } from './api';
import { useRead } from './ui-read';

/** Paged listings: Previous and Next under the table, and the cursors and filters behind them. */

/** Previous and Next under a paged table, and which page it is. */
export const Pager = ({
  number,
  busy,
  onPrevious,
  onNext,
}: {
  number: number;
  busy: boolean;
  /** Absent on the first page. */
  onPrevious: (() => void) | undefined;
  /** Absent on the last page. */
  onNext: (() => void) | undefined;
}) => (
  <div class="pager">
    <button type="button" disabled={busy || !onPrevious} onClick={onPrevious}>
      Previous page
    </button>
    <span>Page {number}</span>
    <button type="button" disabled={busy || !onNext} onClick={onNext}>
      Next page
    </button>
  </div>
);

/**
 * A listing read a page at a time with the API's opaque `next_cursor`: the cursors that led to
 * the page shown (Previous goes back one), the filters it was read with (paging keeps them while
 * the form is edited), and the refusal of the last read, if it was one.
 *
 * With `latest` (a search as the moderator types), every read is a new question: it runs at once,
 * superseding a read under way, whose answer is then dropped however late it comes (use-request.ts);
 * a refusal leaves no rows; and `clear` forgets the rows and any read under way when the question
 * changes before it can be asked. Without it, a refusal leaves the rows shown.
 */
export const useCursorPages = <A extends AnyAnswer, F>(
  read: (filters: F, cursor: string | undefined) => Promise<A>,
  initial: F,
  { latest = false }: { latest?: boolean } = {},
) => {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [applied, setApplied] = useState<F>(initial);
  const request = useRead<A>({ latest, keep: !latest });
  const { value: page, message, setMessage, busy } = request;
  const load = (stack: Array<string | undefined>, filters: F = applied) =>
    request.read(
      () => read(filters, stack[stack.length - 1]),
      () => {
        setApplied(filters);
        setCursors(stack);
      },
    );
  const clear = () => {
    request.forget();
    request.setValue(null);
    setCursors([undefined]);
  };
  const next = (page as { next_cursor?: string | null } | null)?.next_cursor ?? null;
  return {
    page,
    applied,
    message,
    setMessage,
    busy,
    /** The reads' request, for a filter form's useForm (use-form.ts): its refusals and field issues. */
    request,
    /** The first page of these filters (a new search), or of those applied. */
    first: (filters: F = applied) => load([undefined], filters),
    /** The page shown, read again (after a change). */
    reload: () => load(cursors),
    /** No rows, no message, and the answer of any read under way dropped (with `latest`). */
    clear,
    pager: {
      number: cursors.length,
      busy,
      onPrevious: cursors.length > 1 ? () => void load(cursors.slice(0, -1)) : undefined,
      onNext: next !== null ? () => void load([...cursors, next]) : undefined,
    },
  };
};
