import { useEffect, useState } from 'preact/hooks';
import type { Call, Policy, Schemas } from './api';
import type { OpenDevice } from './device';
import {
  type Draft,
  draftOf,
  enforcementChanges,
  flagHelp,
  flagsOf,
  outcome,
  patchOf,
  patchText,
  policyFlags,
  previewRows,
  trustChanges,
  trustOf,
  trustRows,
} from './preview';
import { ReasonCatalogueEditor } from './reasons-editor';
import { TrustSettings } from './trust';
import { useDirectory } from './trust-directory';
import { PublisherName } from './trust-publisher-name';
import {
  apiFieldError,
  errorMessage,
  type Message,
  Notice,
  PreviewTable,
  type ScopeKnowledge,
  useBusy,
} from './ui';

/**
 * The Policy view: the eight flags, each with what it changes, and before saving a preview of how
 * the open device's enforcement and reputation would change.
 */

interface Props {
  call: Call;
  knowledge: ScopeKnowledge;
  device: OpenDevice | null;
  /** The policy as read when the view opened. */
  onRead: (policy: Policy) => void;
  /** The policy after a save. */
  onSaved: (policy: Policy) => void;
  /** Whether flags are ticked but not saved (the console asks before leaving them). */
  onDirty: (dirty: boolean) => void;
}

const Preview = ({ saved, draft, device }: { saved: Policy; draft: Draft; device: OpenDevice | null }) => {
  if (!device)
    return <p>Look up a device (Devices) to preview how these flags would change its enforcement.</p>;
  if (!device.allBans)
    return (
      <p>The bans of {device.deviceId} could not all be read, so there is no preview; look it up again.</p>
    );
  const rows = previewRows(saved, draft, device.allBans, device.deviceId);
  const now = outcome(saved, device.allBans, device.deviceId, new Date().toISOString());
  const api = device.enforcement;
  const stale =
    api !== null &&
    (api.restricted.cheat !== now.restricted.cheat ||
      api.restricted.social !== now.restricted.social ||
      api.reputation.score !== now.score);
  const changed = rows.filter((r) => r.changes).length;
  return (
    <>
      <p>
        {changed === 0
          ? `These flags change nothing for ${device.deviceId} in game ${device.game}.`
          : `${changed} ${changed === 1 ? 'value changes' : 'values change'} for ${device.deviceId} in game ${device.game}.`}
        {stale
          ? ' The device or policy changed since it was read: look it up again for an exact preview.'
          : ''}
      </p>
      <PreviewTable
        label="Policy preview table"
        caption={`Preview for ${device.deviceId} in game ${device.game}`}
        after="After saving"
        rows={rows}
      />
      <TrustPreview saved={saved} draft={draft} device={device} bans={device.allBans} />
    </>
  );
};

/** The device's global bans in force: whether each applies now and after saving, and why not. */
const TrustPreview = ({
  saved,
  draft,
  device,
  bans,
}: {
  saved: Policy;
  draft: Draft;
  device: OpenDevice;
  bans: NonNullable<OpenDevice['allBans']>;
}) => {
  const rows = trustRows(saved, draft, bans, device.deviceId);
  if (rows.length === 0) return <p>{device.deviceId} has no global ban in force.</p>;
  const changed = rows.filter((r) => r.changes).length;
  return (
    <>
      <p>
        {changed === 0
          ? `Whose global bans you trust, as drafted, changes none of the ${rows.length} global bans of ${device.deviceId} in force.`
          : `${changed} of the ${rows.length} global bans of ${device.deviceId} in force ${changed === 1 ? 'changes' : 'change'}: each says whether it applies, and why not.`}
      </p>
      <PreviewTable
        label="Global bans preview table"
        caption={`Global bans on ${device.deviceId}: whether each applies`}
        after="After saving"
        rows={rows}
      />
    </>
  );
};

/** In every game, for every device: the kinds of bans the draft starts or stops applying. */
const Reach = ({ saved, draft }: { saved: Policy; draft: Draft }) => {
  const { start, stop } = enforcementChanges(flagsOf(saved), draft);
  const trust = trustChanges(trustOf(saved), draft);
  return (
    <div class="panel" role="status" aria-live="polite">
      <p>In every game, for every device, saving these {trust.length ? 'changes' : 'flags'}:</p>
      <ul>
        {start.length > 0 && <li>starts applying {start.join(', ')};</li>}
        {stop.length > 0 && <li>stops applying {stop.join(', ')};</li>}
        {trust.map((line) => (
          <li key={line}>{line};</li>
        ))}
        {start.length === 0 && stop.length === 0 && trust.length === 0 && (
          <li>changes no ban's enforcement (only the reputation).</li>
        )}
      </ul>
    </div>
  );
};

export const PolicyView = ({ call, knowledge, device, onRead, onSaved, onDirty }: Props) => {
  const [saved, setSaved] = useState<Policy | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const { busy, run } = useBusy();
  const directory = useDirectory(call);

  // Read it fresh when the view opens (another moderator may have changed it); the flags show
  // once it is read, so a late answer never overwrites what the moderator ticked.
  const read = () =>
    run(async () => {
      const answer = await call('get', '/v1/policy', {});
      if (answer.status !== 200) {
        setMessage(errorMessage(answer));
        return;
      }
      setMessage(null);
      setSaved(answer.body);
      setDraft(draftOf(answer.body));
      onRead(answer.body);
    });
  useEffect(() => {
    if (knowledge['policy:read'].held !== false) void read();
  }, []);

  if (knowledge['policy:read'].held === false)
    return (
      <section aria-labelledby="policy-heading" class="panel">
        <h2 id="policy-heading">Policy</h2>
        <p class="gate">
          The policy is hidden: it needs the scope <code>policy:read</code>, which this session lacks (
          {knowledge['policy:read'].note}).
        </p>
      </section>
    );

  const writeMissing = knowledge['policy:write'].held === false;
  const patch = saved && draft ? patchOf(saved, draft) : {};
  const dirty = Object.keys(patch).length > 0;
  useEffect(() => onDirty(dirty), [dirty]);
  useEffect(() => () => onDirty(false), []);

  const save = (e: Event) => {
    e.preventDefault();
    if (!dirty) return;
    setMessage(null);
    void run(async () => {
      // The trust settings are in the PolicyPatch of the API.
      const answer = await call('put', '/v1/policy', { body: patch as Schemas['PolicyPatch'] });
      if (answer.status !== 200) {
        setMessage(errorMessage(answer));
        return;
      }
      setSaved(answer.body);
      setDraft(draftOf(answer.body));
      onSaved(answer.body);
      setMessage({ kind: 'ok', text: `Policy saved: ${patchText(patch)}.` });
    });
  };

  return (
    <section aria-labelledby="policy-heading" class="panel">
      <h2 id="policy-heading">Policy</h2>
      {saved && draft ? (
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
                  onChange={(e) => {
                    const checked = (e.currentTarget as HTMLInputElement).checked;
                    setDraft((now) => now && { ...now, [flag]: checked });
                  }}
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
            onTrust={(change) => setDraft((now) => now && { ...now, ...change })}
            readOnly={writeMissing}
            directory={directory}
            error={(field) => apiFieldError(message, field)}
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
                  setDraft(draftOf(saved));
                  setMessage(null);
                }}
              >
                Discard changes
              </button>
            </div>
          )}
        </form>
      ) : (
        <p>
          {busy ? 'Reading the policy…' : 'The policy could not be read.'}{' '}
          {!busy && (
            <button type="button" class="secondary" onClick={() => void read()}>
              Read the policy again
            </button>
          )}
        </p>
      )}
      <Notice message={message} />
      {saved && (
        <PublisherName
          call={call}
          knowledge={knowledge}
          publisherId={saved.publisher_id}
          directory={directory}
        />
      )}
      <ReasonCatalogueEditor call={call} knowledge={knowledge} />
    </section>
  );
};
