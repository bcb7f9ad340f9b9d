import { REASONS_MAX } from '@kernel/reason-catalogue';
import { useEffect, useState } from 'preact/hooks';
import type { Call } from './api';
import { dropDraft, hasDraft } from './drafts';
import type { CatalogueReason, ReasonCatalogue } from './reasons';
import { ReasonForm, reasonDraftName } from './reasons-form';
import { ReasonsTable } from './reasons-table';
import { ConfirmStep, Notice, refocus, type ScopeKnowledge } from './ui';
import { useRequest } from './use-request';

/**
 * The reason catalogue's editor, in the Policy view: its reasons in a table, a form to add or edit
 * one, removal after a confirmation, and the strict switch. Each change replaces the whole
 * catalogue at once, as the API does. Read-only without `policy:write`, like the policy flags.
 */
export const ReasonCatalogueEditor = ({ call, knowledge }: { call: Call; knowledge: ScopeKnowledge }) => {
  const [catalogue, setCatalogue] = useState<ReasonCatalogue | null>(null);
  /** The reason open in the form: its index, 'new', or none. */
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [removing, setRemoving] = useState<number | null>(null);
  /** The strict switch as ticked while its change is on its way (the stored value once answered). */
  const [strictSending, setStrictSending] = useState<boolean | null>(null);
  const request = useRequest();
  const { busy, message } = request;
  const writeMissing = knowledge['policy:write'].held === false;

  const read = () =>
    request.run(
      () => call('get', '/v1/reasons', {}),
      (answer) => {
        setCatalogue(answer.body);
        // A new reason typed before a reload or a sign-in opens again with what was typed.
        if (hasDraft(reasonDraftName(undefined)) && knowledge['policy:write'].held !== false)
          setEditing((open) => open ?? 'new');
      },
      (answer) => answer.status === 200,
    );
  useEffect(() => {
    void read();
  }, []);

  /** Replaces the catalogue; once the API took it, says `done` and runs `then`. */
  const replace = (
    next: { reasons: CatalogueReason[]; strict_reasons: boolean },
    done: string,
    then?: () => void,
  ) =>
    request.run(
      // The catalogue's language goes along: a PUT without it would set it back to en.
      () => call('put', '/v1/reasons', { body: { ...next, default_locale: catalogue?.default_locale } }),
      (answer) => {
        setCatalogue(answer.body);
        request.setMessage({ kind: 'ok', text: done });
        then?.();
      },
      (answer) => answer.status === 200,
    );

  if (!catalogue)
    return (
      <section aria-labelledby="reasons-heading">
        <h3 id="reasons-heading">Reason catalogue</h3>
        <p>
          {busy ? 'Reading the reason catalogue…' : 'The reason catalogue could not be read.'}{' '}
          {!busy && (
            <button type="button" class="secondary" onClick={() => void read()}>
              Read the reason catalogue again
            </button>
          )}
        </p>
        <Notice message={message} />
      </section>
    );

  /** The draft of the reason open in the form, given up by a save or a Cancel. */
  const dropOpenDraft = () =>
    dropDraft(reasonDraftName(typeof editing === 'number' ? catalogue.reasons[editing] : undefined));

  const save = (reason: CatalogueReason) => {
    const reasons =
      editing === 'new' || editing === null
        ? [...catalogue.reasons, reason]
        : catalogue.reasons.map((r, i) => (i === editing ? reason : r));
    return replace(
      { reasons, strict_reasons: catalogue.strict_reasons },
      `Reason ${reason.code} ${editing === 'new' ? 'added' : 'saved'}.`,
      () => {
        dropOpenDraft();
        setEditing(null);
      },
    );
  };

  const remove = () => {
    if (removing === null) return;
    const gone = catalogue.reasons[removing];
    return replace(
      {
        reasons: catalogue.reasons.filter((_, i) => i !== removing),
        strict_reasons: catalogue.strict_reasons,
      },
      `Reason ${gone?.code} removed.`,
      () => setRemoving(null),
    );
  };

  const full = catalogue.reasons.length >= REASONS_MAX;
  return (
    <section aria-labelledby="reasons-heading">
      <h3 id="reasons-heading">Reason catalogue</h3>
      <p>
        The reasons the create-ban form offers, each filling in its type, scope, duration and message.
        {catalogue.updated_at ? ` Last changed ${new Date(catalogue.updated_at).toLocaleString()}.` : ''}
      </p>
      <div class="check">
        <input
          type="checkbox"
          id="strict-reasons"
          checked={strictSending ?? catalogue.strict_reasons}
          disabled={writeMissing || busy}
          aria-describedby="strict-reasons-help"
          onChange={(e) => {
            const on = (e.currentTarget as HTMLInputElement).checked;
            setStrictSending(on);
            void replace(
              { reasons: catalogue.reasons, strict_reasons: on },
              `Strict reasons ${on ? 'on: new bans must use a catalogue code' : 'off: free codes are accepted'}.`,
            ).then(() => setStrictSending(null));
          }}
        />
        <div>
          <label for="strict-reasons">strict_reasons</label>
          <div id="strict-reasons-help" class="hint">
            When on, a new ban's reason code must be one of the catalogue's; when off, any code is accepted.
          </div>
        </div>
      </div>
      {catalogue.reasons.length === 0 ? (
        <p>The catalogue is empty: moderators type a reason code.</p>
      ) : (
        <ReasonsTable
          reasons={catalogue.reasons}
          writeMissing={writeMissing}
          busy={busy}
          onEdit={(i) => {
            setRemoving(null);
            setEditing(i);
          }}
          onRemove={(i) => {
            setEditing(null);
            setRemoving(i);
          }}
        />
      )}
      {writeMissing ? (
        <p class="gate">
          Changing the catalogue needs the scope <code>policy:write</code>, which this session lacks (
          {knowledge['policy:write'].note}).
        </p>
      ) : (
        <>
          {removing !== null && catalogue.reasons[removing] && (
            <ConfirmStep
              id="remove-reason-heading"
              title={`Remove reason ${catalogue.reasons[removing]?.code}?`}
              action="Remove reason"
              busyAction="Removing…"
              busy={busy}
              onConfirm={() => void remove()}
              onCancel={() => {
                const code = catalogue.reasons[removing]?.code;
                setRemoving(null);
                refocus(`Remove ${code}`);
              }}
            >
              <p>
                Moderators will no longer be offered it. Bans already made with it keep their reason code
                {catalogue.strict_reasons ? '; with strict reasons on, new bans cannot use it.' : '.'}
              </p>
            </ConfirmStep>
          )}
          {editing !== null ? (
            <ReasonForm
              // Another reason (or a new one) is another form, with its own draft from the start.
              key={editing}
              editing={editing === 'new' ? null : editing}
              catalogue={catalogue}
              request={request}
              onSave={(reason) => void save(reason)}
              onCancel={() => {
                dropOpenDraft();
                setEditing(null);
                request.setMessage(null);
              }}
            />
          ) : (
            <p>
              <button
                type="button"
                disabled={busy || full}
                onClick={() => {
                  setRemoving(null);
                  request.setMessage(null);
                  setEditing('new');
                }}
              >
                Add a reason
              </button>
              {full ? ` The catalogue holds its most, ${REASONS_MAX} reasons.` : ''}
            </p>
          )}
        </>
      )}
      <Notice message={message} />
    </section>
  );
};
