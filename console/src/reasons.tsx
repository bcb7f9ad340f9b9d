import { PLAYER_MESSAGE_PATTERN, playerMessageLength } from '@kernel/player-message';
import {
  DURATION_PRESETS,
  REASON_DURATION_MAX_SECONDS,
  REASON_LABEL_MAX,
  REASON_LABEL_RULE,
  REASONS_MAX,
} from '@kernel/reason-catalogue';
import { useEffect, useState } from 'preact/hooks';
import type { Call, Schemas } from './api';
import {
  apiFieldError,
  ConfirmStep,
  errorMessage,
  Field,
  type Message,
  Notice,
  refocus,
  type ScopeKnowledge,
  TableScroll,
  useBusy,
} from './ui';
import { check, parsePlayerMessage } from './validation';

/**
 * The reason catalogue (`GET`/`PUT /v1/reasons`): its editor in the Policy view, and what the
 * create-ban form reads of it (the reasons to offer, the duration presets, whether free codes are
 * refused). Each change in the editor replaces the whole catalogue at once, as the API does.
 */

export type ReasonCatalogue = Schemas['ReasonCatalogue'];
export type CatalogueReason = Schemas['CatalogueReason'];
export { DURATION_PRESETS };

/** A duration as a moderator reads it: a preset's name, else days, hours or seconds. */
export const durationWords = (seconds: number | null): string => {
  if (seconds === null) return 'permanent';
  const preset = DURATION_PRESETS.find((p) => p.seconds === seconds);
  if (preset) return preset.label;
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  return `${seconds} s`;
};

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * The expiry `seconds` from now, as a datetime-local input holds it (local time, to the minute,
 * rounded up so the ban lasts at least that long); '' for permanent.
 */
export const expiryIn = (seconds: number | null, now = Date.now()): string => {
  if (seconds === null) return '';
  const at = new Date(Math.ceil((now + seconds * 1000) / 60_000) * 60_000);
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
};

/**
 * The catalogue, read once when `enabled` (the caller may read it): null until read, and null
 * again if it could not be (the form then takes free codes, and the API still judges them).
 */
export const useReasonCatalogue = (call: Call, enabled: boolean) => {
  const [catalogue, setCatalogue] = useState<ReasonCatalogue | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    void call('get', '/v1/reasons', {}).then((answer) => {
      if (live && answer.status === 200) setCatalogue(answer.body as ReasonCatalogue);
    });
    return () => {
      live = false;
    };
  }, [enabled]);
  return catalogue;
};

const labelPattern = new RegExp(PLAYER_MESSAGE_PATTERN, 'u');

/** A label: the API's rule (kernel/reason-catalogue.ts). */
const checkLabel = (label: string): string | undefined => {
  const length = playerMessageLength(label);
  if (length === 0) return 'must be at least 1 character';
  if (length > REASON_LABEL_MAX) return `must be at most ${REASON_LABEL_MAX} characters`;
  return labelPattern.test(label) ? undefined : REASON_LABEL_RULE;
};

const CUSTOM = 'custom';

interface Draft {
  code: string;
  label: string;
  ban_type: CatalogueReason['ban_type'];
  scope: CatalogueReason['scope'];
  /** A preset's seconds ('' for permanent), or CUSTOM. */
  duration: string;
  customSeconds: string;
  player_message: string;
}

const emptyDraft: Draft = {
  code: '',
  label: '',
  ban_type: 'cheat',
  scope: 'game',
  duration: '',
  customSeconds: '',
  player_message: '',
};

const draftOf = (reason: CatalogueReason): Draft => {
  const preset = DURATION_PRESETS.some((p) => p.seconds === reason.duration_seconds);
  return {
    code: reason.code,
    label: reason.label,
    ban_type: reason.ban_type,
    scope: reason.scope,
    duration: preset ? String(reason.duration_seconds ?? '') : CUSTOM,
    customSeconds: preset ? '' : String(reason.duration_seconds),
    player_message: reason.player_message ?? '',
  };
};

/** The draft as a reason, or the field errors that keep it from being one. */
const reasonOf = (
  draft: Draft,
  others: readonly CatalogueReason[],
): { reason: CatalogueReason } | { errors: Record<string, string | undefined> } => {
  const code = draft.code.trim();
  const message = parsePlayerMessage(draft.player_message);
  let duration: number | null = draft.duration === '' ? null : Number(draft.duration);
  let durationError: string | undefined;
  if (draft.duration === CUSTOM) {
    duration = /^[0-9]{1,10}$/.test(draft.customSeconds.trim())
      ? Number(draft.customSeconds.trim())
      : Number.NaN;
    if (!Number.isSafeInteger(duration) || duration < 1 || duration > REASON_DURATION_MAX_SECONDS)
      durationError = `must be a whole number of seconds from 1 to ${REASON_DURATION_MAX_SECONDS} (ten years)`;
  }
  const errors = {
    code:
      check('reason_code', code) ??
      (others.some((r) => r.code === code) ? 'is already in the catalogue' : undefined),
    label: checkLabel(draft.label.trim()),
    duration_seconds: durationError,
    player_message: message.ok ? undefined : message.message,
  };
  if (Object.values(errors).some(Boolean) || !message.ok) return { errors };
  return {
    reason: {
      code,
      label: draft.label.trim(),
      ban_type: draft.ban_type,
      scope: draft.scope,
      duration_seconds: duration,
      player_message: message.value ?? null,
    },
  };
};

/** The API's field errors of one reason (`reasons.<i>.<field>`), under that field of the form. */
const apiReasonError = (message: Message, index: number, field: string) =>
  apiFieldError(message, `reasons.${index}.${field}`) ?? apiFieldError(message, field);

const ReasonForm = ({
  editing,
  catalogue,
  busy,
  message,
  onSave,
  onCancel,
}: {
  /** The reason being edited (its index), or null for a new one. */
  editing: number | null;
  catalogue: ReasonCatalogue;
  busy: boolean;
  message: Message;
  onSave: (reason: CatalogueReason) => void;
  onCancel: () => void;
}) => {
  const existing = editing === null ? undefined : catalogue.reasons[editing];
  const [draft, setDraft] = useState<Draft>(existing ? draftOf(existing) : emptyDraft);
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const index = editing ?? catalogue.reasons.length;
  // From the draft as it is when the change lands, not as this render saw it: two inputs between
  // renders both count.
  const set = (patch: Partial<Draft>) => setDraft((now) => ({ ...now, ...patch }));
  const err = (field: string) => errors[field] ?? apiReasonError(message, index, field);
  const title = existing ? `Edit reason ${existing.code}` : 'Add a reason';

  const submit = (e: Event) => {
    e.preventDefault();
    const result = reasonOf(
      draft,
      catalogue.reasons.filter((_, i) => i !== editing),
    );
    if ('errors' in result) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    onSave(result.reason);
  };

  return (
    <form onSubmit={submit} noValidate aria-labelledby="reason-form-heading" class="panel">
      <h4 id="reason-form-heading">{title}</h4>
      <Field
        id="reason-code"
        label="Code"
        value={draft.code}
        onValue={(code) => set({ code })}
        error={err('code')}
        hint="The ban's reason_code: 1-64 characters of A-Z a-z 0-9 . _ : -"
        required
      />
      <Field
        id="reason-label"
        label="Label"
        value={draft.label}
        onValue={(label) => set({ label })}
        error={err('label')}
        hint={`What moderators pick from: 1-${REASON_LABEL_MAX} characters, one line.`}
        required
      />
      <div class="field">
        <label for="reason-type">Default ban type</label>
        <select
          id="reason-type"
          value={draft.ban_type}
          onChange={(e) =>
            set({ ban_type: (e.currentTarget as HTMLSelectElement).value as Draft['ban_type'] })
          }
        >
          <option value="cheat">cheat</option>
          <option value="social">social</option>
        </select>
      </div>
      <div class="field">
        <label for="reason-scope">Default scope</label>
        <select
          id="reason-scope"
          value={draft.scope}
          onChange={(e) => set({ scope: (e.currentTarget as HTMLSelectElement).value as Draft['scope'] })}
        >
          <option value="game">game</option>
          <option value="publisher">publisher</option>
          <option value="global">global</option>
        </select>
      </div>
      <div class="field">
        <label for="reason-duration">Duration</label>
        <select
          id="reason-duration"
          value={draft.duration}
          onChange={(e) => set({ duration: (e.currentTarget as HTMLSelectElement).value })}
        >
          {DURATION_PRESETS.map((p) => (
            <option key={p.label} value={p.seconds === null ? '' : String(p.seconds)}>
              {p.label}
            </option>
          ))}
          <option value={CUSTOM}>other (seconds)</option>
        </select>
      </div>
      {draft.duration === CUSTOM && (
        <Field
          id="reason-seconds"
          label="Duration in seconds"
          value={draft.customSeconds}
          onValue={(customSeconds) => set({ customSeconds })}
          error={err('duration_seconds')}
          hint="At most ten years."
          required
        />
      )}
      <Field
        id="reason-player-message"
        label="Message for the player (optional)"
        value={draft.player_message}
        onValue={(player_message) => set({ player_message })}
        error={err('player_message')}
        hint="Plain text, one paragraph, at most 500 characters."
      />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : existing ? 'Save reason' : 'Add reason'}
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
};

/**
 * The catalogue's editor: its reasons in a table, a form to add or edit one, removal after a
 * confirmation, and the strict switch. Read-only without `policy:write`, like the policy flags.
 */
export const ReasonCatalogueEditor = ({ call, knowledge }: { call: Call; knowledge: ScopeKnowledge }) => {
  const [catalogue, setCatalogue] = useState<ReasonCatalogue | null>(null);
  const [message, setMessage] = useState<Message>(null);
  /** The reason open in the form: its index, 'new', or none. */
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [removing, setRemoving] = useState<number | null>(null);
  /** The strict switch as ticked while its change is on its way (the stored value once answered). */
  const [strictSending, setStrictSending] = useState<boolean | null>(null);
  const { busy, run } = useBusy();
  const writeMissing = knowledge['policy:write'].held === false;

  const read = () =>
    run(async () => {
      const answer = await call('get', '/v1/reasons', {});
      if (answer.status !== 200) {
        setMessage(errorMessage(answer));
        return;
      }
      setCatalogue(answer.body);
    });
  useEffect(() => {
    void read();
  }, []);

  /** Replaces the catalogue; true when the API took it. */
  const replace = async (next: { reasons: CatalogueReason[]; strict_reasons: boolean }, done: string) => {
    let ok = false;
    await run(async () => {
      const answer = await call('put', '/v1/reasons', { body: next });
      if (answer.status !== 200) {
        setMessage(errorMessage(answer));
        return;
      }
      setCatalogue(answer.body);
      setMessage({ kind: 'ok', text: done });
      ok = true;
    });
    return ok;
  };

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

  const save = async (reason: CatalogueReason) => {
    const reasons =
      editing === 'new' || editing === null
        ? [...catalogue.reasons, reason]
        : catalogue.reasons.map((r, i) => (i === editing ? reason : r));
    const ok = await replace(
      { reasons, strict_reasons: catalogue.strict_reasons },
      `Reason ${reason.code} ${editing === 'new' ? 'added' : 'saved'}.`,
    );
    if (ok) setEditing(null);
  };

  const remove = async () => {
    if (removing === null) return;
    const gone = catalogue.reasons[removing];
    const ok = await replace(
      {
        reasons: catalogue.reasons.filter((_, i) => i !== removing),
        strict_reasons: catalogue.strict_reasons,
      },
      `Reason ${gone?.code} removed.`,
    );
    if (ok) setRemoving(null);
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
        <TableScroll label="Reason catalogue table">
          <table>
            <caption>Reasons ({catalogue.reasons.length})</caption>
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">Label</th>
                <th scope="col">Type</th>
                <th scope="col">Scope</th>
                <th scope="col">Duration</th>
                <th scope="col">Player message</th>
                {!writeMissing && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {catalogue.reasons.map((reason, i) => (
                <tr key={reason.code}>
                  <td>
                    <code>{reason.code}</code>
                  </td>
                  <td>{reason.label}</td>
                  <td>{reason.ban_type}</td>
                  <td>{reason.scope}</td>
                  <td>{durationWords(reason.duration_seconds)}</td>
                  <td>{reason.player_message ?? '—'}</td>
                  {!writeMissing && (
                    <td>
                      <button
                        type="button"
                        class="secondary"
                        disabled={busy}
                        aria-label={`Edit ${reason.code}`}
                        onClick={() => {
                          setRemoving(null);
                          setEditing(i);
                        }}
                      >
                        Edit
                      </button>{' '}
                      <button
                        type="button"
                        class="secondary"
                        disabled={busy}
                        aria-label={`Remove ${reason.code}`}
                        onClick={() => {
                          setEditing(null);
                          setRemoving(i);
                        }}
                      >
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
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
              busy={busy}
              message={message}
              onSave={(reason) => void save(reason)}
              onCancel={() => {
                setEditing(null);
                setMessage(null);
              }}
            />
          ) : (
            <p>
              <button
                type="button"
                disabled={busy || full}
                onClick={() => {
                  setRemoving(null);
                  setMessage(null);
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
