import { useState } from 'preact/hooks';
import type { Policy } from './api';
import {
  BanKindFields,
  BanTypeSelect,
  ExpiresField,
  PlayerFields,
  type PlayerWords,
  ReasonCodeField,
  RevokeReasonField,
} from './ban-fields';
import { type BanTerms, type BanType, blankTerms, lastingReach, reachOf, termsOf } from './ban-terms';
import { ConfirmStep, Notice } from './ui';
import { useForm } from './use-form';
import { useRequest } from './use-request';
import { check } from './validation';

/**
 * The bulk view's two forms: ban the listed devices, or revoke their bans. Neither sends anything
 * itself: each asks to confirm, then hands its terms to the view, which runs the batch.
 */

const devicesText = (count: number) => (count === 1 ? '1 device' : `${count} devices`);

const words: PlayerWords = {
  detailsHint: 'Private to your publisher, the same on every ban, e.g. {"report": "r-12"}; at most 16 KiB.',
  messageHint:
    'What a game may show the player: plain text, one paragraph, at most 500 characters. Every publisher who sees the ban sees it.',
  appealable: 'The player may appeal these bans',
};

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
  onBan: (body: BanTerms, label: string) => void;
}) => {
  // Nothing is sent from here: the request only holds the form's message.
  const said = useRequest();
  const form = useForm(blankTerms, said);
  const [confirming, setConfirming] = useState<BanTerms | null>(null);

  const submit = (e: Event) => {
    e.preventDefault();
    const { found, terms } = termsOf(form.values);
    if (!form.accept(found, 'Nothing was sent: correct the fields marked below.') || !terms) {
      setConfirming(null);
      return;
    }
    said.setMessage(null);
    setConfirming(terms);
  };

  return (
    <section aria-labelledby="bulk-ban-heading" class="panel">
      <h3 id="bulk-ban-heading">Ban these devices</h3>
      <form onSubmit={submit} noValidate>
        <BanKindFields id="bulk-ban" form={form} game={game} policy={policy} />
        <ReasonCodeField id="bulk-ban" form={form} />
        <ExpiresField id="bulk-ban" form={form} bans="bans" />
        <PlayerFields id="bulk-ban" form={form} words={words} />
        <button type="submit" disabled={busy}>
          Ban {devicesText(count)}…
        </button>
      </form>
      <Notice message={said.message} />
      {confirming && (
        <ConfirmStep
          id="bulk-ban-confirm-heading"
          title={`Ban ${devicesText(count)} in ${game}?`}
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
  // No message, nothing sent: the type, the reason and the reason's error are all it keeps.
  const [banType, setBanType] = useState<BanType>('cheat');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [confirming, setConfirming] = useState<{ type: BanType; reason: string } | null>(null);
  const devices = devicesText(count);
  const submit = (e: Event) => {
    e.preventDefault();
    const problem = check('reason_code', reason.trim());
    setError(problem && `Revoke reason ${problem}`);
    setConfirming(problem ? null : { type: banType, reason: reason.trim() });
  };
  return (
    <section aria-labelledby="bulk-revoke-heading" class="panel">
      <h3 id="bulk-revoke-heading">Revoke your bans on these devices</h3>
      <p>
        Revokes {publisher}'s active bans of the type on each device, in each scope seen from {game}: game
        bans in {game}, publisher-wide bans and global bans. Other publishers' bans, and game bans in other
        games, stay.
      </p>
      <form onSubmit={submit} noValidate>
        <BanTypeSelect
          id="bulk-revoke-type"
          label="Ban type to revoke"
          value={banType}
          onValue={setBanType}
        />
        <RevokeReasonField id="bulk-revoke-reason" value={reason} onValue={setReason} error={error} />
        <button type="submit" disabled={busy}>
          Revoke on {devices}…
        </button>
      </form>
      {confirming && (
        <ConfirmStep
          id="bulk-revoke-confirm-heading"
          // Publisher-wide and global bans apply in every game: the question names them, not only the game.
          title={`Revoke your active ${confirming.type} bans on ${devices}: game bans in ${game}, publisher-wide and global bans?`}
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
            Publisher-wide and global bans apply in every game, not only in {game}: they are revoked too. Your
            game bans in other games stay.
          </p>
          <p>
            Each is made inactive for everyone at once, with reason {confirming.reason}; it stays in the
            history.
          </p>
        </ConfirmStep>
      )}
    </section>
  );
};
