/** The form's inputs: a labelled field with its hint and error, and a list of checkboxes. */

/** A field's error under it: `${id}-error`, for the field's aria-describedby. */
export const FieldError = ({ id, error }: { id: string; error: string | undefined }) =>
  error ? (
    <small id={`${id}-error`} class="field-error">
      {error}
    </small>
  ) : null;

interface FieldProps {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  error?: string | undefined;
  hint?: string;
  type?: 'text' | 'password' | 'url' | 'datetime-local' | 'date';
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
      <FieldError id={props.id} error={props.error} />
    </div>
  );
};

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
      <FieldError id={id} error={error} />
    </fieldset>
  );
};
