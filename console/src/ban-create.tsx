import { useState } from 'preact/hooks';
import type { Call, Policy } from './api';
import {
  BanKindFields,
  CatalogueReason,
  ExpiresField,
  PlayerFields,
  type PlayerWords,
  ReasonCodeField,
} from './ban-fields';
import {
  type BanValues,
  blankTerms,
  type CreateBanRequest,
  lastingReach,
  newIdempotencyKey,
  reachOf,
  termsOf,
} from './ban-terms';
import { useDraft } from './drafts';
import { DURATION_PRESETS, expiryIn, useReasonCatalogue } from './reasons';
import { Field, Notice, useOnChange } from './ui';
import { useForm } from './use-form';
import { useRequest } from './use-request';
import { check } from './validation';

/** Creating one ban on a device, in the Game ID's game, sent once however often it is submitted. */

interface CreateBanProps {
  call: Call;
  game: string;
  gameError: string | undefined;
  /** The open device, to fill the form with. */
  deviceId: string | null;
  /** The caller's policy, to say before and after where a ban would apply; null until read. */
  policy: Policy | null;
  onCreated: (deviceId: string) => void;
}

const words: PlayerWords = {
  detailsHint: 'Private to your publisher, e.g. {"match": "m-77"}; at most 16 KiB.',
  messageHint:
    'What a game may show the player, as it is: plain text, one paragraph, at most 500 characters. Every publisher who sees the ban sees it.',
  appealable: 'The player may appeal this ban',
};

/** What a reload or a new sign-in keeps of the form: what was typed (the device follows the lookup). */
const DRAFTED = ['reason', 'expires', 'details', 'playerMessage', 'appealable'] as const;

/** Presets that set the expiry field. */
const DurationPresets = ({ onExpires }: { onExpires: (local: string) => void }) => (
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

/** What a created ban's answer says: made now, or made already by this form's earlier attempt. */
const createdText = (
  status: number,
  ban: Pick<CreateBanRequest, 'ban_type' | 'scope' | 'device_id'> & { ban_id: number; game_id: string },
  policy: Policy | null,
) =>
  status === 201
    ? `Ban ${ban.ban_id} created: ${ban.ban_type}, ${ban.scope} scope, on ${ban.device_id} in game ${ban.game_id}. ${reachOf(policy, ban).text}`
    : // The same form sent again (after an unanswered or refused attempt): the API had made it.
      `Ban ${ban.ban_id} is in place: ${ban.ban_type}, ${ban.scope} scope, on ${ban.device_id} (this form's earlier attempt had made it; no second ban was created).`;

export const CreateBanForm = ({ call, game, gameError, deviceId, policy, onCreated }: CreateBanProps) => {
  const request = useRequest();
  const form = useForm<BanValues>({ ...blankTerms, device: deviceId ?? '' }, request);
  const draft = useDraft('ban-create', form, blankTerms, DRAFTED);
  const { device = '', reason, expires, scope, banType } = form.values;
  const [idempotencyKey, setIdempotencyKey] = useState(newIdempotencyKey);
  // The publisher's reasons (GET /v1/reasons, which bans:write may read): offered, never required
  // unless strict_reasons is on. Unread (or refused), the form takes any code and the API judges it.
  const catalogue = useReasonCatalogue(call, true);
  const strict = catalogue?.strict_reasons === true;

  useOnChange(deviceId, (looked) => {
    if (looked) form.set('device')(looked);
  });

  /** Choosing a catalogue reason fills in what it says; every field stays editable. */
  const choose = (code: string) => {
    form.set('reason')(code);
    const chosen = catalogue?.reasons.find((r) => r.code === code);
    if (!chosen) return;
    form.set('banType')(chosen.ban_type);
    form.set('scope')(chosen.scope);
    form.set('expires')(expiryIn(chosen.duration_seconds));
    form.set('playerMessage')(chosen.player_message ?? '');
  };

  const submit = (e: Event) => {
    e.preventDefault();
    const id = device.trim();
    const { found, terms } = termsOf(
      form.values,
      // With strict reasons on, only a catalogue code will do: say so rather than the character rule.
      strict && !catalogue?.reasons.some((r) => r.code === reason.trim())
        ? "must be one of the catalogue's codes (strict reasons are on)"
        : undefined,
    );
    const refusal = gameError
      ? `Game ID ${gameError}.`
      : 'The ban was not created: correct the fields marked below.';
    const checked = { device_id: check('device_id', id), ...found };
    if (!form.accept(checked, refusal, !gameError) || !terms) return;
    const body: CreateBanRequest = { device_id: id, ...terms, idempotency_key: idempotencyKey };
    void request.run(
      () => call('post', '/v1/bans', { body, game }),
      (answer) => {
        form.reset(['reason', 'expires', 'details', 'playerMessage', 'appealable']);
        draft.clear();
        request.setMessage({ kind: 'ok', text: createdText(answer.status, answer.body, policy) });
        setIdempotencyKey(newIdempotencyKey());
        onCreated(answer.body.device_id);
      },
    );
  };

  return (
    <section aria-labelledby="create-heading" class="panel">
      <h2 id="create-heading">Create a ban</h2>
      <form onSubmit={submit} noValidate>
        <Field
          id="ban-device"
          label="Device ID to ban"
          value={device}
          onValue={form.set('device')}
          error={form.error('device_id')}
          required
        />
        <CatalogueReason
          catalogue={catalogue}
          strict={strict}
          reason={reason}
          error={form.error('reason_code')}
          onChoose={choose}
        />
        <BanKindFields id="ban" form={form} game={game} policy={policy} />
        {!strict && <ReasonCodeField id="ban" form={form} />}
        <ExpiresField id="ban" form={form} bans="ban" />
        <DurationPresets onExpires={form.set('expires')} />
        <PlayerFields id="ban" form={form} words={words} />
        <p class="meta" id="ban-reach">
          {lastingReach({ permanent: expires === '', scope, ban_type: banType })}
        </p>
        <p class="meta">
          Idempotency key of this form: <code>{idempotencyKey}</code> (sending the form twice makes one ban).
        </p>
        <button type="submit" disabled={request.busy}>
          {request.busy ? 'Creating…' : 'Create ban'}
        </button>
      </form>
      <Notice message={request.message} />
    </section>
  );
};
