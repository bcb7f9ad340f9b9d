import { type GlobalSources, QUORUM_MAX, QUORUM_MIN, TRUST_SOURCES_MAX } from '@kernel/policy-trust';
import type { Trust } from './preview';

/**
 * One pair of the trust settings (enforcement's, or the reputation's): whose global bans, as a
 * mode (all, only some, all but some) and the publishers chosen, and how many must agree.
 */

export type Pair = {
  sources: 'global_sources' | 'rep_global_sources';
  quorum: 'global_quorum' | 'rep_global_quorum';
};
export const ENFORCEMENT: Pair = { sources: 'global_sources', quorum: 'global_quorum' };
export const REPUTATION: Pair = { sources: 'rep_global_sources', quorum: 'rep_global_quorum' };
type Mode = 'all' | 'only' | 'except';

export const modeOf = (sources: GlobalSources): Mode =>
  sources === 'all' ? 'all' : 'only' in sources ? 'only' : 'except';
export const idsOf = (sources: GlobalSources): readonly string[] =>
  sources === 'all' ? [] : 'only' in sources ? sources.only : sources.except;
export const withIds = (mode: Mode, ids: readonly string[]): GlobalSources =>
  mode === 'all' ? 'all' : mode === 'only' ? { only: [...ids] } : { except: [...ids] };

const MODES: Array<[Mode, string]> = [
  ['all', 'All publishers'],
  ['only', 'Only these publishers (chosen below)'],
  ['except', 'All except these publishers (chosen below)'],
];

/** One pair of settings: whose global bans, and how many publishers must agree. */
export const SourcesFields = ({
  id,
  legend,
  pair,
  draft,
  saved,
  disabled,
  onTrust,
  error,
}: {
  id: string;
  legend: string;
  pair: Pair;
  draft: Trust;
  saved: Trust;
  disabled: boolean;
  onTrust: (change: Partial<Trust>) => void;
  /** The API's issue with a field, from the last save's refusal. */
  error: (field: string) => string | undefined;
}) => {
  const mode = modeOf(draft[pair.sources]);
  const ids = idsOf(draft[pair.sources]);
  const sourcesError = error(pair.sources);
  const quorumError = error(pair.quorum);
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
