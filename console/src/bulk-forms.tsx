import { useState } from 'preact/hooks';
import type { Call, Policy } from './api';
import { lastingReach, reachOf } from './ban-terms';
import type { BanType, CreateBanRequest } from './bulk-run';
import { ConfirmStep, Field, type Message, Notice, type ScopeKnowledge } from './ui';
import { check, parseDetails, parseExpiry, parsePlayerMessage } from './validation';

/** The bulk view's two forms: ban the listed devices, or revoke their bans. */

export interface Props {
  call: Call;
  knowledge: ScopeKnowledge;
  policy: Policy | null;
  /** The caller's publisher, to revoke only its own bans; null when not known. */
  publisher: string | null;
  game: string;
  gameError: string | undefined;
}

export const BanForm = ({
  game,
  policy,
  count,
  busy,
  onBan,
}: {
  game: string;
  policy: Policy | null;
  count: number;
  busy: boolean;
  onBan: (body: Omit<CreateBanRequest, 'device_id' | 'idempotency_key'>, label: string) => void;
}) => {
  const [banType, setBanType] = useState<BanType>('cheat');
  const [scope, setScope] = useState<CreateBanRequest['scope']>('game');
  const [reason, setReason] = useState('');
  const [expires, setExpires] = useState('');
  const [details, setDetails] = useState('');
  const [playerMessage, setPlayerMessage] = useState('');
  const [appealable, setAppealable] = useState(true);
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [message, setMessage] = useState<Message>(null);
  const [confirming, setConfirming] = useState<Omit<
    CreateBanRequest,
    'device_id' | 'idempotency_key'
  > | null>(null);

  const submit = (e: Event) => {
    e.preventDefault();
    const expiry = parseExpiry(expires);
    const parsedDetails = parseDetails(details);
    const forPlayer = parsePlayerMessage(playerMessage);
    const found = {
      reason_code: check('reason_code', reason.trim()),
      expires_at: expiry.ok ? undefined : expiry.message,
      details: parsedDetails.ok ? undefined : parsedDetails.message,
      player_message: forPlayer.ok ? undefined : forPlayer.message,
    };
    setErrors(found);
    if (!expiry.ok || !parsedDetails.ok || !forPlayer.ok || found.reason_code) {
      setConfirming(null);
      setMessage({ kind: 'error', text: 'Nothing was sent: correct the fields marked below.' });
      return;
    }
    setMessage(null);
    setConfirming({
      ban_type: banType,
      scope,
      reason_code: reason.trim(),
      ...(expiry.value === undefined ? {} : { expires_at: expiry.value }),
      ...(parsedDetails.value === undefined ? {} : { details: parsedDetails.value }),
      ...(forPlayer.value === undefined ? {} : { player_message: forPlayer.value }),
      ...(appealable ? {} : { appealable: false }),
    });
  };

  return (
    <section aria-labelledby="bulk-ban-heading" class="panel">
      <h3 id="bulk-ban-heading">Ban these devices</h3>
      <form onSubmit={submit} noValidate>
        <div class="field">
          <label for="bulk-ban-type">Ban type</label>
          <select
            id="bulk-ban-type"
            value={banType}
            onChange={(e) => setBanType((e.currentTarget as HTMLSelectElement).value as BanType)}
          >
            <option value="cheat">cheat</option>
            <option value="social">social</option>
          </select>
        </div>
        <div class="field">
          <label for="bulk-ban-scope">Scope</label>
          <select
            id="bulk-ban-scope"
            value={scope}
            aria-describedby="bulk-ban-scope-hint"
            onChange={(e) =>
              setScope((e.currentTarget as HTMLSelectElement).value as CreateBanRequest['scope'])
            }
          >
            <option value="game">game: this game only</option>
            <option value="publisher">publisher: all your games</option>
            <option value="global">global: every publisher</option>
          </select>
          <small id="bulk-ban-scope-hint" class="hint">
            The game is the Game ID above ({game || 'none yet'}).{' '}
            {reachOf(policy, { ban_type: banType, scope }).text}
          </small>
        </div>
        <Field
          id="bulk-ban-reason"
          label="Reason code"
          value={reason}
          onValue={setReason}
          error={errors.reason_code}
          hint="1-64 characters of A-Z a-z 0-9 . _ : -, e.g. aimbot"
          required
        />
        <Field
          id="bulk-ban-expires"
          label="Expires at (optional)"
          type="datetime-local"
          value={expires}
          onValue={setExpires}
          error={errors.expires_at}
          hint="Your local time; empty makes the bans permanent."
        />
        <Field
          id="bulk-ban-details"
          label="Details (optional JSON object)"
          multiline
          value={details}
          onValue={setDetails}
          error={errors.details}
          hint='Private to your publisher, the same on every ban, e.g. {"report": "r-12"}; at most 16 KiB.'
        />
        <Field
          id="bulk-ban-player-message"
          label="Message for the player (optional)"
          value={playerMessage}
          onValue={setPlayerMessage}
          error={errors.player_message}
          hint="What a game may show the player: plain text, one paragraph, at most 500 characters. Every publisher who sees the ban sees it."
        />
        <div class="check">
          <input
            type="checkbox"
            id="bulk-ban-appealable"
            checked={appealable}
            onChange={(e) => setAppealable((e.currentTarget as HTMLInputElement).checked)}
          />
          <label for="bulk-ban-appealable">The player may appeal these bans</label>
        </div>
        <button type="submit" disabled={busy}>
          Ban {count === 1 ? '1 device' : `${count} devices`}…
        </button>
      </form>
      <Notice message={message} />
      {confirming && (
        <ConfirmStep
          id="bulk-ban-confirm-heading"
          title={`Ban ${count === 1 ? '1 device' : `${count} devices`} in ${game}?`}
          action="Ban them"
          busyAction="Banning…"
          busy={false}
          onConfirm={() => {
            const body = confirming;
            setConfirming(null);
            onBan(body, `Ban: ${body.ban_type}, ${body.scope} scope, reason ${body.reason_code}`);
          }}
          onCancel={() => setConfirming(null)}
        >
          <p>
            One {confirming.ban_type} ban of {confirming.scope} scope, reason {confirming.reason_code}, on
            each device. {reachOf(policy, confirming).text}
          </p>
          <p>
            {lastingReach({
              permanent: confirming.expires_at === undefined,
              scope: confirming.scope,
              ban_type: confirming.ban_type,
            })}
          </p>
          <p>Sending the batch again, whole or its failures, makes no second ban of a device.</p>
        </ConfirmStep>
      )}
    </section>
  );
};

export const RevokeForm = ({
  game,
  count,
  publisher,
  busy,
  onRevoke,
}: {
  game: string;
  count: number;
  publisher: string;
  busy: boolean;
  onRevoke: (type: BanType, reason: string) => void;
}) => {
  const [banType, setBanType] = useState<BanType>('cheat');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [confirming, setConfirming] = useState<{ type: BanType; reason: string } | null>(null);
  const devices = count === 1 ? '1 device' : `${count} devices`;
  const submit = (e: Event) => {
    e.preventDefault();
    const problem = check('reason_code', reason.trim());
    setError(problem && `Revoke reason ${problem}`);
    setConfirming(problem ? null : { type: banType, reason: reason.trim() });
  };
  return (
    <section aria-labelledby="bulk-revoke-heading" class="panel">
      <h3 id="bulk-revoke-heading">Revoke your bans on these devices</h3>
      <p>Revokes {publisher}'s active bans of the type on each device; other publishers' bans stay.</p>
      <form onSubmit={submit} noValidate>
        <div class="field">
          <label for="bulk-revoke-type">Ban type to revoke</label>
          <select
            id="bulk-revoke-type"
            value={banType}
            onChange={(e) => setBanType((e.currentTarget as HTMLSelectElement).value as BanType)}
          >
            <option value="cheat">cheat</option>
            <option value="social">social</option>
          </select>
        </div>
        <Field
          id="bulk-revoke-reason"
          label="Revoke reason"
          value={reason}
          onValue={setReason}
          error={error}
          hint="1-64 characters of A-Z a-z 0-9 . _ : -, e.g. appeal_upheld"
          required
        />
        <button type="submit" disabled={busy}>
          Revoke on {devices}…
        </button>
      </form>
      {confirming && (
        <ConfirmStep
          id="bulk-revoke-confirm-heading"
          title={`Revoke your active ${confirming.type} bans on ${devices} in ${game}?`}
          action="Revoke them"
          busyAction="Revoking…"
          busy={false}
          onConfirm={() => {
            setConfirming(null);
            onRevoke(confirming.type, confirming.reason);
          }}
          onCancel={() => setConfirming(null)}
        >
          <p>
            Each is made inactive for everyone at once, with reason {confirming.reason}; it stays in the
            history.
          </p>
        </ConfirmStep>
      )}
    </section>
  );
};
