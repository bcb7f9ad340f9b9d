import { useState } from 'preact/hooks';
import { useFocusOn } from './ui';

/**
 * A secret the API shows once (a new key, a webhook's signing secret): in a read-only field to
 * select or copy, with the heading focused, until the moderator hides it. It is kept nowhere else.
 */
export const OnceSecret = ({
  id,
  title,
  label,
  value,
  onHide,
}: {
  id: string;
  title: string;
  label: string;
  value: string;
  onHide: () => void;
}) => {
  const heading = useFocusOn<HTMLHeadingElement>(value);
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('Could not copy: select the text and copy it.');
    }
  };
  return (
    <section aria-labelledby={`${id}-heading`} class="panel once">
      <h3 id={`${id}-heading`} tabIndex={-1} ref={heading}>
        {title}
      </h3>
      <p>Copy it now: it is shown only this once, and the console does not keep it.</p>
      <div class="field">
        <label for={id}>{label}</label>
        <input
          id={id}
          class="secret"
          type="text"
          readOnly
          value={value}
          onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
        />
      </div>
      <div class="actions">
        <button type="button" class="secondary" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" onClick={onHide}>
          Done, hide it
        </button>
      </div>
      {copied && (
        <p role="status" class="meta">
          {copied}
        </p>
      )}
    </section>
  );
};
