import { TAKE_OVER_SCOPE } from '@kernel/appeal-claims';
import { useEffect, useState } from 'preact/hooks';
import { addressHash } from './address';
import { actorLabel, type Call, clockTime, formatTime, holderWords, type Policy } from './api';
import { ClaimBar, useClaim } from './appeals-claim';
import { DecisionForm } from './appeals-decision';
import { consequence } from './appeals-decision-preview';
import { Queue, Stats } from './appeals-queue';
import { DecisionShown, Written } from './appeals-shown';
import { type Appeal, ageOf, HISTORY_LIMIT, statusWord } from './appeals-words';
import { BanEvidence } from './ban-evidence';
import { BansTable, banState } from './device';
import { banInForce } from './preview';
import { type Message, Notice, ScopeGate, type ScopeKnowledge, StateBadge, TimeText, useFocusOn } from './ui';
import { type AnswerOf, useRead } from './ui-read';

/**
 * The Appeals view: how the queue is doing, the queue itself (open appeals oldest
 * first, each with its age), and an appeal opened beside the ban it contests and the device's
 * history, with the decision form: a live preview of what the player will see, then a
 * confirmation before anything is sent. The outcomes, limits and filters are the API's own
 * (lib/model), never listed here.
 */

const readAppeal = (call: Call, appealId: string) =>
  call('get', '/v1/appeals/{appeal_id}', { path: { appeal_id: appealId } });

/** The device's bans where the appeal was filed (its owner sees the contested ban there). */
const readHistory = (call: Call, appeal: Appeal) =>
  call('get', '/v1/device/{device_id}/bans', {
    path: { device_id: appeal.device_id },
    query: { status: 'all', limit: HISTORY_LIMIT },
    game: appeal.filed_by.game_id,
  });

/** One appeal: the player's words, the ban, the device's history; the decision or its form. */
const AppealPanel = ({
  call,
  appealId,
  knowledge,
  policy,
  onDecided,
  onChanged,
  onClose,
}: {
  call: Call;
  appealId: string;
  knowledge: ScopeKnowledge;
  policy: Policy | null;
  onDecided: () => void;
  /** The queue should be read again: a claim taken, renewed or let go. */
  onChanged: () => void;
  onClose: () => void;
}) => {
  const opened = useRead<AnswerOf<typeof readAppeal>>();
  const { value: appeal, message } = opened;
  // The latest read of the history is the one shown: at opening, and again after the decision.
  const history = useRead<AnswerOf<typeof readHistory>>({ latest: true });
  const [done, setDone] = useState<Message>(null);
  const heading = useFocusOn<HTMLHeadingElement>(appeal?.appeal_id);
  const canReadBans = knowledge['bans:read'].held !== false;
  const readHistoryOf = (of: Appeal) => (canReadBans ? history.read(() => readHistory(call, of)) : undefined);
  const claimer = useClaim(call, appeal, onChanged);
  const { claim, decided } = claimer;
  // Another's claim, or another's decision while this was open: the form stays, with what was typed.
  const locked = decided
    ? `${holderWords(decided.holder)} What you typed is kept below.`
    : claim.by !== null && !claim.mine
      ? `Held by ${actorLabel(claim.by)} until ${claim.until ? clockTime(claim.until) : '—'}: only they can decide it now.`
      : null;

  useEffect(() => {
    void opened.read(
      () => readAppeal(call, appealId),
      (answer) => void readHistoryOf(answer.body),
    );
  }, [appealId]);

  const close = (
    <button type="button" class="secondary" onClick={onClose}>
      Close appeal
    </button>
  );
  if (!appeal)
    return (
      <section aria-labelledby="appeal-heading" class="panel">
        <h3 id="appeal-heading">Appeal {appealId}</h3>
        {message ? <Notice message={message} /> : <p role="status">Reading the appeal…</p>}
        {close}
      </section>
    );

  const bans = history.value?.items ?? null;
  const ban = bans?.find((b) => b.ban_id === appeal.ban_id) ?? null;
  const game = appeal.filed_by.game_id;
  return (
    <section aria-labelledby="appeal-heading" class="panel">
      <h3 id="appeal-heading" tabIndex={-1} ref={heading}>
        Appeal {appeal.appeal_id}
      </h3>
      <p>
        <span class="badge">{statusWord(appeal)}</span> Filed <TimeText iso={appeal.created_at} /> by{' '}
        {appeal.filed_by.publisher_id} from game {game}, about ban {appeal.ban_id} of device{' '}
        {appeal.device_id}
        {appeal.status === 'open' ? `: ${ageOf(appeal)}` : ''}.
      </p>
      <Notice message={done} />
      {appeal.status === 'open' && (
        <ClaimBar
          claim={claim}
          decided={decided !== null}
          message={
            decided?.found === 'claim'
              ? { kind: 'error', text: holderWords(decided.holder) }
              : claimer.message
          }
          busy={claimer.busy}
          mayTakeOver={knowledge[TAKE_OVER_SCOPE].held === true && decided === null}
          onTakeOver={() => void claimer.takeOver()}
          onClaim={() => void claimer.claimAgain()}
          onRelease={() => void claimer.release()}
        />
      )}
      <h4>The player's message</h4>
      {appeal.message === null ? (
        <p>Erased with the device's data{appeal.erased_at ? ` (${formatTime(appeal.erased_at)})` : ''}.</p>
      ) : (
        <Written text={appeal.message} />
      )}
      <p>Contact: {appeal.contact ?? 'none given'}</p>
      <h4>The ban it contests</h4>
      {!canReadBans ? (
        <p class="gate">
          The ban and the device's history need the scope <code>bans:read</code>, which this session lacks (
          {knowledge['bans:read'].note}).
        </p>
      ) : ban ? (
        <>
          <p>
            Ban {ban.ban_id}: {ban.ban_type}, {ban.scope} scope, by {ban.publisher_id}, reason{' '}
            {ban.reason_code}; <StateBadge state={banState(ban)} />{' '}
            {banInForce(ban, new Date().toISOString())}. For the player:{' '}
            {ban.player_message ? <q>{ban.player_message}</q> : 'no message'}
            {ban.appealable ? '' : ' (no appeal)'}
          </p>
          <BanEvidence ban={ban} publisher={appeal.ban_publisher_id} />
        </>
      ) : history.value ? (
        <p>
          Ban {appeal.ban_id} is not listed on {appeal.device_id} in game {game}: it was erased, or this
          session cannot see it.
        </p>
      ) : (
        <Notice message={history.message} />
      )}
      {history.value && (
        <>
          <h4>The device's history</h4>
          <BansTable page={history.value} policy={policy} deviceId={appeal.device_id} />
          {history.value.next_cursor !== null && (
            <p class="meta">The {HISTORY_LIMIT} newest bans are shown.</p>
          )}
          <p>
            <a href={addressHash({ view: 'device', game, device: appeal.device_id })}>
              Open device {appeal.device_id} in game {game}
            </a>
          </p>
        </>
      )}
      {appeal.decision ? (
        <DecisionShown appeal={appeal} />
      ) : (
        <DecisionForm
          locked={locked}
          onConflict={(holder) => {
            claimer.refusedBy(holder);
            onChanged();
          }}
          call={call}
          appeal={appeal}
          ban={ban}
          bans={history.value?.next_cursor === null ? bans : null}
          policy={policy}
          onDecided={(decided) => {
            opened.setValue(decided);
            setDone({
              kind: 'ok',
              text: `Appeal ${decided.appeal_id} decided: ${decided.decision?.outcome}. ${
                decided.decision ? consequence(decided, ban, decided.decision) : ''
              }`,
            });
            void readHistoryOf(decided);
            onDecided();
          }}
        />
      )}
      {close}
    </section>
  );
};

export const AppealsView = ({
  call,
  knowledge,
  policy,
  appealId,
  onAppeal,
}: {
  call: Call;
  knowledge: ScopeKnowledge;
  policy: Policy | null;
  /** The appeal the address names, if any. */
  appealId: string | undefined;
  onAppeal: (appealId: string | undefined) => void;
}) => {
  // Bumped by each decision: the numbers and the queue are read again.
  const [version, setVersion] = useState(0);
  // Bumped by each claim's change: the queue's page shown is read again.
  const [changes, setChanges] = useState(0);
  return (
    <section aria-labelledby="appeals-heading" class="panel">
      <h2 id="appeals-heading">Appeals</h2>
      <ScopeGate scope="appeals:decide" known={knowledge} what="The appeals queue">
        <Stats call={call} version={version} />
        <Queue call={call} version={version} changes={changes} selected={appealId} onOpen={onAppeal} />
        {appealId && (
          <AppealPanel
            key={appealId}
            call={call}
            appealId={appealId}
            knowledge={knowledge}
            policy={policy}
            onDecided={() => setVersion((v) => v + 1)}
            onChanged={() => setChanges((v) => v + 1)}
            onClose={() => onAppeal(undefined)}
          />
        )}
      </ScopeGate>
    </section>
  );
};
