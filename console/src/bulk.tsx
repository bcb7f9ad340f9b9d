import { BATCH_MAX_DEVICES } from '@kernel/requests';
import { useEffect, useRef, useState } from 'preact/hooks';
import { type AnyAnswer, type Ban, type Call, explain, type Policy, type Schemas } from './api';
import { lastingReach, newIdempotencyKey, reachOf } from './ban-forms';
import {
  ConfirmStep,
  Field,
  type Message,
  Notice,
  ScopeGate,
  type ScopeKnowledge,
  TableScroll,
  useBusy,
} from './ui';
import { check, parseDetails, parseExpiry, parsePlayerMessage } from './validation';

/**
 * Many devices at once (issue 25, item 13): a pasted list checked with the enforcement batch,
 * banned or revoked device by device a few at a time, with progress, Stop, a report of each
 * device's outcome and Retry failed. A create's idempotency key is made once per device, game and
 * form values and kept for the session, so any retry of the batch gets the ban already made.
 */

type CreateBanRequest = Schemas['CreateBanRequest'];
type BanType = CreateBanRequest['ban_type'];
type BatchResult = Schemas['EnforcementBatch']['results'][number];

/** Requests in flight at once during a run: enough to be quick, few enough not to be throttled. */
export const BULK_CONCURRENCY = 4;

export interface DeviceList {
  /** Distinct valid ids, in the order pasted: what is sent. */
  valid: string[];
  invalid: Array<{ id: string; problem: string }>;
  /** How many repeats were merged. */
  duplicates: number;
  /** More distinct ids than a batch takes: nothing is sent. */
  tooMany: boolean;
}

/** The pasted text as ids: split on newlines, commas and spaces, repeats merged, each checked. */
export const parseDeviceList = (text: string): DeviceList => {
  const all = text.split(/[\s,]+/).filter((id) => id !== '');
  const distinct = [...new Set(all)];
  const invalid: DeviceList['invalid'] = [];
  const valid: string[] = [];
  for (const id of distinct) {
    const problem = check('device_id', id);
    if (problem) invalid.push({ id, problem });
    else valid.push(id);
  }
  return {
    valid,
    invalid,
    duplicates: all.length - distinct.length,
    tooMany: distinct.length > BATCH_MAX_DEVICES,
  };
};

type Outcome =
  | { kind: 'pending' }
  | { kind: 'created' | 'idempotent_ok'; banId: number }
  | { kind: 'revoked'; banIds: number[] }
  | { kind: 'nothing' }
  | { kind: 'failed'; code: string; text: string }
  | { kind: 'not_sent' };

const failed = (outcome: Outcome) => outcome.kind === 'failed' || outcome.kind === 'not_sent';

/** A refusal as the report shows it: the API's error code (or what kept the answer away) and one sentence. */
const failure = (answer: AnyAnswer, before = ''): Outcome => {
  const body = answer.body as { error?: { code?: unknown } } | null;
  const code =
    'kind' in answer
      ? answer.kind
      : typeof body?.error?.code === 'string'
        ? body.error.code
        : `http_${answer.status}`;
  return { kind: 'failed', code, text: `${before}${explain(answer).text}` };
};

const outcomeWords = (outcome: Outcome): string => {
  switch (outcome.kind) {
    case 'pending':
      return 'waiting';
    case 'created':
      return `created ban ${outcome.banId}`;
    case 'idempotent_ok':
      return `idempotent_ok: ban ${outcome.banId} was already made by this batch`;
    case 'revoked':
      return `revoked ${outcome.banIds.length} (${outcome.banIds.map((id) => `ban ${id}`).join(', ')})`;
    case 'nothing':
      return 'nothing to revoke';
    case 'failed':
      return `${outcome.code}: ${outcome.text}`;
    case 'not_sent':
      return 'not sent: the run was stopped';
  }
};

/** One device's work in a run: a create, or the revocation of the caller's own bans. */
type Task = (deviceId: string) => Promise<Outcome>;

interface Run {
  /** What the report says the run did ("Ban: cheat, game scope, reason aimbot"). */
  label: string;
  /** The list and game it was started for. */
  question: string;
  devices: string[];
  outcomes: Record<string, Outcome>;
  running: boolean;
  /** Why it ended early, if it did. */
  stopped: null | 'stop' | 'changed';
  task: Task;
}

/**
 * Idempotency keys by device, game and form values, for as long as the session lasts (its `call`):
 * the same batch sent again, whole or its failures, makes no second ban.
 */
const keysBySession = new WeakMap<Call, Map<string, string>>();
const idempotencyKeyFor = (call: Call, identity: string) => {
  const keys = keysBySession.get(call) ?? new Map<string, string>();
  keysBySession.set(call, keys);
  const key = keys.get(identity) ?? newIdempotencyKey();
  keys.set(identity, key);
  return key;
};

/** Every active ban of the type on the device that the caller can see, all pages. */
const activeBans = async (call: Call, game: string, deviceId: string, type: BanType) => {
  const bans: Ban[] = [];
  let cursor: number | undefined;
  for (;;) {
    const answer = await call('get', '/v1/device/{device_id}/bans', {
      path: { device_id: deviceId },
      query: { status: 'active', type, limit: 200, ...(cursor === undefined ? {} : { cursor }) },
      game,
    });
    if (answer.status !== 200) return { ok: false as const, answer };
    bans.push(...answer.body.items);
    if (answer.body.next_cursor === null) return { ok: true as const, bans };
    cursor = answer.body.next_cursor;
  }
};

interface Props {
  call: Call;
  knowledge: ScopeKnowledge;
  policy: Policy | null;
  /** The caller's publisher, to revoke only its own bans; null when not known. */
  publisher: string | null;
  game: string;
  gameError: string | undefined;
}

const BanForm = ({
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
  onBan: (body: Omit<CreateBanRequest, 'device_id' | 'idempotency_key'>, label: string) => void;
}) => {
  const [banType, setBanType] = useState<BanType>('cheat');
  const [scope, setScope] = useState<CreateBanRequest['scope']>('game');
  const [reason, setReason] = useState('');
  const [expires, setExpires] = useState('');
  const [details, setDetails] = useState('');
  const [playerMessage, setPlayerMessage] = useState('');
  const [appealable, setAppealable] = useState(true);
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [message, setMessage] = useState<Message>(null);
  const [confirming, setConfirming] = useState<Omit<
    CreateBanRequest,
    'device_id' | 'idempotency_key'
  > | null>(null);

  const submit = (e: Event) => {
    e.preventDefault();
    const expiry = parseExpiry(expires);
    const parsedDetails = parseDetails(details);
    const forPlayer = parsePlayerMessage(playerMessage);
    const found = {
      reason_code: check('reason_code', reason.trim()),
      expires_at: expiry.ok ? undefined : expiry.message,
      details: parsedDetails.ok ? undefined : parsedDetails.message,
      player_message: forPlayer.ok ? undefined : forPlayer.message,
    };
    setErrors(found);
    if (!expiry.ok || !parsedDetails.ok || !forPlayer.ok || found.reason_code) {
      setConfirming(null);
      setMessage({ kind: 'error', text: 'Nothing was sent: correct the fields marked below.' });
      return;
    }
    setMessage(null);
    setConfirming({
      ban_type: banType,
      scope,
      reason_code: reason.trim(),
      ...(expiry.value === undefined ? {} : { expires_at: expiry.value }),
      ...(parsedDetails.value === undefined ? {} : { details: parsedDetails.value }),
      ...(forPlayer.value === undefined ? {} : { player_message: forPlayer.value }),
      ...(appealable ? {} : { appealable: false }),
    });
  };

  return (
    <section aria-labelledby="bulk-ban-heading" class="panel">
      <h3 id="bulk-ban-heading">Ban these devices</h3>
      <form onSubmit={submit} noValidate>
        <div class="field">
          <label for="bulk-ban-type">Ban type</label>
          <select
            id="bulk-ban-type"
            value={banType}
            onChange={(e) => setBanType((e.currentTarget as HTMLSelectElement).value as BanType)}
          >
            <option value="cheat">cheat</option>
            <option value="social">social</option>
          </select>
        </div>
        <div class="field">
          <label for="bulk-ban-scope">Scope</label>
          <select
            id="bulk-ban-scope"
            value={scope}
            aria-describedby="bulk-ban-scope-hint"
            onChange={(e) =>
              setScope((e.currentTarget as HTMLSelectElement).value as CreateBanRequest['scope'])
            }
          >
            <option value="game">game: this game only</option>
            <option value="publisher">publisher: all your games</option>
            <option value="global">global: every publisher</option>
          </select>
          <small id="bulk-ban-scope-hint" class="hint">
            The game is the Game ID above ({game || 'none yet'}).{' '}
            {reachOf(policy, { ban_type: banType, scope }).text}
          </small>
        </div>
        <Field
          id="bulk-ban-reason"
          label="Reason code"
          value={reason}
          onValue={setReason}
          error={errors.reason_code}
          hint="1-64 characters of A-Z a-z 0-9 . _ : -, e.g. aimbot"
          required
        />
        <Field
          id="bulk-ban-expires"
          label="Expires at (optional)"
          type="datetime-local"
          value={expires}
          onValue={setExpires}
          error={errors.expires_at}
          hint="Your local time; empty makes the bans permanent."
        />
        <Field
          id="bulk-ban-details"
          label="Details (optional JSON object)"
          multiline
          value={details}
          onValue={setDetails}
          error={errors.details}
          hint='Private to your publisher, the same on every ban, e.g. {"report": "r-12"}; at most 16 KiB.'
        />
        <Field
          id="bulk-ban-player-message"
          label="Message for the player (optional)"
          value={playerMessage}
          onValue={setPlayerMessage}
          error={errors.player_message}
          hint="What a game may show the player: plain text, one paragraph, at most 500 characters. Every publisher who sees the ban sees it."
        />
        <div class="check">
          <input
            type="checkbox"
            id="bulk-ban-appealable"
            checked={appealable}
            onChange={(e) => setAppealable((e.currentTarget as HTMLInputElement).checked)}
          />
          <label for="bulk-ban-appealable">The player may appeal these bans</label>
        </div>
        <button type="submit" disabled={busy}>
          Ban {count === 1 ? '1 device' : `${count} devices`}…
        </button>
      </form>
      <Notice message={message} />
      {confirming && (
        <ConfirmStep
          id="bulk-ban-confirm-heading"
          title={`Ban ${count === 1 ? '1 device' : `${count} devices`} in ${game}?`}
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

const RevokeForm = ({
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
  const [banType, setBanType] = useState<BanType>('cheat');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [confirming, setConfirming] = useState<{ type: BanType; reason: string } | null>(null);
  const devices = count === 1 ? '1 device' : `${count} devices`;
  const submit = (e: Event) => {
    e.preventDefault();
    const problem = check('reason_code', reason.trim());
    setError(problem && `Revoke reason ${problem}`);
    setConfirming(problem ? null : { type: banType, reason: reason.trim() });
  };
  return (
    <section aria-labelledby="bulk-revoke-heading" class="panel">
      <h3 id="bulk-revoke-heading">Revoke your bans on these devices</h3>
      <p>Revokes {publisher}'s active bans of the type on each device; other publishers' bans stay.</p>
      <form onSubmit={submit} noValidate>
        <div class="field">
          <label for="bulk-revoke-type">Ban type to revoke</label>
          <select
            id="bulk-revoke-type"
            value={banType}
            onChange={(e) => setBanType((e.currentTarget as HTMLSelectElement).value as BanType)}
          >
            <option value="cheat">cheat</option>
            <option value="social">social</option>
          </select>
        </div>
        <Field
          id="bulk-revoke-reason"
          label="Revoke reason"
          value={reason}
          onValue={setReason}
          error={error}
          hint="1-64 characters of A-Z a-z 0-9 . _ : -, e.g. appeal_upheld"
          required
        />
        <button type="submit" disabled={busy}>
          Revoke on {devices}…
        </button>
      </form>
      {confirming && (
        <ConfirmStep
          id="bulk-revoke-confirm-heading"
          title={`Revoke your active ${confirming.type} bans on ${devices} in ${game}?`}
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
            Each is made inactive for everyone at once, with reason {confirming.reason}; it stays in the
            history.
          </p>
        </ConfirmStep>
      )}
    </section>
  );
};

const CheckTable = ({ results }: { results: BatchResult[] }) => (
  <TableScroll label="Restrictions of the devices">
    <table>
      <caption>What the enforcement batch answers for each device in the game</caption>
      <thead>
        <tr>
          <th scope="col">Device</th>
          <th scope="col">Restricted: cheat</th>
          <th scope="col">Restricted: social</th>
          <th scope="col">Enforced bans</th>
        </tr>
      </thead>
      <tbody>
        {results.map((r) => (
          <tr key={r.device_id}>
            <th scope="row">{r.device_id}</th>
            {'error' in r ? (
              <td colSpan={3}>
                {r.error.code}: {r.error.message}
              </td>
            ) : (
              <>
                <td>{r.restricted.cheat ? 'restricted' : 'no'}</td>
                <td>{r.restricted.social ? 'restricted' : 'no'}</td>
                <td>{r.bans.length}</td>
              </>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  </TableScroll>
);

const Report = ({
  run,
  current,
  onStop,
  onRetry,
}: {
  run: Run;
  current: boolean;
  onStop: () => void;
  onRetry: () => void;
}) => {
  const outcomes = run.devices.map((d) => [d, run.outcomes[d] ?? { kind: 'pending' }] as const);
  const done = outcomes.filter(([, o]) => o.kind !== 'pending' && o.kind !== 'not_sent').length;
  const failures = outcomes.filter(([, o]) => failed(o));
  // Failures first, then the rest in the order pasted.
  const rows = [...failures, ...outcomes.filter(([, o]) => !failed(o))];
  return (
    <section aria-labelledby="bulk-report-heading" class="panel">
      <h3 id="bulk-report-heading">Report: {run.label}</h3>
      <p role="status" aria-live="polite">
        {done} of {run.devices.length} done
        {run.running ? '' : `; ${failures.length} failed or not sent.`}
        {run.stopped === 'stop' ? ' Stopped: the devices not yet sent were not sent.' : ''}
        {run.stopped === 'changed'
          ? ' Stopped because the list or the Game ID changed: this report is of the list as it was.'
          : ''}
      </p>
      <div class="actions">
        {run.running ? (
          <button type="button" onClick={onStop}>
            Stop
          </button>
        ) : (
          failures.length > 0 &&
          current && (
            <button type="button" onClick={onRetry}>
              Retry failed ({failures.length})
            </button>
          )
        )}
      </div>
      <TableScroll label="Outcome of each device">
        <table>
          <caption>Each device's outcome, failures first</caption>
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([device, outcome]) => (
              <tr key={device} class={failed(outcome) ? 'changed' : undefined}>
                <th scope="row">{device}</th>
                <td>{outcomeWords(outcome)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
};

export const BulkView = ({ call, knowledge, policy, publisher, game, gameError }: Props) => {
  const [text, setText] = useState('');
  const list = parseDeviceList(text);
  // The question every answer and run belongs to: these ids in this game.
  const question = `${game}\n${list.valid.join('\n')}`;
  const [checked, setChecked] = useState<{ question: string; results: BatchResult[] } | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const [action, setAction] = useState<'ban' | 'revoke' | null>(null);
  const [run, setRun] = useState<Run | null>(null);
  const { busy, run: runCheck } = useBusy();
  /** The run under way: Stop, or a change of list or game, ends it. */
  const active = useRef<{ stopped: Run['stopped'] } | null>(null);

  const canSend = !gameError && !list.tooMany && list.valid.length > 0;
  const refusal = gameError
    ? `Game ID ${gameError}.`
    : list.tooMany
      ? `${list.valid.length + list.invalid.length} distinct ids: a batch takes at most ${BATCH_MAX_DEVICES}. Nothing is sent.`
      : list.valid.length === 0
        ? 'Paste at least one valid device id.'
        : undefined;

  // A new list or game is a new question: a run for the old one stops, its report marked.
  useEffect(() => {
    setMessage(null);
    if (active.current && run?.running && run.question !== question) {
      active.current.stopped = 'changed';
      setRun((r) => (r ? { ...r, stopped: 'changed' } : r));
    }
  }, [question]);
  useEffect(
    () => () => {
      if (active.current) active.current.stopped = 'stop';
    },
    [],
  );

  const doCheck = () => {
    if (!canSend) return;
    const asked = question;
    setMessage(null);
    void runCheck(async () => {
      const answer = await call('post', '/v1/enforcement/batch', { body: { device_ids: list.valid }, game });
      if (answer.status !== 200) {
        setChecked(null);
        setMessage({ kind: 'error', text: explain(answer).text });
        return;
      }
      setChecked({ question: asked, results: answer.body.results });
    });
  };

  /** Runs `task` on `devices` of `base`, BULK_CONCURRENCY at a time, until done or stopped. */
  const execute = async (base: Run, devices: string[]) => {
    const token: { stopped: Run['stopped'] } = { stopped: null };
    active.current = token;
    const pending = Object.fromEntries(devices.map((d) => [d, { kind: 'pending' } as Outcome]));
    setRun({ ...base, outcomes: { ...base.outcomes, ...pending }, running: true, stopped: null });
    let next = 0;
    const worker = async () => {
      while (token.stopped === null && next < devices.length) {
        const device = devices[next++] as string;
        const outcome = await base
          .task(device)
          .catch(
            (error: unknown): Outcome => ({ kind: 'failed', code: 'console_error', text: String(error) }),
          );
        setRun((r) => (r ? { ...r, outcomes: { ...r.outcomes, [device]: outcome } } : r));
      }
    };
    await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, devices.length) }, worker));
    if (active.current === token) active.current = null;
    setRun((r) =>
      r
        ? {
            ...r,
            running: false,
            stopped: token.stopped,
            outcomes: Object.fromEntries(
              Object.entries(r.outcomes).map(([d, o]) => [
                d,
                o.kind === 'pending' ? { kind: 'not_sent' } : o,
              ]),
            ) as Record<string, Outcome>,
          }
        : r,
    );
  };

  const start = (label: string, task: Task) => {
    if (!canSend || active.current) return;
    const devices = list.valid;
    void execute({ label, question, devices, outcomes: {}, running: true, stopped: null, task }, devices);
  };

  const ban = (body: Omit<CreateBanRequest, 'device_id' | 'idempotency_key'>, label: string) => {
    const inGame = game;
    start(label, async (deviceId) => {
      // The same device, game and values: the same key, whichever retry sends it.
      const idempotency_key = idempotencyKeyFor(call, JSON.stringify([inGame, deviceId, body]));
      const answer = await call('post', '/v1/bans', {
        body: { ...body, device_id: deviceId, idempotency_key },
        game: inGame,
      });
      if (answer.status === 201) return { kind: 'created', banId: answer.body.ban_id };
      if (answer.status === 200) return { kind: 'idempotent_ok', banId: answer.body.ban_id };
      return failure(answer);
    });
  };

  const revoke = (type: BanType, reason: string) => {
    if (publisher === null) return;
    const inGame = game;
    start(`Revoke: your active ${type} bans, reason ${reason}`, async (deviceId) => {
      const listed = await activeBans(call, inGame, deviceId, type);
      if (!listed.ok) return failure(listed.answer);
      // Only the caller's own: another publisher's ban is theirs to revoke.
      const own = listed.bans.filter((b) => b.publisher_id === publisher);
      if (own.length === 0) return { kind: 'nothing' };
      const revoked: number[] = [];
      for (const b of own) {
        const answer = await call('post', '/v1/device/{device_id}/bans/{ban_id}/revoke', {
          path: { device_id: deviceId, ban_id: b.ban_id },
          body: { reason_code: reason },
          game: inGame,
        });
        if (answer.status !== 200)
          return failure(
            answer,
            revoked.length ? `revoked ${revoked.join(', ')}, then ban ${b.ban_id}: ` : `ban ${b.ban_id}: `,
          );
        revoked.push(b.ban_id);
      }
      return { kind: 'revoked', banIds: revoked };
    });
  };

  const retry = () => {
    if (!run || run.running || run.question !== question) return;
    void execute(
      run,
      run.devices.filter((d) => failed(run.outcomes[d] ?? { kind: 'pending' })),
    );
  };

  const shownCheck = checked?.question === question ? checked.results : null;
  const writes = knowledge['bans:write'].held !== false;
  const running = run?.running ?? false;

  return (
    <ScopeGate scope="bans:read" known={knowledge} what="Bulk checks and actions">
      <section aria-labelledby="bulk-heading" class="panel">
        <h3 id="bulk-heading">Devices to check{writes ? ', ban or revoke' : ''}</h3>
        <Field
          id="bulk-devices"
          label="Device IDs"
          multiline
          value={text}
          onValue={setText}
          hint={`Separated by newlines, commas or spaces; at most ${BATCH_MAX_DEVICES}. The game is the Game ID above (${game || 'none yet'}).`}
        />
        <p class="meta" aria-live="polite">
          {list.valid.length} valid {list.valid.length === 1 ? 'id' : 'ids'}
          {list.duplicates > 0
            ? `; ${list.duplicates} repeated ${list.duplicates === 1 ? 'id' : 'ids'} merged`
            : ''}
          {list.invalid.length > 0 ? `; ${list.invalid.length} invalid, not sent` : ''}.
        </p>
        {list.invalid.length > 0 && (
          <ul aria-label="Invalid ids, not sent">
            {list.invalid.map(({ id, problem }) => (
              <li key={id}>
                <code>{id}</code>: {problem}
              </li>
            ))}
          </ul>
        )}
        {refusal && text.trim() !== '' && <p class="field-error">{refusal}</p>}
        <div class="actions">
          <button type="button" disabled={busy || !canSend} onClick={doCheck}>
            {busy ? 'Checking…' : 'Check'}
          </button>
          {writes && (
            <>
              <button
                type="button"
                aria-pressed={action === 'ban'}
                onClick={() => setAction(action === 'ban' ? null : 'ban')}
              >
                Ban…
              </button>
              <button
                type="button"
                aria-pressed={action === 'revoke'}
                onClick={() => setAction(action === 'revoke' ? null : 'revoke')}
              >
                Revoke…
              </button>
            </>
          )}
        </div>
        <Notice message={message} />
      </section>
      {shownCheck && <CheckTable results={shownCheck} />}
      <ScopeGate scope="bans:write" known={knowledge} what="Banning and revoking">
        {/* Kept open during a run: the same values sent again are the same batch, for a retry of the whole. */}
        {action === 'ban' && canSend && (
          <BanForm game={game} policy={policy} count={list.valid.length} busy={running} onBan={ban} />
        )}
        {action === 'revoke' &&
          canSend &&
          (publisher === null ? (
            <p class="gate">
              Revoking is hidden: your publisher is not known yet (it is read with the policy, which needs{' '}
              <code>policy:read</code>), so your own bans cannot be told from others'.
            </p>
          ) : (
            <RevokeForm
              game={game}
              count={list.valid.length}
              publisher={publisher}
              busy={running}
              onRevoke={revoke}
            />
          ))}
      </ScopeGate>
      {/* A report of another list is shown only when that run stopped because the list changed: it says what was done. */}
      {run && (run.question === question || run.stopped === 'changed') && (
        <Report
          run={run}
          current={run.question === question}
          onStop={() => {
            if (active.current) active.current.stopped = 'stop';
          }}
          onRetry={retry}
        />
      )}
    </ScopeGate>
  );
};
