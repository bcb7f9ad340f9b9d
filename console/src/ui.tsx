import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import {
  type AnyAnswer,
  type Ban,
  explain,
  type FieldIssue,
  formatTime,
  fromNow,
  type Problem,
  type Scope,
} from './api';
import type { PreviewRow } from './preview';

/** Shared pieces: messages that take focus, labelled fields, the in-flight guard, scope gates. */

export type Message = { kind: 'error' | 'ok'; text: string; fields?: FieldIssue[] } | null;

export const errorMessage = (answer: AnyAnswer | Problem): Message => {
  const problem = 'text' in answer ? answer : explain(answer);
  return { kind: 'error', text: problem.text, fields: problem.fields };
};

/** An element that takes focus whenever `when` changes to something truthy. */
export const useFocusOn = <T extends HTMLElement>(when: unknown) => {
  const ref = useRef<T>(null);
  // A layout effect: focus moves in the same task as the change that caused it.
  useLayoutEffect(() => {
    if (when) ref.current?.focus();
  }, [when]);
  return ref;
};

/**
 * A message after an action: errors are alerts, successes are polite status updates; either takes
 * focus so keyboard and screen reader users land on the outcome. Unless `keepFocus`: the answer
 * to a search typed in a field is announced, and the focus stays in the field being typed in.
 */
export const Notice = ({
  message,
  id,
  keepFocus,
}: {
  message: Message;
  id?: string;
  keepFocus?: boolean;
}) => {
  const ref = useFocusOn<HTMLParagraphElement>(keepFocus ? null : message);
  if (!message) return null;
  const fieldless = (message.fields ?? []).filter((f) => f.field !== '');
  return (
    <div class={`notice ${message.kind}`} role={message.kind === 'error' ? 'alert' : 'status'} id={id}>
      <p tabIndex={-1} ref={ref}>
        {message.text}
      </p>
      {fieldless.length > 0 && (
        <ul>
          {fieldless.map((f) => (
            <li key={f.field}>
              {f.field}: {f.issue}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
};

/**
 * Runs `follow` once `value` differs from what it was at the last render, never on mount: the
 * state's initial value already follows it there, and an effect on mount runs after the first
 * paint, so it would undo whatever was typed before that frame.
 */
export const useOnChange = <T,>(value: T, follow: (value: T) => void) => {
  const seen = useRef(value);
  useEffect(() => {
    if (Object.is(seen.current, value)) return;
    seen.current = value;
    follow(value);
  }, [value]);
};

/**
 * Runs one request at a time: `busy` disables the form's buttons, and a second run while busy is
 * ignored; unless it `supersedes` (a new question, such as another device to list), which runs at
 * once, the caller keeping only the latest answer. `busy` lasts until every run has finished.
 */
export const useBusy = () => {
  const [busy, setBusy] = useState(false);
  const running = useRef(0);
  const run = useCallback(async (work: () => Promise<void>, options: { supersedes?: boolean } = {}) => {
    if (running.current > 0 && !options.supersedes) return;
    running.current += 1;
    setBusy(true);
    try {
      await work();
    } finally {
      running.current -= 1;
      if (running.current === 0) setBusy(false);
    }
  }, []);
  return { busy, run };
};

interface FieldProps {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  error?: string | undefined;
  hint?: string;
  type?: 'text' | 'password' | 'url' | 'datetime-local';
  required?: boolean;
  autoComplete?: string;
  placeholder?: string;
  multiline?: boolean;
  spellcheck?: boolean;
}

/** A labelled input with its hint and error tied to it (aria-describedby, aria-invalid). */
export const Field = (props: FieldProps) => {
  const described = [props.hint ? `${props.id}-hint` : '', props.error ? `${props.id}-error` : '']
    .filter(Boolean)
    .join(' ');
  const common = {
    id: props.id,
    name: props.id,
    value: props.value,
    required: props.required,
    'aria-invalid': props.error ? true : undefined,
    'aria-describedby': described || undefined,
    autoComplete: props.autoComplete ?? 'off',
    spellcheck: props.spellcheck ?? false,
    placeholder: props.placeholder,
    onInput: (e: Event) => props.onValue((e.currentTarget as HTMLInputElement).value),
  };
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.multiline ? (
        <textarea rows={4} {...common} />
      ) : (
        <input type={props.type ?? 'text'} {...common} />
      )}
      {props.hint && (
        <small id={`${props.id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
      {props.error && (
        <small id={`${props.id}-error`} class="field-error">
          {props.error}
        </small>
      )}
    </div>
  );
};

/** After a Cancel: focus back on the button that opened the panel (by its accessible name). */
export const refocus = (label: string) => {
  requestAnimationFrame(() =>
    document.querySelector<HTMLElement>(`[aria-label="${CSS.escape(label)}"]`)?.focus(),
  );
};

/** The API's field issue for `field`, when a refusal named it. */
export const apiFieldError = (message: Message, field: string): string | undefined => {
  const issue = message?.fields?.find((f) => f.field === field);
  return issue ? `The API refused it: ${issue.issue}` : undefined;
};

/** What the console knows of each scope; `bound`: held, but refused because the key is bound to games. */
export type ScopeKnowledge = Record<Scope, { held: boolean | null; note: string; bound?: true }>;

/**
 * Shown instead of a section (or a form) that the key's scopes do not allow: the scope it lacks,
 * or, for what spans every game, that the key is bound to games.
 */
export const ScopeGate = ({
  scope,
  known,
  what,
  children,
}: {
  scope: Scope;
  known: ScopeKnowledge;
  what: string;
  children: ComponentChildren;
}) => {
  const { held, note, bound } = known[scope];
  if (held !== false) return <>{children}</>;
  const why = note ? ` (${note})` : '';
  return bound ? (
    <p class="gate">
      {what} is hidden: it spans every game, and this key is bound to games{why}.
    </p>
  ) : (
    <p class="gate">
      {what} is hidden: it needs the scope <code>{scope}</code>, which this session lacks{why}.
    </p>
  );
};

/**
 * A wide table's scroller: a named region that takes focus, so a keyboard can scroll it (axe
 * scrollable-region-focusable). A labelled <section> is a region by itself.
 */
export const TableScroll = ({ label, children }: { label: string; children: ComponentChildren }) => (
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be focusable to be scrolled from the keyboard
  <section class="table-wrap" aria-label={label} tabIndex={0}>
    {children}
  </section>
);

/** Checkboxes choosing some of `options`, each with a line of help if `help` gives one. */
export const ChoiceList = <T extends string>(props: {
  /** Prefix of the boxes' ids: `${id}-${option}`. */
  id: string;
  legend: string;
  options: readonly T[];
  chosen: readonly T[];
  onChosen: (update: (now: T[]) => T[]) => void;
  help?: (option: T) => string | undefined;
  error?: string | undefined;
}) => {
  const { id, legend, options, chosen, onChosen, help, error } = props;
  return (
    <fieldset aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {options.map((option) => {
        const hint = help?.(option);
        const box = `${id}-${option}`;
        return (
          <div class="check" key={option}>
            <input
              type="checkbox"
              id={box}
              checked={chosen.includes(option)}
              aria-describedby={hint ? `${box}-help` : undefined}
              onChange={(e) => {
                const on = (e.currentTarget as HTMLInputElement).checked;
                onChosen((now) => (on ? [...now, option] : now.filter((o) => o !== option)));
              }}
            />
            {hint ? (
              <div>
                <label for={box}>{option}</label>
                <div id={`${box}-help`} class="hint">
                  {hint}
                </div>
              </div>
            ) : (
              <label for={box}>{option}</label>
            )}
          </div>
        );
      })}
      {error && (
        <small id={`${id}-error`} class="field-error">
          {error}
        </small>
      )}
    </fieldset>
  );
};

/**
 * A confirmation before something that cannot be taken back: a heading, what will happen (and any
 * field it needs), the action and Cancel. Escape cancels, as Cancel does, unless the action is
 * under way. The heading takes focus when it opens, unless `focusHeading` is false (the panel
 * focuses its own field).
 */
export const ConfirmStep = ({
  id,
  title,
  action,
  busyAction,
  busy,
  onConfirm,
  onCancel,
  focusHeading = true,
  children,
}: {
  id: string;
  title: string;
  action: string;
  busyAction: string;
  busy: boolean;
  onConfirm: (e: Event) => void;
  onCancel: () => void;
  focusHeading?: boolean;
  children: ComponentChildren;
}) => {
  const heading = useFocusOn<HTMLHeadingElement>(focusHeading ? title : null);
  return (
    <section
      aria-labelledby={id}
      class="panel confirm"
      onKeyDown={(e) => {
        if (e.key !== 'Escape' || busy) return;
        e.preventDefault();
        onCancel();
      }}
    >
      <h3 id={id} tabIndex={-1} ref={heading}>
        {title}
      </h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onConfirm(e);
        }}
        noValidate
      >
        {children}
        <div class="actions">
          <button type="submit" class="danger" disabled={busy}>
            {busy ? busyAction : action}
          </button>
          <button type="button" class="secondary" disabled={busy} onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
};

/**
 * A time in the moderator's own time zone, with how far it is from now ("in 3 days"); the exact
 * UTC time on hover and for assistive technology (the `datetime` attribute).
 */
export const TimeText = ({ iso, prefix = '' }: { iso: string; prefix?: string }) => (
  <time dateTime={iso} title={`${iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}`}>
    {prefix}
    {formatTime(iso)} ({fromNow(iso)})
  </time>
);

/** A ban's state in words and in colour (never colour alone). */
export const StateBadge = ({ state }: { state: 'active' | 'revoked' | 'expired' }) => (
  <span class={`badge badge-${state}`}>{state}</span>
);

/** A ban's appeal in words: open, or its outcome once decided. */
export const appealWords = (appeal: NonNullable<Ban['appeal']>): string =>
  appeal.status === 'open' ? 'appeal open' : `appeal ${appeal.outcome ?? 'decided'}`;

/** A ban's appeal as a badge, in words (never colour alone). */
export const AppealBadge = ({ appeal }: { appeal: NonNullable<Ban['appeal']> }) => (
  <span class="badge">{appealWords(appeal)}</span>
);

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
 * superseding a read under way (useBusy's `supersedes`), whose answer is then dropped however late
 * it comes; a refusal leaves no rows; and `clear` forgets the rows and any read under way when the
 * question changes before it can be asked.
 */
export const useCursorPages = <A extends AnyAnswer, F>(
  read: (filters: F, cursor: string | undefined) => Promise<A>,
  initial: F,
  { latest = false }: { latest?: boolean } = {},
) => {
  type Page = Extract<A, { ok: true }>['body'];
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<Page | null>(null);
  const [applied, setApplied] = useState<F>(initial);
  const [message, setMessage] = useState<Message>(null);
  const { busy, run } = useBusy();
  // The question the page should answer: with `latest`, only its answer is kept.
  const asked = useRef(0);
  const load = (stack: Array<string | undefined>, filters: F = applied) => {
    setMessage(null);
    return run(
      async () => {
        const question = ++asked.current;
        const answer = await read(filters, stack[stack.length - 1]);
        if (latest && question !== asked.current) return;
        if (!answer.ok) {
          if (latest) setPage(null);
          setMessage(errorMessage(answer));
          return;
        }
        setApplied(filters);
        setCursors(stack);
        setPage(answer.body as Page);
      },
      { supersedes: latest },
    );
  };
  const clear = () => {
    asked.current += 1;
    setPage(null);
    setMessage(null);
    setCursors([undefined]);
  };
  const next = (page as { next_cursor?: string | null } | null)?.next_cursor ?? null;
  return {
    page,
    applied,
    message,
    setMessage,
    busy,
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
  <TableScroll label={label}>
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">What</th>
          <th scope="col">Now</th>
          <th scope="col">{after}</th>
          <th scope="col">Changes</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.label} class={r.changes ? 'changed' : undefined}>
            <th scope="row">{r.label}</th>
            <td>{r.now}</td>
            <td>{r.after}</td>
            <td>{r.changes ? 'changes' : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </TableScroll>
);
