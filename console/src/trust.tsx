import { DISPLAY_NAME_MAX, DISPLAY_NAME_PATTERN, DISPLAY_NAME_RULE } from '@kernel/display-name';
import { trusts } from '@kernel/policy-rules';
import { type GlobalSources, QUORUM_MAX, QUORUM_MIN, TRUST_SOURCES_MAX } from '@kernel/policy-trust';
import { useEffect, useState } from 'preact/hooks';
import type { Call, Policy, Schemas } from './api';
import { type Draft, sameSources, type Trust, trustOf } from './preview';
import {
  apiFieldError,
  errorMessage,
  Field,
  type Message,
  Notice,
  type ScopeKnowledge,
  TableScroll,
  useBusy,
  useOnChange,
} from './ui';

/**
 * Trust in other publishers' global bans, in the Policy view: whose global bans apply
 * (`global_sources`: all, only some, all but some) and how many distinct trusted publishers must
 * hold one of a type before any applies (`global_quorum`), the same pair for the reputation (one
 * choice when it is the same, the common case), the directory of publishers that make global bans
 * to choose from (`GET /v1/publishers`), and the publisher's own name in it (`PUT /v1/publisher`).
 * The settings are part of the policy's draft: saved, discarded and previewed with the flags.
 */

export type DirectoryEntry = Schemas['DirectoryEntry'];

/** Pages of the directory read at most (200 each). */
const DIRECTORY_PAGES = 10;

/** Every publisher of the directory, page by page; `complete` false when there were more. */
export const useDirectory = (call: Call) => {
  const [entries, setEntries] = useState<DirectoryEntry[] | null>(null);
  const [complete, setComplete] = useState(true);
  const [message, setMessage] = useState<Message>(null);
  const { busy, run } = useBusy();
  const read = () =>
    run(async () => {
      const found: DirectoryEntry[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < DIRECTORY_PAGES; page++) {
        const answer = await call('get', '/v1/publishers', {
          query: { limit: 200, ...(cursor === undefined ? {} : { cursor }) },
        });
        if (answer.status !== 200) {
          const failed = errorMessage(answer);
          setMessage(
            failed && { ...failed, text: `The directory of publishers could not be read. ${failed.text}` },
          );
          return;
        }
        found.push(...answer.body.items);
        if (answer.body.next_cursor === null) {
          setMessage(null);
          setEntries(found);
          setComplete(true);
          return;
        }
        cursor = answer.body.next_cursor;
      }
      setMessage(null);
      setEntries(found);
      setComplete(false);
    });
  useEffect(() => {
    void read();
  }, []);
  return { entries, complete, message, busy, read };
};

type Pair = {
  sources: 'global_sources' | 'rep_global_sources';
  quorum: 'global_quorum' | 'rep_global_quorum';
};
const ENFORCEMENT: Pair = { sources: 'global_sources', quorum: 'global_quorum' };
const REPUTATION: Pair = { sources: 'rep_global_sources', quorum: 'rep_global_quorum' };
type Mode = 'all' | 'only' | 'except';

const modeOf = (sources: GlobalSources): Mode =>
  sources === 'all' ? 'all' : 'only' in sources ? 'only' : 'except';
const idsOf = (sources: GlobalSources): readonly string[] =>
  sources === 'all' ? [] : 'only' in sources ? sources.only : sources.except;
const withIds = (mode: Mode, ids: readonly string[]): GlobalSources =>
  mode === 'all' ? 'all' : mode === 'only' ? { only: [...ids] } : { except: [...ids] };

/** Whether the reputation's pair is the enforcement's. */
export const sameForReputation = (trust: Trust): boolean =>
  sameSources(trust.rep_global_sources, trust.global_sources) &&
  trust.rep_global_quorum === trust.global_quorum;

/** A publisher as the directory names it: its own name and always its id (a name proves nothing). */
export const publisherLabel = (id: string, entries: readonly DirectoryEntry[] | null): string => {
  const name = entries?.find((e) => e.publisher_id === id)?.display_name;
  return name ? `${name} (${id})` : id;
};

const MODES: Array<[Mode, string]> = [
  ['all', 'All publishers'],
  ['only', 'Only these publishers (chosen below)'],
  ['except', 'All except these publishers (chosen below)'],
];

/** One pair of settings: whose global bans, and how many publishers must agree. */
const SourcesFields = ({
  id,
  legend,
  pair,
  draft,
  saved,
  disabled,
  onTrust,
  message,
}: {
  id: string;
  legend: string;
  pair: Pair;
  draft: Trust;
  saved: Trust;
  disabled: boolean;
  onTrust: (change: Partial<Trust>) => void;
  message: Message;
}) => {
  const mode = modeOf(draft[pair.sources]);
  const ids = idsOf(draft[pair.sources]);
  const sourcesError = apiFieldError(message, pair.sources);
  const quorumError = apiFieldError(message, pair.quorum);
  const tooMany =
    ids.length > TRUST_SOURCES_MAX ? `At most ${TRUST_SOURCES_MAX} publishers (${ids.length} chosen).` : '';
  return (
    <fieldset>
      <legend>{legend}</legend>
      {MODES.map(([value, label]) => (
        <div class="check" key={value}>
          <input
            type="radio"
            id={`${id}-${value}`}
            name={`${id}-mode`}
            checked={mode === value}
            disabled={disabled}
            onChange={() =>
              // Back to the saved choice: its list again; another: an empty list to fill.
              onTrust({
                [pair.sources]:
                  modeOf(saved[pair.sources]) === value ? saved[pair.sources] : withIds(value, []),
              })
            }
          />
          <label for={`${id}-${value}`}>{label}</label>
        </div>
      ))}
      <p class="hint" id={`${id}-list`}>
        {mode === 'all'
          ? 'Every publisher’s global bans are taken.'
          : `${mode === 'only' ? 'Trusted' : 'Left out'}: ${ids.length ? ids.join(', ') : 'none chosen yet'}. Your own global bans always apply.`}
      </p>
      {(tooMany || sourcesError) && (
        <small class="field-error">
          {tooMany} {sourcesError}
        </small>
      )}
      <div class="field">
        <label for={`${id}-quorum`}>Publishers needed</label>
        <select
          id={`${id}-quorum`}
          value={String(draft[pair.quorum])}
          disabled={disabled}
          aria-describedby={`${id}-quorum-help${quorumError ? ` ${id}-quorum-error` : ''}`}
          onChange={(e) => onTrust({ [pair.quorum]: Number((e.currentTarget as HTMLSelectElement).value) })}
        >
          {Array.from({ length: QUORUM_MAX - QUORUM_MIN + 1 }, (_, i) => i + QUORUM_MIN).map((n) => (
            <option key={n} value={String(n)}>
              {n}
            </option>
          ))}
        </select>
        <small class="hint" id={`${id}-quorum-help`}>
          A global ban of a type applies only while at least this many distinct trusted publishers hold one of
          that type on the device (1: any one). Your own global ban always counts alone.
          {draft[pair.quorum] !== saved[pair.quorum] ? ` (unsaved: ${draft[pair.quorum]})` : ''}
        </small>
        {quorumError && (
          <small class="field-error" id={`${id}-quorum-error`}>
            {quorumError}
          </small>
        )}
      </div>
    </fieldset>
  );
};

const share = (entry: DirectoryEntry) =>
  entry.revoked_within_30_days_share === null
    ? 'none of its bans is 30 days old yet'
    : `${Math.round(entry.revoked_within_30_days_share * 100)}% of ${entry.global_bans_past_30_days} past their 30 days`;

/** One row's cell for one pair: you, all trusted, or a box choosing it into the pair's list. */
const TrustCell = ({
  id,
  publisher,
  label,
  you,
  pair,
  draft,
  disabled,
  onTrust,
}: {
  id: string;
  publisher: string;
  label: string;
  you: Policy;
  pair: Pair;
  draft: Trust;
  disabled: boolean;
  onTrust: (change: Partial<Trust>) => void;
}) => {
  if (publisher === you.publisher_id) return <td>you, always trusted</td>;
  const sources = draft[pair.sources];
  const trusted = trusts(you, sources, publisher);
  const mode = modeOf(sources);
  if (mode === 'all') return <td>trusted (all publishers)</td>;
  const ids = idsOf(sources);
  const box = `${id}-${publisher}`;
  return (
    <td>
      <div class="check">
        <input
          type="checkbox"
          id={box}
          checked={ids.includes(publisher)}
          disabled={disabled}
          aria-describedby={`${box}-state`}
          onChange={(e) => {
            const on = (e.currentTarget as HTMLInputElement).checked;
            onTrust({
              [pair.sources]: withIds(mode, on ? [...ids, publisher] : ids.filter((p) => p !== publisher)),
            });
          }}
        />
        <label for={box}>
          {mode === 'only' ? 'Trust' : 'Leave out'} {label}
        </label>
      </div>
      <span id={`${box}-state`} class="hint">
        {trusted ? 'trusted' : 'not trusted'}
      </span>
    </td>
  );
};

interface TrustProps {
  saved: Policy;
  draft: Draft;
  onDraft: (draft: Draft) => void;
  readOnly: boolean;
  directory: ReturnType<typeof useDirectory>;
  /** The last save's refusal: its field issues go under the fields they name. */
  message: Message;
}

/** The trust settings of the policy's draft, with the directory to choose publishers from. */
export const TrustSettings = ({ saved, draft, onDraft, readOnly, directory, message }: TrustProps) => {
  const savedTrust = trustOf(saved);
  // The common case is one choice: the reputation takes what enforcement takes.
  const [same, setSame] = useState(() => sameForReputation(draft));
  const set = (change: Partial<Trust>) => {
    const next = { ...draft, ...change };
    if (same) {
      next.rep_global_sources = next.global_sources;
      next.rep_global_quorum = next.global_quorum;
    }
    onDraft(next);
  };
  // A draft discarded or saved back to separate pairs shows them separately.
  useEffect(() => {
    if (!sameForReputation(draft)) setSame(false);
  }, [draft]);

  const you = saved.publisher_id;
  const entries = directory.entries;
  const listed = new Set([you, ...(entries ?? []).map((e) => e.publisher_id)]);
  // Chosen ids the directory does not list (no global ban now, or not read): still shown, to remove.
  const extra = [
    ...new Set([
      ...idsOf(draft.global_sources),
      ...idsOf(draft.rep_global_sources),
      ...idsOf(savedTrust.global_sources),
      ...idsOf(savedTrust.rep_global_sources),
    ]),
  ].filter((id) => !listed.has(id));
  const rows = [you, ...(entries ?? []).map((e) => e.publisher_id).filter((id) => id !== you), ...extra];
  const pairs: Array<[string, string, Pair]> = same
    ? [['trust-enf', 'Global bans', ENFORCEMENT]]
    : [
        ['trust-enf', 'Enforcement', ENFORCEMENT],
        ['trust-rep', 'Reputation', REPUTATION],
      ];

  return (
    <section aria-labelledby="trust-heading">
      <h3 id="trust-heading">Global bans from other publishers</h3>
      <p class="hint">
        A global ban made by another publisher restricts a device in your games when your flags enforce its
        type, its publisher is among those you trust, and enough trusted publishers hold one of that type on
        the device. Your own global bans always apply.
      </p>
      <SourcesFields
        id="trust-enf"
        legend={same ? 'Whose global bans apply and count' : 'Enforcement: whose global bans apply'}
        pair={ENFORCEMENT}
        draft={draft}
        saved={savedTrust}
        disabled={readOnly}
        onTrust={set}
        message={message}
      />
      <div class="check">
        <input
          type="checkbox"
          id="trust-same"
          checked={same}
          disabled={readOnly}
          aria-describedby="trust-same-help"
          onChange={(e) => {
            const on = (e.currentTarget as HTMLInputElement).checked;
            setSame(on);
            if (on)
              onDraft({
                ...draft,
                rep_global_sources: draft.global_sources,
                rep_global_quorum: draft.global_quorum,
              });
          }}
        />
        <div>
          <label for="trust-same">The same settings for the reputation</label>
          <div id="trust-same-help" class="hint">
            Unticked: the reputation score counts global bans by settings of its own.
          </div>
        </div>
      </div>
      {!same && (
        <SourcesFields
          id="trust-rep"
          legend="Reputation: whose global bans count"
          pair={REPUTATION}
          draft={draft}
          saved={savedTrust}
          disabled={readOnly}
          onTrust={set}
          message={message}
        />
      )}
      <TableScroll label="Publishers that make global bans">
        <table>
          <caption>
            Publishers that make global bans{entries ? `: ${entries.length}` : ''}
            {directory.complete ? '' : ` (the first ${entries?.length ?? 0} only)`}
          </caption>
          <thead>
            <tr>
              <th scope="col">Publisher</th>
              <th scope="col">Active global bans</th>
              <th scope="col">Revoked within 30 days</th>
              {pairs.map(([id, heading]) => (
                <th scope="col" key={id}>
                  {heading}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((publisher) => {
              const entry = entries?.find((e) => e.publisher_id === publisher);
              const label = publisherLabel(publisher, entries);
              return (
                <tr key={publisher}>
                  <th scope="row">{label}</th>
                  <td>{entry ? entry.active_global_bans : '—'}</td>
                  <td>
                    {entry
                      ? share(entry)
                      : publisher === you
                        ? 'you have made no global ban'
                        : 'not in the directory: no global ban made'}
                  </td>
                  {pairs.map(([id, , pair]) => (
                    <TrustCell
                      key={id}
                      id={id}
                      publisher={publisher}
                      label={label}
                      you={saved}
                      pair={pair}
                      draft={draft}
                      disabled={readOnly}
                      onTrust={set}
                    />
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableScroll>
      {directory.message && (
        <>
          <Notice message={directory.message} />
          <button
            type="button"
            class="secondary"
            disabled={directory.busy}
            onClick={() => void directory.read()}
          >
            Read the directory again
          </button>
        </>
      )}
    </section>
  );
};

const displayName = new RegExp(DISPLAY_NAME_PATTERN, 'u');

/** The API's rule for a display name (kernel/display-name.ts), in its words. */
export const checkDisplayName = (name: string): string | undefined =>
  [...name].length < 1 || [...name].length > DISPLAY_NAME_MAX
    ? `must be 1-${DISPLAY_NAME_MAX} characters`
    : displayName.test(name)
      ? undefined
      : DISPLAY_NAME_RULE;

/** The publisher's own name in the directory: what others see beside its global bans. */
export const PublisherName = ({
  call,
  knowledge,
  publisherId,
  directory,
}: {
  call: Call;
  knowledge: ScopeKnowledge;
  publisherId: string;
  directory: ReturnType<typeof useDirectory>;
}) => {
  const current = directory.entries?.find((e) => e.publisher_id === publisherId)?.display_name ?? null;
  const [name, setName] = useState(current ?? '');
  const [error, setError] = useState<string | undefined>();
  const [message, setMessage] = useState<Message>(null);
  const { busy, run } = useBusy();
  useOnChange(current, (saved) => {
    if (saved !== null) setName(saved);
  });

  const writeMissing = knowledge['policy:write'].held === false;
  const save = (e: Event) => {
    e.preventDefault();
    const problem = checkDisplayName(name);
    setError(problem);
    if (problem) {
      setMessage({ kind: 'error', text: `Display name ${problem}.` });
      return;
    }
    void run(async () => {
      const answer = await call('put', '/v1/publisher', { body: { display_name: name } });
      if (answer.status !== 200) {
        setMessage(errorMessage(answer));
        return;
      }
      setMessage({ kind: 'ok', text: `Your name in the directory is now “${answer.body.display_name}”.` });
      void directory.read();
    });
  };

  return (
    <section aria-labelledby="publisher-name-heading" class="panel">
      <h3 id="publisher-name-heading">Your name in the directory</h3>
      <p>
        {current === null
          ? `Other publishers see ${publisherId} beside your global bans, with no name (none is set, or you have made no global ban yet).`
          : `Other publishers see “${current}” (${publisherId}) beside your global bans.`}
      </p>
      {writeMissing ? (
        <p class="gate">
          Naming your publisher needs the scope <code>policy:write</code>, which this session lacks (
          {knowledge['policy:write'].note}).
        </p>
      ) : (
        <form onSubmit={save} noValidate>
          <Field
            id="publisher-name"
            label="Display name"
            value={name}
            onValue={setName}
            hint={`Up to ${DISPLAY_NAME_MAX} characters of plain text, shown exactly as typed.`}
            error={error ? `Display name ${error}` : apiFieldError(message, 'display_name')}
          />
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Save name'}
          </button>
        </form>
      )}
      <Notice message={message} />
    </section>
  );
};
