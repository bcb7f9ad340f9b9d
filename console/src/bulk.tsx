import { BATCH_MAX_DEVICES } from '@kernel/requests';
import { useEffect, useRef, useState } from 'preact/hooks';
import { explain } from './api';
import { BanForm, type Props, RevokeForm } from './bulk-forms';
import { CheckTable, Report } from './bulk-report';

import {
  activeBans,
  type BanType,
  type BatchResult,
  BULK_CONCURRENCY,
  type CreateBanRequest,
  failed,
  failure,
  idempotencyKeyFor,
  type Outcome,
  parseDeviceList,
  type Run,
  type Task,
} from './bulk-run';
import { Field, type Message, Notice, ScopeGate, useBusy } from './ui';

/**
 * Many devices at once: a pasted list checked with the enforcement batch,
 * banned or revoked device by device a few at a time, with progress, Stop, a report of each
 * device's outcome and Retry failed. A create's idempotency key is made once per device, game and
 * form values and kept for the session, so any retry of the batch gets the ban already made.
 */

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
