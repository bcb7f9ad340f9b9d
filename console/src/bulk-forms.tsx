import { useState } from 'preact/hooks';
import type { Call, Policy } from './api';
import {
  BanKindFields,
  BanTypeSelect,
  CatalogueReason,
  DurationPresets,
  ExpiresField,
  PlayerFields,
  type PlayerWords,
  ReasonCodeField,
  RevokeReasonField,
  revokeReasonProblem,
  useBanReason,
} from './ban-fields';
import {
  type BanTerms,
  type BanType,
  blankTerms,
  DRAFTED_TERMS,
  lastingReach,
  reachOf,
  termsOf,
} from './ban-terms';
import { useDraft } from './drafts';
import { ConfirmStep, Notice } from './ui';
import { useForm } from './use-form';
import { useRequest } from './use-request';

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

/** What the confirmation says of the devices that already have the ban, as the Check found them. */
const skipWords = (count: number, skipped: number | null) => {
  if (skipped === null) return 'Not checked: press Check first to see which devices already have this ban. ';
  if (skipped === 0) return 'The Check found none of them with this ban in force. ';
  return `${skipped === count ? 'All' : `${skipped} of`} ${devicesText(count)} already ${
    skipped === 1 ? 'has' : 'have'
  } this ban of yours in force (found by the Check): ${skipped === 1 ? 'it is' : 'they are'} skipped, so at most ${
    count - skipped
  } ${count - skipped === 1 ? 'ban is' : 'bans are'} made. `;
};

export const BanForm = ({
  call,
  game,
  policy,
  count,
  busy,
  skippedFor,
  onBan,
}: {
  call: Call;
  game: string;
  policy: Policy | null;
  count: number;
  busy: boolean;
  /** How many listed devices the Check found with these terms' ban in force; null without a Check. */
  skippedFor: (terms: BanTerms) => number | null;
  onBan: (body: BanTerms, label: string) => void;
}) => {
  // Nothing is sent from here: the request only holds the form's message.
  const said = useRequest();
  const form = useForm(blankTerms, said);
  // The terms typed survive a reload and a new sign-in, as the single form's do, until they are sent.
  const draft = useDraft('bulk-ban', form, blankTerms, DRAFTED_TERMS);
  const { catalogue, strict, choose, reasonProblem } = useBanReason(call, form);
  const [confirming, setConfirming] = useState<BanTerms | null>(null);

  const submit = (e: Event) => {
    e.preventDefault();
    const { found, terms } = termsOf(form.values, reasonProblem);
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
        <CatalogueReason
          id="bulk-ban"
          catalogue={catalogue}
          strict={strict}
          reason={form.values.reason}
          error={form.error('reason_code')}
          onChoose={choose}
        />
        <BanKindFields id="bulk-ban" form={form} game={game} policy={policy} />
        {!strict && <ReasonCodeField id="bulk-ban" form={form} />}
        <ExpiresField id="bulk-ban" form={form} bans="bans" />
        <DurationPresets onExpires={form.set('expires')} />
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
            draft.clear();
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
          <p>
            {skipWords(count, skippedFor(confirming))}A device the API finds with this ban of yours in force
            when it is sent (another moderator's, say) is skipped too, and so is every device when the batch
            is sent again, whole or its failures: no device gets a second such ban (unless two are sent at the
            very same moment).
          </p>
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
    const problem = revokeReasonProblem(reason);
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
