import { APPEAL_TEXT_MAX, PLAYER_MESSAGE_MAX } from '@kernel/player-message';
import { type AppealOutcome, appealOutcomes } from '@kernel/requests';
import { useState } from 'preact/hooks';
import { type Ban, type Call, formatTime, holderOf, type Policy } from './api';
import type { Holder } from './appeals-claim';
import { consequence, DecisionPreview } from './appeals-decision-preview';
import { type Appeal, type DecisionRequest, outcomeHelp } from './appeals-words';
import { banState } from './device';
import { useDraft } from './drafts';
import type { DecisionDraft } from './preview';
import { apiFieldError, ConfirmStep, Field, FieldError, Notice } from './ui';
import { useForm } from './use-form';
import { useRequest } from './use-request';
import { parseAppealText, parseExpiry, parsePlayerMessage } from './validation';

/** An appeal's decision: the form with its live preview, and the confirmation before it is sent. */

interface DecisionProps {
  call: Call;
  appeal: Appeal;
  /** The ban it contests, as the console lists it; null when it could not be read. */
  ban: Ban | null;
  bans: readonly Ban[] | null;
  policy: Policy | null;
  onDecided: (appeal: Appeal) => void;
  /** Why this session may not decide now (another holds it, or decided it); null: it may. */
  locked: string | null;
  /** A 409 naming who holds or decided the appeal: the page shows them; the form keeps what was typed. */
  onConflict: (holder: Holder) => void;
}

/** The outcomes, one to choose, each with what it does to the ban. */
const OutcomeChoice = ({
  outcome,
  onOutcome,
  error,
}: {
  outcome: AppealOutcome | null;
  onOutcome: (outcome: AppealOutcome) => void;
  error: string | undefined;
}) => (
  <fieldset aria-describedby={error ? 'decision-outcome-error' : undefined}>
    <legend>Outcome</legend>
    {appealOutcomes.map((option) => (
      <div class="check" key={option}>
        <input
          type="radio"
          name="decision-outcome"
          id={`decision-outcome-${option}`}
          checked={outcome === option}
          aria-describedby={`decision-outcome-${option}-help`}
          onChange={() => onOutcome(option)}
        />
        <div>
          <label for={`decision-outcome-${option}`}>{option}</label>
          <div id={`decision-outcome-${option}-help`} class="hint">
            {outcomeHelp[option]}
          </div>
        </div>
      </div>
    ))}
    <FieldError id="decision-outcome" error={error} />
  </fieldset>
);

const blankDecision = { outcome: null as AppealOutcome | null, expires: '', note: '', playerMessage: '' };
/** What a reload or a new sign-in keeps: what was typed (the outcome is one click). */
const DRAFTED = ['expires', 'note', 'playerMessage'] as const;

/**
 * The decision form: the outcome, a private note, a new message for the player and, for
 * shortened, the new expiry, checked in the page by the API's rules; a live preview; then a
 * confirmation, and only then the POST.
 */
export const DecisionForm = ({
  call,
  appeal,
  ban,
  bans,
  policy,
  onDecided,
  locked,
  onConflict,
}: DecisionProps) => {
  const request = useRequest();
  const { busy, message } = request;
  const form = useForm(blankDecision, request);
  // Per appeal: a note typed for one never lands in another's form.
  const kept = useDraft(`appeal-decision:${appeal.appeal_id}`, form, blankDecision, DRAFTED);
  const { outcome, expires, note, playerMessage } = form.values;
  const [confirming, setConfirming] = useState<DecisionRequest | null>(null);

  /** The new expiry, or its problem, by the API's rules (lib/domain/appeals.ts decideAppeal). */
  const expiry = ((): { problem?: string; value?: string } => {
    if (outcome !== 'shortened') return {};
    if (ban && banState(ban) !== 'active')
      return { problem: 'The ban is no longer in force: there is no expiry to shorten' };
    if (expires === '') return { problem: 'New expiry is required for the outcome shortened' };
    const parsed = parseExpiry(expires);
    if (!parsed.ok) return { problem: `New expiry ${parsed.message}` };
    if (ban && ban.expires_at !== null && parsed.value !== undefined && parsed.value >= ban.expires_at)
      return { problem: `New expiry must be earlier than the ban's expiry (${formatTime(ban.expires_at)})` };
    return { value: parsed.value };
  })();
  const noteParsed = parseAppealText(note);
  const messageParsed = parsePlayerMessage(playerMessage);
  const problems: Record<string, string | undefined> = {
    outcome: outcome ? undefined : 'Choose an outcome',
    expires_at: expiry.problem,
    note: noteParsed.ok ? undefined : `Private note ${noteParsed.message}`,
    player_message: messageParsed.ok ? undefined : `New message for the player ${messageParsed.message}`,
  };
  // Once reviewed (form.accept has run), each field's problem follows what is typed, as the preview does.
  const reviewed = Object.keys(form.errors).length > 0;
  const error = (field: string) => (reviewed ? problems[field] : undefined) ?? apiFieldError(message, field);
  const draft: DecisionDraft | null = outcome && {
    outcome,
    expiresAt: expiry.value,
    playerMessage: messageParsed.ok ? messageParsed.value : undefined,
  };

  const review = (e: Event) => {
    e.preventDefault();
    const refusal = 'The appeal was not decided: correct the fields marked below.';
    if (!form.accept(problems, refusal) || !outcome || !noteParsed.ok || !messageParsed.ok) return;
    request.setMessage(null);
    setConfirming({
      outcome,
      ...(noteParsed.value === undefined ? {} : { note: noteParsed.value }),
      ...(messageParsed.value === undefined ? {} : { player_message: messageParsed.value }),
      ...(expiry.value === undefined ? {} : { expires_at: expiry.value }),
    });
  };

  const send = (body: DecisionRequest) =>
    request.run(
      // The confirmation closes with the answer, whatever it is.
      () =>
        call('post', '/v1/appeals/{appeal_id}/decision', {
          path: { appeal_id: appeal.appeal_id },
          body,
        })
          .then((answer) => {
            const holder = holderOf(answer);
            if (holder) onConflict(holder);
            return answer;
          })
          .finally(() => setConfirming(null)),
      (answer) => {
        kept.clear();
        onDecided(answer.body);
      },
    );

  return (
    <section aria-labelledby="decision-heading">
      <h4 id="decision-heading">Decide</h4>
      {locked && (
        <p class="gate" id="decision-locked">
          {locked}
        </p>
      )}
      <form onSubmit={review} noValidate aria-describedby={locked ? 'decision-locked' : undefined}>
        <fieldset class="plain" disabled={locked !== null}>
          <OutcomeChoice outcome={outcome} onOutcome={form.set('outcome')} error={error('outcome')} />
          {outcome === 'shortened' && (
            <Field
              id="decision-expires"
              label="New expiry"
              type="datetime-local"
              value={expires}
              onValue={form.set('expires')}
              error={error('expires_at')}
              hint={`Your local time: later than now, and earlier than the ban's expiry (${
                ban
                  ? ban.expires_at === null
                    ? 'none: it is permanent'
                    : formatTime(ban.expires_at)
                  : 'not read'
              }).`}
              required
            />
          )}
          <Field
            id="decision-note"
            label="Private note (optional)"
            multiline
            value={note}
            onValue={form.set('note')}
            error={error('note')}
            hint={`For your publisher's moderators: the player and the publisher that filed never see it. Plain text, at most ${APPEAL_TEXT_MAX} characters.`}
          />
          <Field
            id="decision-player-message"
            label="New message for the player (optional)"
            value={playerMessage}
            onValue={form.set('playerMessage')}
            error={error('player_message')}
            hint={`Replaces the ban's message (${ban?.player_message ? `now: “${ban.player_message}”` : 'none now'}); empty keeps it. Plain text, one paragraph, at most ${PLAYER_MESSAGE_MAX} characters.`}
          />
          <section aria-labelledby="decision-preview-heading">
            <h5 id="decision-preview-heading">What the player will see</h5>
            {!draft ? (
              <p>Choose an outcome to preview what it changes for the player.</p>
            ) : !ban ? (
              <p>The ban could not be read with this session, so there is no preview.</p>
            ) : (
              <DecisionPreview appeal={appeal} ban={ban} bans={bans} draft={draft} policy={policy} />
            )}
          </section>
          <button type="submit" disabled={busy || confirming !== null}>
            Review decision
          </button>
        </fieldset>
      </form>
      <Notice message={message} />
      {confirming && (
        <ConfirmStep
          id="decide-confirm-heading"
          title={`Decide appeal ${appeal.appeal_id}: ${confirming.outcome}?`}
          action={`Decide: ${confirming.outcome}`}
          busyAction="Deciding…"
          busy={busy}
          onConfirm={() => void send(confirming)}
          onCancel={() => setConfirming(null)}
        >
          <p>{consequence(appeal, ban, confirming)}</p>
          <p>An appeal is decided once: this cannot be changed afterwards.</p>
        </ConfirmStep>
      )}
    </section>
  );
};
