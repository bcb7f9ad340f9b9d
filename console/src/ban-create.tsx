import { useState } from 'preact/hooks';
import { type Call, formatTime, type Policy, type Schemas } from './api';
import {
  BanKindFields,
  CatalogueReason,
  DurationPresets,
  ExpiresField,
  PlayerFields,
  type PlayerWords,
  ReasonCodeField,
  useBanReason,
} from './ban-fields';
import {
  type BanValues,
  blankTerms,
  type CreateBanRequest,
  DRAFTED_TERMS,
  lastingReach,
  newIdempotencyKey,
  reachOf,
  termsOf,
} from './ban-terms';
import { useDraft } from './drafts';
import { GamePicker, gameProblem } from './game-picker';
import { Field, Notice, useOnChange } from './ui';
import { useForm } from './use-form';
import { useRequest } from './use-request';
import { check } from './validation';

/**
 * Creating one ban on a device, sent once however often it is submitted, in the game chosen in the
 * form: the view's Game ID unless the moderator picks another (the view's game changing resets it).
 */

interface CreateBanProps {
  call: Call;
  /** The view's Game ID: the form's game until another is chosen in it. */
  game: string;
  /** The games a bound key holds, if any. */
  bound: readonly string[] | null | undefined;
  /** The games the publisher has made bans in (null: unknown): a game never used is flagged. */
  used: readonly string[] | null;
  /** The open device, to fill the form with. */
  deviceId: string | null;
  /** The caller's policy, to say before and after where a ban would apply; null until read. */
  policy: Policy | null;
  /** The device and the game the ban was made in. */
  onCreated: (deviceId: string, game: string) => void;
}

const words: PlayerWords = {
  detailsHint: 'Private to your publisher, e.g. {"match": "m-77"}; at most 16 KiB.',
  messageHint:
    'What a game may show the player, as it is: plain text, one paragraph, at most 500 characters. Every publisher who sees the ban sees it.',
  appealable: 'The player may appeal this ban',
};

/** When a ban in force ends, as a sentence's end. */
export const endWords = (expiresAt: string | null) =>
  expiresAt === null ? 'permanent' : `until ${formatTime(expiresAt)}`;

/**
 * What a create's answer says: made now, made already by this form's earlier attempt, or not made
 * because the same ban of yours is in force already (another moderator's, or an earlier one).
 */
const createdText = (result: Schemas['BanCreationResult'], policy: Policy | null) => {
  switch (result.status) {
    case 'created':
      return `Ban ${result.ban_id} created: ${result.ban_type}, ${result.scope} scope, on ${result.device_id} in game ${result.game_id}. ${reachOf(policy, result).text}`;
    case 'idempotent_ok':
      // The same form sent again (after an unanswered or refused attempt): the API had made it.
      return `Ban ${result.ban_id} is in place: ${result.ban_type}, ${result.scope} scope, on ${result.device_id} (this form's earlier attempt had made it; no second ban was created).`;
    case 'already_active':
      return `Already banned: no new ban was created. Ban ${result.ban_id} (${result.ban_type}, ${result.scope} scope, reason ${result.reason_code}) is in force on ${result.device_id} since ${formatTime(result.created_at)}, ${endWords(result.expires_at)}.`;
  }
};

export const CreateBanForm = ({
  call,
  game: viewGame,
  bound,
  used,
  deviceId,
  policy,
  onCreated,
}: CreateBanProps) => {
  const [game, setGame] = useState(viewGame);
  useOnChange(viewGame, setGame);
  const gameError = gameProblem(game, bound);
  const request = useRequest();
  const form = useForm<BanValues>({ ...blankTerms, device: deviceId ?? '' }, request);
  const draft = useDraft('ban-create', form, blankTerms, DRAFTED_TERMS);
  const { device = '', reason, expires, scope, banType } = form.values;
  const [idempotencyKey, setIdempotencyKey] = useState(newIdempotencyKey);
  const { catalogue, strict, choose, reasonProblem } = useBanReason(call, form);

  useOnChange(deviceId, (looked) => {
    if (looked) form.set('device')(looked);
  });

  const submit = (e: Event) => {
    e.preventDefault();
    const id = device.trim();
    const { found, terms } = termsOf(form.values, reasonProblem);
    const refusal = gameError
      ? `Game ID of the ban ${gameError}.`
      : 'The ban was not created: correct the fields marked below.';
    const checked = { device_id: check('device_id', id), ...found };
    if (!form.accept(checked, refusal, !gameError) || !terms) return;
    const body: CreateBanRequest = { device_id: id, ...terms, idempotency_key: idempotencyKey };
    void request.run(
      () => call('post', '/v1/bans', { body, game }),
      (answer) => {
        form.reset(['reason', 'expires', 'details', 'playerMessage', 'appealable']);
        draft.clear();
        request.setMessage({ kind: 'ok', text: createdText(answer.body, policy) });
        setIdempotencyKey(newIdempotencyKey());
        onCreated(answer.body.device_id, answer.body.game_id);
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
          id="ban"
          catalogue={catalogue}
          strict={strict}
          reason={reason}
          error={form.error('reason_code')}
          onChoose={choose}
        />
        <GamePicker
          id="ban-game"
          label="Game ID of the ban"
          game={game}
          onGame={setGame}
          hint="The game the ban is made in (X-Game-Id): the Game ID above unless you choose another here."
          error={game !== '' && gameError ? `Game ID of the ban ${gameError}` : undefined}
          // The view's own picker flags its game already: here only another one chosen.
          used={game === viewGame ? null : used}
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
