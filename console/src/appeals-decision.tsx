import { APPEAL_TEXT_MAX, PLAYER_MESSAGE_MAX } from '@kernel/player-message';
import { type AppealOutcome, appealOutcomes } from '@kernel/requests';
import { useState } from 'preact/hooks';
import { actorLabel, type Ban, type Call, formatTime, type Policy } from './api';
import { type Appeal, type DecisionRequest, outcomeHelp } from './appeals-words';
import { banState } from './device';
import { type DecisionDraft, decisionRows } from './preview';
import {
  apiFieldError,
  ConfirmStep,
  errorMessage,
  Field,
  type Message,
  Notice,
  PreviewTable,
  TimeText,
  useBusy,
} from './ui';
import { parseAppealText, parseExpiry, parsePlayerMessage } from './validation';

/** An appeal's decision: the form with its live preview and confirmation, and the decision once made. */

/** The player's words as they wrote them: each line its own paragraph. */
export const Written = ({ text }: { text: string }) => (
  <blockquote>
    {text.split('\n').map((line, i) => (
      <p key={i}>{line === '' ? '\u00a0' : line}</p>
    ))}
  </blockquote>
);

interface DecisionProps {
  call: Call;
  appeal: Appeal;
  /** The ban it contests, as the console lists it; null when it could not be read. */
  ban: Ban | null;
  bans: readonly Ban[] | null;
  policy: Policy | null;
  onDecided: (appeal: Appeal) => void;
}

/**
 * The decision form: the outcome, a private note, a new message for the player and, for
 * shortened, the new expiry, checked in the page by the API's rules; a live preview; then a
 * confirmation, and only then the POST.
 */
export const DecisionForm = ({ call, appeal, ban, bans, policy, onDecided }: DecisionProps) => {
  const [outcome, setOutcome] = useState<AppealOutcome | null>(null);
  const [expires, setExpires] = useState('');
  const [note, setNote] = useState('');
  const [playerMessage, setPlayerMessage] = useState('');
  // Once a review was refused, each field's problem follows what is typed (the preview is live too).
  const [reviewed, setReviewed] = useState(false);
  const [message, setMessage] = useState<Message>(null);
  const [confirming, setConfirming] = useState<DecisionRequest | null>(null);
  const { busy, run } = useBusy();

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
  const errors = reviewed ? problems : {};
  const draft: DecisionDraft | null = outcome && {
    outcome,
    expiresAt: expiry.value,
    playerMessage: messageParsed.ok ? messageParsed.value : undefined,
  };

  const review = (e: Event) => {
    e.preventDefault();
    setReviewed(true);
    if (!outcome || Object.values(problems).some(Boolean) || !noteParsed.ok || !messageParsed.ok) {
      setMessage({ kind: 'error', text: 'The appeal was not decided: correct the fields marked below.' });
      return;
    }
    setMessage(null);
    setConfirming({
      outcome,
      ...(noteParsed.value === undefined ? {} : { note: noteParsed.value }),
      ...(messageParsed.value === undefined ? {} : { player_message: messageParsed.value }),
      ...(expiry.value === undefined ? {} : { expires_at: expiry.value }),
    });
  };

  const send = (body: DecisionRequest) =>
    run(async () => {
      const answer = await call('post', '/v1/appeals/{appeal_id}/decision', {
        path: { appeal_id: appeal.appeal_id },
        body,
      });
      setConfirming(null);
      if (answer.status !== 200) {
        setMessage(errorMessage(answer));
        return;
      }
      onDecided(answer.body);
    });

  const err = (field: string) => errors[field] ?? apiFieldError(message, field);
  return (
    <section aria-labelledby="decision-heading">
      <h4 id="decision-heading">Decide</h4>
      <form onSubmit={review} noValidate>
        <fieldset aria-describedby={err('outcome') ? 'decision-outcome-error' : undefined}>
          <legend>Outcome</legend>
          {appealOutcomes.map((option) => (
            <div class="check" key={option}>
              <input
                type="radio"
                name="decision-outcome"
                id={`decision-outcome-${option}`}
                checked={outcome === option}
                aria-describedby={`decision-outcome-${option}-help`}
                onChange={() => setOutcome(option)}
              />
              <div>
                <label for={`decision-outcome-${option}`}>{option}</label>
                <div id={`decision-outcome-${option}-help`} class="hint">
                  {outcomeHelp[option]}
                </div>
              </div>
            </div>
          ))}
          {err('outcome') && (
            <small id="decision-outcome-error" class="field-error">
              {err('outcome')}
            </small>
          )}
        </fieldset>
        {outcome === 'shortened' && (
          <Field
            id="decision-expires"
            label="New expiry"
            type="datetime-local"
            value={expires}
            onValue={setExpires}
            error={err('expires_at')}
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
          onValue={setNote}
          error={err('note')}
          hint={`For your publisher's moderators: the player and the publisher that filed never see it. Plain text, at most ${APPEAL_TEXT_MAX} characters.`}
        />
        <Field
          id="decision-player-message"
          label="New message for the player (optional)"
          value={playerMessage}
          onValue={setPlayerMessage}
          error={err('player_message')}
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

/** What a decision does to the ban, in a sentence (the confirmation, and the message after it). */
export const consequence = (
  appeal: Appeal,
  ban: Ban | null,
  decision: { outcome: AppealOutcome; player_message?: string | null; expires_at?: string | null },
): string => {
  const message = decision.player_message ? ' The player is shown the new message.' : '';
  switch (decision.outcome) {
    case 'upheld':
      return `Ban ${appeal.ban_id} stays as it is.${message}`;
    case 'overturned':
      return `Ban ${appeal.ban_id} is revoked at once, for every publisher and game that sees it.${message}`;
    case 'shortened':
      return `Ban ${appeal.ban_id} ends ${formatTime(decision.expires_at ?? null)}${
        ban ? ` instead of ${ban.expires_at === null ? 'never' : formatTime(ban.expires_at)}` : ''
      }.${message}`;
  }
};

/** The live preview: the ban as games will be told it, and the device's restriction where it was appealed. */
export const DecisionPreview = ({
  appeal,
  ban,
  bans,
  draft,
  policy,
}: {
  appeal: Appeal;
  ban: Ban;
  bans: readonly Ban[] | null;
  draft: DecisionDraft;
  policy: Policy | null;
}) => {
  const game = appeal.filed_by.game_id;
  // The restriction in the game the appeal came from follows the policy of that game's
  // publisher: known here only when it is the console's own.
  const own = policy !== null && appeal.filed_by.publisher_id === policy.publisher_id;
  const rows = decisionRows(ban, bans, draft, own ? policy : null, { deviceId: appeal.device_id, game });
  const shown = draft.playerMessage ?? ban.player_message;
  return (
    <>
      <PreviewTable
        label="Decision preview table"
        caption={`After deciding ${draft.outcome}: ban ${ban.ban_id} of ${appeal.device_id}`}
        after="After the decision"
        rows={rows}
      />
      <p>
        {shown ? (
          <>
            Games that show the ban show the player: <q>{shown}</q>
          </>
        ) : (
          'The ban has no message for the player: games show what they choose.'
        )}
      </p>
      {!own && (
        <p class="meta">
          The appeal came from game {game} of {appeal.filed_by.publisher_id}: whether the ban restricts the
          device there is for that publisher's policy.
        </p>
      )}
    </>
  );
};

/** What the decision was, once made. */
export const DecisionShown = ({ appeal }: { appeal: Appeal }) => {
  const decision = appeal.decision;
  if (!decision) return null;
  return (
    <section aria-labelledby="decided-heading">
      <h4 id="decided-heading">Decision</h4>
      <p>
        <span class="badge">{decision.outcome}</span> decided <TimeText iso={decision.decided_at} />
        {decision.decided_by ? ` by ${actorLabel(decision.decided_by)}` : ''}.
        {decision.applied_at === null
          ? ' Its effect on the ban is not finished yet: deciding again with the same decision finishes it.'
          : ''}
      </p>
      <ul>
        {decision.expires_at && (
          <li>
            New expiry: <TimeText iso={decision.expires_at} />
          </li>
        )}
        <li>New message for the player: {decision.player_message ?? 'none (the ban keeps its own)'}</li>
        <li>Private note: {decision.note ?? 'none'}</li>
      </ul>
    </section>
  );
};
