import { APPEAL_TEXT_MAX, PLAYER_MESSAGE_MAX } from '@kernel/player-message';
import { type AppealOutcome, appealOutcomes, appealStatusFilters } from '@kernel/requests';
import { useEffect, useState } from 'preact/hooks';
import { addressHash } from './address';
import {
  actorLabel,
  type Ban,
  type Call,
  formatDuration,
  formatTime,
  type Policy,
  type Schemas,
} from './api';
import { BansTable, banState } from './device';
import { banInForce, type DecisionDraft, decisionRows } from './preview';
import {
  apiFieldError,
  ConfirmStep,
  errorMessage,
  Field,
  type Message,
  Notice,
  Pager,
  PreviewTable,
  type ScopeKnowledge,
  StateBadge,
  TableScroll,
  TimeText,
  useBusy,
  useCursorPages,
  useFocusOn,
} from './ui';
import { check, parseAppealText, parseExpiry, parsePlayerMessage } from './validation';

/**
 * The Appeals view (issue 22): how the queue is doing, the queue itself (open appeals oldest
 * first, each with its age), and an appeal opened beside the ban it contests and the device's
 * history, with the decision form: a live preview of what the player will see, then a
 * confirmation before anything is sent. The outcomes, limits and filters are the API's own
 * (lib/model), never listed here.
 */

type Appeal = Schemas['Appeal'];
type AppealStats = Schemas['AppealStats'];
type StatusFilter = (typeof appealStatusFilters)[number];
type DecisionRequest = Schemas['AppealDecisionRequest'];

const PAGE_SIZE = 25;
/** The device's history beside an appeal: its newest bans, one page of the listing. */
const HISTORY_LIMIT = 200;

/** Each outcome, as the form offers it: what it does to the ban (lib/domain/appeals.ts). */
const outcomeHelp: Record<AppealOutcome, string> = {
  upheld: 'The ban stays as it is.',
  overturned: 'The ban is revoked at once, for every publisher and game that sees it.',
  shortened: 'The ban stays, but ends earlier: at the new expiry.',
};

const statusLabels: Record<StatusFilter, string> = {
  open: 'open: the queue, oldest first',
  decided: 'decided: newest decision first',
  all: 'all: open, then decided',
};

const secondsBetween = (from: string, to: string | number) =>
  ((typeof to === 'number' ? to : Date.parse(to)) - Date.parse(from)) / 1000;

/** How long an open appeal has waited, or how long a decided one took. */
const ageOf = (appeal: Appeal, now = Date.now()) =>
  appeal.decision
    ? `decided after ${formatDuration(secondsBetween(appeal.created_at, appeal.decision.decided_at))}`
    : `waiting ${formatDuration(secondsBetween(appeal.created_at, now))}`;

const statusWord = (appeal: Appeal) => appeal.decision?.outcome ?? appeal.status;

const duration = (seconds: number | null) => (seconds === null ? 'none yet' : formatDuration(seconds));

/** The queue's numbers (GET /v1/appeals/stats), read again after each decision. */
const Stats = ({ call, version }: { call: Call; version: number }) => {
  const [stats, setStats] = useState<AppealStats | null>(null);
  const [message, setMessage] = useState<Message>(null);
  useEffect(() => {
    void (async () => {
      const answer = await call('get', '/v1/appeals/stats', {});
      if (answer.status !== 200) {
        setMessage(errorMessage(answer));
        return;
      }
      setMessage(null);
      setStats(answer.body);
    })();
  }, [version]);
  return (
    <>
      <Notice message={message} />
      {stats && (
        <TableScroll label="Appeal numbers">
          <table>
            <caption>
              The queue now, and the decisions of the last {stats.window_days} days (computed{' '}
              {formatTime(stats.computed_at)})
            </caption>
            <thead>
              <tr>
                <th scope="col">Open</th>
                <th scope="col">Oldest open</th>
                <th scope="col">Decided</th>
                {appealOutcomes.map((outcome) => (
                  <th scope="col" key={outcome}>
                    {outcome[0]?.toUpperCase()}
                    {outcome.slice(1)}
                  </th>
                ))}
                <th scope="col">Median time to decision</th>
                <th scope="col">90th percentile</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>{stats.open}</td>
                <td>
                  {stats.oldest_open_at === null || stats.oldest_open_age_seconds === null
                    ? 'none'
                    : `waiting ${formatDuration(stats.oldest_open_age_seconds)}`}
                </td>
                <td>{stats.decided}</td>
                {appealOutcomes.map((outcome) => (
                  <td key={outcome}>{stats.outcomes[outcome]}</td>
                ))}
                <td>{duration(stats.time_to_decision_seconds.median)}</td>
                <td>{duration(stats.time_to_decision_seconds.p90)}</td>
              </tr>
            </tbody>
          </table>
        </TableScroll>
      )}
    </>
  );
};

interface QueueFilters {
  status: StatusFilter;
  device: string;
  ban: number | undefined;
}

/** A ban id typed in a filter: a whole number the API takes (1 to 2^53 - 1). */
const parseBanId = (
  text: string,
): { ok: true; value: number | undefined } | { ok: false; message: string } => {
  if (text === '') return { ok: true, value: undefined };
  const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(value) && value >= 1
    ? { ok: true, value }
    : { ok: false, message: 'must be a whole number of at least 1' };
};

/** The queue: filters, and a page of appeals with their age; Open shows one. */
const Queue = ({
  call,
  version,
  selected,
  onOpen,
}: {
  call: Call;
  version: number;
  selected: string | undefined;
  onOpen: (appealId: string) => void;
}) => {
  const [status, setStatus] = useState<StatusFilter>('open');
  const [deviceId, setDeviceId] = useState('');
  const [banId, setBanId] = useState('');
  const [errors, setErrors] = useState<{ device?: string | undefined; ban?: string | undefined }>({});
  const { page, applied, message, setMessage, busy, first, pager } = useCursorPages(
    (filters: QueueFilters, cursor) =>
      call('get', '/v1/appeals', {
        query: {
          status: filters.status,
          limit: PAGE_SIZE,
          ...(filters.device ? { device_id: filters.device } : {}),
          ...(filters.ban === undefined ? {} : { ban_id: filters.ban }),
          ...(cursor ? { cursor } : {}),
        },
      }),
    { status: 'open', device: '', ban: undefined },
  );
  // Opened, and after each decision: the first page of the filters applied (a decided appeal
  // leaves the open queue).
  useEffect(() => {
    void first();
  }, [version]);

  const search = (e: Event) => {
    e.preventDefault();
    const device = deviceId.trim();
    const ban = parseBanId(banId.trim());
    const deviceProblem = device === '' ? undefined : check('device_id', device);
    const found = {
      device: deviceProblem && `Device ID ${deviceProblem}`,
      ban: ban.ok ? undefined : `Ban ID ${ban.message}`,
    };
    setErrors(found);
    if (found.device || !ban.ok) {
      setMessage({ kind: 'error', text: `${[found.device, found.ban].filter(Boolean).join('. ')}.` });
      return;
    }
    void first({ status, device, ban: ban.value });
  };

  const now = Date.now();
  return (
    <section aria-labelledby="appeal-queue-heading">
      <h3 id="appeal-queue-heading">Queue</h3>
      <form class="filters" noValidate onSubmit={search}>
        <div class="field">
          <label for="appeals-status">Show</label>
          <select
            id="appeals-status"
            value={status}
            onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value as StatusFilter)}
          >
            {appealStatusFilters.map((s) => (
              <option key={s} value={s}>
                {statusLabels[s]}
              </option>
            ))}
          </select>
        </div>
        <Field
          id="appeals-device"
          label="Filter by device ID"
          value={deviceId}
          onValue={setDeviceId}
          error={errors.device ?? apiFieldError(message, 'device_id')}
        />
        <Field
          id="appeals-ban"
          label="Filter by ban ID"
          value={banId}
          onValue={setBanId}
          error={errors.ban ?? apiFieldError(message, 'ban_id')}
        />
        <button type="submit" disabled={busy}>
          Show appeals
        </button>
      </form>
      <Notice message={message} />
      {page && (
        <TableScroll label="Appeals table">
          <table>
            <caption>
              Appeals, {statusLabels[applied.status]}
              {applied.device ? `, device ${applied.device}` : ''}
              {applied.ban === undefined ? '' : `, ban ${applied.ban}`} (page {pager.number})
            </caption>
            <thead>
              <tr>
                <th scope="col">Appeal</th>
                <th scope="col">Status</th>
                <th scope="col">Filed</th>
                <th scope="col">Age</th>
                <th scope="col">Device</th>
                <th scope="col">Ban</th>
                <th scope="col">Filed by</th>
                <th scope="col" class="sticky-end">
                  Actions
                </th>
              </tr>
            </thead>
            <tbody>
              {page.items.length === 0 && (
                <tr>
                  <td colSpan={8}>No appeals match.</td>
                </tr>
              )}
              {page.items.map((appeal) => (
                <tr key={appeal.appeal_id} aria-current={appeal.appeal_id === selected ? 'true' : undefined}>
                  <th scope="row">{appeal.appeal_id}</th>
                  <td>
                    <span class="badge">{statusWord(appeal)}</span>
                  </td>
                  <td>
                    <TimeText iso={appeal.created_at} />
                  </td>
                  <td>{ageOf(appeal, now)}</td>
                  <td>{appeal.device_id}</td>
                  <td>{appeal.ban_id}</td>
                  <td>
                    {appeal.filed_by.publisher_id}, game {appeal.filed_by.game_id}
                  </td>
                  <td class="sticky-end">
                    <button
                      type="button"
                      class="small"
                      aria-label={`Open appeal ${appeal.appeal_id}`}
                      onClick={() => onOpen(appeal.appeal_id)}
                    >
                      Open
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {page && <Pager {...pager} />}
    </section>
  );
};

/** The player's words as they wrote them: each line its own paragraph. */
const Written = ({ text }: { text: string }) => (
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
const DecisionForm = ({ call, appeal, ban, bans, policy, onDecided }: DecisionProps) => {
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
const consequence = (
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
const DecisionPreview = ({
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
const DecisionShown = ({ appeal }: { appeal: Appeal }) => {
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

type BanList = Schemas['BanList'];

/** One appeal: the player's words, the ban, the device's history; the decision or its form. */
const AppealPanel = ({
  call,
  appealId,
  knowledge,
  policy,
  onDecided,
  onClose,
}: {
  call: Call;
  appealId: string;
  knowledge: ScopeKnowledge;
  policy: Policy | null;
  onDecided: () => void;
  onClose: () => void;
}) => {
  const [appeal, setAppeal] = useState<Appeal | null>(null);
  const [history, setHistory] = useState<BanList | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const [historyMessage, setHistoryMessage] = useState<Message>(null);
  const [done, setDone] = useState<Message>(null);
  const heading = useFocusOn<HTMLHeadingElement>(appeal?.appeal_id);
  const canReadBans = knowledge['bans:read'].held !== false;

  /** The device's bans where the appeal was filed (its owner sees the contested ban there). */
  const readHistory = async (read: Appeal) => {
    if (!canReadBans) return;
    const answer = await call('get', '/v1/device/{device_id}/bans', {
      path: { device_id: read.device_id },
      query: { status: 'all', limit: HISTORY_LIMIT },
      game: read.filed_by.game_id,
    });
    if (answer.status !== 200) {
      setHistory(null);
      setHistoryMessage(errorMessage(answer));
      return;
    }
    setHistoryMessage(null);
    setHistory(answer.body);
  };

  useEffect(() => {
    void (async () => {
      const answer = await call('get', '/v1/appeals/{appeal_id}', { path: { appeal_id: appealId } });
      if (answer.status !== 200) {
        setMessage(errorMessage(answer));
        return;
      }
      setAppeal(answer.body);
      await readHistory(answer.body);
    })();
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

  const bans = history?.items ?? null;
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
        <p>
          Ban {ban.ban_id}: {ban.ban_type}, {ban.scope} scope, by {ban.publisher_id}, reason {ban.reason_code}
          ; <StateBadge state={banState(ban)} /> {banInForce(ban, new Date().toISOString())}. For the player:{' '}
          {ban.player_message ? <q>{ban.player_message}</q> : 'no message'}
          {ban.appealable ? '' : ' (no appeal)'}
        </p>
      ) : history ? (
        <p>
          Ban {appeal.ban_id} is not listed on {appeal.device_id} in game {game}: it was erased, or this
          session cannot see it.
        </p>
      ) : (
        <Notice message={historyMessage} />
      )}
      {history && (
        <>
          <h4>The device's history</h4>
          <BansTable page={history} policy={policy} deviceId={appeal.device_id} />
          {history.next_cursor !== null && <p class="meta">The {HISTORY_LIMIT} newest bans are shown.</p>}
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
          call={call}
          appeal={appeal}
          ban={ban}
          bans={history?.next_cursor === null ? bans : null}
          policy={policy}
          onDecided={(decided) => {
            setAppeal(decided);
            setDone({
              kind: 'ok',
              text: `Appeal ${decided.appeal_id} decided: ${decided.decision?.outcome}. ${
                decided.decision ? consequence(decided, ban, decided.decision) : ''
              }`,
            });
            void readHistory(decided);
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
  const decide = knowledge['appeals:decide'];
  return (
    <section aria-labelledby="appeals-heading" class="panel">
      <h2 id="appeals-heading">Appeals</h2>
      {decide.held === false ? (
        <p class="gate">
          The appeals queue is hidden: it needs the scope <code>appeals:decide</code>, which this session
          lacks ({decide.note}).
        </p>
      ) : (
        <>
          <Stats call={call} version={version} />
          <Queue call={call} version={version} selected={appealId} onOpen={onAppeal} />
          {appealId && (
            <AppealPanel
              key={appealId}
              call={call}
              appealId={appealId}
              knowledge={knowledge}
              policy={policy}
              onDecided={() => setVersion((v) => v + 1)}
              onClose={() => onAppeal(undefined)}
            />
          )}
        </>
      )}
    </section>
  );
};
