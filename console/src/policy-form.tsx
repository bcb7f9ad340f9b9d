import { useEffect, useState } from 'preact/hooks';
import type { Call, Policy, Schemas } from './api';
import type { OpenDevice } from './device';
import { Preview, Reach } from './policy-preview';
import { type PolicyReach, PolicyReachConfirm } from './policy-reach';
import { type Draft, draftOf, flagHelp, patchOf, patchText, policyFlags } from './preview';
import { TrustSettings } from './trust';
import type { Directory } from './trust-directory';
import { refocus, type ScopeKnowledge } from './ui';
import { useForm } from './use-form';
import { type Request, useRequest } from './use-request';

/**
 * The Policy view's form: the policy as drafted (the eight flags, each with what it changes, and
 * the trust settings), what saving it would change, and Save or Discard. It starts from the policy
 * as read, and after a save from the policy the API answered.
 */
export const PolicyForm = ({
  call,
  knowledge,
  device,
  game,
  gameError,
  saved,
  directory,
  request,
  onSaved,
  onDirty,
}: {
  call: Call;
  knowledge: ScopeKnowledge;
  device: OpenDevice | null;
  game: string;
  gameError: string | undefined;
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

  /** The change Save asked about, and its reach, while the moderator confirms it. */
  const [confirming, setConfirming] = useState<{
    patch: Partial<Draft>;
    reach: PolicyReach | null;
    gameNote: string | null;
  } | null>(null);
  const patchKey = JSON.stringify(patch);
  // Another draft is another question: the count shown was for the old one.
  useEffect(() => setConfirming(null), [patchKey]);

  // The devices with a ban in force in the game, counted when the form opens: a fact the lead reads
  // before changing anything, and it has the API read its copies of the live sets now, so the
  // count Save asks for is the quick one (a first read of 100,000 live bans takes seconds; the
  // next, caught up on the feed, a tenth of a second: docs/performance.md).
  const [inForce, setInForce] = useState<PolicyReach | null>(null);
  const counting = useRequest({ latest: true });
  useEffect(() => {
    setInForce(null);
    if (gameError !== undefined || writeMissing) return;
    void counting.run(
      () => call('post', '/v1/policy/preview', { body: {}, game }),
      (answer) => setInForce(answer.body),
      (answer) => answer.status === 200,
    );
    return counting.forget;
  }, [game, gameError, writeMissing]);

  // Save first asks how many devices the change reaches in the console's game, then to confirm.
  const askReach = (e: Event) => {
    e.preventDefault();
    if (!dirty) return;
    const asked = patch;
    if (gameError !== undefined) {
      setConfirming({
        patch: asked,
        reach: null,
        gameNote: `The devices it reaches are counted per game: choose a Game ID in Devices or Bulk (it ${gameError}) to see them.`,
      });
      return;
    }
    void request.run(
      () => call('post', '/v1/policy/preview', { body: asked as Schemas['PolicyPatch'], game }),
      (answer) => setConfirming({ patch: asked, reach: answer.body, gameNote: null }),
      (answer) => answer.status === 200,
    );
  };

  const save = (asked: Partial<Draft>) =>
    void request.run(
      // The trust settings are in the PolicyPatch of the API.
      () => call('put', '/v1/policy', { body: asked as Schemas['PolicyPatch'] }),
      (answer) => {
        setConfirming(null);
        onSaved(answer.body);
        change(draftOf(answer.body));
        request.setMessage({ kind: 'ok', text: `Policy saved: ${patchText(asked)}.` });
      },
      (answer) => answer.status === 200,
    );

  return (
    <>
      <form onSubmit={askReach} noValidate>
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
        {inForce && inForce.game_id === game && (
          <p class="meta" id="policy-in-force">
            In game {inForce.game_id}, {inForce.devices_with_bans}{' '}
            {inForce.devices_with_bans === 1 ? 'device has' : 'devices have'} a ban in force: Save counts how
            many of them a change restricts or frees.
          </p>
        )}
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
            <button
              type="submit"
              // Named as it is while counting too: Cancel on the confirmation focuses it again.
              aria-label="Save policy"
              disabled={busy || !dirty || confirming !== null}
            >
              {busy && !confirming ? 'Counting…' : 'Save policy'}
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
      {confirming && (
        <PolicyReachConfirm
          change={patchText(confirming.patch)}
          reach={confirming.reach}
          gameNote={confirming.gameNote}
          busy={busy}
          onConfirm={() => save(confirming.patch)}
          onCancel={() => {
            setConfirming(null);
            request.setMessage(null);
            refocus('Save policy');
          }}
        />
      )}
    </>
  );
};
