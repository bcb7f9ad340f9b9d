import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Call } from './api';
import { deviceAnswer, type OpenDevice } from './device';
import { Field, Notice } from './ui';
import { ruleError, useForm } from './use-form';
import { useRequest } from './use-request';

/** A lookup asked for elsewhere in the page (a found device's Open): this device, in this game. */
export interface LookupRequest {
  deviceId: string;
  game: string;
}

interface LookupProps {
  call: Call;
  game: string;
  gameError: string | undefined;
  /**
   * Each new request fills the form with its device and looks it up in its game, which need not
   * be the Game ID: `requested` says the device opened answers a request.
   */
  request?: LookupRequest | null;
  /** The device shown (a link's or Back's too): the field names it, so the page says what it answers. */
  shown?: string | undefined;
  /** A lookup starts: whatever answered the previous one is no longer the answer. */
  onAsk: () => void;
  onOpen: (device: OpenDevice, requested: boolean) => void;
}

/** The lookup form: a device id, in the session's game. */
export const LookupForm = ({ call, game, gameError, request: asked, shown, onAsk, onOpen }: LookupProps) => {
  // Each lookup is a new question: only the latest one's answer opens a device. A request from
  // elsewhere runs at once, superseding a lookup under way (the form's button waits while busy).
  const request = useRequest({ latest: true });
  const form = useForm({ deviceId: '' }, request);
  // A request's game may not be the Game ID's: its refusal names the device and the game.
  const [where, setWhere] = useState<string | null>(null);

  const lookUp = (inGame: string, id: string, requested: boolean) => {
    setWhere(requested ? `Device ${id} could not be looked up in game ${inGame}.` : null);
    return request.run(
      () => {
        onAsk();
        return deviceAnswer(call, inGame, id);
      },
      (answer) => onOpen(answer.body, requested),
    );
  };

  useEffect(() => {
    if (!asked) return;
    form.reset();
    form.set('deviceId')(asked.deviceId);
    void lookUp(asked.game, asked.deviceId, true);
  }, [asked]);

  useEffect(() => {
    if (shown !== undefined && form.values.deviceId.trim() !== shown) form.set('deviceId')(shown);
  }, [shown]);

  const submit = (e: Event) => {
    e.preventDefault();
    setWhere(null);
    const id = form.values.deviceId.trim();
    const found = { device_id: ruleError('Device ID', 'device_id', id) };
    const refusal = gameError ? `Game ID ${gameError}.` : `${found.device_id}.`;
    if (!form.accept(found, refusal, !gameError)) return;
    void lookUp(game, id, false);
  };

  const message = useMemo(
    () =>
      where && request.message?.kind === 'error'
        ? { ...request.message, text: `${where} ${request.message.text}` }
        : request.message,
    [request.message, where],
  );
  return (
    <section aria-labelledby="lookup-heading" class="panel">
      <h2 id="lookup-heading">Look up a device</h2>
      <form onSubmit={submit} noValidate>
        <Field
          id="lookup-device"
          label="Device ID"
          value={form.values.deviceId}
          onValue={form.set('deviceId')}
          error={form.error('device_id')}
          required
        />
        <button type="submit" disabled={request.busy}>
          {request.busy ? 'Looking up…' : 'Look up'}
        </button>
      </form>
      <Notice message={message} />
    </section>
  );
};
