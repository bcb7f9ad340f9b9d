import { policyEnforces, ruleFor } from '@kernel/policy-rules';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Ban, Call, Policy, Schemas } from './api';
import { DURATION_PRESETS, expiryIn, useReasonCatalogue } from './reasons';
import {
  apiFieldError,
  ConfirmStep,
  errorMessage,
  Field,
  type Message,
  Notice,
  useBusy,
  useOnChange,
} from './ui';
import { check, parseDetails, parseExpiry, parsePlayerMessage } from './validation';

/** The forms that change a device's bans: create, revoke, erase. */

/** A fresh idempotency key: one per form instance, renewed after each success. */
export const newIdempotencyKey = (): string =>
  typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

type CreateBanRequest = Schemas['CreateBanRequest'];

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

/**
 * Where a ban of this type and scope applies under the caller's own policy: the rule flags it
 * needs (kernel/policy-rules.ts) and which of them are off.
 */
export const reachOf = (
  policy: Policy | null,
  ban: Pick<CreateBanRequest, 'ban_type' | 'scope'>,
): { applies: boolean | null; text: string } => {
  const where =
    ban.scope === 'game' ? 'this game' : ban.scope === 'publisher' ? 'all your games' : 'your games';
  const others =
    ban.scope === 'global' ? ' Other publishers apply it where their own policies enforce it.' : '';
  if (!policy)
    return { applies: null, text: `Where it applies depends on your policy, not read yet.${others}` };
  const rule = ruleFor(ban);
  if (policyEnforces(policy, ban))
    return { applies: true, text: `Your policy enforces it in ${where} (${rule.join(' + ')}).${others}` };
  const off = rule.filter((flag) => !policy[flag]);
  return {
    applies: false,
    text: `Your own policy will not enforce it: ${off.join(' and ')} ${off.length === 1 ? 'is' : 'are'} off, so it restricts nothing in your games.${others}`,
  };
};

/** How long a ban lasts, and, for a global one, its reach beyond your games: said before it is made. */
export const lastingReach = ({
  permanent,
  scope,
  ban_type,
}: { permanent: boolean } & Pick<CreateBanRequest, 'ban_type' | 'scope'>): string =>
  `${permanent ? 'Permanent: it never expires; only a revoke ends it. ' : 'It ends at the expiry above. '}${
    scope === 'global'
      ? `Global: it can restrict the device in every other publisher's games whose policy enforces global ${ban_type} bans.`
      : ''
  }`;

export const CreateBanForm = ({ call, game, gameError, deviceId, policy, onCreated }: CreateBanProps) => {
  const [device, setDevice] = useState(deviceId ?? '');
  const [banType, setBanType] = useState<CreateBanRequest['ban_type']>('cheat');
  const [scope, setScope] = useState<CreateBanRequest['scope']>('game');
  const [reason, setReason] = useState('');
  const [expires, setExpires] = useState('');
  const [details, setDetails] = useState('');
  const [playerMessage, setPlayerMessage] = useState('');
  const [appealable, setAppealable] = useState(true);
  const [idempotencyKey, setIdempotencyKey] = useState(newIdempotencyKey);
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [message, setMessage] = useState<Message>(null);
  const { busy, run } = useBusy();
  // The publisher's reasons (GET /v1/reasons, which bans:write may read): offered, never required
  // unless strict_reasons is on. Unread (or refused), the form takes any code and the API judges it.
  const catalogue = useReasonCatalogue(call, true);
  const strict = catalogue?.strict_reasons === true;

  useOnChange(deviceId, (looked) => {
    if (looked) setDevice(looked);
  });

  /** Choosing a catalogue reason fills in what it says; every field stays editable. */
  const choose = (code: string) => {
    setReason(code);
    const chosen = catalogue?.reasons.find((r) => r.code === code);
    if (!chosen) return;
    setBanType(chosen.ban_type);
    setScope(chosen.scope);
    setExpires(expiryIn(chosen.duration_seconds));
    setPlayerMessage(chosen.player_message ?? '');
  };

  const submit = (e: Event) => {
    e.preventDefault();
    const id = device.trim();
    const expiry = parseExpiry(expires);
    const parsedDetails = parseDetails(details);
    const message_ = parsePlayerMessage(playerMessage);
    const found = {
      device_id: check('device_id', id),
      // With strict reasons on, only a catalogue code will do: say so rather than the character rule.
      reason_code:
        strict && !catalogue?.reasons.some((r) => r.code === reason.trim())
          ? "must be one of the catalogue's codes (strict reasons are on)"
          : check('reason_code', reason.trim()),
      expires_at: expiry.ok ? undefined : expiry.message,
      details: parsedDetails.ok ? undefined : parsedDetails.message,
      player_message: message_.ok ? undefined : message_.message,
    };
    setErrors(found);
    if (gameError || Object.values(found).some(Boolean) || !expiry.ok || !parsedDetails.ok || !message_.ok) {
      setMessage({
        kind: 'error',
        text: gameError
          ? `Game ID ${gameError}.`
          : 'The ban was not created: correct the fields marked below.',
      });
      return;
    }
    const body: CreateBanRequest = {
      device_id: id,
      ban_type: banType,
      scope,
      reason_code: reason.trim(),
      idempotency_key: idempotencyKey,
      ...(expiry.value === undefined ? {} : { expires_at: expiry.value }),
      ...(parsedDetails.value === undefined ? {} : { details: parsedDetails.value }),
      ...(message_.value === undefined ? {} : { player_message: message_.value }),
      ...(appealable ? {} : { appealable: false }),
    };
    setMessage(null);
    void run(async () => {
      const answer = await call('post', '/v1/bans', { body, game });
      if (answer.status !== 201 && answer.status !== 200) {
        setMessage(errorMessage(answer));
        return;
      }
      const ban = answer.body;
      const reach = reachOf(policy, ban);
      setMessage({
        kind: 'ok',
        text:
          answer.status === 201
            ? `Ban ${ban.ban_id} created: ${ban.ban_type}, ${ban.scope} scope, on ${ban.device_id} in game ${ban.game_id}. ${reach.text}`
            : // The same form sent again (after an unanswered or refused attempt): the API had made it.
              `Ban ${ban.ban_id} is in place: ${ban.ban_type}, ${ban.scope} scope, on ${ban.device_id} (this form's earlier attempt had made it; no second ban was created).`,
      });
      setErrors({});
      setReason('');
      setExpires('');
      setDetails('');
      setPlayerMessage('');
      setAppealable(true);
      setIdempotencyKey(newIdempotencyKey());
      onCreated(ban.device_id);
    });
  };

  const err = (field: string) => errors[field] ?? apiFieldError(message, field);
  return (
    <section aria-labelledby="create-heading" class="panel">
      <h2 id="create-heading">Create a ban</h2>
      <form onSubmit={submit} noValidate>
        <Field
          id="ban-device"
          label="Device ID to ban"
          value={device}
          onValue={setDevice}
          error={err('device_id')}
          required
        />
        {strict && catalogue ? (
          <div class="field">
            <label for="ban-reason">Reason code</label>
            <select
              id="ban-reason"
              value={reason}
              aria-invalid={err('reason_code') ? true : undefined}
              aria-describedby={`ban-reason-hint${err('reason_code') ? ' ban-reason-error' : ''}`}
              onChange={(e) => choose((e.currentTarget as HTMLSelectElement).value)}
            >
              <option value="">Choose a reason</option>
              {catalogue.reasons.map((r) => (
                <option key={r.code} value={r.code}>
                  {r.label} ({r.code})
                </option>
              ))}
            </select>
            <small id="ban-reason-hint" class="hint">
              {catalogue.reasons.length === 0
                ? 'Strict reasons are on and the catalogue is empty: add a reason in the Policy view first.'
                : "Strict reasons are on: only the catalogue's codes. Choosing one fills in the fields below; each stays editable."}
            </small>
            {err('reason_code') && (
              <small id="ban-reason-error" class="field-error">
                {err('reason_code')}
              </small>
            )}
          </div>
        ) : (
          catalogue &&
          catalogue.reasons.length > 0 && (
            <div class="field">
              <label for="ban-catalogue">Reason from the catalogue</label>
              <select
                id="ban-catalogue"
                value={catalogue.reasons.some((r) => r.code === reason.trim()) ? reason.trim() : ''}
                aria-describedby="ban-catalogue-hint"
                onChange={(e) => choose((e.currentTarget as HTMLSelectElement).value)}
              >
                <option value="">None: type a reason code below</option>
                {catalogue.reasons.map((r) => (
                  <option key={r.code} value={r.code}>
                    {r.label} ({r.code})
                  </option>
                ))}
              </select>
              <small id="ban-catalogue-hint" class="hint">
                Fills in the code, type, scope, expiry and message; each stays editable.
              </small>
            </div>
          )
        )}
        <div class="field">
          <label for="ban-type">Ban type</label>
          <select
            id="ban-type"
            value={banType}
            onChange={(e) =>
              setBanType((e.currentTarget as HTMLSelectElement).value as CreateBanRequest['ban_type'])
            }
          >
            <option value="cheat">cheat</option>
            <option value="social">social</option>
          </select>
        </div>
        <div class="field">
          <label for="ban-scope">Scope</label>
          <select
            id="ban-scope"
            value={scope}
            aria-describedby="ban-scope-hint"
            onChange={(e) =>
              setScope((e.currentTarget as HTMLSelectElement).value as CreateBanRequest['scope'])
            }
          >
            <option value="game">game: this game only</option>
            <option value="publisher">publisher: all your games</option>
            <option value="global">global: every publisher</option>
          </select>
          <small id="ban-scope-hint" class="hint">
            The game is the Game ID above ({game || 'none yet'}).{' '}
            {reachOf(policy, { ban_type: banType, scope }).text}
          </small>
        </div>
        {!strict && (
          <Field
            id="ban-reason"
            label="Reason code"
            value={reason}
            onValue={setReason}
            error={err('reason_code')}
            hint="1-64 characters of A-Z a-z 0-9 . _ : -, e.g. aimbot"
            required
          />
        )}
        <Field
          id="ban-expires"
          label="Expires at (optional)"
          type="datetime-local"
          value={expires}
          onValue={setExpires}
          error={err('expires_at')}
          hint="Your local time; empty makes the ban permanent."
        />
        <fieldset class="actions">
          <legend>Duration presets (set the expiry)</legend>
          {DURATION_PRESETS.map((preset) => (
            <button
              key={preset.label}
              type="button"
              class="secondary"
              aria-label={preset.seconds === null ? 'Permanent' : `Expires in ${preset.label}`}
              onClick={() => setExpires(expiryIn(preset.seconds))}
            >
              {preset.label}
            </button>
          ))}
        </fieldset>
        <Field
          id="ban-details"
          label="Details (optional JSON object)"
          multiline
          value={details}
          onValue={setDetails}
          error={err('details')}
          hint='Private to your publisher, e.g. {"match": "m-77"}; at most 16 KiB.'
        />
        <Field
          id="ban-player-message"
          label="Message for the player (optional)"
          value={playerMessage}
          onValue={setPlayerMessage}
          error={err('player_message')}
          hint="What a game may show the player, as it is: plain text, one paragraph, at most 500 characters. Every publisher who sees the ban sees it."
        />
        <div class="check">
          <input
            type="checkbox"
            id="ban-appealable"
            checked={appealable}
            onChange={(e) => setAppealable((e.currentTarget as HTMLInputElement).checked)}
          />
          <label for="ban-appealable">The player may appeal this ban</label>
        </div>
        <p class="meta" id="ban-reach">
          {lastingReach({ permanent: expires === '', scope, ban_type: banType })}
        </p>
        <p class="meta">
          Idempotency key of this form: <code>{idempotencyKey}</code> (sending the form twice makes one ban).
        </p>
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create ban'}
        </button>
      </form>
      <Notice message={message} />
    </section>
  );
};

interface RevokeProps {
  call: Call;
  game: string;
  deviceId: string;
  ban: Ban;
  onDone: (message: Message) => void;
  onCancel: () => void;
}

/** Revoking one ban, with a reason. Opens with focus in the reason field. */
export const RevokePanel = ({ call, game, deviceId, ban, onDone, onCancel }: RevokeProps) => {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [message, setMessage] = useState<Message>(null);
  const { busy, run } = useBusy();
  const input = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    input.current?.querySelector('input')?.focus();
  }, [ban.ban_id]);

  const submit = (e: Event) => {
    e.preventDefault();
    const problem = check('reason_code', reason.trim());
    setError(problem);
    if (problem) {
      setMessage({ kind: 'error', text: `Revoke reason ${problem}.` });
      return;
    }
    setMessage(null);
    void run(async () => {
      const answer = await call('post', '/v1/device/{device_id}/bans/{ban_id}/revoke', {
        path: { device_id: deviceId, ban_id: ban.ban_id },
        body: { reason_code: reason.trim() },
        game,
      });
      if (answer.status !== 200) {
        setMessage(errorMessage(answer));
        return;
      }
      onDone({
        kind: 'ok',
        text: `Ban ${answer.body.ban_id} revoked with reason ${answer.body.revoke_reason_code ?? reason.trim()}.`,
      });
    });
  };

  return (
    <ConfirmStep
      id="revoke-heading"
      title={`Revoke ban ${ban.ban_id}`}
      action="Revoke ban"
      busyAction="Revoking…"
      busy={busy}
      onConfirm={submit}
      onCancel={onCancel}
      focusHeading={false}
    >
      <p>
        {ban.ban_type}, {ban.scope} scope, reason {ban.reason_code}. Revoking makes it inactive for everyone
        at once; it stays in the history.
      </p>
      <div ref={input}>
        <Field
          id="revoke-reason"
          label="Revoke reason"
          value={reason}
          onValue={setReason}
          error={error ?? apiFieldError(message, 'reason_code')}
          hint="1-64 characters of A-Z a-z 0-9 . _ : -, e.g. appeal_upheld"
          required
        />
      </div>
      <Notice message={message} />
    </ConfirmStep>
  );
};

interface EraseProps {
  call: Call;
  deviceId: string;
  /** Why erasure is refused before asking (a key bound to games), if known. */
  refusal: string | null;
  onErased: (message: Message) => void;
}

/** Erasing a device's data, after typing its id. */
export const ErasePanel = ({ call, deviceId, refusal, onErased }: EraseProps) => {
  const [confirm, setConfirm] = useState('');
  const [message, setMessage] = useState<Message>(null);
  const { busy, run } = useBusy();
  const matches = confirm.trim() === deviceId;

  const submit = (e: Event) => {
    e.preventDefault();
    if (!matches) {
      setMessage({ kind: 'error', text: `Type ${deviceId} exactly to confirm the erasure.` });
      return;
    }
    setMessage(null);
    void run(async () => {
      const answer = await call('post', '/v1/device/{device_id}/erase', { path: { device_id: deviceId } });
      if (answer.status !== 200) {
        setMessage(errorMessage(answer));
        return;
      }
      setConfirm('');
      onErased({
        kind: 'ok',
        text: `Erased ${answer.body.erased_bans} ${answer.body.erased_bans === 1 ? 'ban' : 'bans'} of ${answer.body.device_id}.`,
      });
    });
  };

  return (
    <section aria-labelledby="erase-heading" class="panel">
      <h3 id="erase-heading">Erase this device's data</h3>
      <p>
        Deletes every ban your publisher owns on {deviceId}, whatever its scope or game. Other publishers'
        bans stay. This cannot be undone.
      </p>
      {refusal ? (
        <p class="gate">{refusal}</p>
      ) : (
        <form onSubmit={submit} noValidate>
          <Field
            id="erase-confirm"
            label="Type the device ID to confirm"
            value={confirm}
            onValue={setConfirm}
            hint={`Type ${deviceId}`}
          />
          <button type="submit" class="danger" disabled={busy || !matches}>
            {busy ? 'Erasing…' : 'Erase device data'}
          </button>
        </form>
      )}
      <Notice message={message} />
    </section>
  );
};
