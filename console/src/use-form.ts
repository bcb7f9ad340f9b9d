import { useState } from 'preact/hooks';
import { apiFieldError } from './ui';
import type { Request } from './use-request';
import { check, type Rule } from './validation';

/**
 * One form's state, which every form kept by hand: its field values, the errors the page finds
 * before sending (the API's own rules, from validation.ts and lib/model), the API's per-field
 * issues of a 400 put under the same fields, and the reset after a success. The message and busy
 * flag are the form's request's (use-request.ts), so a refusal's field issues land here.
 */

export type FieldErrors = Record<string, string | undefined>;

/** `label` and the rule's words when `value` breaks the API's `rule`: "Key name must be 1-64 characters". */
export const ruleError = (label: string, rule: Rule, value: string): string | undefined => {
  const broken = check(rule, value);
  return broken && `${label} ${broken}`;
};

export const useForm = <V extends Record<string, unknown>>(initial: V, request: Request) => {
  const [values, setValues] = useState<V>(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  /** A setter for one field, for `onValue` / `onChosen` (a value or an update of the value). */
  const set =
    <K extends keyof V>(field: K) =>
    (value: V[K] | ((now: V[K]) => V[K])) =>
      setValues((now) => ({
        ...now,
        [field]: typeof value === 'function' ? (value as (now: V[K]) => V[K])(now[field]) : value,
      }));
  /** The page's error for `field`, else the API's issue for `apiField` (the same name unless told). */
  const error = (field: string, apiField = field) =>
    errors[field] ?? apiFieldError(request.message, apiField);
  /** Shows what the page found; true when nothing is wrong, else the form's refusal as the message. */
  const accept = (found: FieldErrors, refusal: string, valid = true) => {
    setErrors(found);
    if (!valid || Object.values(found).some(Boolean)) {
      request.setMessage({ kind: 'error', text: refusal });
      return false;
    }
    return true;
  };
  /** After a success: no errors, no message, and `fields` (all unless told) back to where they started. */
  const reset = (fields: Array<keyof V> = Object.keys(initial)) => {
    setErrors({});
    request.setMessage(null);
    setValues((now) => {
      const next = { ...now };
      for (const field of fields) next[field] = initial[field];
      return next;
    });
  };
  return { values, set, errors, error, accept, reset };
};
