import { BATCH_MAX_DEVICES } from '@kernel/requests';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Call, Policy } from './api';
import type { BanTerms, BanType } from './ban-terms';
import { useBulkRun } from './bulk-execute';
import { BanForm, RevokeForm } from './bulk-forms';
import { CheckTable, Report } from './bulk-report';
import { alreadyBanned, type BatchResult, banTask, parseDeviceList, revokeTask } from './bulk-run';
import { useDraft } from './drafts';
import { GamePicker, type GamesUsed, unusedGameWarning } from './game-picker';
import { Field, Notice, ScopeGate, type ScopeKnowledge, useOnChange } from './ui';
import { useRequest } from './use-request';

/**
 * Many devices at once: a pasted list checked with the enforcement batch,
 * banned or revoked device by device a few at a time, with progress, Stop, a report of each
 * device's outcome and Retry failed. A create's idempotency key is made once per device, game and
 * form values and kept for the session, so any retry of the batch gets the ban already made; a
 * device that has the same ban of the caller's in force (the Check found it, or the API answers
 * already_active: another moderator's) is skipped, not banned again.
 */

interface Props {
  call: Call;
  knowledge: ScopeKnowledge;
  policy: Policy | null;
  /** The caller's publisher, to revoke only its own bans; null when not known. */
  publisher: string | null;
  /** The game every check and action is in, chosen here (carried from and to Devices). */
  game: string;
  gameError: string | undefined;
  gameHint: string;
  onGame: (game: string) => void;
  used: GamesUsed;
}

export const BulkView = ({
  call,
  knowledge,
  policy,
  publisher,
  game,
  gameError,
  gameHint,
  onGame,
  used,
}: Props) => {
  const [text, setText] = useState('');
  // The pasted list survives a reload and a new sign-in (drafts.ts) until a run is started with it.
  const pasted = useMemo(() => ({ values: { text }, set: () => setText }), [text]);
  const draft = useDraft('bulk-devices', pasted, { text: '' }, ['text']);
  const list = parseDeviceList(text);
  // The question every answer and run belongs to: these ids in this game.
  const question = `${game}\n${list.valid.join('\n')}`;
  const [checked, setChecked] = useState<{ question: string; results: BatchResult[] } | null>(null);
  const checking = useRequest();
  const [action, setAction] = useState<'ban' | 'revoke' | null>(null);
  const { run, start, retry, stop } = useBulkRun(question);

  const canSend = !gameError && !list.tooMany && list.valid.length > 0;
  const refusal = gameError
    ? `Game ID ${gameError}.`
    : list.tooMany
      ? `${list.valid.length + list.invalid.length} distinct ids: a batch takes at most ${BATCH_MAX_DEVICES}. Nothing is sent.`
      : list.valid.length === 0
        ? 'Paste at least one valid device id.'
        : undefined;

  // A new list or game is a new question: the last check's refusal is about the old one.
  useEffect(() => checking.setMessage(null), [question]);

  const doCheck = () => {
    if (!canSend) return;
    const asked = question;
    void checking.run(
      () => call('post', '/v1/enforcement/batch', { body: { device_ids: list.valid }, game }),
      (answer) => setChecked({ question: asked, results: answer.body.results }),
    );
  };

  // The Check's answer for this list and game, if it was asked: devices it found banned are skipped.
  const checkedNow = checked?.question === question ? checked.results : null;
  const ban = (terms: BanTerms, label: string) => {
    if (!canSend) return;
    draft.clear();
    start(label, list.valid, banTask(call, game, terms, alreadyBanned(checkedNow, publisher, game, terms)));
  };
  const revoke = (type: BanType, reason: string) => {
    if (publisher === null || !canSend) return;
    draft.clear();
    start(
      `Revoke: your active ${type} bans, reason ${reason}`,
      list.valid,
      revokeTask(call, game, publisher, type, reason),
    );
  };

  // A refused check shows no results: they would answer as if it had been made.
  const shownCheck = checked?.question === question && !checking.message ? checked.results : null;
  const writes = knowledge['bans:write'].held !== false;
  const running = run?.running ?? false;
  // A run's bans are in the publisher's games once dispatched: read them again when it ends.
  useOnChange(running, (now) => {
    if (!now) used.load();
  });

  return (
    <ScopeGate scope="bans:read" known={knowledge} what="Bulk checks and actions">
      <section aria-labelledby="bulk-heading" class="panel">
        <h3 id="bulk-heading">Devices to check{writes ? ', ban or revoke' : ''}</h3>
        <GamePicker
          id="game-id"
          label="Game ID"
          game={game}
          onGame={onGame}
          hint={gameHint}
          error={game !== '' && gameError ? `Game ID ${gameError}` : undefined}
          used={used.games}
        />
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
          <button type="button" disabled={checking.busy || !canSend} onClick={doCheck}>
            {checking.busy ? 'Checking…' : 'Check'}
          </button>
          {writes &&
            (['ban', 'revoke'] as const).map((which) => (
              <button
                type="button"
                key={which}
                aria-pressed={action === which}
                onClick={() => setAction(action === which ? null : which)}
              >
                {which === 'ban' ? 'Ban…' : 'Revoke…'}
              </button>
            ))}
        </div>
        <Notice message={checking.message} />
      </section>
      {shownCheck && unusedGameWarning(used.games, game) && (
        <p class="panel gate" id="bulk-game-unused">
          {unusedGameWarning(used.games, game)}
        </p>
      )}
      {shownCheck && <CheckTable results={shownCheck} />}
      <ScopeGate scope="bans:write" known={knowledge} what="Banning and revoking">
        {/* Kept open during a run: the same values sent again are the same batch, for a retry of the whole. */}
        {action === 'ban' && canSend && (
          <BanForm
            call={call}
            game={game}
            policy={policy}
            count={list.valid.length}
            busy={running}
            skippedFor={(terms) =>
              checkedNow && publisher !== null ? alreadyBanned(checkedNow, publisher, game, terms).size : null
            }
            onBan={ban}
          />
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
        <Report run={run} current={run.question === question} onStop={stop} onRetry={retry} />
      )}
    </ScopeGate>
  );
};
