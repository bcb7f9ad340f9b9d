import { secretOfFragment } from '@kernel/player-links';
import { APPEAL_CONTACT_MAX, APPEAL_TEXT_MAX } from '@kernel/player-message';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../api';
import { loadPage, type Refusal, sendAppeal } from './requests';
import { dateIn, refusalText, type Words, wordsFor } from './words';

/**
 * The player's page: the restrictions the link's device has in the link's game, each with its
 * statement of reasons, its end and its appeal, and the form to appeal it when the link allows.
 * One component per shape: the page's states, a restriction, a statement, an appeal.
 */

type Page = Schemas['PlayerPage'];
type Restriction = Schemas['PlayerRestriction'];
type Statement = NonNullable<Restriction['statement']>;

type Loaded = { state: 'loading' } | { state: 'refused'; refusal: Refusal } | { state: 'ready'; page: Page };

/** The page and how to read it again (after an appeal, or a Retry). */
const usePlayerPage = (secret: string | undefined) => {
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const reload = useCallback(async () => {
    if (!secret) return;
    const answer = await loadPage(secret);
    setLoaded(
      answer.ok ? { state: 'ready', page: answer.body } : { state: 'refused', refusal: answer.refusal },
    );
  }, [secret]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { loaded, reload };
};

export const PlayerPage = () => {
  const words = wordsFor(navigator.languages ?? [navigator.language]);
  const secret = secretOfFragment(location.hash);
  const { loaded, reload } = usePlayerPage(secret);
  useEffect(() => {
    document.documentElement.lang = words.locale;
    document.title = words.title;
  }, [words]);
  return (
    <>
      <h1>{words.title}</h1>
      {!secret ? (
        <p class="notice error" role="alert">
          {words.incomplete}
        </p>
      ) : loaded.state === 'loading' ? (
        <p aria-live="polite">{words.loading}</p>
      ) : loaded.state === 'refused' ? (
        <RefusalNotice refusal={loaded.refusal} words={words} onRetry={reload} />
      ) : (
        <Restrictions page={loaded.page} secret={secret} words={words} onChange={reload} />
      )}
    </>
  );
};

const RefusalNotice = ({
  refusal,
  words,
  onRetry,
}: {
  refusal: Refusal;
  words: Words;
  onRetry: () => void;
}) => (
  <div class="notice error" role="alert">
    <p>{refusalText(words, refusal)}</p>
    {refusal.kind !== 'ended' && (
      <button type="button" onClick={onRetry}>
        {words.retry}
      </button>
    )}
  </div>
);

const Restrictions = ({
  page,
  secret,
  words,
  onChange,
}: {
  page: Page;
  secret: string;
  words: Words;
  onChange: () => void;
}) => (
  <>
    <p>{words.intro(page.game_id, page.device_id)}</p>
    <p class="muted">{words.linkEnds(dateIn(words, page.link_expires_at))}</p>
    {page.restrictions.length === 0 ? (
      <p class="notice ok">{words.none}</p>
    ) : (
      page.restrictions.map((restriction) => (
        <RestrictionCard
          key={restriction.ban_id}
          restriction={restriction}
          linkAppeals={page.can_appeal}
          secret={secret}
          words={words}
          onChange={onChange}
        />
      ))
    )}
  </>
);

/** What a restriction's card, and its appeal part, are drawn from. */
interface RestrictionProps {
  restriction: Restriction;
  /** Whether the link lets the player appeal. */
  linkAppeals: boolean;
  secret: string;
  words: Words;
  /** The page is read again (after an appeal is filed). */
  onChange: () => void;
}

const RestrictionCard = (props: RestrictionProps) => {
  const { restriction, words } = props;
  const heading = `restriction-${restriction.ban_id}`;
  return (
    <section
      class={restriction.in_force ? 'restriction' : 'restriction lifted'}
      aria-labelledby={heading}
      data-ban-id={restriction.ban_id}
    >
      <h2 id={heading}>
        {words.kind[restriction.ban_type]}: {words.reach[restriction.scope]}
      </h2>
      <dl>
        <dt>{words.state}</dt>
        <dd>{restriction.in_force ? words.inForce : words.lifted}</dd>
        <dt>{words.since}</dt>
        <dd>{dateIn(words, restriction.created_at)}</dd>
        <dt>{words.until}</dt>
        <dd>{restriction.expires_at ? dateIn(words, restriction.expires_at) : words.noEnd}</dd>
      </dl>
      {restriction.player_message && <p class="message">{restriction.player_message}</p>}
      {restriction.statement && <StatementOfReasons statement={restriction.statement} words={words} />}
      <AppealPart {...props} />
    </section>
  );
};

const StatementOfReasons = ({ statement, words }: { statement: Statement; words: Words }) => (
  <>
    <h3>{words.why}</h3>
    <dl>
      {statement.ground === 'terms' ? (
        <>
          <dt>{words.terms}</dt>
          <dd>
            {statement.terms_clause}
            {statement.terms_url && (
              <>
                {' '}
                <a href={statement.terms_url} rel="noopener noreferrer" target="_blank">
                  {words.readTerms}
                </a>
              </>
            )}
          </dd>
        </>
      ) : (
        <>
          <dt>{words.law}</dt>
          <dd>
            {statement.legal_ground}
            {statement.illegal_explanation && <p>{statement.illegal_explanation}</p>}
          </dd>
        </>
      )}
      <dt>{words.facts}</dt>
      <dd>{statement.facts}</dd>
    </dl>
    <p>
      {words.detection(statement.automated_detection)} {words.decision[statement.automated_decision]}{' '}
      {words.source[statement.source]}
    </p>
    <p class="muted">{words.redress}</p>
  </>
);

const AppealPart = ({ restriction, linkAppeals, secret, words, onChange }: RestrictionProps) => {
  const { appeal } = restriction;
  if (appeal)
    return (
      <p class={appeal.status === 'decided' ? 'notice ok' : 'notice'} role="status">
        {appeal.status === 'decided' && appeal.outcome && appeal.decided_at
          ? words.outcome(
              appeal.outcome,
              dateIn(words, appeal.decided_at),
              appeal.expires_at ? dateIn(words, appeal.expires_at) : null,
            )
          : words.underReview(dateIn(words, appeal.created_at))}
        {appeal.player_message && <span class="message"> {appeal.player_message}</span>}
      </p>
    );
  if (restriction.can_appeal)
    return <AppealForm banId={restriction.ban_id} secret={secret} words={words} onFiled={onChange} />;
  if (!restriction.in_force) return null;
  return <p class="muted">{linkAppeals ? words.cannotAppeal : words.askForAppealLink}</p>;
};

const AppealForm = ({
  banId,
  secret,
  words,
  onFiled,
}: {
  banId: number;
  secret: string;
  words: Words;
  onFiled: () => void;
}) => {
  const [message, setMessage] = useState('');
  const [contact, setContact] = useState('');
  const [sending, setSending] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | undefined>();
  const id = (field: string) => `appeal-${banId}-${field}`;
  const submit = async (event: Event) => {
    event.preventDefault();
    setSending(true);
    setRefusal(undefined);
    const answer = await sendAppeal(secret, {
      ban_id: banId,
      message: message.trim(),
      ...(contact.trim() === '' ? {} : { contact: contact.trim() }),
    });
    setSending(false);
    if (answer.ok) onFiled();
    else setRefusal(answer.refusal);
  };
  return (
    <form onSubmit={submit} aria-labelledby={id('heading')}>
      <h3 id={id('heading')}>{words.appeal}</h3>
      <label for={id('message')}>{words.reasonLabel}</label>
      <textarea
        id={id('message')}
        required
        maxLength={APPEAL_TEXT_MAX}
        value={message}
        onInput={(event) => setMessage((event.target as HTMLTextAreaElement).value)}
      />
      <label for={id('contact')}>{words.contactLabel}</label>
      <input
        id={id('contact')}
        type="text"
        autocomplete="email"
        maxLength={APPEAL_CONTACT_MAX}
        value={contact}
        onInput={(event) => setContact((event.target as HTMLInputElement).value)}
      />
      {refusal && (
        <p class="notice error" role="alert">
          {refusalText(words, refusal)}
        </p>
      )}
      <button type="submit" disabled={sending || message.trim() === ''}>
        {sending ? words.sending : words.send}
      </button>
    </form>
  );
};
