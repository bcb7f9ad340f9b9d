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

/**
 * Shared pieces: messages that take focus, the in-flight guard, scope gates, confirmations, times
 * and badges. The form's inputs, the pager and the preview table have their own modules, and are
 * exported here as well.
 */

export { ChoiceList, Field, FieldError } from './ui-fields';
export { Pager, useCursorPages } from './ui-pager';
export { PreviewTable } from './ui-preview-table';

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

/**
 * A confirmation before something that cannot be taken back: a heading, what will happen (and any
 * field it needs), the action and Cancel. Escape cancels, as Cancel does, unless the action is
 * under way. The heading takes focus when it opens, unless `focusHeading` is false (the panel
 * focuses its own field).
 */
/** A form's submit button (its words while busy given by the caller) and Cancel, both off while busy. */
export const FormActions = ({
  busy,
  submit,
  danger = false,
  onCancel,
}: {
  busy: boolean;
  submit: string;
  danger?: boolean;
  onCancel: () => void;
}) => (
  <div class="actions">
    <button type="submit" {...(danger ? { class: 'danger' } : {})} disabled={busy}>
      {submit}
    </button>
    <button type="button" class="secondary" disabled={busy} onClick={onCancel}>
      Cancel
    </button>
  </div>
);

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
        <FormActions busy={busy} submit={busy ? busyAction : action} danger onCancel={onCancel} />
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
