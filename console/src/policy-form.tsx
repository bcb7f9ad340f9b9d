import { useEffect } from 'preact/hooks';
import type { Call, Policy, Schemas } from './api';
import type { OpenDevice } from './device';
import { Preview, Reach } from './policy-preview';
import { type Draft, draftOf, flagHelp, patchOf, patchText, policyFlags } from './preview';
import { TrustSettings } from './trust';
import type { Directory } from './trust-directory';
import type { ScopeKnowledge } from './ui';
import { useForm } from './use-form';
import type { Request } from './use-request';

/**
 * The Policy view's form: the policy as drafted (the eight flags, each with what it changes, and
 * the trust settings), what saving it would change, and Save or Discard. It starts from the policy
 * as read, and after a save from the policy the API answered.
 */
export const PolicyForm = ({
  call,
  knowledge,
  device,
  saved,
  directory,
  request,
  onSaved,
  onDirty,
}: {
  call: Call;
  knowledge: ScopeKnowledge;
  device: OpenDevice | null;
  saved: Policy;
  directory: Directory;
  /** The view's request: the policy's read, and its saves. */
  request: Request;
  onSaved: (policy: Policy) => void;
  onDirty: (dirty: boolean) => void;
}) => {
  // The draft's fields as a plain object type: useForm takes no interface (the kernel's PolicyTrust).
  const form = useForm<{ [K in keyof Draft]: Draft[K] }>(draftOf(saved), request);
  const draft = form.values;
  const { busy } = request;
  /** Puts `values` in the draft, each field as it is given. */
  const change = (values: Partial<Draft>) => {
    for (const field of Object.keys(values) as Array<keyof Draft>)
      form.set(field)(values[field] as Draft[typeof field]);
  };

  const writeMissing = knowledge['policy:write'].held === false;
  const patch = patchOf(saved, draft);
  const dirty = Object.keys(patch).length > 0;
  useEffect(() => onDirty(dirty), [dirty]);
  useEffect(() => () => onDirty(false), []);

  const save = (e: Event) => {
    e.preventDefault();
    if (!dirty) return;
    void request.run(
      // The trust settings are in the PolicyPatch of the API.
      () => call('put', '/v1/policy', { body: patch as Schemas['PolicyPatch'] }),
      (answer) => {
        onSaved(answer.body);
        change(draftOf(answer.body));
        request.setMessage({ kind: 'ok', text: `Policy saved: ${patchText(patch)}.` });
      },
      (answer) => answer.status === 200,
    );
  };

  return (
    <form onSubmit={save} noValidate>
      <fieldset>
        <legend>Flags of {saved.publisher_id}</legend>
        {policyFlags.map((flag) => (
          <div class="check" key={flag}>
            <input
              type="checkbox"
              id={`flag-${flag}`}
              checked={draft[flag]}
              // Read-only without policy:write: no form it could not submit.
              disabled={writeMissing}
              aria-describedby={`flag-${flag}-help`}
              onChange={(e) => form.set(flag)((e.currentTarget as HTMLInputElement).checked)}
            />
            <div>
              <label for={`flag-${flag}`}>{flag}</label>
              <div id={`flag-${flag}-help`} class="hint">
                {flagHelp[flag]}
                {draft[flag] !== saved[flag] ? ` (unsaved: ${draft[flag] ? 'on' : 'off'})` : ''}
              </div>
            </div>
          </div>
        ))}
      </fieldset>
      <TrustSettings
        saved={saved}
        draft={draft}
        onTrust={change}
        readOnly={writeMissing}
        directory={directory}
        error={form.error}
      />
      <p class="meta">Last changed {new Date(saved.updated_at).toLocaleString()}.</p>
      {dirty && <Reach saved={saved} draft={draft} />}
      <section aria-labelledby="preview-heading">
        <h3 id="preview-heading">{writeMissing ? 'What the policy does' : 'Preview before saving'}</h3>
        <Preview saved={saved} draft={draft} device={device} />
      </section>
      {writeMissing && (
        <p class="gate">
          Saving needs the scope <code>policy:write</code>, which this session lacks (
          {knowledge['policy:write'].note}).
        </p>
      )}
      {!writeMissing && (
        <div class="actions">
          <button type="submit" disabled={busy || !dirty}>
            {busy ? 'Saving…' : 'Save policy'}
          </button>
          <button
            type="button"
            class="secondary"
            disabled={busy || !dirty}
            onClick={() => {
              change(draftOf(saved));
              request.setMessage(null);
            }}
          >
            Discard changes
          </button>
        </div>
      )}
    </form>
  );
};
