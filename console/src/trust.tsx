import { useEffect, useState } from 'preact/hooks';
import type { Policy } from './api';
import { type Draft, sameSources, type Trust, trustOf } from './preview';
import type { Directory } from './trust-directory';
import { ENFORCEMENT, type Pair, REPUTATION, SourcesFields } from './trust-sources';
import { DirectoryTable } from './trust-table';
import { Notice } from './ui';

/**
 * Trust in other publishers' global bans, in the Policy view: whose global bans apply
 * (`global_sources`: all, only some, all but some) and how many distinct trusted publishers must
 * hold one of a type before any applies (`global_quorum`), the same pair for the reputation (one
 * choice when it is the same, the common case), and the directory of publishers that make global
 * bans to choose from (trust-directory.ts). The settings are part of the policy's draft: saved,
 * discarded and previewed with the flags.
 */

/** Whether the reputation's pair is the enforcement's. */
export const sameForReputation = (trust: Trust): boolean =>
  sameSources(trust.rep_global_sources, trust.global_sources) &&
  trust.rep_global_quorum === trust.global_quorum;

interface TrustProps {
  saved: Policy;
  draft: Draft;
  /** A change of the draft's trust settings. */
  onTrust: (change: Partial<Trust>) => void;
  readOnly: boolean;
  directory: Directory;
  /** The last save's refusal's issue with a field, shown under it. */
  error: (field: string) => string | undefined;
}

/** The trust settings of the policy's draft, with the directory to choose publishers from. */
export const TrustSettings = ({ saved, draft, onTrust, readOnly, directory, error }: TrustProps) => {
  const savedTrust = trustOf(saved);
  // The common case is one choice: the reputation takes what enforcement takes.
  const [same, setSame] = useState(() => sameForReputation(draft));
  const set = (change: Partial<Trust>) => {
    const next = { ...draft, ...change };
    onTrust(
      same
        ? { ...change, rep_global_sources: next.global_sources, rep_global_quorum: next.global_quorum }
        : change,
    );
  };
  // A draft discarded or saved back to separate pairs shows them separately.
  useEffect(() => {
    if (!sameForReputation(draft)) setSame(false);
  }, [draft]);

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
        error={error}
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
              onTrust({ rep_global_sources: draft.global_sources, rep_global_quorum: draft.global_quorum });
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
          error={error}
        />
      )}
      <DirectoryTable
        saved={saved}
        savedTrust={savedTrust}
        draft={draft}
        pairs={pairs}
        directory={directory}
        disabled={readOnly}
        onTrust={set}
      />
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
