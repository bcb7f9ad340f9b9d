import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';

/**
 * A form's unsaved typing, kept per form in this tab's sessionStorage (never localStorage: a draft
 * may hold a ban's private details, and it goes with the tab), so a reload or a session that ends
 * and is signed into again brings it back; and a warning before the page is left while one is
 * unsaved. A form whose named fields are as blank holds no draft; a success clears it. Only the
 * fields named are kept (typing, not a device filled in by a lookup), of the blank's types only.
 * Drafts are the signed-in person's (or key's): kept under their owner, and those of anyone else
 * are dropped when another signs in to the tab, as a draft may hold another publisher's details.
 */

const PREFIX = 'draft:';

/** The session's owner (session.ts): set by the console before its forms restore anything. */
let owner = '';
const storageKey = (name: string) => `${PREFIX}${owner}|${name}`;

/**
 * The drafts of this session's owner from now on: every draft of another owner is removed from the
 * tab (the same person signing in again keeps theirs).
 */
export const claimDrafts = (sessionOwner: string) => {
  owner = sessionOwner;
  const own = storageKey('');
  for (let i = sessionStorage.length - 1; i >= 0; i--) {
    const key = sessionStorage.key(i);
    if (key?.startsWith(PREFIX) && !key.startsWith(own)) sessionStorage.removeItem(key);
  }
};

type Setter<V> = <K extends keyof V>(field: K) => (value: V[K]) => void;

const read = (name: string): Record<string, unknown> | null => {
  try {
    const saved = JSON.parse(sessionStorage.getItem(storageKey(name)) ?? 'null');
    return typeof saved === 'object' && saved !== null ? saved : null;
  } catch {
    return null;
  }
};

const differs = <V>(values: V, blank: V, fields: ReadonlyArray<keyof V>) =>
  fields.some((field) => values[field] !== blank[field]);

/** Names of the forms with an unsaved draft in this page, for the one beforeunload warning. */
const unsaved = new Set<string>();
let warning = false;
let leaving = false;
/**
 * The console itself leaves for the identity provider (to sign in or out): drafts stay in the tab
 * and come back with the person, so there is nothing to warn of (and a prompt would stall a silent
 * sign-in).
 */
export const leaveWithoutAsking = () => {
  leaving = true;
};
const warnBeforeLeaving = (e: BeforeUnloadEvent) => {
  if (unsaved.size === 0 || leaving) return;
  e.preventDefault();
  // Older engines show the prompt only when returnValue is set.
  e.returnValue = '';
};

/** Whether this session's owner has a draft of the form `name` in the tab (to open that form again). */
export const hasDraft = (name: string) => read(name) !== null;

/** A draft given up outside its form (a Cancel, a save the form does not see): gone from the tab. */
export const dropDraft = (name: string) => {
  unsaved.delete(name);
  sessionStorage.removeItem(storageKey(name));
};

export const useDraft = <V extends Record<string, unknown>>(
  name: string,
  form: { values: V; set: Setter<V> },
  blank: V,
  fields: ReadonlyArray<keyof V>,
) => {
  const restoring = useRef(true);
  // Restored before the first paint, so no blank frame shows.
  useLayoutEffect(() => {
    restoring.current = true;
    const saved = read(name);
    if (!saved) return;
    for (const field of fields) {
      const value = saved[field as string];
      if (value !== undefined && typeof value === typeof blank[field])
        form.set(field)(value as V[typeof field]);
    }
  }, [name]);
  useEffect(() => {
    if (!warning) {
      warning = true;
      addEventListener('beforeunload', warnBeforeLeaving);
    }
    return () => {
      unsaved.delete(name);
    };
  }, [name]);
  // Written in the commit of the render the typing made, not after the next paint: a reload right
  // after a keystroke must not leave the last field out of the draft.
  useLayoutEffect(() => {
    // The first run sees the values before the draft was put back: it must not write over it.
    if (restoring.current) {
      restoring.current = false;
      if (read(name)) {
        unsaved.add(name);
        return;
      }
    }
    if (differs(form.values, blank, fields)) {
      unsaved.add(name);
      const kept = Object.fromEntries(fields.map((field) => [field, form.values[field]]));
      sessionStorage.setItem(storageKey(name), JSON.stringify(kept));
    } else {
      unsaved.delete(name);
      sessionStorage.removeItem(storageKey(name));
    }
  }, [form.values, name]);
  return {
    /** After a success: the draft goes (what the form holds then is no draft until it is typed in). */
    clear: () => dropDraft(name),
  };
};
