import { useLayoutEffect, useRef } from 'preact/hooks';
import type { Ban, Call } from './api';
import { RevokeReasonField, revokeReasonProblem } from './ban-fields';
import { ConfirmStep, Field, type Message, Notice } from './ui';
import { useForm } from './use-form';
import { useRequest } from './use-request';

/** The forms that end a device's bans: revoke one, erase them all (creating one is ban-create.tsx). */

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
  const request = useRequest();
  const form = useForm({ reason: '' }, request);
  const input = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    input.current?.querySelector('select')?.focus();
  }, [ban.ban_id]);

  const submit = (e: Event) => {
    e.preventDefault();
    const reason = form.values.reason;
    const problem = revokeReasonProblem(reason);
    if (!form.accept({ reason_code: problem }, `Revoke reason ${problem}.`)) return;
    void request.run(
      () =>
        call('post', '/v1/device/{device_id}/bans/{ban_id}/revoke', {
          path: { device_id: deviceId, ban_id: ban.ban_id },
          body: { reason_code: reason },
          game,
        }),
      (answer) =>
        onDone({
          kind: 'ok',
          text: `Ban ${answer.body.ban_id} revoked with reason ${answer.body.revoke_reason_code ?? reason}.`,
        }),
    );
  };

  return (
    <ConfirmStep
      id="revoke-heading"
      title={`Revoke ban ${ban.ban_id}`}
      action="Revoke ban"
      busyAction="Revoking…"
      busy={request.busy}
      onConfirm={submit}
      onCancel={onCancel}
      focusHeading={false}
    >
      <p>
        {ban.ban_type}, {ban.scope} scope, reason {ban.reason_code}. Revoking makes it inactive for everyone
        at once; it stays in the history.
      </p>
      <div ref={input}>
        <RevokeReasonField
          id="revoke-reason"
          value={form.values.reason}
          onValue={form.set('reason')}
          error={form.error('reason_code')}
        />
      </div>
      <Notice message={request.message} />
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
  const request = useRequest();
  const form = useForm({ confirm: '' }, request);
  const matches = form.values.confirm.trim() === deviceId;

  const submit = (e: Event) => {
    e.preventDefault();
    if (!form.accept({}, `Type ${deviceId} exactly to confirm the erasure.`, matches)) return;
    void request.run(
      () => call('post', '/v1/device/{device_id}/erase', { path: { device_id: deviceId } }),
      (answer) => {
        form.reset();
        onErased({
          kind: 'ok',
          text: `Erased ${answer.body.erased_bans} ${answer.body.erased_bans === 1 ? 'ban' : 'bans'} of ${answer.body.device_id}.`,
        });
      },
    );
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
            value={form.values.confirm}
            onValue={form.set('confirm')}
            hint={`Type ${deviceId}`}
          />
          <button type="submit" class="danger" disabled={request.busy || !matches}>
            {request.busy ? 'Erasing…' : 'Erase device data'}
          </button>
        </form>
      )}
      <Notice message={request.message} />
    </section>
  );
};
