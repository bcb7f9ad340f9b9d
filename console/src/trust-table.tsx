import { trusts } from '@kernel/policy-rules';
import type { Policy } from './api';
import { DataTable } from './data-table';
import type { Trust } from './preview';
import { type Directory, type DirectoryEntry, publisherLabel } from './trust-directory';
import { idsOf, modeOf, type Pair, withIds } from './trust-sources';

/**
 * The trust settings' table of publishers that make global bans: you first, then the directory,
 * then any chosen publisher it does not list; for each pair, whether each is trusted as drafted.
 */

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

export const DirectoryTable = ({
  saved,
  savedTrust,
  draft,
  pairs,
  directory,
  disabled,
  onTrust,
}: {
  saved: Policy;
  savedTrust: Trust;
  draft: Trust;
  /** The pairs shown, each a column: its id, its heading, the pair. */
  pairs: Array<[string, string, Pair]>;
  directory: Directory;
  disabled: boolean;
  onTrust: (change: Partial<Trust>) => void;
}) => {
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
  return (
    <DataTable
      label="Publishers that make global bans"
      caption={
        <>
          Publishers that make global bans{entries ? `: ${entries.length}` : ''}
          {directory.complete ? '' : ` (the first ${entries?.length ?? 0} only)`}
        </>
      }
      columns={[
        'Publisher',
        'Active global bans',
        'Revoked within 30 days',
        ...pairs.map(([, heading]) => heading),
      ]}
    >
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
                disabled={disabled}
                onTrust={onTrust}
              />
            ))}
          </tr>
        );
      })}
    </DataTable>
  );
};
