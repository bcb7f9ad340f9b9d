import type { ComponentChildren } from 'preact';
import type { Scope } from './api';
import { type Message, Notice, ScopeGate, type ScopeKnowledge } from './ui';

/**
 * A panel of the Start page: its heading, what it read (or why the session may not see it, or why
 * it could not be read), and where the whole story is. Each panel reads on its own.
 */

/** A read of several answers summed up as one success, in the shape of an answer (a refusal is returned as it came). */
export interface Found<T> {
  ok: true;
  status: 200;
  body: T;
  retryAfter: null;
}
export const found = <T,>(body: T): Found<T> => ({ ok: true, status: 200, body, retryAfter: null });

/** A panel of the page: its heading, then its content, or why the session may not see it. */
export const Panel = ({
  id,
  title,
  scope,
  knowledge,
  what,
  link,
  children,
}: {
  id: string;
  title: string;
  scope: Scope;
  knowledge: ScopeKnowledge;
  what: string;
  /** Where the whole story is: the view's address and the link's words. */
  link: { href: string; text: string };
  children: ComponentChildren;
}) => (
  <section aria-labelledby={id} class="panel">
    <h3 id={id}>{title}</h3>
    <ScopeGate scope={scope} known={knowledge} what={what}>
      {/* Its space is kept from the first frame: a panel's answer scrolls inside it rather than
          push the panels after it down as it arrives. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be focusable to be scrolled from the keyboard */}
      <section class="start-read" aria-label={`${title}: what was read`} tabIndex={0}>
        {children}
      </section>
      <p>
        <a href={link.href}>{link.text}</a>
      </p>
    </ScopeGate>
  </section>
);

/** While a panel's read is on its way: its first, or again after Read again. */
const Reading = ({ what, again = false }: { what: string; again?: boolean }) => (
  <p class="meta">
    Reading {what}
    {again ? ' again' : ''}…
  </p>
);

/** What a panel read, shown by `children`; before that, that it is reading `what`, or why it could not. */
export const PanelRead = <T,>({
  read,
  what,
  children,
}: {
  read: { value: T | null; message: Message; busy: boolean };
  what: string;
  children: (value: T) => ComponentChildren;
}) =>
  read.value === null ? (
    read.message ? (
      <Notice message={read.message} />
    ) : (
      <Reading what={what} />
    )
  ) : (
    <>
      {read.busy && <Reading what={what} again />}
      {children(read.value)}
    </>
  );
