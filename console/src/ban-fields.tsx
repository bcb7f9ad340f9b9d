import { REVOKE_REASONS } from '@kernel/revoke-reasons';
import type { Call, Policy } from './api';
import { type BanType, type BanValues, type CreateBanRequest, reachOf } from './ban-terms';
import { DURATION_PRESETS, expiryIn, type ReasonCatalogue, useReasonCatalogue } from './reasons';
import { Field, FieldError } from './ui';
import type { useForm } from './use-form';

/**
 * The fields of a ban's terms, as the create form and the bulk ban form both show them (each with
 * its own ids, `${id}-type`, and its own words), and the revoke reason the revoke forms ask for.
 */

/** A form holding a ban's terms (use-form.ts): what these fields read and set. */
export type TermsForm = Pick<ReturnType<typeof useForm<BanValues>>, 'values' | 'set' | 'error'>;

const selected = (e: Event) => (e.currentTarget as HTMLSelectElement).value;

export const BanTypeSelect = ({
  id,
  label,
  value,
  onValue,
}: {
  id: string;
  label: string;
  value: BanType;
  onValue: (type: BanType) => void;
}) => (
  <div class="field">
    <label for={id}>{label}</label>
    <select id={id} value={value} onChange={(e) => onValue(selected(e) as BanType)}>
      <option value="cheat">cheat</option>
      <option value="social">social</option>
    </select>
  </div>
);

/** The ban's type and scope; the scope's hint says where it applies under the caller's policy. */
export const BanKindFields = ({
  id,
  form,
  game,
  policy,
}: {
  id: string;
  form: TermsForm;
  game: string;
  policy: Policy | null;
}) => {
  const { banType, scope } = form.values;
  return (
    <>
      <BanTypeSelect id={`${id}-type`} label="Ban type" value={banType} onValue={form.set('banType')} />
      <div class="field">
        <label for={`${id}-scope`}>Scope</label>
        <select
          id={`${id}-scope`}
          value={scope}
          aria-describedby={`${id}-scope-hint`}
          onChange={(e) => form.set('scope')(selected(e) as CreateBanRequest['scope'])}
        >
          <option value="game">game: this game only</option>
          <option value="publisher">publisher: all your games</option>
          <option value="global">global: every publisher</option>
        </select>
        <small id={`${id}-scope-hint`} class="hint">
          The game is the Game ID above ({game || 'none yet'}).{' '}
          {reachOf(policy, { ban_type: banType, scope }).text}
        </small>
      </div>
    </>
  );
};

export const ReasonCodeField = ({ id, form }: { id: string; form: TermsForm }) => (
  <Field
    id={`${id}-reason`}
    label="Reason code"
    value={form.values.reason}
    onValue={form.set('reason')}
    error={form.error('reason_code')}
    hint="1-64 characters of A-Z a-z 0-9 . _ : -, e.g. aimbot"
    required
  />
);

export const ExpiresField = ({ id, form, bans }: { id: string; form: TermsForm; bans: 'ban' | 'bans' }) => (
  <Field
    id={`${id}-expires`}
    label="Expires at (optional)"
    type="datetime-local"
    value={form.values.expires}
    onValue={form.set('expires')}
    error={form.error('expires_at')}
    hint={`Your local time; empty makes the ${bans} permanent.`}
  />
);

/** The form's own words for what the player is told. */
export interface PlayerWords {
  detailsHint: string;
  messageHint: string;
  appealable: string;
}

/** The private details, the message for the player, and whether the player may appeal. */
export const PlayerFields = ({ id, form, words }: { id: string; form: TermsForm; words: PlayerWords }) => (
  <>
    <Field
      id={`${id}-details`}
      label="Details (optional JSON object)"
      multiline
      value={form.values.details}
      onValue={form.set('details')}
      error={form.error('details')}
      hint={words.detailsHint}
    />
    <Field
      id={`${id}-player-message`}
      label="Message for the player (optional)"
      value={form.values.playerMessage}
      onValue={form.set('playerMessage')}
      error={form.error('player_message')}
      hint={words.messageHint}
    />
    <div class="check">
      <input
        type="checkbox"
        id={`${id}-appealable`}
        checked={form.values.appealable}
        onChange={(e) => form.set('appealable')((e.currentTarget as HTMLInputElement).checked)}
      />
      <label for={`${id}-appealable`}>{words.appealable}</label>
    </div>
  </>
);

/** What is wrong with the revoke reason chosen, if anything: none chosen yet. */
export const revokeReasonProblem = (value: string): string | undefined =>
  REVOKE_REASONS.some((r) => r.code === value) ? undefined : 'is required: choose one from the list';

/**
 * Why a ban is revoked, from the kernel's list (REVOKE_REASONS): one of the reasons the team uses,
 * never a code typed differently each time. Empty until chosen (the form says so).
 */
export const RevokeReasonField = ({
  id,
  value,
  onValue,
  error,
}: {
  id: string;
  value: string;
  onValue: (value: string) => void;
  error: string | undefined;
}) => (
  <div class="field">
    <label for={id}>Revoke reason</label>
    <select
      id={id}
      value={value}
      onChange={(e) => onValue(selected(e))}
      required
      aria-invalid={error ? true : undefined}
      aria-describedby={error ? `${id}-error` : undefined}
    >
      <option value="">Choose a reason…</option>
      {REVOKE_REASONS.map((r) => (
        <option key={r.code} value={r.code}>
          {r.label} ({r.code})
        </option>
      ))}
    </select>
    <FieldError id={id} error={error} />
  </div>
);

const CatalogueOptions = ({ catalogue }: { catalogue: ReasonCatalogue }) => (
  <>
    {catalogue.reasons.map((r) => (
      <option key={r.code} value={r.code}>
        {r.label} ({r.code})
      </option>
    ))}
  </>
);

/**
 * The publisher's reason catalogue as a ban form uses it (GET /v1/reasons, which bans:write may
 * read): the reasons to offer, whether strict reasons refuse any other code, choosing one (which
 * fills in its terms; every field stays editable), and the reason's problem when strict reasons
 * refuse what is typed. Unread (or refused), the form takes any code and the API judges it.
 */
export const useBanReason = (call: Call, form: Pick<TermsForm, 'values' | 'set'>) => {
  const catalogue = useReasonCatalogue(call, true);
  const strict = catalogue?.strict_reasons === true;
  const choose = (code: string) => {
    form.set('reason')(code);
    const chosen = catalogue?.reasons.find((r) => r.code === code);
    if (!chosen) return;
    form.set('banType')(chosen.ban_type);
    form.set('scope')(chosen.scope);
    form.set('expires')(expiryIn(chosen.duration_seconds));
    form.set('playerMessage')(chosen.player_message ?? '');
  };
  // With strict reasons on, only a catalogue code will do: say so rather than the character rule.
  const reasonProblem =
    strict && !catalogue?.reasons.some((r) => r.code === form.values.reason.trim())
      ? "must be one of the catalogue's codes (strict reasons are on)"
      : undefined;
  return { catalogue, strict, choose, reasonProblem };
};

/**
 * The publisher's reasons to choose from: with strict reasons on, the reason code itself (only
 * the catalogue's codes); else a shortcut beside the free code, shown when there are reasons.
 */
export const CatalogueReason = ({
  id,
  catalogue,
  strict,
  reason,
  error,
  onChoose,
}: {
  id: string;
  catalogue: ReasonCatalogue | null;
  strict: boolean;
  reason: string;
  error: string | undefined;
  onChoose: (code: string) => void;
}) => {
  if (!catalogue) return null;
  if (strict)
    return (
      <div class="field">
        <label for={`${id}-reason`}>Reason code</label>
        <select
          id={`${id}-reason`}
          value={reason}
          aria-invalid={error ? true : undefined}
          aria-describedby={`${id}-reason-hint${error ? ` ${id}-reason-error` : ''}`}
          onChange={(e) => onChoose(selected(e))}
        >
          <option value="">Choose a reason</option>
          <CatalogueOptions catalogue={catalogue} />
        </select>
        <small id={`${id}-reason-hint`} class="hint">
          {catalogue.reasons.length === 0
            ? 'Strict reasons are on and the catalogue is empty: add a reason in the Policy view first.'
            : "Strict reasons are on: only the catalogue's codes. Choosing one fills in the fields below; each stays editable."}
        </small>
        {error && (
          <small id={`${id}-reason-error`} class="field-error">
            {error}
          </small>
        )}
      </div>
    );
  if (catalogue.reasons.length === 0) return null;
  return (
    <div class="field">
      <label for={`${id}-catalogue`}>Reason from the catalogue</label>
      <select
        id={`${id}-catalogue`}
        value={catalogue.reasons.some((r) => r.code === reason.trim()) ? reason.trim() : ''}
        aria-describedby={`${id}-catalogue-hint`}
        onChange={(e) => onChoose(selected(e))}
      >
        <option value="">None: type a reason code below</option>
        <CatalogueOptions catalogue={catalogue} />
      </select>
      <small id={`${id}-catalogue-hint`} class="hint">
        Fills in the code, type, scope, expiry and message; each stays editable.
      </small>
    </div>
  );
};

/** Presets that set the expiry field. */
export const DurationPresets = ({ onExpires }: { onExpires: (local: string) => void }) => (
  <fieldset class="actions">
    <legend>Duration presets (set the expiry)</legend>
    {DURATION_PRESETS.map((preset) => (
      <button
        key={preset.label}
        type="button"
        class="secondary"
        aria-label={preset.seconds === null ? 'Permanent' : `Expires in ${preset.label}`}
        onClick={() => onExpires(expiryIn(preset.seconds))}
      >
        {preset.label}
      </button>
    ))}
  </fieldset>
);
